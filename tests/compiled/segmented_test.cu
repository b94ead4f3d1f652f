// cupar tests: segmented families with C++ callables (the conformance suite for the signed integer
// types and the untyped tests, plus what only callables have: extended __device__ lambdas without
// a trailing return type). The other types are in segmented_unsigned_test.cu and
// segmented_float_test.cu (split to build in parallel).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#include "../conformance/segmented_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas as users write them (in free functions: nvcc does not allow them
// in a test's private body).
void sums_and_scans(const int* in, int* sums, int* inclusive, int* exclusive, std::size_t n,
                    std::size_t segments, const std::int64_t* b, const std::int64_t* e,
                    cupar::stream_ref s) {
  cupar::segmented_reduce(
      in, sums, n, segments, b, e, [] __device__(int x, int y) { return x + y; }, 0, s);
  cupar::segmented_inclusive_scan(
      in, inclusive, n, segments, b, e, [] __device__(int x, int y) { return x + y; }, s);
  cupar::segmented_exclusive_scan(
      in, exclusive, n, segments, b, e, [] __device__(int x, int y) { return x + y; }, 100, s);
}

TEST(SegmentedCompiled, PlainLambdas) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const auto s = seg_ref::with_gaps(100003, 500, 1);
  const auto h = random_values<int>(s.n, 2, -50, 50);
  device_buffer<int> in(h, stream), sums(s.count(), stream), inc(s.n, stream), exc(s.n, stream);
  seg_ref::device_segments d(s, stream);
  inc.fill_bytes(0);
  exc.fill_bytes(0);
  sums_and_scans(in.data(), sums.data(), inc.data(), exc.data(), s.n, s.count(), d.begin.data(),
                 d.end.data(), stream);
  const auto plus = [](int x, int y) { return x + y; };
  EXPECT_EQ(sums.to_host(), seg_ref::reduce(h, s, plus, 0));
  std::vector<int> want(s.n, 0);
  seg_ref::inclusive(h, s, plus, want);
  EXPECT_EQ(inc.to_host(), want);
  want.assign(s.n, 0);
  seg_ref::exclusive(h, s, plus, 100, want);
  EXPECT_EQ(exc.to_host(), want);
}

}  // namespace
}  // namespace cupar::testing
