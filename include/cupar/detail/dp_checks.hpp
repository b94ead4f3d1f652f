// cupar internal: argument checks of the data-processing families, shared by the C++-callable
// overloads (.cuh) and the library's run-time-operator entry point, so both reject the same
// arguments with the same messages before anything is queued.
#pragma once

#include <cupar/detail/checks.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace cupar::detail {

/// The count output: a device pointer for the asynchronous form, none for the `_count` form
/// (which returns the count to the host).
inline void require_count(const char* function, const char* name, const void* d_count,
                          bool to_host) {
  if (!to_host) require_pointer(function, name, d_count);
}

/// select_if, select_flagged (in place allowed), partition (not): items of `size` bytes.
inline void check_select(const char* function, const void* d_in, const void* d_out,
                         const void* d_count, bool to_host, std::size_t n, std::size_t size,
                         bool in_place_allowed) {
  require_size(function, n, size);
  require_data(function, "d_in", d_in, n);
  require_data(function, "d_out", d_out, n);
  require_count(function, "d_num_selected", d_count, to_host);
  if (in_place_allowed) {
    require_same_or_disjoint(function, "d_in", d_in, n * size, "d_out", d_out, n * size);
  } else {
    require_disjoint(function, "d_in", d_in, n * size, "d_out", d_out, n * size);
  }
}

inline void check_flags(const char* function, const void* d_flags, std::size_t n,
                        std::size_t flag_size, const void* d_out, std::size_t size) {
  require_size(function, n, flag_size);
  require_data(function, "d_flags", d_flags, n);
  require_disjoint(function, "d_flags", d_flags, n * flag_size, "d_out", d_out, n * size);
}

inline void check_three_way(const char* function, const void* d_in, const void* const out[3],
                            const void* d_counts, bool to_host, std::size_t n, std::size_t size) {
  static const char* names[3] = {"d_first_out", "d_second_out", "d_unselected_out"};
  require_size(function, n, size);
  require_data(function, "d_in", d_in, n);
  require_count(function, "d_counts", d_counts, to_host);
  for (int i = 0; i < 3; ++i) {
    require_data(function, names[i], out[i], n);
    require_disjoint(function, "d_in", d_in, n * size, names[i], out[i], n * size);
  }
  // How many items each part receives is known only on the device, so only outputs that are the
  // same array (always wrong when n > 0) can be told apart from legitimate layouts here.
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      if (n != 0 && out[i] == out[j] && !is_unchecked_range(out[i])) {
        throw_invalid_argument(function, std::string(names[i]) + " and " + names[j] +
                                             " are the same array (the parts must not overlap)");
      }
    }
  }
}

/// A device range of n elements of `size` bytes, named as in the public signature.
struct dp_range {
  const char* name;
  const void* ptr;
  std::size_t size;
};

/// The by-key families that compact (unique_by_key, reduce_by_key, run_length_encode): the inputs
/// hold n elements and every range may be null only when n == 0; the count is given unless it
/// goes to the host. The outputs need room for one element per run only, a number known on the
/// device alone, so they are checked as what is certainly written when n > 0 (their first
/// element): none may start inside an input (CUB compacts none of them in place) or where
/// another output starts.
template <std::size_t Inputs, std::size_t Outputs>
void check_by_key_compaction(const char* function, std::size_t n, const dp_range (&in)[Inputs],
                             const dp_range (&out)[Outputs], const char* count_name,
                             const void* d_count, bool to_host) {
  for (const dp_range& r : in) {
    require_size(function, n, r.size);
    require_data(function, r.name, r.ptr, n);
  }
  for (const dp_range& r : out) {
    require_size(function, n, r.size);
    require_data(function, r.name, r.ptr, n);
  }
  require_count(function, count_name, d_count, to_host);
  const std::size_t first = n != 0 ? 1 : 0;
  for (std::size_t o = 0; o < Outputs; ++o) {
    for (const dp_range& i : in) {
      require_disjoint(function, i.name, i.ptr, n * i.size, out[o].name, out[o].ptr,
                       first * out[o].size);
    }
    for (std::size_t p = o + 1; p < Outputs; ++p) {
      require_disjoint(function, out[o].name, out[o].ptr, first * out[o].size, out[p].name,
                       out[p].ptr, first * out[p].size);
    }
  }
}

/// inclusive_scan_by_key, exclusive_scan_by_key: d_out may be d_values (in place) or d_keys (the
/// same bytes: keys and values of one size), as CUB allows, and must not otherwise overlap them.
inline void check_scan_by_key(const char* function, const void* d_keys, std::size_t key_size,
                              const void* d_values, const void* d_out, std::size_t value_size,
                              std::size_t n) {
  require_size(function, n, key_size);
  require_size(function, n, value_size);
  require_data(function, "d_keys", d_keys, n);
  require_data(function, "d_values", d_values, n);
  require_data(function, "d_out", d_out, n);
  require_same_or_disjoint(function, "d_values", d_values, n * value_size, "d_out", d_out,
                           n * value_size);
  require_same_or_disjoint(function, "d_keys", d_keys, n * key_size, "d_out", d_out,
                           n * value_size);
}

/// run_length_encode's counts: an integer type of 4 or 8 bytes (the kernels count in its size
/// class; a run longer than the type holds wraps around).
inline void check_run_length_counts(const char* function, std::size_t count_size) {
  if (count_size != 4 && count_size != 8) {
    throw_invalid_argument(function, "the counts' type must be a 4- or 8-byte integer, not " +
                                         std::to_string(count_size) + " bytes");
  }
}

// ---- segmented families (segmented.hpp) and binary search (search.hpp) ------------------------

/// `count` items at `ptr`: null only when count == 0 ("d_out is null but num_segments = 3").
inline void require_items(const char* function, const char* name, const void* ptr,
                          std::size_t count, const char* count_name) {
  if (count != 0 && ptr == nullptr) {
    throw_invalid_argument(
        function, std::string(name) + " is null but " + count_name + " = " + std::to_string(count));
  }
}

/// The segments: d_begin_offsets / d_end_offsets are device arrays of num_segments 64-bit
/// offsets into data of n items. What they hold is on the device and not checked here
/// (check_segments does, on request).
inline void check_segments_args(const char* function, const void* d_begin, const void* d_end,
                                std::size_t num_segments, std::size_t n) {
  constexpr std::size_t max = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  if (n > max) {
    throw_invalid_argument(function, "n = " + std::to_string(n) + " exceeds 2^63 - 1");
  }
  require_size(function, num_segments, sizeof(std::int64_t));
  if (num_segments > max) {
    throw_invalid_argument(function,
                           "num_segments = " + std::to_string(num_segments) + " exceeds 2^63 - 1");
  }
  require_items(function, "d_begin_offsets", d_begin, num_segments, "num_segments");
  require_items(function, "d_end_offsets", d_end, num_segments, "num_segments");
}

/// An output must not overlap the offsets (they are read while it is written).
inline void require_disjoint_from_offsets(const char* function, const void* d_begin,
                                          const void* d_end, std::size_t num_segments,
                                          const char* name, const void* out,
                                          std::size_t out_bytes) {
  const std::size_t offset_bytes = num_segments * sizeof(std::int64_t);
  require_disjoint(function, "d_begin_offsets", d_begin, offset_bytes, name, out, out_bytes);
  require_disjoint(function, "d_end_offsets", d_end, offset_bytes, name, out, out_bytes);
}

/// segmented_reduce: values of `size` bytes in d_in[0, n), one result per segment in d_out.
inline void check_segmented_reduce(const char* function, const void* d_in, const void* d_out,
                                   std::size_t n, std::size_t num_segments, const void* d_begin,
                                   const void* d_end, std::size_t size) {
  require_size(function, n, size);
  require_size(function, num_segments, size);
  check_segments_args(function, d_begin, d_end, num_segments, n);
  require_data(function, "d_in", d_in, n);
  require_items(function, "d_out", d_out, num_segments, "num_segments");
  require_disjoint(function, "d_in", d_in, n * size, "d_out", d_out, num_segments * size);
  require_disjoint_from_offsets(function, d_begin, d_end, num_segments, "d_out", d_out,
                                num_segments * size);
}

/// segmented_inclusive_scan / segmented_exclusive_scan: d_out may be d_in (in place) and must not
/// otherwise overlap it.
inline void check_segmented_scan(const char* function, const void* d_in, const void* d_out,
                                 std::size_t n, std::size_t num_segments, const void* d_begin,
                                 const void* d_end, std::size_t size) {
  require_size(function, n, size);
  check_segments_args(function, d_begin, d_end, num_segments, n);
  require_data(function, "d_in", d_in, n);
  require_data(function, "d_out", d_out, n);
  require_same_or_disjoint(function, "d_in", d_in, n * size, "d_out", d_out, n * size);
  require_disjoint_from_offsets(function, d_begin, d_end, num_segments, "d_out", d_out, n * size);
}

/// lower_bound / upper_bound: n sorted values, m needles, m positions of `index_size` bytes whose
/// type holds values up to `index_max` (every position 0..n must fit), the positions' array named
/// `out_name` in messages.
inline void check_binary_search(const char* function, const void* d_sorted, std::size_t n,
                                const void* d_needles, std::size_t m, const void* d_out,
                                std::size_t value_size, std::size_t index_size,
                                std::uint64_t index_max, const char* out_name = "d_out") {
  require_size(function, n, value_size);
  require_size(function, m, value_size);
  require_size(function, m, index_size);
  if (index_size != 4 && index_size != 8) {
    throw_invalid_argument(function, "the positions' type must be a 4- or 8-byte integer, not " +
                                         std::to_string(index_size) + " bytes");
  }
  if (static_cast<std::uint64_t>(n) > index_max) {
    throw_invalid_argument(function, "n = " + std::to_string(n) +
                                         " positions do not fit the index type (largest value " +
                                         std::to_string(index_max) + ")");
  }
  require_data(function, "d_sorted", d_sorted, n);
  require_items(function, "d_needles", d_needles, m, "m");
  require_items(function, out_name, d_out, m, "m");
  require_disjoint(function, "d_sorted", d_sorted, n * value_size, out_name, d_out, m * index_size);
  require_disjoint(function, "d_needles", d_needles, m * value_size, out_name, d_out,
                   m * index_size);
}

/// equal_range (two searches): check_binary_search's checks of both outputs, which must not overlap
/// each other either, so that nothing is written before an argument is refused.
inline void check_equal_range(const char* function, const void* d_sorted, std::size_t n,
                              const void* d_needles, std::size_t m, const void* d_lower,
                              const void* d_upper, std::size_t value_size, std::size_t index_size,
                              std::uint64_t index_max) {
  check_binary_search(function, d_sorted, n, d_needles, m, d_lower, value_size, index_size,
                      index_max, "d_lower");
  check_binary_search(function, d_sorted, n, d_needles, m, d_upper, value_size, index_size,
                      index_max, "d_upper");
  require_disjoint(function, "d_lower", d_lower, m * index_size, "d_upper", d_upper,
                   m * index_size);
}

}  // namespace cupar::detail
