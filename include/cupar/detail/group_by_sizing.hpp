// cupar internal: the host-side decisions of group_by's hash method, shared by the C++ path
// (group_by.cuh) and the run-time path (src/jit/families/group_by.cu): the number of distinct keys
// a HyperLogLog sketch describes, the table's size, the choice of method.
#pragma once

#include <cupar/detail/device_guard.hpp>
#include <cupar/group_by.hpp>

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar::detail {

inline std::size_t next_pow2(std::size_t x) {
  std::size_t p = 1;
  while (p < x)
    p <<= 1;
  return p;
}

/// The number of distinct values a HyperLogLog sketch's registers describe (Flajolet et al.,
/// with the small-range correction).
inline double hll_estimate(const std::vector<unsigned int>& registers) {
  const double m = static_cast<double>(registers.size());
  double sum = 0;
  std::size_t zeros = 0;
  for (unsigned int r : registers) {
    sum += std::ldexp(1.0, -static_cast<int>(r));
    if (r == 0) ++zeros;
  }
  const double alpha = 0.7213 / (1.0 + 1.079 / m);
  const double e = alpha * m * m / sum;
  if (e <= 2.5 * m && zeros != 0) return m * std::log(m / static_cast<double>(zeros));
  return e;
}

/// The most groups group_by_method::automatic aggregates in the hash table for a warp table of
/// `warp_slots` slots: half of it (the second-pass regime), at most group_by_hash_limit.
constexpr std::size_t hash_limit_for(int warp_slots) {
  return static_cast<std::size_t>(warp_slots / 2) < group_by_hash_limit
             ? static_cast<std::size_t>(warp_slots / 2)
             : group_by_hash_limit;
}

/// The slots of the global table for n rows: from max_groups (2 to 4 slots a group) or from the
/// sketch's estimate (2.2 to 4.4), at most room for n keys at half load, at least 1,024.
inline std::size_t hash_capacity(std::size_t n, std::size_t max_groups, double expected_groups) {
  std::size_t capacity = 0;
  if (max_groups != 0) {
    capacity = next_pow2(2 * (max_groups < n ? max_groups : n));
  } else {
    const std::size_t bound = next_pow2(2 * n);  // room for n distinct keys at half load
    capacity = next_pow2(static_cast<std::size_t>(std::ceil(2.2 * expected_groups)) + 1);
    if (capacity > bound) capacity = bound;
  }
  return capacity < 1024 ? 1024 : capacity;
}

/// The slots of a global table that the table method's blocks fill by appending their groups
/// (hash::append_groups; each group once, no hashing): max_groups when given, else the estimate
/// with a quarter to spare for the sketch's error (grown like any table when low), at most n, at
/// least 1,024.
inline std::size_t appended_capacity(std::size_t n, std::size_t max_groups,
                                     double expected_groups) {
  std::size_t capacity =
      max_groups != 0 ? max_groups : static_cast<std::size_t>(std::ceil(1.25 * expected_groups));
  if (capacity > n) capacity = n;
  return capacity < 1024 ? 1024 : capacity;
}

/// The expected number of groups: max_groups when given (at most n), else the sketch's estimate.
inline double expected_groups(std::size_t n, std::size_t max_groups, double estimate) {
  return max_groups != 0 ? static_cast<double>(max_groups < n ? max_groups : n) : estimate;
}

/// The method that serves n rows: group_by_method::automatic's sort route below
/// group_by_sort_below_rows rows where the library sorts the keys (`sorts`: a build without the
/// key's type, CUPAR_LIBRARY_TYPES, keeps the hash routes), decided before the sketch of the keys
/// (which the sort route does not make); otherwise `method` (automatic then chooses by the
/// groups; hash and sort as asked).
constexpr group_by_method method_for_rows(group_by_method method, std::size_t n,
                                          bool sorts = true) {
  return method == group_by_method::automatic && n < group_by_sort_below_rows && sorts
             ? group_by_method::sort
             : method;
}

/// Whether the rows go to the sort route.
inline bool by_sort(group_by_method method, double expected, std::size_t limit) {
  return method == group_by_method::sort ||
         (method == group_by_method::automatic && expected > static_cast<double>(limit));
}

/// Whether the warps' groups go through a second pass (few groups: each warp's table holds them
/// all) instead of thousands of updates on each global slot.
inline bool two_pass(double expected, int warp_slots, int grid) {
  return expected <= warp_slots / 2 && grid > 16;
}

/// After an overflow of a table of `capacity` slots: the next size (4x, at most room for n keys
/// at half load), or 0 when the table had that room already.
inline std::size_t grown_capacity(std::size_t capacity, std::size_t n) {
  const std::size_t bound = next_pow2(2 * n);
  if (capacity >= bound) return 0;
  return capacity * 4 < bound ? capacity * 4 : bound;
}

/// The fewest rows a warp of the hash method's first pass reads for each expected group in the
/// two-pass regime (hash_pass_grid).
inline constexpr double hash_pass_rows_per_group = 16;

/// The first pass's blocks in the two-pass regime, for n rows of `expected` groups in blocks of
/// `warps_per_block` warps: as many as give each warp at least hash_pass_rows_per_group rows a
/// group (warps <= n / (16 * expected)), at least one, at most `resident` (resident_blocks).
/// Each warp appends every group it saw to the partials that the second pass (16 blocks)
/// combines, warps x groups entries: at a resident grid (several blocks of 4 warps on each of an
/// H100's 132 SMs) 2^20 rows of 100 groups made hundreds of thousands of them, a sizeable share
/// of the rows. Capped, the partials stay an order of magnitude below n (at most n / 16: 2^20
/// rows of 100 groups in 163 blocks, 65,200 partials); at 2^24 rows of up to 128 groups the cap
/// (2,048 blocks or more) is above an H100's resident grid, which runs unchanged. Never fewer
/// than `least` blocks (the SMs: one each) where the resident grid has them: a pass of a few
/// blocks leaves the GPU idle (H100, 2026-12-07: 2^12-2^16 rows of 100 groups capped to 1-10
/// blocks ran 1.3x slower than at the resident grid).
inline int hash_pass_grid(std::size_t n, double expected, int warps_per_block, int resident,
                          int least) {
  const double groups = expected > 1 ? expected : 1;
  const double warps = warps_per_block > 0 ? warps_per_block : 1;
  const double blocks =
      std::floor(static_cast<double>(n) / (hash_pass_rows_per_group * groups * warps));
  const int most = resident > 0 ? resident : 1;
  const int fewest = least < 1 ? 1 : (least < most ? least : most);
  if (blocks >= most) return most;
  return blocks < fewest ? fewest : static_cast<int>(blocks);
}

/// The hash method's first pass: its blocks, and whether the warps' groups go to a second pass
/// through `partial_slots` partials (0: each warp adds its groups to the global table).
struct hash_pass {
  int grid = 1;
  bool second_pass = false;
  std::size_t partial_slots = 0;
};

/// The hash method's first pass for n rows of `expected` groups, blocks of `threads` threads whose
/// warps have tables of `warp_slots` slots, `resident` blocks filling the GPU (resident_blocks):
/// the regime decided at the resident grid (two_pass: few groups and more than 16 blocks), then
/// in the two-pass regime the grid capped (hash_pass_grid; the second pass reads the partials'
/// count, so a capped grid of 16 blocks or fewer still works) and the partials sized for the grid
/// launched (a warp's table each); `sms` the GPU's multiprocessors (hash_pass_grid's floor).
inline hash_pass plan_hash_pass(std::size_t n, double expected, int threads, int warp_slots,
                                int resident, int sms) {
  hash_pass pass;
  pass.grid = resident > 0 ? resident : 1;
  pass.second_pass = two_pass(expected, warp_slots, pass.grid);
  if (!pass.second_pass) return pass;
  const int warps = threads / 32 > 0 ? threads / 32 : 1;
  pass.grid = hash_pass_grid(n, expected, warps, pass.grid, sms);
  pass.partial_slots = static_cast<std::size_t>(pass.grid) * static_cast<std::size_t>(warps) *
                       static_cast<std::size_t>(warp_slots);
  return pass;
}

/// The slots of a block's table in shared memory (the table method): the largest power of two
/// whose slots fit in `shared_bytes` (a block's opt-in limit, less 1 KB for the kernel's own), at
/// most 16,384; 0 when not even 1,024 fit.
inline unsigned int block_table_slots(std::size_t slot_bytes, std::size_t shared_bytes) {
  if (slot_bytes == 0 || shared_bytes <= 1024) return 0;
  const std::size_t fit = (shared_bytes - 1024) / slot_bytes;
  unsigned int slots = 1;
  while (slots * 2 <= fit && slots < 16384)
    slots *= 2;
  return slots >= 1024 ? slots : 0;
}

/// The bytes of a block table of `slots` slots of `slot_bytes` (hash::block_table<K, V>'s layout:
/// two extra slots for the keys whose mixed words mark an empty or a claimed slot).
inline std::size_t block_table_bytes(unsigned int slots, std::size_t slot_bytes) {
  return (static_cast<std::size_t>(slots) + 2) * slot_bytes;
}

/// How the table method runs: 2^bits parts (bits 0: the rows as given), blocks_per_part blocks a
/// part.
struct table_plan {
  bool serves = false;
  int bits = 0;
  unsigned int parts = 1;
  unsigned int blocks_per_part = 1;
};

/// The fewest rows a group for which the table method partitions the rows (below, the
/// partition's radix pass costs more than the sort route's passes save).
inline constexpr double table_min_rows_per_group = 3;

/// The table method's plan for n rows of `expected` groups in block tables of `slots` slots,
/// `resident` blocks filling the GPU: no partition while one table holds the groups at 0.6 load;
/// otherwise parts of about half a table's slots each (the parts' unevenness and the sketch's
/// error leave them below 0.6), at most 4,096 parts, filled up to 0.6 on average at 4,096. Not
/// served beyond that, nor below table_min_rows_per_group rows a group when the rows are
/// partitioned.
inline table_plan plan_tables(std::size_t n, double expected, unsigned int slots, int resident) {
  table_plan plan;
  if (slots == 0 || expected < 0) return plan;
  int bits = 0;
  if (expected > 0.6 * slots) {
    while (expected > std::ldexp(slots / 2.0, bits))
      ++bits;
  }
  if (bits == 13 && expected <= std::ldexp(0.6 * slots, 12)) bits = 12;
  if (bits > 12 || (bits > 0 && expected * table_min_rows_per_group > static_cast<double>(n)))
    return plan;
  plan.serves = true;
  plan.bits = bits;
  plan.parts = 1u << bits;
  const unsigned int wanted = resident > 0 ? static_cast<unsigned int>(resident) : 1u;
  plan.blocks_per_part = wanted > plan.parts ? (wanted + plan.parts - 1) / plan.parts : 1u;
  return plan;
}

/// Whether the table method's blocks append their groups to the global table's first slots
/// (hash::append_groups: the rows partitioned, one block a part) rather than combining them into
/// it by hash.
inline bool plan_appends(const table_plan& plan) {
  return plan.serves && plan.bits != 0 && plan.blocks_per_part == 1;
}

/// Throws std::length_error when the aggregation found more groups than a non-zero max_groups
/// allows (`overflowed`: the table filled before every key was counted).
inline void require_max_groups(const char* fn, std::size_t max_groups, bool overflowed,
                               std::size_t count) {
  if (max_groups == 0 || (!overflowed && count <= max_groups)) return;
  throw std::length_error(
      std::string(fn) + ": the keys have more than max_groups = " + std::to_string(max_groups) +
      " distinct values" + (overflowed ? "" : " (" + std::to_string(count) + ")"));
}

}  // namespace cupar::detail
