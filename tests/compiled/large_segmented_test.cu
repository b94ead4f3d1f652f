// cupar tests: the segmented families and the binary searches above 2^31 items (label `large`):
// segmented reduce with more than 2^31 segments, segmented scans and sorts over more than 2^31
// items with segments on both sides of 2^31, binary searches with n and with m above 2^31. Each
// runs with a C++ callable and with a run-time operator where it takes one (named operators and
// the default comparator: precompiled, nothing is compiled). Inputs are patterns whose results are
// known in closed form, or checked on the GPU against properties that determine them (a stable
// sort by: every output item comes from its own segment of the input, with its key, in order).
#include "large_common.cuh"
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
namespace {

struct ones {
  __host__ __device__ std::uint32_t operator()(std::size_t) const { return 1u; }
};
struct identity64 {
  __host__ __device__ std::int64_t operator()(std::size_t i) const {
    return static_cast<std::int64_t>(i);
  }
};
/// begin[s] = s, except every 1000th segment, which is empty (begin = end = s + 1).
struct sparse_begin {
  __host__ __device__ std::int64_t operator()(std::size_t s) const {
    return static_cast<std::int64_t>(s % 1000 == 999 ? s + 1 : s);
  }
};
struct next64 {
  __host__ __device__ std::int64_t operator()(std::size_t s) const {
    return static_cast<std::int64_t>(s + 1);
  }
};

/// Segment k of a scan layout of at most four segments.
struct layout4 {
  std::int64_t begin[4], end[4];
};

/// A segmented scan of ones in place: inside segment k, inclusive i - b + 1, exclusive
/// init + i - b (mod 2^32); outside every segment the input (1) stays.
struct scan_of_ones {
  layout4 l;
  bool exclusive;
  std::uint32_t init;
  __device__ std::uint32_t operator()(std::size_t i) const {
    const auto p = static_cast<std::int64_t>(i);
    for (int k = 0; k < 4; ++k) {
      if (p >= l.begin[k] && p < l.end[k]) {
        const auto r = static_cast<std::uint32_t>(p - l.begin[k]);
        return exclusive ? init + r : r + 1u;
      }
    }
    return 1u;
  }
};

TEST_F(Large, SegmentedScansOverMoreThanTwoToThe32Items) {
  const std::size_t n = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n * 4 + (std::size_t(1) << 30));
  owned_stream stream;
  // Segments before, across and after 2^31 and 2^32, an empty one, gaps between and after.
  const auto g = static_cast<std::int64_t>(two31);
  const layout4 l{{0, 3, g + 20, g + 30}, {3, g + 10, g + 20, static_cast<std::int64_t>(n) - 5}};
  const std::vector<std::int64_t> b(l.begin, l.begin + 4), e(l.end, l.end + 4);
  device_buffer<std::int64_t> d_b(b, stream), d_e(e, stream);
  device_buffer<std::uint32_t> io(n, stream);
  for (int run = 0; run < 4; ++run) {
    const bool exclusive = run >= 2, jit = run % 2 == 1;
    SCOPED_TRACE(std::string(exclusive ? "exclusive" : "inclusive") +
                 (jit ? ", run-time operator" : ", C++ operator"));
    fill(io.data(), n, ones{}, stream.get());
    const std::uint32_t init = 7;
    if (!exclusive && !jit) {
      cupar::segmented_inclusive_scan(io.data(), io.data(), n, 4, d_b.data(), d_e.data(),
                                      compiled_ops::plus<std::uint32_t>(), stream);
    } else if (!exclusive) {
      cupar::segmented_inclusive_scan(io.data(), io.data(), n, 4, d_b.data(), d_e.data(),
                                      cupar::jit::plus, stream);
    } else if (!jit) {
      cupar::segmented_exclusive_scan(io.data(), io.data(), n, 4, d_b.data(), d_e.data(),
                                      compiled_ops::plus<std::uint32_t>(), init, stream);
    } else {
      cupar::segmented_exclusive_scan(io.data(), io.data(), n, 4, d_b.data(), d_e.data(),
                                      cupar::jit::plus, init, stream);
    }
    CUPAR_EXPECT_NO_MISMATCH(
        count_mismatches(io.data(), n, scan_of_ones{l, exclusive, init}, stream));
  }
}

/// out[s] = init, or init + in[s] for a segment of one item (every 1000th is empty).
struct reduce_of_singles {
  hashed<std::uint8_t> in;
  std::uint8_t init;
  __device__ std::uint8_t operator()(std::size_t s) const {
    return s % 1000 == 999 ? init : static_cast<std::uint8_t>(init + in(s));
  }
};

TEST_F(Large, SegmentedReduceOfMoreThanTwoToThe31Segments) {
  // CUB launches at most INT_MAX segments at a time and advances the output and the offsets.
  const std::size_t segments = two31 + 3, n = segments;
  CUPAR_REQUIRE_GPU_BYTES(segments * 18 + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen{91};
  device_buffer<std::uint8_t> in(n, stream), out(segments, stream);
  device_buffer<std::int64_t> b(segments, stream), e(segments, stream);
  fill(in.data(), n, gen, stream.get());
  fill(b.data(), segments, sparse_begin{}, stream.get());
  fill(e.data(), segments, next64{}, stream.get());
  out.fill_bytes(0xEE);
  cupar::segmented_reduce(in.data(), out.data(), n, segments, b.data(), e.data(),
                          compiled_ops::plus<std::uint8_t>(), std::uint8_t(0), stream);
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(out.data(), segments, reduce_of_singles{gen, 0}, stream));
  out.fill_bytes(0xEE);
  cupar::segmented_reduce(in.data(), out.data(), n, segments, b.data(), e.data(), cupar::jit::plus,
                          std::uint8_t(5), stream);
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(out.data(), segments, reduce_of_singles{gen, 5}, stream));
}

// ---- segmented sort
// ------------------------------------------------------------------------------

/// Segments of the sort test: segment s = [s * len + gap, (s + 1) * len) for s < count, so every
/// segment starts after a gap of `gap` items; items past count * len are outside too.
struct sort_layout {
  std::size_t len, gap, count;
  __host__ __device__ bool inside(std::size_t i) const { return i < count * len && i % len >= gap; }
  __host__ __device__ std::size_t segment(std::size_t i) const { return i / len; }
};
struct position32 {
  __host__ __device__ std::uint32_t operator()(std::size_t i) const {
    return static_cast<std::uint32_t>(i);
  }
};
struct layout_begin {
  sort_layout l;
  __device__ std::int64_t operator()(std::size_t s) const {
    return static_cast<std::int64_t>(s * l.len + l.gap);
  }
};
struct layout_end {
  sort_layout l;
  __device__ std::int64_t operator()(std::size_t s) const {
    return static_cast<std::int64_t>((s + 1) * l.len);
  }
};

/// Counts the output positions that break a stable ascending sort by key of each segment: an item
/// inside a segment must come from that segment (its value is its input position), carry its key,
/// and follow its predecessor in (key, position) order; outside, the poison must stay.
__global__ void stable_sort_violations(const std::uint8_t* keys_in, const std::uint8_t* keys,
                                       const std::uint32_t* values, std::size_t n, sort_layout l,
                                       unsigned long long* report) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool bad;
    if (!l.inside(i)) {
      bad = keys[i] != 0xEE || values[i] != 0xEEEEEEEEu;
    } else {
      const std::size_t from = values[i];
      bad = from >= n || !l.inside(from) || l.segment(from) != l.segment(i) ||
            keys_in[from] != keys[i];
      if (!bad && i + 1 < n && l.inside(i + 1) && l.segment(i + 1) == l.segment(i)) {
        bad = keys[i] > keys[i + 1] || (keys[i] == keys[i + 1] && values[i] >= values[i + 1]);
      }
    }
    if (bad) {
      atomicAdd(report, 1ull);
      atomicMin(report + 1, static_cast<unsigned long long>(i));
    }
  }
}

/// Keys only: sorted within each segment, poison outside (the permutation is checked by counts).
__global__ void sorted_key_violations(const std::uint8_t* keys, std::size_t n, sort_layout l,
                                      bool descending, unsigned long long* report) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool bad = false;
    if (!l.inside(i)) {
      bad = keys[i] != 0xEE;
    } else if (i + 1 < n && l.inside(i + 1) && l.segment(i + 1) == l.segment(i)) {
      bad = descending ? keys[i] < keys[i + 1] : keys[i] > keys[i + 1];
    }
    if (bad) {
      atomicAdd(report, 1ull);
      atomicMin(report + 1, static_cast<unsigned long long>(i));
    }
  }
}

/// counts[segment * 256 + key] over the items inside segments.
__global__ void segment_key_counts(const std::uint8_t* keys, std::size_t n, sort_layout l,
                                   unsigned long long* counts) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (l.inside(i)) atomicAdd(counts + l.segment(i) * 256 + keys[i], 1ull);
  }
}

std::vector<unsigned long long> key_counts(const std::uint8_t* keys, std::size_t n, sort_layout l,
                                           cupar::stream_ref s) {
  device_buffer<unsigned long long> counts(l.count * 256, s);
  counts.fill_bytes(0);
  segment_key_counts<<<grid_size(), 256, 0, s.get()>>>(keys, n, l, counts.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  return counts.to_host();
}

template <class Kernel, class... Args>
mismatches run_check(Kernel kernel, cupar::stream_ref s, Args... args) {
  device_buffer<unsigned long long> report(std::vector<unsigned long long>{0, ULLONG_MAX}, s);
  kernel<<<grid_size(), 256, 0, s.get()>>>(args..., report.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const auto r = report.to_host();
  return {r[0], r[1]};
}

TEST_F(Large, SegmentedSortsOverMoreThanTwoToThe31Items) {
  // 513 segments of 2^22 items (less a gap of 16 at each start), then 100 items outside.
  const sort_layout l{std::size_t(1) << 22, 16, 513};
  const std::size_t n = l.count * l.len + 100;
  // Keys in and out (2n), values in and out (8n), CUB's double buffers (5n).
  CUPAR_REQUIRE_GPU_BYTES(n * 15 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen{92};
  device_buffer<std::uint8_t> keys(n, stream), out(n, stream);
  device_buffer<std::int64_t> b(l.count, stream), e(l.count, stream);
  fill(keys.data(), n, gen, stream.get());
  fill(b.data(), l.count, layout_begin{l}, stream.get());
  fill(e.data(), l.count, layout_end{l}, stream.get());
  const auto counts = key_counts(keys.data(), n, l, stream);
  for (const cupar::radix_options order : {cupar::ascending, cupar::descending}) {
    const bool descending = order.order == cupar::sort_order::descending;
    SCOPED_TRACE(descending ? "keys, descending" : "keys, ascending");
    out.fill_bytes(0xEE);
    cupar::segmented_sort_keys(keys.data(), out.data(), n, l.count, b.data(), e.data(), order,
                               stream);
    CUPAR_EXPECT_NO_MISMATCH(
        run_check(sorted_key_violations, stream, out.data(), n, l, descending));
    EXPECT_EQ(key_counts(out.data(), n, l, stream), counts);
  }
  // Pairs (4-byte values, moved by the sort): values are the input positions.
  device_buffer<std::uint32_t> values(n, stream), values_out(n, stream);
  fill(values.data(), n, position32{}, stream.get());
  out.fill_bytes(0xEE);
  values_out.fill_bytes(0xEE);
  cupar::segmented_sort_pairs(keys.data(), out.data(), values.data(), values_out.data(), n, l.count,
                              b.data(), e.data(), stream);
  CUPAR_EXPECT_NO_MISMATCH(run_check(stable_sort_violations, stream,
                                     static_cast<const std::uint8_t*>(keys.data()),
                                     static_cast<const std::uint8_t*>(out.data()),
                                     static_cast<const std::uint32_t*>(values_out.data()), n, l));
}

// ---- binary search
// ---------------------------------------------------------------------------------

template <class T>
struct halves {  // sorted[i] = i / 2: every value twice
  __host__ __device__ T operator()(std::size_t i) const { return static_cast<T>(i / 2); }
};
/// Position of needle j in halves: lower 2v, upper 2v + 2, both capped at n.
template <class T, class Index>
struct halves_bound {
  hashed<T> needle;
  std::uint64_t modulus, n;
  bool upper;
  __device__ Index operator()(std::size_t j) const {
    const std::uint64_t v = static_cast<std::uint64_t>(needle(j)) % modulus;
    const std::uint64_t p = 2 * v + (upper ? 2 : 0);
    return static_cast<Index>(p < n ? p : n);
  }
};
template <class T>
struct needle_mod {
  hashed<T> needle;
  std::uint64_t modulus;
  __device__ T operator()(std::size_t j) const {
    return static_cast<T>(static_cast<std::uint64_t>(needle(j)) % modulus);
  }
};

TEST_F(Large, BinarySearchInMoreThanTwoToThe31Elements) {
  const std::size_t n = two31 + 11, m = std::size_t(1) << 24;
  CUPAR_REQUIRE_GPU_BYTES(n * 4 + m * 12 + (std::size_t(1) << 30));
  owned_stream stream;
  device_buffer<std::uint32_t> sorted(n, stream), needles(m, stream);
  device_buffer<std::uint64_t> out(m, stream);
  fill(sorted.data(), n, halves<std::uint32_t>{}, stream.get());
  const std::uint64_t modulus = n / 2 + 5;  // some needles above every element
  const hashed<std::uint32_t> h{93};
  fill(needles.data(), m, needle_mod<std::uint32_t>{h, modulus}, stream.get());
  using expect = halves_bound<std::uint32_t, std::uint64_t>;
  cupar::lower_bound(sorted.data(), n, needles.data(), m, out.data(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), m, expect{h, modulus, n, false}, stream));
  cupar::upper_bound(sorted.data(), n, needles.data(), m, out.data(),
                     compiled_ops::less<std::uint32_t>(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), m, expect{h, modulus, n, true}, stream));
  device_buffer<std::uint32_t> out32(m, stream);
  cupar::upper_bound(sorted.data(), n, needles.data(), m, out32.data(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      out32.data(), m, halves_bound<std::uint32_t, std::uint32_t>{h, modulus, n, true}, stream));
}

TEST_F(Large, BinarySearchOfMoreThanTwoToThe31Needles) {
  const std::size_t n = std::size_t(1) << 17, m = two31 + 5;
  CUPAR_REQUIRE_GPU_BYTES(m * 6 + (std::size_t(1) << 30));
  owned_stream stream;
  device_buffer<std::uint16_t> sorted(n, stream), needles(m, stream);
  device_buffer<std::uint32_t> out(m, stream);
  fill(sorted.data(), n, halves<std::uint16_t>{}, stream.get());
  const hashed<std::uint16_t> h{94};
  fill(needles.data(), m, h, stream.get());
  using expect = halves_bound<std::uint16_t, std::uint32_t>;
  cupar::lower_bound(sorted.data(), n, needles.data(), m, out.data(),
                     compiled_ops::less<std::uint16_t>(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), m, expect{h, 65536, n, false}, stream));
  cupar::upper_bound(sorted.data(), n, needles.data(), m, out.data(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), m, expect{h, 65536, n, true}, stream));
}

}  // namespace
}  // namespace cupar::testing
