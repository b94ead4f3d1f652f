// cupar tests: scans with C++ callables (the conformance suite, plus what only callables have).
#include "ops.cuh"

#include <cupar/cupar.cuh>

#include <climits>

namespace cupar::testing {
using Ops = compiled_ops;
}
#include "../conformance/scan_suite.hpp"

#include <cuda/functional>

namespace cupar::testing {
namespace {

// Extended __device__ lambdas without a trailing return type (CUB alone rejects them).
template <class T>
void inclusive_sum_with_plain_lambda(const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  cupar::inclusive_scan(
      d_in, d_out, n, [] __device__(T a, T b) { return a + b; }, s);
}

template <class T>
void exclusive_max_with_plain_lambda(const T* d_in, T* d_out, std::size_t n, T init,
                                     cudaStream_t s) {
  cupar::exclusive_scan(
      d_in, d_out, n, [] __device__(T a, T b) { return a < b ? b : a; }, init, s);
}

// A capturing lambda: sums modulo 2^bits (associative, so a valid scan operator).
template <class T>
void masked_sum_with_capture(const T* d_in, T* d_out, std::size_t n, T mask, cudaStream_t s) {
  cupar::inclusive_scan(
      d_in, d_out, n, [mask] __device__(T a, T b) { return (a + b) & mask; }, s);
}

TEST(ScanCompiled, LambdaWithoutTrailingReturnType) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = random_values<int>(n, 1, -1000, 1000);
  device_buffer<int> in(h, stream), out(n, stream);
  out.fill_bytes(0xAB);
  inclusive_sum_with_plain_lambda(in.data(), out.data(), n, stream.get());
  EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::inclusive(h, &wrapping_add<int>)));
  out.fill_bytes(0xAB);
  exclusive_max_with_plain_lambda(in.data(), out.data(), n, -5000, stream.get());
  EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::exclusive(h, &scan_ref::max_of<int>, -5000)));
  // Small integers: `a + b` is int, converted back to the element type (wrapping).
  const auto small = full_range_values<std::int8_t>(5000, 2);
  device_buffer<std::int8_t> in8(small, stream), out8(small.size(), stream);
  inclusive_sum_with_plain_lambda(in8.data(), out8.data(), small.size(), stream.get());
  EXPECT_TRUE(
      bitwise_equal(out8.to_host(), scan_ref::inclusive(small, &wrapping_add<std::int8_t>)));
  // In place.
  inclusive_sum_with_plain_lambda(in.data(), in.data(), n, stream.get());
  EXPECT_TRUE(bitwise_equal(in.to_host(), scan_ref::inclusive(h, &wrapping_add<int>)));
}

TEST(ScanCompiled, CapturingLambda) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 70001;
  const auto h = full_range_values<std::uint32_t>(n, 3);
  const std::uint32_t mask = 0xFFFFFu;
  device_buffer<std::uint32_t> in(h, stream), out(n, stream);
  masked_sum_with_capture(in.data(), out.data(), n, mask, stream.get());
  EXPECT_TRUE(bitwise_equal(
      out.to_host(),
      scan_ref::inclusive(h, [mask](std::uint32_t a, std::uint32_t b) { return (a + b) & mask; })));
}

TEST(ScanCompiled, CudaStdFunctionObjects) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 9000;
  const auto h = full_range_values<std::int64_t>(n, 4);
  device_buffer<std::int64_t> in(h, stream), out(n, stream);
  cupar::inclusive_scan(in.data(), out.data(), n, ::cuda::maximum<std::int64_t>{}, stream);
  EXPECT_TRUE(
      bitwise_equal(out.to_host(), scan_ref::inclusive(h, &scan_ref::max_of<std::int64_t>)));
  const auto u = full_range_values<std::uint64_t>(n, 5);
  device_buffer<std::uint64_t> uin(u, stream), uout(n, stream);
  cupar::exclusive_scan(uin.data(), uout.data(), n, ::cuda::std::plus<std::uint64_t>{},
                        std::uint64_t(9), stream);
  EXPECT_TRUE(bitwise_equal(
      uout.to_host(), scan_ref::exclusive(u, &wrapping_add<std::uint64_t>, std::uint64_t(9))));
}

// cuda::std::plus<T> / cuda::maximum<T> reach CUB's scan as plus<> / maximum<> where T does not
// promote (detail::transparent_op): results exact for integers, and for floats the same as with
// the C++-callable path's own plus (checked by the conformance suite's tolerance).
TEST(ScanCompiled, CudaStdPlusAndMaximumOnIntAndUnsigned) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097),
                        scaled(std::size_t(1) << 20), scaled((std::size_t(1) << 22) + 5)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = full_range_values<int>(n, 21);
    device_buffer<int> in(h, stream), out(n, stream);
    cupar::inclusive_scan(in.data(), out.data(), n, ::cuda::std::plus<int>{}, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::inclusive(h, &wrapping_add<int>)));
    cupar::exclusive_scan(in.data(), in.data(), n, ::cuda::maximum<int>{}, INT_MIN, stream);
    EXPECT_TRUE(
        bitwise_equal(in.to_host(), scan_ref::exclusive(h, &scan_ref::max_of<int>, INT_MIN)));
    const auto u = full_range_values<unsigned>(n, 22);
    device_buffer<unsigned> uin(u, stream), uout(n, stream);
    cupar::exclusive_scan(uin.data(), uout.data(), n, ::cuda::std::plus<unsigned>{}, 7u, stream);
    EXPECT_TRUE(bitwise_equal(uout.to_host(), scan_ref::exclusive(u, &wrapping_add<unsigned>, 7u)));
  }
}

}  // namespace
}  // namespace cupar::testing
