// cupar tests: one size above 2^31 (and 2^32) for every family (label `large`, run alone with
// `ctest -L large`). Counts this large broke CUB, Thrust and others before (int num_items, byte
// offsets past 4 GiB, 32-bit counters): see PITFALLS.md.
//
// Data is generated on the GPU by a hash of the position, so the CPU computes its references from
// the same hash without copying the inputs back; outputs are checked by small kernels against
// properties that determine them completely (a sorted array of bytes by the counts of each value,
// a scan by out[i] = out[i - 1] op in[i]), or on the CPU with std::thread-parallel loops. Each test
// checks that the GPU has the memory it needs, and skips with the amount when it does not. Memory
// is given back to the driver between tests.
#include "large_common.cuh"
#include "ops.cuh"

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cupar/cupar.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace cupar::testing {
namespace {

/// Expected value of an inclusive sum scan: in(0), then out[i - 1] + in(i).
template <class T, class In>
struct inclusive_scan_expect {
  const T* out;
  In in;
  __device__ T operator()(std::size_t i) const {
    return i == 0 ? in(0) : static_cast<T>(out[i - 1] + in(i));
  }
};

/// Expected value of an exclusive sum scan: init, then out[i - 1] + in(i - 1).
template <class T, class In>
struct exclusive_scan_expect {
  const T* out;
  In in;
  T init;
  __device__ T operator()(std::size_t i) const {
    return i == 0 ? init : static_cast<T>(out[i - 1] + in(i - 1));
  }
};

/// Expected value at position i of a sorted array of 1-byte keys: the key of the group whose
/// range [offsets[g], offsets[g + 1]) holds i.
template <class T>
struct sorted_expect {
  const unsigned long long* offsets;  // 257
  const T* group_keys;                // 256
  __device__ T operator()(std::size_t i) const {
    int lo = 0, hi = 256;  // find the last g with offsets[g] <= i
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (offsets[mid] <= i) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return group_keys[lo];
  }
};

template <class T, class In>
struct affine_expect {
  In in;
  __device__ T operator()(std::size_t i) const { return affine_op<T, T>{}(in(i)); }
};

template <class T, class A, class B>
struct sub_expect {
  A a;
  B b;
  __device__ T operator()(std::size_t i) const { return sub_op<T, T, T>{}(a(i), b(i)); }
};

/// Group keys (in sorted order) and their offsets for 1-byte keys with the given counts (indexed
/// by the key's byte).
template <class T>
void sorted_groups(const std::array<std::uint64_t, 256>& counts, bool descending,
                   std::vector<T>& keys, std::vector<unsigned long long>& offsets) {
  keys.clear();
  for (int v = 0; v < 256; ++v)
    keys.push_back(static_cast<T>(v));
  std::sort(keys.begin(), keys.end());
  if (descending) std::reverse(keys.begin(), keys.end());
  offsets.assign(257, 0);
  for (int g = 0; g < 256; ++g) {
    offsets[g + 1] = offsets[g] + counts[static_cast<std::uint8_t>(keys[g])];
  }
}

template <class T>
mismatches check_sorted_bytes(const T* d_sorted, std::size_t n,
                              const std::array<std::uint64_t, 256>& counts, bool descending,
                              cupar::stream_ref s) {
  std::vector<T> keys;
  std::vector<unsigned long long> offsets;
  sorted_groups(counts, descending, keys, offsets);
  device_buffer<T> d_keys(keys, s);
  device_buffer<unsigned long long> d_offsets(offsets, s);
  return count_mismatches(d_sorted, n, sorted_expect<T>{d_offsets.data(), d_keys.data()}, s);
}

TEST_F(Large, ReduceAroundTwoToThe31And32) {
  const std::size_t n_max = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n_max * 4 + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint32_t> gen{11};
  device_buffer<std::uint32_t> in(n_max, stream);
  fill(in.data(), n_max, gen, stream.get());
  device_buffer<std::uint32_t> out(1, stream);
  std::uint32_t ref = 0;
  std::size_t done = 0;
  for (std::size_t n : {two31 - 1, two31, two31 + 1, two32 + 7}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    ref = static_cast<std::uint32_t>(ref + parallel_sum<std::uint32_t>(done, n, gen));
    done = n;
    EXPECT_EQ(cupar::reduce_value(in.data(), n, compiled_ops::plus<std::uint32_t>(), 0u, stream),
              ref);
    out.fill_bytes(0xAB);
    cupar::reduce(in.data(), out.data(), n, compiled_ops::plus<std::uint32_t>(), 0u, stream);
    EXPECT_EQ(out.to_host()[0], ref);
  }
  // An order-independent check of the whole range: the maximum (its position is random).
  const auto got_max =
      cupar::reduce_value(in.data(), n_max, compiled_ops::maximum<std::uint32_t>(), 0u, stream);
  std::vector<std::uint32_t> maxima(cpu_threads(), 0);
  parallel_parts(n_max, cpu_threads(), [&](std::size_t b, std::size_t e, unsigned p) {
    std::uint32_t m = 0;
    for (std::size_t i = b; i < e; ++i)
      m = std::max(m, gen(i));
    maxima[p] = m;
  });
  EXPECT_EQ(got_max, *std::max_element(maxima.begin(), maxima.end()));
}

struct mod1000 {
  __host__ __device__ std::uint32_t operator()(std::uint64_t i) const {
    return static_cast<std::uint32_t>((i * 7919) % 1000);
  }
};

/// The rows of each key i * 7919 % 1000 among rows [0, n): i * 7919 % 1000 runs through every
/// residue once per 1000 consecutive i (7919 is coprime with 1000), so each key n / 1000 times,
/// plus once for the residues of the last n % 1000 rows.
std::vector<std::uint64_t> rows_of_mod1000(std::size_t n) {
  std::vector<std::uint64_t> rows(1000, n / 1000);
  for (std::size_t i = n - n % 1000; i < n; ++i)
    ++rows[(i * 7919) % 1000];
  return rows;
}

// Hash aggregation over 2^31 + 5 rows (64-bit row indices in the kernels), keys from a counting
// iterator (i * 7919 % 1000: every key 0..999), a count per key from a constant iterator.
TEST_F(Large, HashGroupByAboveTwoToThe31) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = two31 + 5;
  const auto keys =
      thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), mod1000{});
  group_by_options o;
  o.sort_by_key = true;
  const auto g = cupar::group_by(keys, thrust::constant_iterator<std::uint64_t>(1), n,
                                 ::cuda::std::plus<std::uint64_t>{}, stream, o);
  ASSERT_EQ(g.size(), 1000u);
  const auto k = g.keys.to_host();
  const auto c = g.values.to_host();
  const std::vector<std::uint64_t> want = rows_of_mod1000(n);
  for (std::size_t j = 0; j < 1000; ++j) {
    ASSERT_EQ(k[j], j);
    EXPECT_EQ(c[j], want[j]) << "key " << j;
  }
}

/// Row i's key of two columns (i * 7919 % 1000 split in two), and its hash and equality.
struct pair_key {
  std::uint32_t hi, lo;
};
struct pair_key_of {
  __host__ __device__ pair_key operator()(std::uint64_t i) const {
    const auto g = static_cast<std::uint32_t>((i * 7919) % 1000);
    return {g / 10, g % 10};
  }
};
struct pair_key_hash {
  __host__ __device__ unsigned long long operator()(const pair_key& k) const {
    return (static_cast<unsigned long long>(k.hi) << 32) | k.lo;
  }
};
struct pair_key_eq {
  __host__ __device__ bool operator()(const pair_key& a, const pair_key& b) const {
    return a.hi == b.hi && a.lo == b.lo;
  }
};

// Struct keys under a hash and an equality above 2^31 rows (4-byte representatives) and above
// 2^32 (8-byte ones): keys from an iterator, a count per key from a constant iterator.
TEST_F(Large, HashGroupByStructKeysAboveTwoToThe31AndTwoToThe32) {
  CUPAR_REQUIRE_GPU();
  for (const std::size_t n : {two31 + 5, (std::size_t(1) << 32) + 3}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    CUPAR_REQUIRE_GPU_BYTES(n * (n < 0xffffffffull ? 4 : 8) + (std::size_t(1) << 30));
    owned_stream stream;
    const auto keys =
        thrust::make_transform_iterator(thrust::counting_iterator<std::uint64_t>(0), pair_key_of{});
    const auto g =
        cupar::group_by(keys, thrust::constant_iterator<std::uint64_t>(1), n, pair_key_hash{},
                        pair_key_eq{}, ::cuda::std::plus<std::uint64_t>{}, stream);
    ASSERT_EQ(g.size(), 1000u);
    const auto k = g.keys.to_host();
    const auto c = g.values.to_host();
    const std::vector<std::uint64_t> want = rows_of_mod1000(n);
    std::vector<bool> seen(1000, false);
    for (std::size_t j = 0; j < 1000; ++j) {
      const std::uint32_t key = k[j].hi * 10 + k[j].lo;
      ASSERT_TRUE(k[j].lo < 10 && key < 1000 && !seen[key]) << "group " << j;
      seen[key] = true;
      EXPECT_EQ(c[j], want[key]) << "key " << key;
    }
  }
}

TEST_F(Large, InclusiveAndExclusiveScanAtTwoToThe31PlusOne) {
  const std::size_t n = two31 + 1;
  CUPAR_REQUIRE_GPU_BYTES(n * 8 + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint32_t> gen{22};
  device_buffer<std::uint32_t> in(n, stream), out(n, stream);
  fill(in.data(), n, gen, stream.get());
  cupar::inclusive_scan(in.data(), out.data(), n, compiled_ops::plus<std::uint32_t>(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      out.data(), n, inclusive_scan_expect<std::uint32_t, hashed<std::uint32_t>>{out.data(), gen},
      stream));
  const std::uint32_t total = parallel_sum<std::uint32_t>(0, n, gen);
  std::uint32_t last = 0;
  out.copy_to_host(&last, 1, n - 1);
  EXPECT_EQ(last, total);
  // Exclusive, in place.
  const std::uint32_t init = 5;
  cupar::exclusive_scan(in.data(), in.data(), n, compiled_ops::plus<std::uint32_t>(), init, stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      in.data(), n,
      exclusive_scan_expect<std::uint32_t, hashed<std::uint32_t>>{in.data(), gen, init}, stream));
  in.copy_to_host(&last, 1, n - 1);
  EXPECT_EQ(static_cast<std::uint32_t>(last + gen(n - 1)),
            static_cast<std::uint32_t>(total + init));
}

TEST_F(Large, RadixSortOfBytesAboveTwoToThe32) {
  const std::size_t n = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n * 3 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen{33};
  const auto counts = parallel_byte_counts(n, gen);
  device_buffer<std::uint8_t> keys(n, stream);
  fill(keys.data(), n, gen, stream.get());
  {
    device_buffer<std::uint8_t> out(n, stream);
    cupar::sort_keys(keys.data(), out.data(), n, stream);
    CUPAR_EXPECT_NO_MISMATCH(check_sorted_bytes(out.data(), n, counts, false, stream));
  }
  // In place (the library's two-buffer path), descending.
  cupar::sort_keys(keys.data(), keys.data(), n, cupar::descending, stream);
  CUPAR_EXPECT_NO_MISMATCH(check_sorted_bytes(keys.data(), n, counts, true, stream));
}

TEST_F(Large, RadixSortPairsAboveTwoToThe32GoThroughTheIndexPath) {
  const std::size_t n = two32 + 7;
  // Pairs above 2^32 - 1 elements are sorted as (key, 8-byte index) pairs and gathered. With keys
  // and values in place the library holds: keys and values (2n), two index arrays and a copy of
  // the values (17n), and for the inner in-place sort an alternate key and index buffer (9n).
  CUPAR_REQUIRE_GPU_BYTES(n * 28 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> key_gen{44}, value_gen{55};
  const auto counts = parallel_byte_counts(n, key_gen);
  device_buffer<std::uint8_t> keys(n, stream), values(n, stream);
  fill(keys.data(), n, key_gen, stream.get());
  fill(values.data(), n, value_gen, stream.get());
  cupar::sort_pairs(keys.data(), keys.data(), values.data(), values.data(), n, stream);
  CUPAR_EXPECT_NO_MISMATCH(check_sorted_bytes(keys.data(), n, counts, false, stream));
  // Values: a stable sort puts the values of key k, in input order, at k's group.
  std::vector<std::uint8_t> got(n);
  values.copy_to_host(got.data(), n);
  std::array<std::uint64_t, 257> start{};
  for (int v = 0; v < 256; ++v)
    start[v + 1] = start[v] + counts[v];
  const unsigned parts = cpu_threads();
  std::vector<std::array<std::uint64_t, 256>> part_counts(parts);
  parallel_parts(n, parts, [&](std::size_t b, std::size_t e, unsigned p) {
    std::array<std::uint64_t, 256> c{};
    for (std::size_t i = b; i < e; ++i)
      ++c[key_gen(i)];
    part_counts[p] = c;
  });
  std::vector<std::uint64_t> bad(parts, 0);
  parallel_parts(n, parts, [&](std::size_t b, std::size_t e, unsigned p) {
    std::array<std::uint64_t, 256> at{};
    for (int v = 0; v < 256; ++v) {
      at[v] = start[v];
      for (unsigned q = 0; q < p; ++q)
        at[v] += part_counts[q][v];
    }
    for (std::size_t i = b; i < e; ++i) {
      if (got[at[key_gen(i)]++] != value_gen(i)) ++bad[p];
    }
  });
  std::uint64_t total_bad = 0;
  for (auto x : bad)
    total_bad += x;
  EXPECT_EQ(total_bad, 0u) << "values not where a stable sort puts them";
}

// 2^31 - 1 keys are the most CUB is given as a 32-bit count; 2^31 + 1 go through 64-bit counts.
TEST_F(Large, MergeSortAtTwoToThe31MinusAndPlusOne) {
  const std::size_t n = two31 + 1;
  CUPAR_REQUIRE_GPU_BYTES(n * 4 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::int8_t> gen{66};
  device_buffer<std::int8_t> keys(n, stream);
  fill(keys.data(), n, gen, stream.get());
  {
    device_buffer<std::int8_t> out(n, stream);
    for (std::size_t m : {two31 - 1, two31 + 1}) {
      SCOPED_TRACE("n = " + std::to_string(m));
      const auto prefix_counts = parallel_byte_counts(m, gen);
      cupar::sort_keys(keys.data(), out.data(), m, compiled_ops::less<std::int8_t>(), stream);
      CUPAR_EXPECT_NO_MISMATCH(check_sorted_bytes(out.data(), m, prefix_counts, false, stream));
    }
  }
  const auto counts = parallel_byte_counts(n, gen);
  cupar::stable_sort_keys(keys.data(), keys.data(), n, compiled_ops::greater<std::int8_t>(),
                          stream);
  CUPAR_EXPECT_NO_MISMATCH(check_sorted_bytes(keys.data(), n, counts, true, stream));
}

TEST_F(Large, TransformAboveTwoToThe32) {
  const std::size_t n = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n * 3 + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen_a{77}, gen_b{88};
  device_buffer<std::uint8_t> a(n, stream), b(n, stream), out(n, stream);
  fill(a.data(), n, gen_a, stream.get());
  fill(b.data(), n, gen_b, stream.get());
  out.fill_bytes(0xAB);
  cupar::transform(a.data(), out.data(), n, compiled_ops::affine<std::uint8_t, std::uint8_t>(),
                   stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      out.data(), n, affine_expect<std::uint8_t, hashed<std::uint8_t>>{gen_a}, stream));
  cupar::transform(a.data(), b.data(), a.data(), n,
                   compiled_ops::sub<std::uint8_t, std::uint8_t, std::uint8_t>(), stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      a.data(), n,
      sub_expect<std::uint8_t, hashed<std::uint8_t>, hashed<std::uint8_t>>{gen_a, gen_b}, stream));
}

/// Gather indices: a hashed position in [0, extent), and -1 at every 1000th position.
struct gather_index {
  std::size_t extent;
  __host__ __device__ long long operator()(std::size_t i) const {
    return i % 1000 == 999 ? -1ll : static_cast<long long>(mix(i * 0x9E37ull + 5) % extent);
  }
};
/// What the gather writes: the byte at the index, the fill 0xFE where it is out of range.
struct gathered_expect {
  gather_index index;
  hashed<std::uint8_t> values;
  __device__ std::uint8_t operator()(std::size_t i) const {
    const long long j = index(i);
    return j < 0 ? std::uint8_t(0xFE) : values(static_cast<std::size_t>(j));
  }
};
/// Scatter indices: the reverse of [0, n).
struct reverse_index {
  std::size_t n;
  __host__ __device__ unsigned long long operator()(std::size_t i) const { return n - 1 - i; }
};
struct reversed_expect {
  std::size_t n;
  hashed<std::uint8_t> values;
  __device__ std::uint8_t operator()(std::size_t j) const { return values(n - 1 - j); }
};

TEST_F(Large, GatherAndScatterAboveTwoToThe32) {
  // 8-byte indices into 1-byte items: positions and byte offsets past 2^32.
  const std::size_t n = two32 + 7, extent = two32 + 3;
  CUPAR_REQUIRE_GPU_BYTES(n * 8 + extent + n + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen{99};
  device_buffer<std::uint8_t> values(extent, stream), out(n, stream);
  fill(values.data(), extent, gen, stream.get());
  {
    device_buffer<long long> idx(n, stream);
    fill(idx.data(), n, gather_index{extent}, stream.get());
    cupar::gather(values.data(), extent, idx.data(), n, out.data(), cupar::bounds::fill,
                  std::uint8_t(0xFE), stream);
    CUPAR_EXPECT_NO_MISMATCH(
        count_mismatches(out.data(), n, gathered_expect{gather_index{extent}, gen}, stream));
  }
  {
    // scatter of `values` reversed into out[0, extent): out[extent - 1 - i] = values[i].
    device_buffer<unsigned long long> idx(extent, stream);
    fill(idx.data(), extent, reverse_index{extent}, stream.get());
    cupar::scatter(values.data(), extent, idx.data(), out.data(), extent, cupar::bounds::error,
                   stream);
    CUPAR_EXPECT_NO_MISMATCH(
        count_mismatches(out.data(), extent, reversed_expect{extent, gen}, stream));
  }
}

TEST_F(Large, HistogramOfBytesAboveTwoToThe32) {
  const std::size_t n = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n + (std::size_t(1) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> gen{99};
  const auto counts = parallel_byte_counts(n, gen);
  device_buffer<std::uint8_t> samples(n, stream);
  fill(samples.data(), n, gen, stream.get());
  device_buffer<std::uint64_t> hist(256, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(samples.data(), hist.data(), 257, 0, 256, n, stream);
  EXPECT_EQ(hist.to_host(), std::vector<std::uint64_t>(counts.begin(), counts.end()));
  const int levels[] = {0, 10, 100, 200, 256};
  hist.fill_bytes(0xAB);
  cupar::histogram_range(samples.data(), hist.data(), 5, levels, n, stream);
  const auto got = hist.to_host();
  for (int b = 0; b < 4; ++b) {
    std::uint64_t want = 0;
    for (int v = levels[b]; v < levels[b + 1]; ++v)
      want += counts[v];
    EXPECT_EQ(got[b], want) << "bin " << b;
  }
  // Through a sample operator: x / 2 in 128 bins of one value each.
  hist.fill_bytes(0xAB);
  cupar::histogram_even(samples.data(), hist.data(), 129, 0, 128, n,
                        compiled_ops::halve<std::uint8_t, int>(), stream);
  const auto halves = hist.to_host();
  for (int b = 0; b < 128; ++b) {
    EXPECT_EQ(halves[b], counts[2 * b] + counts[2 * b + 1]) << "bin " << b;
  }
  // One bin receiving more than 2^32 - 1 samples: 64-bit counters hold it.
  fill(samples.data(), n, mostly_42{}, stream.get());
  hist.fill_bytes(0xAB);
  cupar::histogram_even(samples.data(), hist.data(), 257, 0, 256, n, stream);
  std::vector<std::uint64_t> want(256, 0);
  want[42] = n - 5;  // positions 5, 2^30 + 5, 2^31 + 5, 3 * 2^30 + 5 and 2^32 + 5 hold 7
  want[7] = 5;
  EXPECT_EQ(hist.to_host(), want);
}

}  // namespace
}  // namespace cupar::testing
