// cupar tests: reduce with C++ callables (the conformance suite for the signed integer types and
// the untyped tests, plus what only callables have). The other types are in
// reduce_unsigned_test.cu and reduce_float_test.cu, the cuda::std operators on every width in
// reduce_cuda_std_test.cu (split so that the units build in parallel).
#include "ops.cuh"

#include <cupar/cupar.cuh>

#include <cmath>
#include <string>
#include <typeinfo>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#include "../conformance/reduce_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas without a trailing return type: CUB alone rejects them with a
// static_assert because it asks the result type in host code; cupar supplies it.
template <class T>
T sum_with_plain_lambda(const T* d_in, std::size_t n, cudaStream_t s) {
  return cupar::reduce_value(
      d_in, n, [] __device__(T a, T b) { return a + b; }, T(0), s);
}

template <class T>
void max_with_plain_lambda(const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  cupar::reduce(
      d_in, d_out, n, [] __device__(T a, T b) { return a < b ? b : a; },
      std::numeric_limits<T>::lowest(), s);
}

TEST(ReduceCompiled, LambdaWithoutTrailingReturnType) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100000;
  const auto h = random_values<float>(n, 1, -1, 1);
  device_buffer<float> in(h, stream), out(1, stream);
  long double ref = 0;
  for (float x : h)
    ref += x;
  EXPECT_NEAR(sum_with_plain_lambda(in.data(), n, stream.get()), static_cast<double>(ref), 1e-3);
  max_with_plain_lambda(in.data(), out.data(), n, stream.get());
  EXPECT_EQ(out.to_host()[0], *std::max_element(h.begin(), h.end()));
  // Small integers: `a + b` is int, converted back to the element type.
  const std::vector<std::int8_t> small = {1, 2, 3, 4};
  device_buffer<std::int8_t> in8(small, stream);
  EXPECT_EQ(sum_with_plain_lambda(in8.data(), small.size(), stream.get()), std::int8_t(10));
}

struct clamp_add {  // a functor with state (not associative in general; fine for these inputs)
  int cap;
  __device__ int operator()(int a, int b) const {
    const int s = a + b;
    return s > cap ? cap : s;
  }
};

TEST(ReduceCompiled, CudaStdFunctionObjectsAndStatefulFunctors) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::vector<int> h = {5, -2, 9, 4};
  device_buffer<int> in(h, stream);
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), ::cuda::std::plus<int>{}, 0, stream), 16);
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), ::cuda::maximum<int>{}, INT_MIN, stream), 9);
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), clamp_add{10}, 0, stream), 10);
}

}  // namespace
}  // namespace cupar::testing
