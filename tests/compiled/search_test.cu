// cupar tests: vectorised binary search with C++ comparators (the conformance suite, plus what
// only callables have: an extended __device__ lambda without a trailing return type).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#include "../conformance/search_suite.hpp"

namespace cupar::testing {
namespace {

void by_absolute_value(const int* sorted, std::size_t n, const int* needles, std::size_t m,
                       std::uint32_t* lower, std::uint32_t* upper, cupar::stream_ref s) {
  const auto abs_less = [] __device__(int a, int b) { return (a < 0 ? -a : a) < (b < 0 ? -b : b); };
  cupar::lower_bound(sorted, n, needles, m, lower, abs_less, s);
  cupar::upper_bound(sorted, n, needles, m, upper, abs_less, s);
}

TEST(SearchCompiled, PlainLambda) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::vector<int> sorted = {0, -1, 1, -2, 2, 2, -5, 7};  // by |x|
  const std::vector<int> needles = {-2, 3, 0, -7, 8};
  device_buffer<int> d_sorted(sorted, stream), d_needles(needles, stream);
  device_buffer<std::uint32_t> lower(needles.size(), stream), upper(needles.size(), stream);
  by_absolute_value(d_sorted.data(), sorted.size(), d_needles.data(), needles.size(), lower.data(),
                    upper.data(), stream);
  EXPECT_EQ(lower.to_host(), (std::vector<std::uint32_t>{3, 6, 0, 7, 8}));
  EXPECT_EQ(upper.to_host(), (std::vector<std::uint32_t>{6, 6, 1, 8, 8}));
}

}  // namespace
}  // namespace cupar::testing
