// cupar tests: the C++-operator algorithms (cupar.cuh) with iterators that are not pointers:
// Thrust's counting, constant, transform, zip, permutation, reverse, discard and transform-output
// iterators and a user-written one, for every family, against CPU references at the sizes 0, 1,
// odd and large. Fused pipelines (sum of squares, argmax over a zip, count where) are checked as
// a user would write them. The argument checks still apply to the pointer arguments of a call
// that mixes pointers and iterators.
#include "ops.cuh"

#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.cuh>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>

#include <cuda/std/iterator>
#include <cuda/std/tuple>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace cupar::testing {
namespace {

using ll = long long;
using thrust::make_counting_iterator;
using thrust::make_transform_iterator;

std::vector<std::size_t> iterator_sizes() {
  return scaled(std::vector<std::size_t>{0, 1, 1001, (std::size_t{1} << 20) + 7});
}

// ---- operators (functors: each one instantiation, shared by the tests) -----------------------

struct square_ll {
  __host__ __device__ ll operator()(int x) const { return ll(x) * x; }
};
struct div_by {
  ll d;
  __host__ __device__ ll operator()(ll i) const { return i / d; }
};
struct times {
  ll k;
  __host__ __device__ ll operator()(ll i) const { return i * k; }
};
struct is_even {
  __host__ __device__ bool operator()(ll x) const { return x % 2 == 0; }
};
struct below {
  ll limit;
  __host__ __device__ bool operator()(ll x) const { return x < limit; }
};
struct every_third {
  __host__ __device__ int operator()(ll i) const { return i % 3 == 0; }
};
struct index_plus_value {
  __host__ __device__ ll operator()(ll i, int v) const { return i + v; }
};
struct plus_ll {
  __host__ __device__ ll operator()(ll a, ll b) const { return a + b; }
};
struct eq_ll {
  __host__ __device__ bool operator()(ll a, ll b) const { return a == b; }
};
struct less_ll {
  __host__ __device__ bool operator()(ll a, ll b) const { return a < b; }
};
struct hash_key {  // a permutation-like key of i: keys computed, not stored
  ll n;
  __host__ __device__ ll operator()(ll i) const { return (i * 7919) % (n + 1); }
};
// argmax over (index, value): the larger value, the lower index on ties.
using iv = ::cuda::std::tuple<ll, float>;
struct argmax_op {
  __host__ __device__ iv operator()(const iv& a, const iv& b) const {
    const float va = ::cuda::std::get<1>(a), vb = ::cuda::std::get<1>(b);
    if (va != vb) return va > vb ? a : b;
    return ::cuda::std::get<0>(a) <= ::cuda::std::get<0>(b) ? a : b;
  }
};
struct float_level {
  __host__ __device__ float operator()(ll i) const { return static_cast<float>(i % 1000); }
};

// A user-written random-access iterator: every `stride`-th element of a device array.
struct strided {
  using iterator_category = ::cuda::std::random_access_iterator_tag;
  using value_type = int;
  using difference_type = ll;
  using pointer = const int*;
  using reference = const int&;
  const int* base;
  ll stride;
  __host__ __device__ reference operator*() const { return *base; }
  __host__ __device__ reference operator[](difference_type i) const { return base[i * stride]; }
  __host__ __device__ strided operator+(difference_type i) const {
    return {base + i * stride, stride};
  }
};

ll sum_upto(std::size_t n) {  // 0 + 1 + ... + n-1
  return n == 0 ? 0 : ll(n) * ll(n - 1) / 2;
}

// ---- reduce
// --------------------------------------------------------------------------------------

TEST(Iterators, ReduceFusesATransformAndReadsUserIterators) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    const auto h = random_values<int>(2 * n + 1, n + 3, -1000, 1000);
    device_buffer<int> x(h, stream);
    device_buffer<ll> out(1, stream);
    // Sum of squares: one pass over x, the square computed on the fly.
    cupar::reduce(make_transform_iterator(x.data(), square_ll{}), out.data(), n, plus_ll{}, ll{0},
                  stream);
    ll want = 0;
    for (std::size_t i = 0; i < n; ++i)
      want += ll(h[i]) * h[i];
    EXPECT_EQ(out.to_host()[0], want);
    // A counting iterator, result to the host.
    EXPECT_EQ(cupar::reduce_value(make_counting_iterator<ll>(0), n, plus_ll{}, ll{0}, stream),
              sum_upto(n));
    // A user-written strided iterator (every second element), written through a transform
    // output iterator (x -> -x) into a pointer.
    device_buffer<int> neg(1, stream);
    cupar::reduce(strided{x.data(), 2},
                  thrust::make_transform_output_iterator(neg.data(), ::cuda::std::negate<int>{}), n,
                  plus_op<int>{}, 0, stream);
    int ws = 0;
    for (std::size_t i = 0; i < n; ++i)
      ws += h[2 * i];
    EXPECT_EQ(neg.to_host()[0], -ws);
  }
}

TEST(Iterators, ArgmaxOverAZipOfCountingAndValuesTakesTheLowestIndexOnTies) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    // Few distinct values: the maximum occurs many times, the lowest index must win.
    const auto h = random_values<float>(n, n + 11, 0, 50);
    std::vector<float> hv(h.size());
    std::transform(h.begin(), h.end(), hv.begin(), [](float v) { return float(int(v)); });
    device_buffer<float> x(hv, stream);
    const auto zip = thrust::make_zip_iterator(make_counting_iterator<ll>(0), x.data());
    const iv init{-1, -std::numeric_limits<float>::infinity()};
    const iv got = cupar::reduce_value(zip, n, argmax_op{}, init, stream);
    ll wi = -1;
    float wv = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      if (hv[i] > wv) {
        wv = hv[i];
        wi = ll(i);
      }
    }
    EXPECT_EQ(::cuda::std::get<0>(got), wi);
    EXPECT_EQ(::cuda::std::get<1>(got), wv);
  }
}

// ---- scans and transforms -----------------------------------------------------------------------

TEST(Iterators, ScansReadCountingAndConstantAndWriteThroughTransformOutputs) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    device_buffer<ll> out(n, stream);
    // Inclusive scan of 0, 1, 2, ... written doubled.
    cupar::inclusive_scan(make_counting_iterator<ll>(0),
                          thrust::make_transform_output_iterator(out.data(), times{2}), n,
                          plus_ll{}, stream);
    std::vector<ll> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = 2 * sum_upto(i + 1);
    EXPECT_EQ(out.to_host(), want);
    // Exclusive scan of a constant 3 from 5: 5, 8, 11, ...
    cupar::exclusive_scan(thrust::make_constant_iterator<ll>(3), out.data(), n, plus_ll{}, ll{5},
                          stream);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = 5 + 3 * ll(i);
    EXPECT_EQ(out.to_host(), want);
  }
}

TEST(Iterators, TransformsReadZipsAndReversesAndScatterThroughPermutations) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    const auto h = random_values<int>(n, n + 5, -100, 100);
    device_buffer<int> x(h, stream);
    device_buffer<ll> out(n, stream);
    // Unary over a reverse iterator: out[i] = x[n - 1 - i]^2.
    cupar::transform(thrust::make_reverse_iterator(x.data() + n), out.data(), n, square_ll{},
                     stream);
    std::vector<ll> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = ll(h[n - 1 - i]) * h[n - 1 - i];
    EXPECT_EQ(out.to_host(), want);
    // Binary over a counting iterator and a pointer, scattered through a permutation output:
    // out[n - 1 - i] = i + x[i].
    std::vector<ll> rev(n);
    for (std::size_t i = 0; i < n; ++i)
      rev[i] = ll(n - 1 - i);
    device_buffer<ll> idx(rev, stream);
    cupar::transform(make_counting_iterator<ll>(0), x.data(),
                     thrust::make_permutation_iterator(out.data(), idx.data()), n,
                     index_plus_value{}, stream);
    for (std::size_t i = 0; i < n; ++i)
      want[n - 1 - i] = ll(i) + h[i];
    EXPECT_EQ(out.to_host(), want);
  }
}

// ---- select, partition
// ---------------------------------------------------------------------------

TEST(Iterators, SelectAndPartitionReadComputedItemsAndDiscard) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    const auto items = make_transform_iterator(make_counting_iterator<ll>(0), hash_key{ll(n)});
    std::vector<ll> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = hash_key{ll(n)}(ll(i));
    device_buffer<ll> out(n, stream), first(n, stream), second(n, stream);
    // select_if over computed items into a pointer.
    const std::size_t c = cupar::select_if_count(items, out.data(), n, is_even{}, stream);
    std::vector<ll> want;
    std::copy_if(h.begin(), h.end(), std::back_inserter(want), is_even{});
    ASSERT_EQ(c, want.size());
    EXPECT_EQ(out.to_host(c), want);
    // Count where: only the number is wanted, the items go to a discard iterator.
    EXPECT_EQ(cupar::select_if_count(items, thrust::make_discard_iterator(), n, is_even{}, stream),
              want.size());
    // select_flagged with flags computed by a transform iterator (every third index).
    const auto flags = make_transform_iterator(make_counting_iterator<ll>(0), every_third{});
    const std::size_t f =
        cupar::select_flagged_count(make_counting_iterator<ll>(0), flags, out.data(), n, stream);
    ASSERT_EQ(f, (n + 2) / 3);
    std::vector<ll> thirds(f);
    for (std::size_t i = 0; i < f; ++i)
      thirds[i] = ll(3 * i);
    EXPECT_EQ(out.to_host(f), thirds);
    // partition of computed items, written tripled through a transform output: the even ones
    // first in input order.
    const std::size_t p = cupar::partition_count(
        items, thrust::make_transform_output_iterator(out.data(), times{3}), n, is_even{}, stream);
    ASSERT_EQ(p, want.size());
    std::vector<ll> want3(want.size());
    std::transform(want.begin(), want.end(), want3.begin(), [](ll v) { return 3 * v; });
    EXPECT_EQ(out.to_host(p), want3);
    // three_way_partition: below n/3 (first), even (second), the rest discarded.
    const ll third = ll(n / 3);
    const auto pc = cupar::three_way_partition_counts(items, first.data(), second.data(),
                                                      thrust::make_discard_iterator(), n,
                                                      below{third}, is_even{}, stream);
    std::vector<ll> w1, w2;
    for (ll v : h) {
      if (v < third) {
        w1.push_back(v);
      } else if (v % 2 == 0) {
        w2.push_back(v);
      }
    }
    ASSERT_EQ(pc.first, w1.size());
    ASSERT_EQ(pc.second, w2.size());
    EXPECT_EQ(first.to_host(pc.first), w1);
    EXPECT_EQ(second.to_host(pc.second), w2);
  }
}

// ---- unique, run-length encoding, by key --------------------------------------------------------

TEST(Iterators, UniqueAndRunLengthEncodeReadComputedRuns) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    // Runs of 7: i / 7.
    const auto runs = make_transform_iterator(make_counting_iterator<ll>(0), div_by{7});
    const std::size_t want_runs = (n + 6) / 7;
    device_buffer<ll> out(n, stream), vals(n, stream);
    device_buffer<unsigned> counts(n, stream);
    EXPECT_EQ(cupar::unique_count(runs, out.data(), n, eq_ll{}, stream), want_runs);
    std::vector<ll> want(want_runs);
    std::iota(want.begin(), want.end(), ll{0});
    EXPECT_EQ(out.to_host(want_runs), want);
    // With ==, served from the caller's translation unit for an iterator.
    EXPECT_EQ(cupar::unique_count(runs, thrust::make_discard_iterator(), n, stream), want_runs);
    // unique_by_key: the first index of each run (counting values), keys discarded.
    EXPECT_EQ(cupar::unique_by_key_count(runs, make_counting_iterator<ll>(0),
                                         thrust::make_discard_iterator(), vals.data(), n, eq_ll{},
                                         stream),
              want_runs);
    for (std::size_t r = 0; r < want_runs; ++r)
      want[r] = ll(7 * r);
    EXPECT_EQ(vals.to_host(want_runs), want);
    // run_length_encode: the items discarded, the run lengths kept.
    EXPECT_EQ(cupar::run_length_encode_count(runs, thrust::make_discard_iterator(), counts.data(),
                                             n, stream),
              want_runs);
    std::vector<unsigned> wc(want_runs, 7u);
    if (n % 7 != 0 && want_runs != 0) wc.back() = unsigned(n % 7);
    EXPECT_EQ(counts.to_host(want_runs), wc);
  }
}

TEST(Iterators, ByKeyFamiliesCountGroupsOfComputedKeys) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    const auto keys = make_transform_iterator(make_counting_iterator<ll>(0), div_by{5});
    const auto ones = thrust::make_constant_iterator<ll>(1);
    const std::size_t want_runs = (n + 4) / 5;
    device_buffer<ll> agg(n, stream), out(n, stream);
    // Group sizes: the keys themselves are not wanted.
    EXPECT_EQ(cupar::reduce_by_key_count(keys, ones, thrust::make_discard_iterator(), agg.data(), n,
                                         plus_ll{}, stream),
              want_runs);
    std::vector<ll> wa(want_runs, 5);
    if (n % 5 != 0 && want_runs != 0) wa.back() = ll(n % 5);
    EXPECT_EQ(agg.to_host(want_runs), wa);
    // Position within the group, 1-based (inclusive) and 0-based written doubled (exclusive).
    cupar::inclusive_scan_by_key(keys, ones, out.data(), n, plus_ll{}, stream);
    std::vector<ll> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = ll(i % 5) + 1;
    EXPECT_EQ(out.to_host(), want);
    cupar::exclusive_scan_by_key(keys, ones,
                                 thrust::make_transform_output_iterator(out.data(), times{2}), n,
                                 plus_ll{}, ll{0}, eq_ll{}, stream);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = 2 * ll(i % 5);
    EXPECT_EQ(out.to_host(), want);
  }
}

// ---- segmented
// -----------------------------------------------------------------------------------

TEST(Iterators, SegmentedFamiliesTakeComputedOffsetsAndValues) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    // Fixed-size segments of 9 with no offset array: begin = 9 s, end = min(9 s + 9, n).
    const std::size_t segs = (n + 8) / 9;
    const auto begins = make_transform_iterator(make_counting_iterator<ll>(0), times{9});
    std::vector<std::int64_t> hb(segs), he(segs);
    for (std::size_t s = 0; s < segs; ++s) {
      hb[s] = std::int64_t(9 * s);
      he[s] = std::min<std::int64_t>(std::int64_t(9 * s + 9), std::int64_t(n));
    }
    device_buffer<std::int64_t> db(hb, stream), de(he, stream);
    device_buffer<ll> sums(segs, stream), out(n, stream);
    // Values 0, 1, 2, ...; begin offsets computed, end offsets from an array; the sums written
    // doubled through a transform output.
    cupar::segmented_reduce(make_counting_iterator<ll>(0),
                            thrust::make_transform_output_iterator(sums.data(), times{2}), n, segs,
                            begins, de.data(), plus_ll{}, ll{0}, stream);
    std::vector<ll> want(segs);
    for (std::size_t s = 0; s < segs; ++s)
      want[s] = 2 * (sum_upto(std::size_t(he[s])) - sum_upto(std::size_t(hb[s])));
    EXPECT_EQ(sums.to_host(), want);
    // Segmented scans over counting values (offsets are arrays: cupar's own kernel).
    cupar::segmented_inclusive_scan(thrust::make_constant_iterator<ll>(1), out.data(), n, segs,
                                    db.data(), de.data(), plus_ll{}, stream);
    std::vector<ll> wi(n);
    for (std::size_t i = 0; i < n; ++i)
      wi[i] = ll(i % 9) + 1;
    EXPECT_EQ(out.to_host(), wi);
    cupar::segmented_exclusive_scan(make_counting_iterator<ll>(0),
                                    thrust::make_transform_output_iterator(out.data(), times{3}), n,
                                    segs, db.data(), de.data(), plus_ll{}, ll{0}, stream);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = i - i % 9;
      wi[i] = 3 * (sum_upto(i) - sum_upto(b));
    }
    EXPECT_EQ(out.to_host(), wi);
  }
}

// ---- binary search, sorts, histograms ----------------------------------------------------------

TEST(Iterators, BinarySearchesOverComputedRangesAndNeedles) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    // Sorted: 0, 2, 4, ... (computed); needles 0, 1, 2, ..., n (counting).
    const auto sorted = make_transform_iterator(make_counting_iterator<ll>(0), times{2});
    const std::size_t m = n + 1;
    device_buffer<std::uint32_t> lo(m, stream);
    device_buffer<std::uint64_t> hi(m, stream);
    cupar::lower_bound(sorted, n, make_counting_iterator<ll>(0), m, lo.data(), less_ll{}, stream);
    // Upper bounds scattered in reverse needle order through a permutation output.
    std::vector<ll> rev(m);
    for (std::size_t j = 0; j < m; ++j)
      rev[j] = ll(m - 1 - j);
    device_buffer<ll> order(rev, stream);
    cupar::upper_bound(sorted, n, make_counting_iterator<ll>(0), m,
                       thrust::make_permutation_iterator(hi.data(), order.data()), less_ll{},
                       stream);
    std::vector<std::uint32_t> wl(m);
    std::vector<std::uint64_t> wh(m);
    for (std::size_t j = 0; j < m; ++j) {
      wl[j] = std::uint32_t(std::min<std::size_t>((j + 1) / 2, n));
      wh[m - 1 - j] = std::min<std::size_t>(j / 2 + 1, n);
    }
    EXPECT_EQ(lo.to_host(), wl);
    EXPECT_EQ(hi.to_host(), wh);
  }
}

TEST(Iterators, MergeSortsSortComputedKeys) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    const auto keys = make_transform_iterator(make_counting_iterator<ll>(0), hash_key{ll(n)});
    std::vector<ll> hk(n);
    for (std::size_t i = 0; i < n; ++i)
      hk[i] = hash_key{ll(n)}(ll(i));
    device_buffer<ll> out(n, stream), vals(n, stream);
    cupar::sort_keys(keys, out.data(), n, less_ll{}, stream);
    std::vector<ll> want = hk;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(out.to_host(), want);
    // Stable pairs of computed keys and their positions (the copy to the output goes through a
    // transform: the input is not a pointer).
    cupar::stable_sort_pairs(make_transform_iterator(make_counting_iterator<ll>(0), div_by{-3}),
                             out.data(), make_counting_iterator<ll>(0), vals.data(), n, less_ll{},
                             stream);
    std::vector<std::pair<ll, ll>> wp(n);
    for (std::size_t i = 0; i < n; ++i)
      wp[i] = {ll(i) / -3, ll(i)};
    std::stable_sort(wp.begin(), wp.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<ll> wk(n), wv(n);
    for (std::size_t i = 0; i < n; ++i) {
      wk[i] = wp[i].first;
      wv[i] = wp[i].second;
    }
    EXPECT_EQ(out.to_host(), wk);
    EXPECT_EQ(vals.to_host(), wv);
  }
}

TEST(Iterators, HistogramOfComputedSamples) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : iterator_sizes()) {
    SCOPED_TRACE(n);
    device_buffer<unsigned> hist(10, stream);
    // Samples i; the operator maps them to i % 1000 as float; 10 bins over [0, 1000).
    cupar::histogram_even(make_counting_iterator<ll>(0), hist.data(), 11, 0.0f, 1000.0f, n,
                          float_level{}, stream);
    std::vector<unsigned> want(10, 0);
    for (std::size_t i = 0; i < n; ++i)
      ++want[(i % 1000) / 100];
    EXPECT_EQ(hist.to_host(), want);
  }
}

// ---- argument checks
// -----------------------------------------------------------------------------

TEST(Iterators, PointerArgumentsAreStillCheckedBesideIterators) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const auto count = make_counting_iterator<ll>(0);
  ll* null_out = nullptr;
  EXPECT_THROW(cupar::reduce(count, null_out, 5, plus_ll{}, ll{0}, stream), std::invalid_argument);
  EXPECT_THROW(cupar::inclusive_scan(count, null_out, 5, plus_ll{}, stream), std::invalid_argument);
  EXPECT_THROW(cupar::select_if_count(count, null_out, 5, is_even{}, stream),
               std::invalid_argument);
  const ll* null_in = nullptr;
  EXPECT_THROW(cupar::transform(null_in, thrust::make_discard_iterator(), 5, div_by{2}, stream),
               std::invalid_argument);
  // Two discard outputs are not "the same array" (three_way_partition's check).
  device_buffer<ll> first(5, stream);
  EXPECT_NO_THROW(cupar::three_way_partition_counts(
      count, first.data(), thrust::make_discard_iterator(), thrust::make_discard_iterator(), 5,
      below{2}, is_even{}, stream));
  // The library keeps working after the errors.
  EXPECT_EQ(cupar::reduce_value(count, 5, plus_ll{}, ll{0}, stream), 10);
}

}  // namespace
}  // namespace cupar::testing
