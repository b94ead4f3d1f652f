// cupar tests: segmented families conformance (segmented_reduce, segmented_inclusive_scan,
// segmented_exclusive_scan, segmented_sort_keys, segmented_sort_pairs, check_segments), include
// after `using Ops = ...;`. References: each segment reduced, scanned or stable-sorted on the CPU
// with the standard library.
//
// What the families promise, and these tests check: every segment is reduced / scanned / sorted on
// its own (scans start afresh at each segment's first item; a reduce of an empty segment gives
// init); items outside every segment are never written (outputs are poisoned first and the gaps
// must keep the poison; in place they keep the input); the sorts are stable in both directions,
// -0.0 and +0.0 being equal keys; operands keep their order (a non-commutative product of 2x2
// matrices). Segment layouts: contiguous segments of random sizes, many tiny and empty ones,
// segments with gaps between them, sizes around the scans' tile sizes, one segment over
// everything, segments of many tiles, and (reduce, sorts) overlapping or unordered ones.
//
// Sums use values whose sums are exact in any order (integers over their whole range with
// wrap-around, integer-valued floating point), so every comparison is exact.
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using segmented_types = CUPAR_SUITE_TYPES;
#else
using segmented_types = arithmetic_types;
#endif

namespace seg_ref {

/// Segments on the host: [begin[s], end[s]) over data of n items.
struct segments {
  segments(std::string label, std::size_t items) : name(std::move(label)), n(items) {}

  std::string name;
  std::size_t n = 0;
  std::vector<std::int64_t> begin, end;
  std::size_t count() const { return begin.size(); }
  void add(std::size_t b, std::size_t e) {
    begin.push_back(static_cast<std::int64_t>(b));
    end.push_back(static_cast<std::int64_t>(e));
  }
};

/// Contiguous segments covering [0, n), sizes uniform in [0, 2 * avg] (empty ones included).
inline segments contiguous(std::size_t n, std::size_t avg, std::uint64_t seed) {
  segments s{"contiguous, average " + std::to_string(avg) + ", n = " + std::to_string(n), n};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> size(0, 2 * avg);
  for (std::size_t b = 0; b < n;) {
    const std::size_t e = std::min(n, b + size(rng));
    s.add(b, e);
    b = e;
  }
  return s;
}

/// Ordered segments with gaps of random sizes before, between and after them, and empty segments
/// among them (some at a gap's position).
inline segments with_gaps(std::size_t n, std::size_t avg, std::uint64_t seed) {
  segments s{"gaps, average " + std::to_string(avg) + ", n = " + std::to_string(n), n};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> size(1, 2 * avg), gap(0, avg), coin(0, 3);
  std::size_t b = gap(rng);
  while (b < n) {
    if (coin(rng) == 0) s.add(b, b);  // an empty segment
    const std::size_t e = std::min(n, b + size(rng));
    s.add(b, e);
    b = e + gap(rng);
  }
  if (n > 0) s.add(n, n);  // an empty segment at the very end
  return s;
}

/// Segment sizes around the tile sizes of the scans' policies on sm_90 (1536, 1920, 2240, 4096
/// items for 1-, 4-, 8- and 2-byte values), with small gaps between some of them.
inline segments tile_edges(std::uint64_t seed) {
  segments s{"tile edges", 0};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> gap(0, 2);
  std::size_t b = 0;
  for (std::size_t size : {1,    31,   32,   33,   1535, 1536, 1537, 1919, 1920, 1921, 2239,
                           2240, 2241, 4095, 4096, 4097, 3840, 1,    2,    3,    6000, 5}) {
    b += static_cast<std::size_t>(gap(rng));
    s.add(b, b + size);
    b += size;
  }
  s.n = b + 7;
  return s;
}

inline segments whole(std::size_t n) {
  segments s{"one segment over n = " + std::to_string(n), n};
  s.add(0, n);
  return s;
}

inline segments middle(std::size_t n) {
  segments s{"one segment in the middle of n = " + std::to_string(n), n};
  s.add(n / 3, n - n / 3);
  return s;
}

inline segments only_empty(std::size_t n) {
  segments s{"only empty segments, n = " + std::to_string(n), n};
  for (std::size_t b : {std::size_t(0), n / 2, n / 2, n})
    s.add(b, b);
  return s;
}

/// Random segments in any order, overlapping one another (segmented_reduce only).
inline segments overlapping(std::size_t n, std::uint64_t seed) {
  segments s{"overlapping, any order, n = " + std::to_string(n), n};
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> at(0, n);
  for (int k = 0; k < 300; ++k) {
    std::size_t b = at(rng), e = at(rng);
    if (b > e) std::swap(b, e);
    s.add(b, e);
  }
  return s;
}

/// Disjoint segments in shuffled order (the sorts accept any order).
inline segments shuffled(segments s, std::uint64_t seed) {
  std::vector<std::size_t> order(s.count());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  segments t{s.name + ", shuffled", s.n};
  for (std::size_t i : order)
    t.add(static_cast<std::size_t>(s.begin[i]), static_cast<std::size_t>(s.end[i]));
  return t;
}

/// The ordered layouts every family runs on (scans need ordered segments).
inline std::vector<segments> ordered_layouts(std::uint64_t seed) {
  std::vector<segments> v;
  for (std::size_t n :
       scaled({std::size_t(1000), std::size_t(65537), (std::size_t(1) << 20) + 3})) {
    v.push_back(contiguous(n, 1000, seed + n));
    v.push_back(contiguous(n, 2, seed + n + 1));
    v.push_back(with_gaps(n, 300, seed + n + 2));
    v.push_back(middle(n));
  }
  v.push_back(contiguous((std::size_t(1) << 20) + 3, std::size_t(1) << 18, seed + 3));
  v.push_back(tile_edges(seed + 4));
  v.push_back(whole(1));
  v.push_back(whole(100003));
  v.push_back(only_empty(1000));
  return v;
}

/// Values whose sums are exact in every order: integers over their whole range (wrap-around),
/// integer-valued floating point in [-3, 3].
template <class T>
std::vector<T> exact_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    const auto ints = random_values<int>(n, seed, -3, 3);
    return std::vector<T>(ints.begin(), ints.end());
  } else {
    return full_range_values<T>(n, seed);
  }
}

template <class T>
T max_of(T a, T b) {
  return a < b ? b : a;
}

/// `n` items of `poison` bytes.
template <class T>
std::vector<T> poisoned(std::size_t n, unsigned char poison) {
  std::vector<T> v(n);
  if (n != 0) std::memset(static_cast<void*>(v.data()), poison, n * sizeof(T));
  return v;
}

template <class T, class Op>
std::vector<T> reduce(const std::vector<T>& in, const segments& s, Op op, T init) {
  std::vector<T> out(s.count());
  for (std::size_t k = 0; k < s.count(); ++k) {
    T acc = init;
    for (auto i = s.begin[k]; i < s.end[k]; ++i)
      acc = op(acc, in[static_cast<std::size_t>(i)]);
    out[k] = acc;
  }
  return out;
}

/// Scans each segment of `in` into `out`, leaving the items outside the segments as they are.
template <class T, class Op>
void inclusive(const std::vector<T>& in, const segments& s, Op op, std::vector<T>& out) {
  for (std::size_t k = 0; k < s.count(); ++k) {
    T acc{};
    for (auto i = s.begin[k]; i < s.end[k]; ++i) {
      const auto u = static_cast<std::size_t>(i);
      acc = i == s.begin[k] ? in[u] : op(acc, in[u]);
      out[u] = acc;
    }
  }
}

template <class T, class Op>
void exclusive(const std::vector<T>& in, const segments& s, Op op, T init, std::vector<T>& out) {
  for (std::size_t k = 0; k < s.count(); ++k) {
    T acc = init;
    for (auto i = s.begin[k]; i < s.end[k]; ++i) {
      const auto u = static_cast<std::size_t>(i);
      out[u] = acc;
      acc = op(acc, in[u]);
    }
  }
}

/// The radix sort's order of a key as an unsigned integer: -0.0 and +0.0 equal, NaN by bit
/// pattern (-NaN first, +NaN last), signed integers with their sign bit flipped.
template <class T>
auto radix_order(T x) {
  using U = std::conditional_t<
      sizeof(T) == 1, std::uint8_t,
      std::conditional_t<sizeof(T) == 2, std::uint16_t,
                         std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  constexpr U sign = U(U(1) << (8 * sizeof(T) - 1));
  U u;
  std::memcpy(&u, &x, sizeof(T));
  if constexpr (std::is_floating_point_v<T>) {
    if (x == T(0)) u = 0;  // -0.0 sorts as +0.0
    return static_cast<U>((u & sign) ? U(~u) : U(u | sign));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<U>(u ^ sign);
  } else {
    return u;
  }
}

/// Stable-sorts the positions of each segment by key; returns, for every position of `out`, the
/// input position whose key and value land there (positions outside the segments map to
/// themselves, meaning "untouched").
template <class T>
std::vector<std::size_t> sorted_positions(const std::vector<T>& keys, const segments& s,
                                          bool descending) {
  std::vector<std::size_t> from(keys.size());
  std::iota(from.begin(), from.end(), std::size_t(0));
  for (std::size_t k = 0; k < s.count(); ++k) {
    const auto b = from.begin() + s.begin[k], e = from.begin() + s.end[k];
    std::stable_sort(b, e, [&](std::size_t x, std::size_t y) {
      const auto kx = radix_order(keys[x]), ky = radix_order(keys[y]);
      return descending ? ky < kx : kx < ky;
    });
  }
  return from;
}

/// out[i] = in[from[i]] inside the segments; `out` keeps its items elsewhere.
template <class T>
void permute(const std::vector<T>& in, const std::vector<std::size_t>& from, const segments& s,
             std::vector<T>& out) {
  for (std::size_t k = 0; k < s.count(); ++k) {
    for (auto i = s.begin[k]; i < s.end[k]; ++i) {
      const auto u = static_cast<std::size_t>(i);
      out[u] = in[from[u]];
    }
  }
}

/// Sort keys: few distinct values (so stability shows), floating point with both zeros.
template <class T>
std::vector<T> sort_keys(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    auto v = random_values<T>(n, seed, -20.0, 20.0);
    const auto pick = random_values<int>(n, seed + 1, 0, 9);
    for (std::size_t i = 0; i < n; ++i) {
      if (pick[i] == 0) v[i] = T(0);
      if (pick[i] == 1) v[i] = -T(0);
      if (pick[i] == 2) v[i] = std::round(v[i]);  // repeated values
    }
    return v;
  } else if constexpr (std::is_signed_v<T>) {
    return random_values<T>(n, seed, -9, 9);
  } else {
    const auto full = full_range_values<T>(n, seed);
    const auto small = random_values<T>(n, seed + 1, 0, 15);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = i % 3 == 0 ? full[i] : small[i];
    return v;
  }
}

/// A 12-byte payload (moved by the gather path of the pair sorts).
struct triple {
  std::uint32_t a, b, c;
  friend bool operator==(const triple& x, const triple& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c;
  }
  friend std::ostream& operator<<(std::ostream& os, const triple& t) {
    return os << "{" << t.a << ", " << t.b << ", " << t.c << "}";
  }
};

/// The device copy of a layout's offsets.
struct device_segments {
  device_buffer<std::int64_t> begin, end;
  device_segments(const segments& s, cupar::stream_ref stream)
      : begin(s.begin, stream), end(s.end, stream) {}
};

}  // namespace seg_ref

// ---- segmented reduce and scans ----------------------------------------------------------------

template <class T>
class Segmented : public ::testing::Test {};
TYPED_TEST_SUITE(Segmented, segmented_types, type_names);

TYPED_TEST(Segmented, ReduceGivesEachSegmentItsOwnResult) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  auto layouts = seg_ref::ordered_layouts(101);
  layouts.push_back(seg_ref::overlapping(65537, 102));
  layouts.push_back(seg_ref::shuffled(seg_ref::contiguous(100003, 50, 103), 104));
  for (const auto& s : layouts) {
    SCOPED_TRACE(s.name);
    const auto h = seg_ref::exact_values<T>(s.n, 105 + s.n);
    device_buffer<T> in(h, stream), out(s.count(), stream);
    seg_ref::device_segments d(s, stream);
    const T init = static_cast<T>(3);
    out.fill_bytes(0x5A);
    cupar::segmented_reduce(in.data(), out.data(), s.n, s.count(), d.begin.data(), d.end.data(),
                            Ops::template plus<T>(), init, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), seg_ref::reduce(h, s, &wrapping_add<T>, init)));
    const T lowest = std::numeric_limits<T>::lowest();
    out.fill_bytes(0x5A);
    cupar::segmented_reduce(in.data(), out.data(), s.n, s.count(), d.begin.data(), d.end.data(),
                            Ops::template maximum<T>(), lowest, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), seg_ref::reduce(h, s, &seg_ref::max_of<T>, lowest)));
  }
}

TYPED_TEST(Segmented, InclusiveScanStartsAfreshAtEverySegmentAndSkipsGaps) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (const auto& s : seg_ref::ordered_layouts(201)) {
    SCOPED_TRACE(s.name);
    const auto h = seg_ref::exact_values<T>(s.n, 202 + s.n);
    device_buffer<T> in(h, stream), out(s.n, stream);
    seg_ref::device_segments d(s, stream);
    out.fill_bytes(0xA5);
    cupar::segmented_inclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::template plus<T>(), stream);
    auto want = seg_ref::poisoned<T>(s.n, 0xA5);
    seg_ref::inclusive(h, s, &wrapping_add<T>, want);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want));
    out.fill_bytes(0xA5);
    cupar::segmented_inclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::template maximum<T>(), stream);
    want = seg_ref::poisoned<T>(s.n, 0xA5);
    seg_ref::inclusive(h, s, &seg_ref::max_of<T>, want);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want));
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
  }
}

TYPED_TEST(Segmented, ExclusiveScanStartsEverySegmentWithInit) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (const auto& s : seg_ref::ordered_layouts(301)) {
    SCOPED_TRACE(s.name);
    const auto h = seg_ref::exact_values<T>(s.n, 302 + s.n);
    device_buffer<T> in(h, stream), out(s.n, stream);
    seg_ref::device_segments d(s, stream);
    const T init = static_cast<T>(-2);
    out.fill_bytes(0xA5);
    cupar::segmented_exclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::template plus<T>(), init, stream);
    auto want = seg_ref::poisoned<T>(s.n, 0xA5);
    seg_ref::exclusive(h, s, &wrapping_add<T>, init, want);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want));
    // init takes part: the lowest value only shifts the scan, a middle value clamps it.
    for (T m : {std::numeric_limits<T>::lowest(), static_cast<T>(1)}) {
      SCOPED_TRACE("max with init " + printable(m));
      out.fill_bytes(0xA5);
      cupar::segmented_exclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                      d.end.data(), Ops::template maximum<T>(), m, stream);
      want = seg_ref::poisoned<T>(s.n, 0xA5);
      seg_ref::exclusive(h, s, &seg_ref::max_of<T>, m, want);
      EXPECT_TRUE(bitwise_equal(out.to_host(), want));
    }
  }
}

TYPED_TEST(Segmented, ScansInPlaceKeepTheInputOutsideSegments) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (const auto& s : {seg_ref::with_gaps(100003, 700, 401), seg_ref::tile_edges(402),
                        seg_ref::contiguous((std::size_t(1) << 20) + 3, 1000, 403)}) {
    SCOPED_TRACE(s.name);
    const auto h = seg_ref::exact_values<T>(s.n, 404 + s.n);
    device_buffer<T> io(h, stream);
    seg_ref::device_segments d(s, stream);
    cupar::segmented_inclusive_scan(io.data(), io.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::template plus<T>(), stream);
    auto want = h;
    seg_ref::inclusive(h, s, &wrapping_add<T>, want);
    EXPECT_TRUE(bitwise_equal(io.to_host(), want));
    io.copy_from_host(h.data(), s.n);
    const T init = static_cast<T>(5);
    cupar::segmented_exclusive_scan(io.data(), io.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::template plus<T>(), init, stream);
    want = h;
    seg_ref::exclusive(h, s, &wrapping_add<T>, init, want);
    EXPECT_TRUE(bitwise_equal(io.to_host(), want));
  }
}

TYPED_TEST(Segmented, EmptyInputsAndNoSegments) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3), T(4)};
  device_buffer<T> in(h, stream), out(4, stream);
  out.fill_bytes(0xAB);
  const auto untouched = out.to_host();
  // No segments: nothing is written, whatever n is; null offsets are fine then.
  const std::int64_t* none = nullptr;
  cupar::segmented_reduce(in.data(), out.data(), 4, 0, none, none, Ops::template plus<T>(), T(9),
                          stream);
  cupar::segmented_inclusive_scan(in.data(), out.data(), 4, 0, none, none, Ops::template plus<T>(),
                                  stream);
  cupar::segmented_exclusive_scan(in.data(), out.data(), 4, 0, none, none,
                                  Ops::template maximum<T>(), T(9), stream);
  cupar::segmented_reduce(static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0, 0, none,
                          none, Ops::template plus<T>(), T(9), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), untouched));
  // n == 0 with segments (all empty): the reduce writes init to each; scans write nothing.
  const std::vector<std::int64_t> zeros = {0, 0, 0};
  device_buffer<std::int64_t> d_zeros(zeros, stream);
  cupar::segmented_reduce(static_cast<const T*>(nullptr), out.data(), 0, 3, d_zeros.data(),
                          d_zeros.data(), Ops::template plus<T>(), T(9), stream);
  const auto got = out.to_host();
  EXPECT_TRUE(bitwise_equal(got, std::vector<T>{T(9), T(9), T(9), untouched[3]}));
  out.fill_bytes(0xAB);
  cupar::segmented_inclusive_scan(static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0, 3,
                                  d_zeros.data(), d_zeros.data(), Ops::template plus<T>(), stream);
  cupar::segmented_exclusive_scan(in.data(), out.data(), 0, 3, d_zeros.data(), d_zeros.data(),
                                  Ops::template plus<T>(), T(9), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), untouched));
}

TYPED_TEST(Segmented, BadArgumentsThrowBeforeAnyWorkAndTheNextCallWorks) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T a[8] = {}, b[8] = {};
  std::int64_t offsets[3] = {0, 2, 4};
  const std::int64_t* none = nullptr;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_reduce(null_in, b, 3, 1, offsets, offsets + 1,
                                                  Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "cupar::segmented_reduce: d_in is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_reduce(a, null_out, 3, 2, offsets, offsets + 1,
                                                  Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "d_out is null but num_segments = 2");
  CUPAR_EXPECT_THROW_WITH(
      cupar::segmented_reduce(a, b, 3, 2, none, offsets + 1, Ops::template plus<T>(), T(0), s),
      std::invalid_argument, "d_begin_offsets is null but num_segments = 2");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_reduce(a, a + 2, 8, 2, offsets, offsets + 1,
                                                  Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "d_in and d_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_reduce(a, reinterpret_cast<T*>(offsets), 4, 2, offsets,
                                                  offsets + 1, Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "d_begin_offsets and d_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_inclusive_scan(a, a + 1, 4, 1, offsets, offsets + 1,
                                                          Ops::template plus<T>(), s),
                          std::invalid_argument,
                          "cupar::segmented_inclusive_scan: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_exclusive_scan(a, null_out, 4, 1, offsets, offsets + 1,
                                                          Ops::template plus<T>(), T(0), s),
                          std::invalid_argument,
                          "cupar::segmented_exclusive_scan: d_out is null but n = 4");
  CUPAR_EXPECT_THROW_WITH(
      cupar::segmented_inclusive_scan(a, b, 4, 1, offsets, none, Ops::template plus<T>(), s),
      std::invalid_argument, "d_end_offsets is null but num_segments = 1");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3), T(4)};
  device_buffer<T> in(h, stream), out(4, stream);
  seg_ref::segments two{"two", 4};
  two.add(0, 2);
  two.add(2, 4);
  seg_ref::device_segments d(two, stream);
  cupar::segmented_inclusive_scan(in.data(), out.data(), 4, 2, d.begin.data(), d.end.data(),
                                  Ops::template plus<T>(), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), std::vector<T>{T(1), T(3), T(3), T(7)}));
}

// ---- segmented sorts (no operator: the library's) -----------------------------------------------

template <class T>
class SegmentedSort : public ::testing::Test {};
TYPED_TEST_SUITE(SegmentedSort, segmented_types, type_names);

TYPED_TEST(SegmentedSort, KeysAndPairsAreStableInBothDirections) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  auto layouts = seg_ref::ordered_layouts(501);
  layouts.push_back(seg_ref::shuffled(seg_ref::with_gaps(100003, 400, 502), 503));
  for (const auto& s : layouts) {
    const auto keys = seg_ref::sort_keys<K>(s.n, 504 + s.n);
    std::vector<std::uint32_t> values(s.n);
    std::iota(values.begin(), values.end(), 0u);
    device_buffer<K> kin(keys, stream), kout(s.n, stream);
    device_buffer<std::uint32_t> vin(values, stream), vout(s.n, stream);
    seg_ref::device_segments d(s, stream);
    for (const cupar::radix_options order : {cupar::ascending, cupar::descending}) {
      const bool descending = order.order == cupar::sort_order::descending;
      SCOPED_TRACE(s.name + (descending ? ", descending" : ", ascending"));
      const auto from = seg_ref::sorted_positions(keys, s, descending);
      auto want_keys = seg_ref::poisoned<K>(s.n, 0x3C);
      seg_ref::permute(keys, from, s, want_keys);
      auto want_values = seg_ref::poisoned<std::uint32_t>(s.n, 0x4D);
      seg_ref::permute(values, from, s, want_values);
      kout.fill_bytes(0x3C);
      cupar::segmented_sort_keys(kin.data(), kout.data(), s.n, s.count(), d.begin.data(),
                                 d.end.data(), order, stream);
      EXPECT_TRUE(bitwise_equal(kout.to_host(), want_keys));
      kout.fill_bytes(0x3C);
      vout.fill_bytes(0x4D);
      cupar::segmented_sort_pairs(kin.data(), kout.data(), vin.data(), vout.data(), s.n, s.count(),
                                  d.begin.data(), d.end.data(), order, stream);
      EXPECT_TRUE(bitwise_equal(kout.to_host(), want_keys));
      EXPECT_TRUE(bitwise_equal(vout.to_host(), want_values)) << "not stable";
    }
    EXPECT_TRUE(bitwise_equal(kin.to_host(), keys)) << "the input was modified";
  }
}

namespace seg_ref {
/// Sorts pairs with values of type V from `values` (out of place, then in place) and checks keys
/// and values against the stable reference.
template <class K, class V>
void check_pairs(const segments& s, const std::vector<K>& keys, const std::vector<V>& values,
                 cupar::stream_ref stream) {
  SCOPED_TRACE("values of " + std::to_string(sizeof(V)) + " bytes");
  const device_segments d(s, stream);
  for (const cupar::radix_options order : {cupar::ascending, cupar::descending}) {
    const bool descending = order.order == cupar::sort_order::descending;
    SCOPED_TRACE(descending ? "descending" : "ascending");
    const auto from = sorted_positions(keys, s, descending);
    auto want_keys = poisoned<K>(s.n, 0x21);
    permute(keys, from, s, want_keys);
    auto want_values = poisoned<V>(s.n, 0x43);
    permute(values, from, s, want_values);
    device_buffer<K> kin(keys, stream), kout(s.n, stream);
    device_buffer<V> vin(values, stream), vout(s.n, stream);
    kout.fill_bytes(0x21);
    vout.fill_bytes(0x43);
    cupar::segmented_sort_pairs(kin.data(), kout.data(), vin.data(), vout.data(), s.n, s.count(),
                                d.begin.data(), d.end.data(), order, stream);
    EXPECT_TRUE(bitwise_equal(kout.to_host(), want_keys));
    EXPECT_TRUE(value_equal(vout.to_host(), want_values));
    EXPECT_TRUE(value_equal(vin.to_host(), values)) << "the input values were modified";
    // In place: outside the segments the arrays keep the input.
    auto keep_keys = keys;
    permute(keys, from, s, keep_keys);
    auto keep_values = values;
    permute(values, from, s, keep_values);
    cupar::segmented_sort_pairs(kin.data(), kin.data(), vin.data(), vin.data(), s.n, s.count(),
                                d.begin.data(), d.end.data(), order, stream);
    EXPECT_TRUE(bitwise_equal(kin.to_host(), keep_keys));
    EXPECT_TRUE(value_equal(vin.to_host(), keep_values));
    // Keys only, in place.
    kin.copy_from_host(keys.data(), s.n);
    cupar::segmented_sort_keys(kin.data(), kin.data(), s.n, s.count(), d.begin.data(), d.end.data(),
                               order, stream);
    EXPECT_TRUE(bitwise_equal(kin.to_host(), keep_keys));
  }
}
}  // namespace seg_ref

TYPED_TEST(SegmentedSort, PayloadsOfEverySizeAndInPlace) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  for (const auto& s : {seg_ref::with_gaps(65537, 300, 601), seg_ref::contiguous(100003, 3, 602),
                        seg_ref::whole(200003)}) {
    SCOPED_TRACE(s.name);
    const auto keys = seg_ref::sort_keys<K>(s.n, 603 + s.n);
    std::vector<std::uint16_t> small(s.n);
    std::vector<std::uint64_t> wide(s.n);
    std::vector<seg_ref::triple> odd(s.n);
    for (std::size_t i = 0; i < s.n; ++i) {
      small[i] = static_cast<std::uint16_t>(i * 7);
      wide[i] = (std::uint64_t(i) << 32) | (i * 3);
      odd[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(~i), 42u};
    }
    // The sort moves 8-byte values itself; 2- and 12-byte ones go through an index and a gather.
    seg_ref::check_pairs(s, keys, wide, stream);
    seg_ref::check_pairs(s, keys, small, stream);
    seg_ref::check_pairs(s, keys, odd, stream);
  }
}

TYPED_TEST(SegmentedSort, EmptyInputsAndNoSegmentsWriteNothing) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  const std::vector<K> h = {K(4), K(3), K(2), K(1)};
  device_buffer<K> in(h, stream), out(4, stream);
  out.fill_bytes(0xAB);
  const auto untouched = out.to_host();
  const std::int64_t* none = nullptr;
  cupar::segmented_sort_keys(in.data(), out.data(), 4, 0, none, none, stream);
  cupar::segmented_sort_keys(static_cast<const K*>(nullptr), static_cast<K*>(nullptr), 0, 0, none,
                             none, cupar::descending, stream);
  const std::vector<std::int64_t> zeros = {0, 0};
  device_buffer<std::int64_t> d_zeros(zeros, stream);
  cupar::segmented_sort_keys(static_cast<const K*>(nullptr), static_cast<K*>(nullptr), 0, 2,
                             d_zeros.data(), d_zeros.data(), stream);
  cupar::segmented_sort_pairs(in.data(), out.data(), in.data(), out.data(), 0, 2, d_zeros.data(),
                              d_zeros.data(), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), untouched));
  // One segment of one key, one of none.
  const std::vector<std::int64_t> b = {2, 3}, e = {3, 3};
  device_buffer<std::int64_t> d_b(b, stream), d_e(e, stream);
  cupar::segmented_sort_keys(in.data(), out.data(), 4, 2, d_b.data(), d_e.data(), stream);
  auto want = untouched;
  want[2] = h[2];
  EXPECT_TRUE(bitwise_equal(out.to_host(), want));
}

TYPED_TEST(SegmentedSort, BadArgumentsThrowBeforeAnyWork) {
  using K = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  K a[8] = {};
  std::uint32_t v[8] = {};
  std::int64_t offsets[3] = {0, 2, 4};
  const K* null_keys = nullptr;
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_sort_keys(null_keys, a, 4, 1, offsets, offsets + 1, s),
                          std::invalid_argument,
                          "cupar::segmented_sort_keys: d_keys_in is null but n = 4");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_sort_keys(a, a + 1, 4, 1, offsets, offsets + 1, s),
                          std::invalid_argument, "d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::segmented_sort_keys(a, a, 4, 2, static_cast<const std::int64_t*>(nullptr), offsets + 1,
                                 s),
      std::invalid_argument, "d_begin_offsets is null but num_segments = 2");
  CUPAR_EXPECT_THROW_WITH(
      cupar::segmented_sort_keys(a, a, 4, 1, offsets, offsets + 1,
                                 cupar::radix_options{cupar::sort_order::ascending, 0, 4}, s),
      std::invalid_argument, "every bit of the key");
  CUPAR_EXPECT_THROW_WITH(cupar::segmented_sort_pairs(a, a, v, reinterpret_cast<std::uint32_t*>(a),
                                                      2, 1, offsets, offsets + 1, s),
                          std::invalid_argument, "overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::segmented_sort_pairs(a, a, v, reinterpret_cast<std::uint32_t*>(offsets), 4, 2, offsets,
                                  offsets + 1, s),
      std::invalid_argument, "d_begin_offsets and d_values_out overlap");
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

namespace seg_ref {
inline std::vector<mat2> random_mats(std::size_t n, std::uint64_t seed) {
  std::vector<mat2> h(n);
  const auto r = random_values<std::uint32_t>(4 * n, seed, 0, 0xFFFFFFFFu);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
  return h;
}
}  // namespace seg_ref

TEST(SegmentedStruct, NonCommutativeProductsKeepOperandOrder) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (const auto& s : {seg_ref::with_gaps(100003, 900, 701), seg_ref::tile_edges(702),
                        seg_ref::contiguous(65537, 3, 703)}) {
    SCOPED_TRACE(s.name);
    const auto h = seg_ref::random_mats(s.n, 704 + s.n);
    device_buffer<mat2> in(h, stream), out(s.n, stream), sums(s.count(), stream);
    seg_ref::device_segments d(s, stream);
    const mat2 init{1, 2, 3, 4};
    cupar::segmented_reduce(in.data(), sums.data(), s.n, s.count(), d.begin.data(), d.end.data(),
                            Ops::mat2_mul(), init, stream);
    EXPECT_TRUE(
        value_equal(sums.to_host(), seg_ref::reduce(h, s, &cupar::testing::mat2_mul, init)));
    out.fill_bytes(0xA5);
    cupar::segmented_inclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::mat2_mul(), stream);
    auto want = seg_ref::poisoned<mat2>(s.n, 0xA5);
    seg_ref::inclusive(h, s, &cupar::testing::mat2_mul, want);
    EXPECT_TRUE(value_equal(out.to_host(), want));
    out.fill_bytes(0xA5);
    cupar::segmented_exclusive_scan(in.data(), out.data(), s.n, s.count(), d.begin.data(),
                                    d.end.data(), Ops::mat2_mul(), init, stream);
    want = seg_ref::poisoned<mat2>(s.n, 0xA5);
    seg_ref::exclusive(h, s, &cupar::testing::mat2_mul, init, want);
    EXPECT_TRUE(value_equal(out.to_host(), want));
  }
}

// Offsets of every integer type and computed ones (jit::offsets): written to 64-bit arrays
// first, then sorted as with 64-bit offsets.
TEST(SegmentedSortOffsets, EveryIntegerTypeAndExpressionsSortLikeInt64) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const auto s = seg_ref::shuffled(seg_ref::with_gaps(100003, 400, 811), 812);
  const auto keys = seg_ref::sort_keys<std::int32_t>(s.n, 813);
  device_buffer<std::int32_t> kin(keys, stream), kout(s.n, stream);
  const auto from = seg_ref::sorted_positions(keys, s, false);
  auto want = seg_ref::poisoned<std::int32_t>(s.n, 0x3C);
  seg_ref::permute(keys, from, s, want);
  auto check = [&](const char* what, cupar::jit::offsets begin, cupar::jit::offsets end) {
    SCOPED_TRACE(what);
    kout.fill_bytes(0x3C);
    cupar::segmented_sort_keys(kin.data(), kout.data(), s.n, s.count(), begin, end, stream);
    EXPECT_TRUE(bitwise_equal(kout.to_host(), want));
  };
  const std::vector<std::int32_t> b32(s.begin.begin(), s.begin.end()),
      e32(s.end.begin(), s.end.end());
  const std::vector<std::uint32_t> bu32(s.begin.begin(), s.begin.end()),
      eu32(s.end.begin(), s.end.end());
  const std::vector<std::uint64_t> bu64(s.begin.begin(), s.begin.end()),
      eu64(s.end.begin(), s.end.end());
  device_buffer<std::int32_t> db32(b32, stream), de32(e32, stream);
  device_buffer<std::uint32_t> dbu32(bu32, stream), deu32(eu32, stream);
  device_buffer<std::uint64_t> dbu64(bu64, stream), deu64(eu64, stream);
  check("int32", db32.data(), de32.data());
  check("uint32", dbu32.data(), deu32.data());
  check("uint64", dbu64.data(), deu64.data());
  // 64-bit begins, 32-bit ends: each side on its own.
  const seg_ref::device_segments d(s, stream);
  check("int64 and int32", d.begin.data(), de32.data());
  // Fixed-size segments computed from their index: [256 s, 256 s + 256).
  const std::size_t m = 1000, n = 256 * m;
  const auto fixed = seg_ref::sort_keys<std::int32_t>(n, 814);
  device_buffer<std::int32_t> fin(fixed, stream), fout(n, stream);
  const cupar::jit::iterator starts =
      cupar::jit::transform(cupar::jit::counting(0ll), cupar::jit::op("x * 256"));
  const cupar::jit::iterator ends =
      cupar::jit::transform(cupar::jit::counting(1ll), cupar::jit::op("x * 256"));
  cupar::segmented_sort_keys(fin.data(), fout.data(), n, m, starts, ends, stream);
  auto want_fixed = fixed;
  for (std::size_t k = 0; k < m; ++k)
    std::stable_sort(want_fixed.begin() + 256 * k, want_fixed.begin() + 256 * (k + 1));
  EXPECT_TRUE(bitwise_equal(fout.to_host(), want_fixed));
}

TEST(SegmentedSortFloat, NaNFreeSegmentsSortAndSegmentsWithNaNKeepTheirKeys) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  // Segments holding NaN are sorted in an unspecified order (segmented.hpp); the call still sorts
  // every other segment and moves no key across segments.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto s = seg_ref::contiguous(20000, 40, 801);
  auto keys = seg_ref::sort_keys<float>(s.n, 802);
  std::vector<bool> has_nan(s.count(), false);
  for (std::size_t k = 0; k < s.count(); k += 3) {
    if (s.end[k] == s.begin[k]) continue;
    keys[static_cast<std::size_t>(s.begin[k])] = k % 2 ? nan : -nan;
    has_nan[k] = true;
  }
  device_buffer<float> in(keys, stream), out(s.n, stream);
  seg_ref::device_segments d(s, stream);
  cupar::segmented_sort_keys(in.data(), out.data(), s.n, s.count(), d.begin.data(), d.end.data(),
                             stream);
  const auto got = out.to_host();
  const auto from = seg_ref::sorted_positions(keys, s, false);
  for (std::size_t k = 0; k < s.count(); ++k) {
    const auto b = static_cast<std::size_t>(s.begin[k]), e = static_cast<std::size_t>(s.end[k]);
    std::vector<std::uint32_t> g, w;
    for (std::size_t i = b; i < e; ++i) {
      g.push_back(seg_ref::radix_order(got[i]));
      w.push_back(seg_ref::radix_order(keys[from[i]]));
    }
    if (has_nan[k]) {
      std::sort(g.begin(), g.end());
      std::sort(w.begin(), w.end());
    }
    EXPECT_EQ(g, w) << "segment " << k << (has_nan[k] ? " (with NaN)" : "");
  }
}

TEST(SegmentedSortFloat, ZerosAreEqualKeysThatKeepTheirOrder) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  // Small segments (CUB's merge sorts) and a large one (its radix sort).
  for (std::size_t size : {std::size_t(5), std::size_t(300), std::size_t(100000)}) {
    SCOPED_TRACE("segment of " + std::to_string(size));
    std::vector<double> keys(size);
    std::vector<std::uint32_t> values(size);
    for (std::size_t i = 0; i < size; ++i) {
      keys[i] = i % 3 == 0 ? -0.0 : (i % 3 == 1 ? 0.0 : (i % 2 ? 1.0 : -1.0));
      values[i] = static_cast<std::uint32_t>(i);
    }
    const auto s = seg_ref::whole(size);
    seg_ref::check_pairs(s, keys, values, stream);
  }
}

TEST(CheckSegments, GoodOffsetsPassAndTheFirstBadSegmentIsNamed) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  auto check = [&](const std::vector<std::int64_t>& b, const std::vector<std::int64_t>& e,
                   std::size_t n, cupar::segment_rules rules) {
    device_buffer<std::int64_t> db(b, stream), de(e, stream);
    cupar::check_segments(db.data(), de.data(), b.size(), n, stream, rules);
  };
  using cupar::segment_rules;
  const auto good = seg_ref::with_gaps(100003, 50, 901);
  EXPECT_NO_THROW(check(good.begin, good.end, good.n, segment_rules::ordered));
  EXPECT_NO_THROW(check(good.begin, good.end, good.n, segment_rules::bounds));
  const auto any = seg_ref::overlapping(1000, 902);
  EXPECT_NO_THROW(check(any.begin, any.end, any.n, segment_rules::bounds));
  CUPAR_EXPECT_THROW_WITH(check(any.begin, any.end, any.n, segment_rules::ordered),
                          std::invalid_argument, "cupar::check_segments: segment ");
  CUPAR_EXPECT_THROW_WITH(check({0, 5, 9}, {5, 4, 10}, 10, segment_rules::bounds),
                          std::invalid_argument, "segment 1 = [5, 4) has begin > end");
  CUPAR_EXPECT_THROW_WITH(check({0, 5, 9}, {5, 9, 11}, 10, segment_rules::bounds),
                          std::invalid_argument, "segment 2 = [9, 11) ends after n = 10");
  CUPAR_EXPECT_THROW_WITH(check({0, -1}, {5, 2}, 10, segment_rules::bounds), std::invalid_argument,
                          "segment 1 = [-1, 2) begins before 0");
  CUPAR_EXPECT_THROW_WITH(
      check({0, 4, 8}, {5, 8, 9}, 10, segment_rules::ordered), std::invalid_argument,
      "segment 0 = [0, 5) overlaps or comes after segment 1, which begins at 4");
  EXPECT_NO_THROW(check({0, 4, 8}, {5, 8, 9}, 10, segment_rules::bounds));
  // The first of several bad segments, far apart (found by different blocks).
  std::vector<std::int64_t> b(300000), e(300000);
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<std::int64_t>(i);
    e[i] = static_cast<std::int64_t>(i + 1);
  }
  e[123456] = 0;
  e[299999] = 7;
  CUPAR_EXPECT_THROW_WITH(check(b, e, b.size(), segment_rules::ordered), std::invalid_argument,
                          "segment 123456 = [123456, 0) has begin > end");
  // Empty segments anywhere, and n == 0.
  EXPECT_NO_THROW(check({0, 3, 3, 7}, {3, 3, 3, 7}, 7, segment_rules::ordered));
  EXPECT_NO_THROW(check({0, 0}, {0, 0}, 0, segment_rules::ordered));
  EXPECT_NO_THROW(check({}, {}, 0, segment_rules::ordered));
  CUPAR_EXPECT_THROW_WITH(check({3, 0}, {3, 0}, 7, segment_rules::ordered), std::invalid_argument,
                          "overlaps or comes after segment 1");
}

TEST(CheckSegments, NullOffsetsAreRejectedWithoutAGpu) {
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  std::int64_t offsets[2] = {0, 1};
  CUPAR_EXPECT_THROW_WITH(cupar::check_segments(nullptr, offsets, 1, 1, s), std::invalid_argument,
                          "cupar::check_segments: d_begin_offsets is null but num_segments = 1");
  CUPAR_EXPECT_THROW_WITH(cupar::check_segments(offsets, nullptr, 2, 1, s), std::invalid_argument,
                          "d_end_offsets is null but num_segments = 2");
  cupar::check_segments(nullptr, nullptr, 0, 5, s);  // no segments: nothing to check, no GPU
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
