// cupar tests: the distributed algorithms' checks (cases.hpp), run by every rank. The same cases
// serve one process driving all GPUs (dist_test.cu, a thread per rank) and one process per GPU
// (dist_worker.cu, launched by multiprocess_test.cpp). Every rank can regenerate every rank's
// shard (the data is a function of the case, the rank layout and the global index), so each rank
// computes the reference itself: the single-GPU cupar call on the gathered data, on its own
// device, and compares its part of the result. Integer results are compared exactly.
#include "dist/cases.hpp"

#include <cupar/dist.cuh>

#include <cuda/std/functional>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

CUPAR_JIT_STRUCT(dist_affine, unsigned long long m; unsigned long long c;)
CUPAR_JIT_STRUCT(dist_agg, int count; int sum; int min; int max;)
CUPAR_JIT_STRUCT(dist_rec, int key; int payload;)

namespace cupar::dist_testing {

namespace dist = ::cupar::dist;
namespace jit = ::cupar::jit;

// ---- data --------------------------------------------------------------------------------------

/// How the elements are spread over the ranks.
enum class shape {
  even,            // base on every rank
  odd,             // base + 2 r + 1: sizes differ, the total is not a multiple of P
  first_empty,     // rank 0 has nothing
  last_holds_all,  // one rank holds every element
  single,          // one element in all, on rank 0
  empty,           // nothing anywhere
  tiny,            // fewer elements than ranks
};

const char* name_of(shape s) {
  switch (s) {
    case shape::even:
      return "even";
    case shape::odd:
      return "odd";
    case shape::first_empty:
      return "first_empty";
    case shape::last_holds_all:
      return "last_holds_all";
    case shape::single:
      return "single";
    case shape::empty:
      return "empty";
    case shape::tiny:
      return "tiny";
  }
  return "?";
}

struct layout {
  std::vector<std::size_t> n, at;  // per rank: count and global offset
  std::size_t total = 0;
};

layout layout_of(shape s, int ranks, std::size_t base) {
  layout l;
  for (int r = 0; r < ranks; ++r) {
    std::size_t n = 0;
    switch (s) {
      case shape::even:
        n = base;
        break;
      case shape::odd:
        n = base + 2 * static_cast<std::size_t>(r) + 1;
        break;
      case shape::first_empty:
        n = r == 0 ? 0 : base + static_cast<std::size_t>(r);
        break;
      case shape::last_holds_all:
        n = r == ranks - 1 ? base * static_cast<std::size_t>(ranks) + 3 : 0;
        break;
      case shape::single:
        n = r == 0 ? 1 : 0;
        break;
      case shape::empty:
        n = 0;
        break;
      case shape::tiny:
        n = static_cast<std::size_t>(r % 2);
        break;
    }
    l.at.push_back(l.total);
    l.n.push_back(n);
    l.total += n;
  }
  return l;
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Element i of a data set: `range` 0 means the whole range of T (floats: [-1000, 1000) with
/// some -0.0), otherwise values in [0, range) (duplicates).
template <class T>
T value_at(std::uint64_t seed, std::uint64_t i, std::uint64_t range) {
  const std::uint64_t h = mix(seed * 0x100000001b3ull + i);
  if constexpr (std::is_floating_point_v<T>) {
    if (range != 0) return static_cast<T>(h % range);
    if (h % 97 == 0) return T(-0.0);
    return static_cast<T>(static_cast<double>(h % 2000000) / 1000.0 - 1000.0);
  } else {
    if (range != 0) return static_cast<T>(h % range);
    T v;
    std::memcpy(&v, &h, sizeof(T));
    return v;
  }
}

template <class T>
std::vector<T> whole(std::uint64_t seed, const layout& l, std::uint64_t range) {
  std::vector<T> v(l.total);
  for (std::size_t i = 0; i < l.total; ++i)
    v[i] = value_at<T>(seed, i, range);
  return v;
}

template <class T>
std::vector<T> slice(const std::vector<T>& v, std::size_t at, std::size_t n) {
  return std::vector<T>(v.begin() + static_cast<std::ptrdiff_t>(at),
                        v.begin() + static_cast<std::ptrdiff_t>(at + n));
}

// ---- comparisons ---------------------------------------------------------------------------

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(const T& v) {
  std::ostringstream o;
  if constexpr (std::is_arithmetic_v<T>) {
    o << +v;
  } else {
    o << "{";
    const auto* b = reinterpret_cast<const unsigned char*>(&v);
    for (std::size_t i = 0; i < sizeof(T); ++i)
      o << (i ? " " : "") << +b[i];
    o << "}";
  }
  return o.str();
}

/// Exact comparison (floats with `tolerance` relative to the magnitude, when not 0).
template <class T>
void expect_equal(failures& f, const std::string& what, const std::vector<T>& got,
                  const std::vector<T>& want, double tolerance = 0.0) {
  if (got.size() != want.size()) {
    f.fail(what + ": " + std::to_string(got.size()) + " elements, expected " +
           std::to_string(want.size()));
    return;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool equal = same_bits(got[i], want[i]);
    if constexpr (std::is_floating_point_v<T>) {
      if (!equal && tolerance > 0) {
        const double d = std::fabs(double(got[i]) - double(want[i]));
        equal = d <= tolerance * std::max(1.0, std::fabs(double(want[i])));
      } else if (!equal) {
        equal = got[i] == want[i];  // -0.0 == +0.0
      }
    }
    if (!equal) {
      f.fail(what + ": element " + std::to_string(i) + " is " + show(got[i]) + ", expected " +
             show(want[i]));
      return;
    }
  }
}

/// Every rank's count, on every rank (a dist::all_reduce of a one-hot vector).
std::vector<std::size_t> all_counts(rank_ctx& c, std::size_t mine) {
  std::vector<unsigned long long> v(static_cast<std::size_t>(c.size()), 0);
  v[static_cast<std::size_t>(c.rank())] = mine;
  device_buffer<unsigned long long> d(v, c.s);
  dist::all_reduce(c.comm, d.data(), d.data(), v.size(), jit::plus, c.s);
  const auto h = d.to_host();
  return std::vector<std::size_t>(h.begin(), h.end());
}

// ---- operators of both kinds
// ---------------------------------------------------------------------

struct affine_then {  // x -> a then b: associative, not commutative
  __host__ __device__ dist_affine operator()(const dist_affine& a, const dist_affine& b) const {
    return dist_affine{a.m * b.m, a.c * b.m + b.c};
  }
};
struct product_sum {  // commutative
  __host__ __device__ dist_affine operator()(const dist_affine& a, const dist_affine& b) const {
    return dist_affine{a.m * b.m, a.c + b.c};
  }
};
jit::op affine_op() {
  return jit::op("dist_affine{a.m * b.m, a.c * b.m + b.c}");
}
struct agg_merge {
  __host__ __device__ dist_agg operator()(const dist_agg& a, const dist_agg& b) const {
    return dist_agg{a.count + b.count, a.sum + b.sum, a.min < b.min ? a.min : b.min,
                    a.max > b.max ? a.max : b.max};
  }
};
jit::op agg_op() {
  return jit::op(
      "dist_agg{a.count + b.count, a.sum + b.sum, a.min < b.min ? a.min : b.min, "
      "a.max > b.max ? a.max : b.max}");
}
struct rec_less {
  __host__ __device__ bool operator()(const dist_rec& a, const dist_rec& b) const {
    return a.key < b.key;
  }
};

// ---- the cases ---------------------------------------------------------------------------------

/// dist::reduce against cupar::reduce on the gathered data, the same operator.
template <class T, class Op>
void check_reduce(rank_ctx& c, failures& f, const std::string& what, const layout& l,
                  const std::vector<T>& all, const Op& op, T init, double tolerance) {
  const auto mine =
      slice(all, l.at[static_cast<std::size_t>(c.rank())], l.n[static_cast<std::size_t>(c.rank())]);
  device_buffer<T> d_in(mine, c.s), d_all(all, c.s), out(1, c.s);
  dist::reduce(c.comm, d_in.data(), out.data(), mine.size(), op, init, c.s);
  const T got = out.to_host()[0];
  const T value = dist::reduce_value(c.comm, d_in.data(), mine.size(), op, init, c.s);
  const T want = ::cupar::reduce_value(d_all.data(), all.size(), op, init, c.s);
  expect_equal(f, what, std::vector<T>{got, value}, std::vector<T>{want, want}, tolerance);
}

void case_reduce(rank_ctx& c, failures& f) {
  for (shape sh : {shape::even, shape::odd, shape::first_empty, shape::last_holds_all,
                   shape::single, shape::empty, shape::tiny}) {
    const layout l = layout_of(sh, c.size(), 100003);
    const std::string tag = std::string("reduce ") + name_of(sh);
    const auto ints = whole<int>(11, l, 1000);
    check_reduce(c, f, tag + " int jit::plus", l, ints, jit::plus, 5, 0);
    check_reduce(c, f, tag + " int \"a + b\"", l, ints, jit::op("a + b"), 5, 0);
    check_reduce(
        c, f, tag + " int lambda", l, ints, [] __device__(int a, int b) { return a + b; }, 5, 0);
    check_reduce(c, f, tag + " int cuda::maximum", l, ints, ::cuda::maximum<int>{}, -7, 0);
    const auto u64 = whole<unsigned long long>(12, l, 0);
    check_reduce(c, f, tag + " u64 \"a ^ b\"", l, u64, jit::op("a ^ b"), 0ull, 0);
    check_reduce(c, f, tag + " u64 jit::minimum", l, u64, jit::minimum, ~0ull, 0);
    const auto d = whole<double>(13, l, 0);
    check_reduce(c, f, tag + " f64 jit::plus", l, d, jit::plus, 0.5, 1e-9);
    check_reduce(c, f, tag + " f64 \"fmax(a, b)\"", l, d, jit::op("fmax(a, b)"), -1e300, 0);
    // Structs (reduce needs a commutative operator: CUB's reduce orders elements its own way).
    std::vector<dist_affine> aff(l.total);
    for (std::size_t i = 0; i < l.total; ++i)
      aff[i] = dist_affine{mix(i) | 1, mix(i + 7)};
    check_reduce(c, f, tag + " struct run-time", l, aff,
                 jit::op("dist_affine{a.m * b.m, a.c + b.c}"), dist_affine{3, 4}, 0);
    check_reduce(c, f, tag + " struct C++", l, aff, product_sum{}, dist_affine{3, 4}, 0);
  }
}

template <class T, class Op>
void check_all_reduce(rank_ctx& c, failures& f, const std::string& what, std::size_t n,
                      const Op& op, bool in_place) {
  const int P = c.size();
  std::vector<std::vector<T>> x(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    layout one;
    one.n = {n};
    one.at = {0};
    one.total = n;
    x[static_cast<std::size_t>(r)] = whole<T>(100 + static_cast<std::uint64_t>(r), one, 1000);
  }
  // Reference: element-wise in rank order, with cupar's binary transform on this GPU.
  device_buffer<T> acc(x[0], c.s);
  for (int r = 1; r < P; ++r) {
    device_buffer<T> b(x[static_cast<std::size_t>(r)], c.s);
    ::cupar::transform(static_cast<const T*>(acc.data()), static_cast<const T*>(b.data()),
                       acc.data(), n, op, c.s);
  }
  const auto want = acc.to_host();
  device_buffer<T> in(x[static_cast<std::size_t>(c.rank())], c.s), out(n, c.s);
  T* dst = in_place ? in.data() : out.data();
  dist::all_reduce(c.comm, static_cast<const T*>(in.data()), dst, n, op, c.s);
  expect_equal(f, what, in_place ? in.to_host() : out.to_host(), want);
}

void case_all_reduce(rank_ctx& c, failures& f) {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000003)}) {
    const std::string tag = "all_reduce n=" + std::to_string(n);
    check_all_reduce<int>(c, f, tag + " jit::plus", n, jit::plus, false);
    check_all_reduce<int>(c, f, tag + " \"a + b\" in place", n, jit::op("a + b"), true);
    check_all_reduce<int>(c, f, tag + " \"b\" (last rank wins)", n, jit::op("b"), false);
    check_all_reduce<float>(c, f, tag + " cuda::std::plus<float>", n, ::cuda::std::plus<float>{},
                            false);
    check_all_reduce<long long>(
        c, f, tag + " lambda 2a+b", n,
        [] __device__(long long a, long long b) { return 2 * a + b; }, true);
  }
}

template <class T, class Op>
void check_scans(rank_ctx& c, failures& f, const std::string& what, const layout& l,
                 const std::vector<T>& all, const Op& op, T init) {
  const std::size_t n = l.n[static_cast<std::size_t>(c.rank())];
  const std::size_t at = l.at[static_cast<std::size_t>(c.rank())];
  device_buffer<T> d_all(all, c.s), ref(all.size(), c.s), in(slice(all, at, n), c.s), out(n, c.s);
  ::cupar::inclusive_scan(d_all.data(), ref.data(), all.size(), op, c.s);
  dist::inclusive_scan(c.comm, in.data(), out.data(), n, op, c.s);
  expect_equal(f, what + " inclusive", out.to_host(), slice(ref.to_host(), at, n));
  device_buffer<T> again(slice(all, at, n), c.s);
  dist::inclusive_scan(c.comm, again.data(), again.data(), n, op, c.s);  // in place
  expect_equal(f, what + " inclusive in place", again.to_host(), slice(ref.to_host(), at, n));
  ::cupar::exclusive_scan(d_all.data(), ref.data(), all.size(), op, init, c.s);
  dist::exclusive_scan(c.comm, in.data(), in.data(), n, op, init, c.s);  // in place
  expect_equal(f, what + " exclusive in place", in.to_host(), slice(ref.to_host(), at, n));
}

void case_scans(rank_ctx& c, failures& f) {
  for (shape sh : {shape::even, shape::odd, shape::first_empty, shape::last_holds_all,
                   shape::single, shape::empty, shape::tiny}) {
    const layout l = layout_of(sh, c.size(), 70001);
    const std::string tag = std::string("scan ") + name_of(sh);
    const auto ints = whole<int>(21, l, 100);
    check_scans(c, f, tag + " int \"a + b\"", l, ints, jit::op("a + b"), 3);
    check_scans(c, f, tag + " int jit::plus", l, ints, jit::plus, 3);
    check_scans(
        c, f, tag + " int lambda max", l, ints,
        [] __device__(int a, int b) { return a > b ? a : b; }, -5);
    std::vector<dist_affine> aff(l.total);
    for (std::size_t i = 0; i < l.total; ++i)
      aff[i] = dist_affine{mix(i) | 1, mix(i + 3)};
    check_scans(c, f, tag + " affine run-time", l, aff, affine_op(), dist_affine{1, 0});
    check_scans(c, f, tag + " affine C++", l, aff, affine_then{}, dist_affine{1, 0});
  }
}

void case_histogram(rank_ctx& c, failures& f) {
  for (shape sh : {shape::even, shape::odd, shape::last_holds_all, shape::empty}) {
    const layout l = layout_of(sh, c.size(), 300007);
    const std::string tag = std::string("histogram ") + name_of(sh);
    const auto x = whole<float>(31, l, 0);
    const std::size_t n = l.n[static_cast<std::size_t>(c.rank())];
    device_buffer<float> d_all(x, c.s),
        in(slice(x, l.at[static_cast<std::size_t>(c.rank())], n), c.s);
    device_buffer<unsigned> ref(64, c.s), got(64, c.s);
    ::cupar::histogram_even(d_all.data(), ref.data(), 65, -1000.0f, 1000.0f, x.size(), c.s);
    dist::histogram_even(c.comm, in.data(), got.data(), 65, -1000.0f, 1000.0f, n, c.s);
    expect_equal(f, tag + " even", got.to_host(), ref.to_host());
    const jit::op square("x * x * 0.001f");
    device_buffer<unsigned long long> ref64(16, c.s), got64(16, c.s);
    ::cupar::histogram_even(d_all.data(), ref64.data(), 17, 0.0f, 1000.0f, x.size(), square, c.s);
    dist::histogram_even(c.comm, in.data(), got64.data(), 17, 0.0f, 1000.0f, n, square, c.s);
    expect_equal(f, tag + " even with a run-time operator", got64.to_host(), ref64.to_host());
    ::cupar::histogram_even(
        d_all.data(), ref64.data(), 17, 0.0f, 1000.0f, x.size(),
        [] __device__(float v) { return v * v * 0.001f; }, c.s);
    dist::histogram_even(
        c.comm, in.data(), got64.data(), 17, 0.0f, 1000.0f, n,
        [] __device__(float v) { return v * v * 0.001f; }, c.s);
    expect_equal(f, tag + " even with a lambda", got64.to_host(), ref64.to_host());
    const std::vector<float> levels{-1000.f, -10.f, -1.f, 0.f, 1.f, 10.f, 999.f};
    device_buffer<int> refr(6, c.s), gotr(6, c.s);
    ::cupar::histogram_range(d_all.data(), refr.data(), 7, levels.data(), x.size(), c.s);
    dist::histogram_range(c.comm, in.data(), gotr.data(), 7, levels.data(), n, c.s);
    expect_equal(f, tag + " range", gotr.to_host(), refr.to_host());
  }
}

/// A sorted shard against its part of the reference, at the offset the earlier ranks' shards
/// give; and the balance bound.
template <class T>
void check_shard(rank_ctx& c, failures& f, const std::string& what, const std::vector<T>& got,
                 const std::vector<T>& reference) {
  const auto counts = all_counts(c, got.size());
  std::size_t at = 0;
  for (int r = 0; r < c.rank(); ++r)
    at += counts[static_cast<std::size_t>(r)];
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t(0));
  if (total != reference.size()) {
    f.fail(what + ": the shards hold " + std::to_string(total) + " elements, expected " +
           std::to_string(reference.size()));
    return;
  }
  expect_equal(f, what, got, slice(reference, at, got.size()));
  const double bound = static_cast<double>(total) / c.size() * 1.05 + 1.0;
  if (static_cast<double>(got.size()) > bound) {
    f.fail(what + ": rank " + std::to_string(c.rank()) + " holds " + std::to_string(got.size()) +
           " of " + std::to_string(total) + " (bound " + std::to_string(bound) + ")");
  }
}

template <class K>
void check_radix_sorts(rank_ctx& c, failures& f, const std::string& tag, const layout& l,
                       std::uint64_t seed, std::uint64_t range) {
  const auto keys = whole<K>(seed, l, range);
  const std::size_t n = l.n[static_cast<std::size_t>(c.rank())];
  const std::size_t at = l.at[static_cast<std::size_t>(c.rank())];
  std::vector<unsigned long long> rows(l.total);
  std::iota(rows.begin(), rows.end(), 0ull);
  device_buffer<K> d_all(keys, c.s), ref(keys.size(), c.s), in(slice(keys, at, n), c.s);
  device_buffer<unsigned long long> d_rows(rows, c.s), ref_rows(rows.size(), c.s),
      in_rows(slice(rows, at, n), c.s);
  for (const radix_options& o : {::cupar::ascending, ::cupar::descending}) {
    const std::string t = tag + (o.order == sort_order::ascending ? " ascending" : " descending");
    ::cupar::sort_keys(d_all.data(), ref.data(), keys.size(), o, c.s);
    const auto got = dist::sort_keys(c.comm, in.data(), n, o, c.s);
    check_shard(c, f, t + " sort_keys", got.to_host(), ref.to_host());
    // Pairs with each key's global row: equal keys must keep the order of the rows (stable).
    ::cupar::sort_pairs(d_all.data(), ref.data(), d_rows.data(), ref_rows.data(), keys.size(), o,
                        c.s);
    const auto p = dist::sort_pairs(c.comm, in.data(), in_rows.data(), n, o, c.s);
    check_shard(c, f, t + " sort_pairs keys", p.keys.to_host(), ref.to_host());
    check_shard(c, f, t + " sort_pairs rows (stability)", p.values.to_host(), ref_rows.to_host());
  }
}

void case_sort(rank_ctx& c, failures& f) {
  for (shape sh : {shape::even, shape::odd, shape::first_empty, shape::last_holds_all,
                   shape::single, shape::empty, shape::tiny}) {
    const layout l = layout_of(sh, c.size(), 200003);
    const std::string tag = std::string("sort ") + name_of(sh);
    check_radix_sorts<unsigned>(c, f, tag + " u32", l, 41, 0);
    check_radix_sorts<int>(c, f, tag + " i32 few distinct", l, 42, 5);
    check_radix_sorts<float>(c, f, tag + " f32", l, 43, 0);
    check_radix_sorts<unsigned long long>(c, f, tag + " u64 all equal", l, 44, 1);
    check_radix_sorts<double>(c, f, tag + " f64", l, 45, 0);
  }
  // Larger than the 16,384 samples per rank: splitters from random samples.
  const layout big = layout_of(shape::odd, c.size(), 3000017);
  check_radix_sorts<unsigned>(c, f, "sort big u32", big, 46, 0);
  check_radix_sorts<long long>(c, f, "sort big i64 skewed", big, 47, 3);
  const layout skew = layout_of(shape::last_holds_all, c.size(), 1500007);
  check_radix_sorts<int>(c, f, "sort big one rank holds all", skew, 48, 0);
}

template <class Comp>
void check_comparator_sorts(rank_ctx& c, failures& f, const std::string& tag, const layout& l,
                            const Comp& comp, std::uint64_t range) {
  // Records whose payload is the global row: the comparator looks at the key only, so the
  // payloads show stability.
  std::vector<dist_rec> recs(l.total);
  for (std::size_t i = 0; i < l.total; ++i)
    recs[i] = dist_rec{value_at<int>(51, i, range), static_cast<int>(i)};
  const std::size_t n = l.n[static_cast<std::size_t>(c.rank())];
  const std::size_t at = l.at[static_cast<std::size_t>(c.rank())];
  std::vector<dist_rec> want = recs;
  std::stable_sort(want.begin(), want.end(),
                   [](const dist_rec& a, const dist_rec& b) { return a.key < b.key; });
  device_buffer<dist_rec> in(slice(recs, at, n), c.s);
  const auto got = dist::sort_keys(c.comm, in.data(), n, comp, c.s);
  check_shard(c, f, tag + " sort_keys(records)", got.to_host(), want);
  std::vector<float> vals(l.total);
  for (std::size_t i = 0; i < l.total; ++i)
    vals[i] = static_cast<float>(i);
  device_buffer<float> in_vals(slice(vals, at, n), c.s);
  const auto p = dist::sort_pairs(c.comm, in.data(), in_vals.data(), n, comp, c.s);
  std::vector<float> want_vals(want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    want_vals[i] = static_cast<float>(want[i].payload);
  check_shard(c, f, tag + " sort_pairs(records) keys", p.keys.to_host(), want);
  check_shard(c, f, tag + " sort_pairs(records) values", p.values.to_host(), want_vals);
}

void case_sort_comparator(rank_ctx& c, failures& f) {
  for (shape sh :
       {shape::even, shape::odd, shape::last_holds_all, shape::single, shape::empty, shape::tiny}) {
    const layout l = layout_of(sh, c.size(), 50021);
    const std::string tag = std::string("comparator sort ") + name_of(sh);
    check_comparator_sorts(c, f, tag + " run-time", l, jit::op("a.key < b.key"), 1000);
    check_comparator_sorts(c, f, tag + " C++", l, rec_less{}, 7);
  }
  const layout big = layout_of(shape::odd, c.size(), 400009);
  check_comparator_sorts(c, f, "comparator sort big run-time", big, jit::op("a.key < b.key"), 0);
  check_comparator_sorts(c, f, "comparator sort big all equal C++", big, rec_less{}, 1);
  // Arithmetic keys through a comparator (descending floats).
  const auto x = whole<float>(52, big, 0);
  const std::size_t n = big.n[static_cast<std::size_t>(c.rank())];
  device_buffer<float> in(slice(x, big.at[static_cast<std::size_t>(c.rank())], n), c.s);
  std::vector<float> want = x;
  std::stable_sort(want.begin(), want.end(), [](float a, float b) { return a > b; });
  const auto got = dist::sort_keys(
      c.comm, in.data(), n, [] __device__(float a, float b) { return a > b; }, c.s);
  check_shard(c, f, "comparator sort f32 greater (lambda)", got.to_host(), want);
}

template <class Op>
void check_group_by(rank_ctx& c, failures& f, const std::string& what, const layout& l,
                    std::uint64_t groups, const Op& op) {
  const auto keys = whole<unsigned>(61, l, groups);
  std::vector<dist_agg> rows(l.total);
  for (std::size_t i = 0; i < l.total; ++i) {
    const int v = value_at<int>(62, i, 1000) - 500;
    rows[i] = dist_agg{1, v, v, v};
  }
  const std::size_t n = l.n[static_cast<std::size_t>(c.rank())];
  const std::size_t at = l.at[static_cast<std::size_t>(c.rank())];
  // Reference: cupar on the gathered rows (radix sort, then reduce_by_key).
  device_buffer<unsigned> d_keys(keys, c.s), sk(keys.size(), c.s), gk(keys.size(), c.s);
  device_buffer<dist_agg> d_rows(rows, c.s), sv(rows.size(), c.s), gv(rows.size(), c.s);
  std::size_t g = 0;
  if (!keys.empty()) {
    ::cupar::sort_pairs(d_keys.data(), sk.data(), d_rows.data(), sv.data(), keys.size(), c.s);
    g = ::cupar::reduce_by_key_count(static_cast<const unsigned*>(sk.data()),
                                     static_cast<const dist_agg*>(sv.data()), gk.data(), gv.data(),
                                     keys.size(), op, c.s);
  }
  const auto ref_keys = gk.to_host(g);
  const auto ref_vals = gv.to_host(g);
  std::map<unsigned, dist_agg> want;
  for (std::size_t i = 0; i < g; ++i)
    want[ref_keys[i]] = ref_vals[i];
  device_buffer<unsigned> in_keys(slice(keys, at, n), c.s);
  device_buffer<dist_agg> in_rows(slice(rows, at, n), c.s);
  const auto got = dist::reduce_by_key(c.comm, in_keys.data(), in_rows.data(), n, op, c.s);
  const auto got_keys = got.keys.to_host();
  const auto got_vals = got.values.to_host();
  for (std::size_t i = 0; i < got_keys.size(); ++i) {
    const auto it = want.find(got_keys[i]);
    if (it == want.end() || !same_bits(it->second, got_vals[i]) ||
        (i > 0 && !(got_keys[i - 1] < got_keys[i]))) {
      f.fail(what + ": group " + std::to_string(i) + " (key " + std::to_string(got_keys[i]) +
             ") is wrong, missing from the reference or out of order");
      return;
    }
  }
  const auto counts = all_counts(c, got_keys.size());
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t(0));
  if (total != g) {
    f.fail(what + ": " + std::to_string(total) + " groups over the ranks, expected " +
           std::to_string(g));
  }
}

void case_group_by(rank_ctx& c, failures& f) {
  for (shape sh : {shape::even, shape::odd, shape::last_holds_all, shape::single, shape::empty}) {
    const layout l = layout_of(sh, c.size(), 200003);
    const std::string tag = std::string("reduce_by_key ") + name_of(sh);
    for (std::uint64_t groups : {std::uint64_t(1), std::uint64_t(100), std::uint64_t(50000)}) {
      const std::string t = tag + " " + std::to_string(groups) + " groups";
      check_group_by(c, f, t + " run-time", l, groups, agg_op());
      check_group_by(c, f, t + " C++", l, groups, agg_merge{});
    }
  }
}

template <class K>
void check_join(rank_ctx& c, failures& f, const std::string& what, const layout& left,
                const layout& right, std::uint64_t range) {
  const auto lk = whole<K>(71, left, range);
  const auto rk = whole<K>(72, right, range);
  const int me = c.rank();
  const std::size_t nl = left.n[static_cast<std::size_t>(me)],
                    nr = right.n[static_cast<std::size_t>(me)];
  std::vector<unsigned long long> lrow(left.total), rrow(right.total);
  std::iota(lrow.begin(), lrow.end(), 0ull);
  std::iota(rrow.begin(), rrow.end(), 0ull);
  device_buffer<K> d_lk(slice(lk, left.at[static_cast<std::size_t>(me)], nl), c.s),
      d_rk(slice(rk, right.at[static_cast<std::size_t>(me)], nr), c.s);
  device_buffer<unsigned long long> d_lv(slice(lrow, left.at[static_cast<std::size_t>(me)], nl),
                                         c.s);
  device_buffer<int> d_rv(nr, c.s);
  std::vector<int> rv(right.total);
  for (std::size_t i = 0; i < right.total; ++i)
    rv[i] = static_cast<int>(i) * 3;
  d_rv.copy_from_host(rv.data() + right.at[static_cast<std::size_t>(me)], nr);
  const auto j =
      dist::inner_join(c.comm, d_lk.data(), d_lv.data(), nl, d_rk.data(), d_rv.data(), nr, c.s);
  // Reference: every pair of rows with equal keys, by key, left row, right row.
  std::multimap<K, std::size_t> right_rows;
  for (std::size_t i = 0; i < right.total; ++i) {
    if (rk[i] == rk[i]) right_rows.emplace(rk[i], i);
  }
  std::map<K, std::vector<std::pair<unsigned long long, int>>> want;
  std::size_t total = 0;
  for (std::size_t i = 0; i < left.total; ++i) {
    if (!(lk[i] == lk[i])) continue;
    auto [b, e] = right_rows.equal_range(lk[i]);
    for (auto it = b; it != e; ++it) {
      want[lk[i]].push_back({lrow[i], rv[it->second]});
      ++total;
    }
  }
  const auto keys = j.keys.to_host();
  const auto lv = j.left.to_host();
  const auto rvv = j.right.to_host();
  std::size_t i = 0;
  while (i < keys.size()) {
    const K k = keys[i];
    const auto it = want.find(k);
    if (it == want.end()) {
      f.fail(what + ": key " + show(k) + " is not in the reference");
      return;
    }
    const auto& pairs = it->second;
    for (std::size_t p = 0; p < pairs.size(); ++p, ++i) {
      if (i >= keys.size() || !(keys[i] == k) || lv[i] != pairs[p].first ||
          rvv[i] != pairs[p].second) {
        f.fail(what + ": the pairs of key " + show(k) + " differ from the reference at pair " +
               std::to_string(p));
        return;
      }
    }
    if (i < keys.size() && !(k < keys[i])) {
      f.fail(what + ": keys out of order after " + show(k));
      return;
    }
  }
  const auto counts = all_counts(c, keys.size());
  const std::size_t got = std::accumulate(counts.begin(), counts.end(), std::size_t(0));
  if (got != total) {
    f.fail(what + ": " + std::to_string(got) + " pairs over the ranks, expected " +
           std::to_string(total));
  }
}

void case_join(rank_ctx& c, failures& f) {
  const int P = c.size();
  struct shapes {
    shape l, r;
  };
  for (shapes s : {shapes{shape::even, shape::odd}, shapes{shape::last_holds_all, shape::even},
                   shapes{shape::empty, shape::odd}, shapes{shape::single, shape::single},
                   shapes{shape::tiny, shape::first_empty}}) {
    const layout l = layout_of(s.l, P, 30011), r = layout_of(s.r, P, 20011);
    const std::string tag = std::string("inner_join ") + name_of(s.l) + "/" + name_of(s.r);
    check_join<unsigned>(c, f, tag + " u32 unique-ish", l, r, 1u << 20);
    check_join<int>(c, f, tag + " i32 duplicates", l, r, 500);
    check_join<double>(c, f, tag + " f64 duplicates", l, r, 300);
  }
  const layout l = layout_of(shape::even, P, 1);
  check_join<unsigned long long>(c, f, "inner_join all one key", layout_of(shape::odd, P, 700), l,
                                 1);
}

const std::vector<std::pair<std::string, std::function<void(rank_ctx&, failures&)>>>& all_cases() {
  static const std::vector<std::pair<std::string, std::function<void(rank_ctx&, failures&)>>> v{
      {"reduce", case_reduce},     {"all_reduce", case_all_reduce},
      {"scans", case_scans},       {"histogram", case_histogram},
      {"sort", case_sort},         {"sort_comparator", case_sort_comparator},
      {"group_by", case_group_by}, {"join", case_join},
  };
  return v;
}

}  // namespace cupar::dist_testing
