// cupar benchmarks: the runners of the segmented families (segmented_reduce,
// segmented_inclusive_scan, segmented_sort_keys) and of the binary search (lower_bound). Host-only,
// like runners.hpp.
//
// Segments (every row of a family, GPU and CPU, the same): contiguous segments covering [0, n)
// whose sizes are 1 + hash64(seed_segments, s) % 1999 items (1 to 1999, about 1,000 on average),
// the last one cut at n; one offsets array of num_segments + 1 entries, passed as begin = offsets
// and end = offsets + 1. Values: f32 uniform over [-1, 1) (reduce, scan), u32 of every bit
// pattern (sort keys).
// Binary search: a sorted u32 range sorted[i] = 8 i + (hash64(seed_input, i) % 8) of n elements
// and m = n needles uniform over [0, 8 n), as u32 positions.
//
// Bytes processed: the data read once and the results written once, plus the offsets (16 bytes a
// segment: begin and end); for the binary search the needles read and the positions written. Rows
// of a family report the same bytes for the same work (the CUB scan-by-key row reads a key array
// besides, which is its cost, not extra work), so GB/s compare like times.
#pragma once

#include "runners.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar_bench {

inline constexpr std::uint64_t seed_segments = 4;
inline constexpr std::uint64_t max_segment = 1999;  // sizes 1..1999, about 1,000 on average
inline constexpr std::uint32_t search_stride = 8;   // sorted[i] in [8 i, 8 i + 8)

/// The offsets (num_segments + 1 entries, from 0 to n) of the segments over n items.
inline std::vector<std::int64_t> segment_offsets(std::size_t n) {
  std::vector<std::int64_t> offsets = {0};
  std::uint64_t at = 0;
  for (std::uint64_t s = 0; at < n; ++s) {
    at += 1 + hash64(seed_segments, s) % max_segment;
    offsets.push_back(static_cast<std::int64_t>(at < n ? at : n));
  }
  return offsets;
}

/// The segment offsets on the device (copied once, outside any timed region).
class device_offsets {
 public:
  explicit device_offsets(std::size_t n) : host_(segment_offsets(n)), d_(host_.size()) {
    CUPAR_BENCH_CUDA(cudaMemcpy(d_.get(), host_.data(), host_.size() * sizeof(std::int64_t),
                                cudaMemcpyHostToDevice));
  }
  std::size_t segments() const { return host_.size() - 1; }
  const std::int64_t* begin() const { return d_.get(); }
  const std::int64_t* end() const { return d_.get() + 1; }
  const std::vector<std::int64_t>& host() const { return host_; }

 private:
  std::vector<std::int64_t> host_;
  device_array<std::int64_t> d_;
};

// GPU helpers (bench/segmented.cu).
/// keys[i] = the index of the segment holding item i (CUB's scan-by-key row: materialised
/// before timing, not timed).
void fill_segment_ids(std::uint32_t* keys, std::size_t n, const std::int64_t* offsets,
                      std::size_t segments, cudaStream_t stream);
/// Items i + 1 inside the segment of item i with d[i + 1] < d[i]. Synchronises the stream.
std::size_t count_segment_descents(const std::uint32_t* d, std::size_t n,
                                   const std::int64_t* offsets, std::size_t segments,
                                   cudaStream_t stream);
/// sorted[i] = 8 i + hash64(seed, i) % 8.
void fill_search_range(std::uint32_t* d, std::size_t n, std::uint64_t seed, cudaStream_t stream);
/// Positions p[j] that are not lower bounds of needles[j] in sorted. Synchronises the stream.
std::size_t count_wrong_lower_bounds(const std::uint32_t* sorted, std::size_t n,
                                     const std::uint32_t* needles, const std::uint32_t* p,
                                     std::size_t m, cudaStream_t stream);

/// call(const T* in, T* out, n, num_segments, const int64* begin, const int64* end, stream)
template <class T, class Call>
void segmented_reduce_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const device_offsets off(n);
    const std::size_t s = off.segments();
    const std::size_t sets = rotation_sets(padded_bytes<T>(n) + padded_bytes<T>(s));
    rotating<T> in(n, sets), out(s, sets);
    in.fill(seed_input, arithmetic_range<T>(), bench_stream());
    time_gpu(
        state, {n, static_cast<double>(n * sizeof(T) + s * (sizeof(T) + 16))}, sets,
        [&](std::size_t k) { call(in[k], out[k], n, s, off.begin(), off.end(), bench_stream()); });
  });
}

/// call(const T* in, T* out, n, num_segments, const int64* begin, const int64* end, stream)
template <class T, class Call>
void segmented_scan_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const device_offsets off(n);
    const std::size_t s = off.segments();
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n));
    rotating<T> in(n, sets), out(n, sets);
    in.fill(seed_input, arithmetic_range<T>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(2 * n * sizeof(T) + s * 16)}, sets, [&](std::size_t k) {
      call(in[k], out[k], n, s, off.begin(), off.end(), bench_stream());
    });
  });
}

/// The same scan as CUB's scan-by-key on materialised u32 segment ids (filled before timing):
/// call(const std::uint32_t* keys, const T* in, T* out, n, stream)
template <class T, class Call>
void scan_by_segment_ids_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const device_offsets off(n);
    const std::size_t s = off.segments();
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n) + padded_bytes<std::uint32_t>(n));
    rotating<T> in(n, sets), out(n, sets);
    rotating<std::uint32_t> keys(n, sets);
    in.fill(seed_input, arithmetic_range<T>(), bench_stream());
    for (std::size_t k = 0; k < sets; ++k)
      fill_segment_ids(keys[k], n, off.begin(), s, bench_stream());
    time_gpu(state, {n, static_cast<double>(2 * n * sizeof(T) + s * 16)}, sets,
             [&](std::size_t k) { call(keys[k], in[k], out[k], n, bench_stream()); });
  });
}

/// call(const K* in, K* out, n, num_segments, const int64* begin, const int64* end, stream); the
/// last output is checked to be sorted within every segment.
template <class Call>
void segmented_sort_keys_runner(benchmark::State& state, Call call) {
  using K = std::uint32_t;
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const device_offsets off(n);
    const std::size_t s = off.segments();
    const std::size_t sets = rotation_sets(2 * padded_bytes<K>(n));
    rotating<K> in(n, sets), out(n, sets);
    in.fill(seed_input, key_range<K>(), bench_stream());
    std::size_t last = 0;
    time_gpu(state, {n, static_cast<double>(2 * n * sizeof(K) + s * 16)}, sets, [&](std::size_t k) {
      call(in[k], out[k], n, s, off.begin(), off.end(), bench_stream());
      last = k;
    });
    const std::size_t bad = count_segment_descents(out[last], n, off.begin(), s, bench_stream());
    if (bad != 0) {
      throw std::runtime_error("output is not sorted within its segments (" + std::to_string(bad) +
                               " descents)");
    }
  });
}

/// call(const u32* sorted, n, const u32* needles, m, u32* positions, stream) with m = n; the last
/// output is checked.
template <class Call>
void lower_bound_runner(benchmark::State& state, Call call) {
  using T = std::uint32_t;
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state), m = n;
    const std::size_t sets =
        rotation_sets(padded_bytes<T>(n) + padded_bytes<T>(m) + padded_bytes<T>(m));
    rotating<T> sorted(n, sets), needles(m, sets), out(m, sets);
    for (std::size_t k = 0; k < sets; ++k)
      fill_search_range(sorted[k], n, seed_input + k, bench_stream());
    needles.fill(seed_values, {0.0, static_cast<double>(search_stride) * n - 1.0}, bench_stream());
    std::size_t last = 0;
    time_gpu(state, {m, static_cast<double>(2 * m * sizeof(T))}, sets, [&](std::size_t k) {
      call(sorted[k], n, needles[k], m, out[k], bench_stream());
      last = k;
    });
    const std::size_t bad =
        count_wrong_lower_bounds(sorted[last], n, needles[last], out[last], m, bench_stream());
    if (bad != 0) {
      throw std::runtime_error(std::to_string(bad) + " of " + std::to_string(m) +
                               " positions are not lower bounds");
    }
  });
}

}  // namespace cupar_bench
