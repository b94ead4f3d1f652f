// cupar tests: the by-key families with C++ callables (the conformance suite's untyped tests,
// plus what only callables have). The typed tests are in by_key_signed_test.cu,
// by_key_unsigned_test.cu and by_key_float_test.cu (split to build in parallel).
#include "ops.cuh"

#include <cupar/cupar.cuh>

#include <cuda/functional>
#include <cuda/std/functional>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPED 0
#include "../conformance/by_key_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas, as users write them (no trailing return type), must be defined in
// a function that is not a private member (a test body is one): these helpers hold them.
std::size_t sum_runs_with_lambdas(const int* k, const float* v, int* ko, float* ao, std::size_t n,
                                  cudaStream_t s) {
  return cupar::reduce_by_key_count(
      k, v, ko, ao, n, [] __device__(float a, float b) { return a + b; },
      [] __device__(int a, int b) { return a == b; }, s);
}
void scan_runs_with_lambda(const int* k, const float* v, float* out, std::size_t n,
                           cudaStream_t s) {
  cupar::inclusive_scan_by_key(
      k, v, out, n, [] __device__(float a, float b) { return a + b; }, s);
}
std::size_t unique_by_tens(const int* k, const int* v, int* ko, int* vo, std::size_t n,
                           cudaStream_t s) {
  return cupar::unique_by_key_count(
      k, v, ko, vo, n, [] __device__(int a, int b) { return a / 10 == b / 10; }, s);
}

// Lambdas, and the cuda::std function objects CUB has faster code for (plus<float> becomes
// plus<>, whose reduce-by-key starts from a zero identity).
TEST(ByKeyCompiled, PlainLambdasAndStandardFunctionObjects) {
  CUPAR_REQUIRE_GPU();
  namespace ref = by_key_ref;
  owned_stream stream;
  const std::size_t n = 100003;
  const auto keys = ref::run_keys<int>(n, 31, 40);
  const auto values = ref::exact_values<float>(n, 32);
  device_buffer<int> k(keys, stream), ko(n, stream);
  device_buffer<float> v(values, stream), ao(n, stream), out(n, stream);
  const auto add = [](float a, float b) { return a + b; };
  const auto want = ref::reduce(keys, values, add, ref::equal<int>);
  ASSERT_EQ(sum_runs_with_lambdas(k.data(), v.data(), ko.data(), ao.data(), n, stream.get()),
            want.keys.size());
  EXPECT_TRUE(bitwise_equal(ao.to_host(want.keys.size()), want.values));
  ao.fill_bytes(0);
  ASSERT_EQ(cupar::reduce_by_key_count(k.data(), v.data(), ko.data(), ao.data(), n,
                                       ::cuda::std::plus<float>{}, stream),
            want.keys.size());
  EXPECT_TRUE(bitwise_equal(ao.to_host(want.keys.size()), want.values));
  scan_runs_with_lambda(k.data(), v.data(), out.data(), n, stream.get());
  EXPECT_TRUE(bitwise_equal(out.to_host(), ref::inclusive(keys, values, add, ref::equal<int>)));
  cupar::exclusive_scan_by_key(k.data(), v.data(), out.data(), n, ::cuda::maximum<float>{}, -1.0f,
                               stream);
  EXPECT_TRUE(bitwise_equal(
      out.to_host(), ref::exclusive(keys, values, ref::max_of<float>, -1.0f, ref::equal<int>)));
  // unique_by_key with an equality on the tens digit.
  device_buffer<int> sorted_in(std::vector<int>{1, 5, 12, 18, 19, 23, 3, 4}, stream),
      positions(std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}, stream), kept(8, stream), at(8, stream);
  EXPECT_EQ(
      unique_by_tens(sorted_in.data(), positions.data(), kept.data(), at.data(), 8, stream.get()),
      4u);
  EXPECT_EQ(kept.to_host(4), (std::vector<int>{1, 12, 23, 3}));
  EXPECT_EQ(at.to_host(4), (std::vector<int>{0, 2, 5, 6}));
}

}  // namespace
}  // namespace cupar::testing
