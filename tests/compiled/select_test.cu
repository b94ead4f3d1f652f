// cupar tests: stream compaction and partitioning with C++ callables (the conformance suite for
// the signed integer types and the untyped tests, plus what only callables have). The other types
// are in select_unsigned_test.cu and select_float_test.cu (split to build in parallel).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#include "../conformance/select_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas, as users write them: no trailing return type (defined in free
// functions: nvcc does not allow them in a test's private body).
std::size_t multiples_of_3(const int* in, int* out, std::size_t n, cupar::stream_ref s) {
  return cupar::select_if_count(
      in, out, n, [] __device__(int x) { return x % 3 == 0; }, s);
}
cupar::partition_counts far_from_zero(const int* in, int* first, int* second, int* rest,
                                      std::size_t n, cupar::stream_ref s) {
  return cupar::three_way_partition_counts(
      in, first, second, rest, n, [] __device__(int x) { return x < -10; },
      [] __device__(int x) { return x > 10; }, s);
}
std::size_t same_tens(const int* in, int* out, std::size_t n, cupar::stream_ref s) {
  return cupar::unique_count(
      in, out, n, [] __device__(int a, int b) { return a / 10 == b / 10; }, s);
}

TEST(SelectCompiled, PlainLambdas) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = random_values<int>(n, 1, -50, 50);
  device_buffer<int> in(h, stream), out(n, stream), first(n, stream), second(n, stream),
      rest(n, stream);
  const std::size_t c = multiples_of_3(in.data(), out.data(), n, stream);
  std::vector<int> want;
  std::copy_if(h.begin(), h.end(), std::back_inserter(want), [](int x) { return x % 3 == 0; });
  ASSERT_EQ(c, want.size());
  EXPECT_EQ(out.to_host(c), want);
  const auto pc = far_from_zero(in.data(), first.data(), second.data(), rest.data(), n, stream);
  std::size_t w1 = 0, w2 = 0;
  for (int x : h) {
    w1 += x < -10;
    w2 += x >= -10 && x > 10;
  }
  EXPECT_EQ(pc.first, w1);
  EXPECT_EQ(pc.second, w2);
  // unique with an equality on the tens digit.
  device_buffer<int> tens(std::vector<int>{1, 5, 12, 18, 19, 23, 3, 4}, stream);
  EXPECT_EQ(same_tens(tens.data(), out.data(), 8, stream), 4u);
  EXPECT_EQ(out.to_host(4), (std::vector<int>{1, 12, 23, 3}));
}

}  // namespace
}  // namespace cupar::testing
