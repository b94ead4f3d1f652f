// cupar tests: a group-by accumulator (count, sum, min, max), the 16-byte struct value type of a
// reduce_by_key "group by" (issue 9), and its CPU semantics.
#pragma once

#include <cstdint>
#include <ostream>

namespace cupar::testing {

struct group_stats {
  std::uint32_t count;
  float sum, min, max;
  friend bool operator==(const group_stats& x, const group_stats& y) {
    return x.count == y.count && x.sum == y.sum && x.min == y.min && x.max == y.max;
  }
  friend std::ostream& operator<<(std::ostream& os, const group_stats& s) {
    return os << "{" << s.count << ", " << s.sum << ", " << s.min << ", " << s.max << "}";
  }
};

/// The statistics of one value.
inline group_stats group_stats_of(float x) {
  return {1u, x, x, x};
}

#if defined(__CUDACC__)
#define CUPAR_GROUP_STATS_HD __host__ __device__
#else
#define CUPAR_GROUP_STATS_HD
#endif

CUPAR_GROUP_STATS_HD inline group_stats group_stats_merge(const group_stats& a,
                                                          const group_stats& b) {
  return {a.count + b.count, a.sum + b.sum, b.min < a.min ? b.min : a.min,
          a.max < b.max ? b.max : a.max};
}

#undef CUPAR_GROUP_STATS_HD

}  // namespace cupar::testing
