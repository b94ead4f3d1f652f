// cupar tests: reduce with cuda::std's function objects on every integer width and both
// floating-point types (split from reduce_test.cu to keep each translation unit's build short).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPED 0  // the suite's expect_sum only
#define CUPAR_SUITE_UNTYPED 0
#include "../conformance/reduce_suite.hpp"

#include "../common/counting_resource.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <string>
#include <typeinfo>

namespace cupar::testing {
namespace {

// cuda::std::plus<T>, cuda::minimum<T> and cuda::maximum<T> reach CUB as their transparent forms
// where T does not promote (detail::transparent_op); int8 keeps plus<int8> (a + b promotes).
// Integers: full-range values, sums wrap exactly as the reference's.
template <class T>
void check_cuda_std_reductions(std::size_t n, std::uint64_t seed, cupar::stream_ref s) {
  SCOPED_TRACE(std::string(typeid(T).name()) + ", n = " + std::to_string(n));
  std::vector<T> h;
  if constexpr (std::is_integral_v<T>) {
    h = full_range_values<T>(n, seed);
  } else {
    h = random_values<T>(n, seed, -1, 1);
  }
  device_buffer<T> in(h, s), out(1, s);
  const T lowest = std::numeric_limits<T>::lowest(), highest = std::numeric_limits<T>::max();
  T mn = highest, mx = lowest;
  for (T x : h) {
    mn = std::min(mn, x);
    mx = std::max(mx, x);
  }
  EXPECT_EQ(cupar::reduce_value(in.data(), n, ::cuda::minimum<T>{}, highest, s), mn);
  cupar::reduce(in.data(), out.data(), n, ::cuda::maximum<T>{}, lowest, s);
  EXPECT_EQ(out.to_host()[0], mx);
  expect_sum(cupar::reduce_value(in.data(), n, ::cuda::std::plus<T>{}, T(1), s), h, T(1));
}

TEST(ReduceCompiled, CudaStdPlusMinMaxOnEveryWidth) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(4097),
                        scaled(std::size_t(1) << 20), scaled((std::size_t(1) << 22) + 3)}) {
    check_cuda_std_reductions<int>(n, 11, stream);
    check_cuda_std_reductions<unsigned>(n, 12, stream);
    check_cuda_std_reductions<long long>(n, 13, stream);
    check_cuda_std_reductions<unsigned long long>(n, 14, stream);
    check_cuda_std_reductions<float>(n, 15, stream);
    check_cuda_std_reductions<double>(n, 16, stream);
    check_cuda_std_reductions<std::int8_t>(n, 17, stream);
    check_cuda_std_reductions<std::uint16_t>(n, 18, stream);
  }
}

struct square_of {
  __host__ __device__ double operator()(float x) const { return static_cast<double>(x) * x; }
};

// determinism::not_guaranteed over iterators: a transform of a pointer (the transform applied in
// registers after vector loads) and a counting iterator run the single pass (nothing allocated)
// and match the CPU (the transparent cuda::std::plus<> as well as plus<T>); an output iterator
// that is not a pointer takes the run-to-run reduce.
TEST(ReduceCompiled, NotGuaranteedSumOverIterators) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  device_buffer<double> out(1, stream);
  device_buffer<long long> total(1, stream);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097),
                        scaled((std::size_t(1) << 22) + 3), scaled(std::size_t(1) << 25)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = random_values<float>(n, 31 + n, -2, 2);
    const device_buffer<float> in(h, stream);
    std::vector<double> squares(n);
    for (std::size_t i = 0; i < n; ++i)
      squares[i] = static_cast<double>(h[i]) * h[i];
    cupar::reduce(thrust::make_transform_iterator(in.data(), square_of{}), out.data(), n,
                  ::cuda::std::plus<double>{}, 0.5, cupar::determinism::not_guaranteed, stream, mr);
    expect_sum(out.to_host()[0], squares, 0.5, atomic_sum_terms(n));
    cupar::reduce(thrust::counting_iterator<long long>(0), total.data(), n, ::cuda::std::plus<>{},
                  7LL, cupar::determinism::not_guaranteed, stream, mr);
    const long long m = static_cast<long long>(n);
    EXPECT_EQ(total.to_host()[0], 7 + m * (m - 1) / 2);
    EXPECT_EQ(upstream.allocations(), 0u);
  }
  // Not a pointer out: the run-to-run reduce (it allocates its temporary storage).
  const device_buffer<int> ones(std::vector<int>(5000, 1), stream);
  device_buffer<int> sum(1, stream);
  cupar::reduce(ones.data(),
                thrust::make_transform_output_iterator(sum.data(), ::cuda::std::negate<int>{}),
                5000, ::cuda::std::plus<int>{}, 0, cupar::determinism::not_guaranteed, stream, mr);
  EXPECT_EQ(sum.to_host()[0], -5000);
  EXPECT_GT(upstream.allocations(), 0u);
  EXPECT_EQ(upstream.live_allocations(), 0u);
}

}  // namespace
}  // namespace cupar::testing
