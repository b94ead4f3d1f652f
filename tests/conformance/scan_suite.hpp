// cupar tests: inclusive and exclusive scan conformance (include after `using Ops = ...;`).
//
// Floating-point tolerance: prefix i of a sum scan over values in [-1, 1) may differ from the
// exact prefix (computed in long double) by sum_tolerance<T>(i + 1, A_i), A_i being the sum of the
// absolute values that prefix adds up (|init| included for exclusive scans). CUB's decoupled
// look-back chains tile prefixes one after another, so a prefix can see more than log2(i)
// roundings; with signed values the running sums stay near sqrt(i) while A_i grows like i, which
// leaves that room. Exactness is checked separately with integer-valued floating-point inputs,
// whose every partial sum is exactly representable.
//
// Splitting: define CUPAR_SUITE_TYPES to a ::testing::Types list before including to instantiate
// the typed tests for those types only, and CUPAR_SUITE_UNTYPED to 0 to leave out the untyped
// tests (for all but one translation unit of a binary).
#pragma once

#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using scan_types = CUPAR_SUITE_TYPES;
#else
using scan_types = arithmetic_types;
#endif

namespace scan_ref {

/// Values for sum scans: integers over their whole range (so sums wrap often), floating point
/// in [-1, 1).
template <class T>
std::vector<T> sum_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    return random_values<T>(n, seed, -1.0, 1.0);
  } else {
    return full_range_values<T>(n, seed);
  }
}

/// Values whose sum scans are exact in every association order: integers over their whole
/// range (wrapping is exact), floating point integer-valued in [-3, 3].
template <class T>
std::vector<T> exact_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    const auto ints = random_values<int>(n, seed, -3, 3);
    return std::vector<T>(ints.begin(), ints.end());
  } else {
    return full_range_values<T>(n, seed);
  }
}

template <class T, class Op>
std::vector<T> inclusive(const std::vector<T>& in, Op op) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = i == 0 ? in[0] : op(out[i - 1], in[i]);
  return out;
}

template <class T, class Op>
std::vector<T> exclusive(const std::vector<T>& in, Op op, T init) {
  std::vector<T> out(in.size());
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = acc;
    acc = op(acc, in[i]);
  }
  return out;
}

/// init op in[0] op ... op in[i]: an inclusive scan seeded with init.
template <class T, class Op>
std::vector<T> inclusive_init(const std::vector<T>& in, Op op, T init) {
  std::vector<T> out(in.size());
  T acc = init;
  for (std::size_t i = 0; i < in.size(); ++i)
    out[i] = acc = op(acc, in[i]);
  return out;
}

template <class T>
T max_of(T a, T b) {
  return a < b ? b : a;
}

/// Checks a floating-point sum scan prefix by prefix with the tolerance stated at the top.
template <class T>
::testing::AssertionResult sums_near(const std::vector<T>& got, const std::vector<T>& in,
                                     bool is_exclusive, T init) {
  if (got.size() != in.size()) return ::testing::AssertionFailure() << "sizes differ";
  long double sum = is_exclusive ? init : 0, abs_sum = is_exclusive ? std::fabs(init) : 0;
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!is_exclusive) sum += in[i], abs_sum += std::fabs(static_cast<long double>(in[i]));
    const double tol = sum_tolerance<T>(i + 1, static_cast<double>(abs_sum));
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(sum));
    if (!(err <= tol)) {
      if (bad < 5) {
        first << "\n  [" << i << "] got " << printable(got[i]) << ", want "
              << printable(static_cast<double>(sum)) << " (tolerance " << tol << ")";
      }
      ++bad;
    }
    if (is_exclusive) sum += in[i], abs_sum += std::fabs(static_cast<long double>(in[i]));
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " prefixes outside the tolerance; first:" << first.str();
}

/// Largest |x_j + ... + x_k| over contiguous ranges: a bound of every partial sum any
/// association order forms.
template <class T>
long double widest_partial_sum(const std::vector<T>& in) {
  long double prefix = 0, lo = 0, hi = 0;
  for (T x : in) {
    prefix += x;
    lo = std::min(lo, prefix);
    hi = std::max(hi, prefix);
  }
  return hi - lo;
}

}  // namespace scan_ref

template <class T>
class Scan : public ::testing::Test {};
TYPED_TEST_SUITE(Scan, scan_types, type_names);

TYPED_TEST(Scan, SumsMatchTheReferenceAtEverySize) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T init = static_cast<T>(3);
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::sum_values<T>(n, 11 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(), stream);
    const auto inclusive = out.to_host();
    out.fill_bytes(0xAB);
    cupar::exclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(), init, stream);
    const auto exclusive = out.to_host();
    if constexpr (std::is_integral_v<T>) {
      EXPECT_TRUE(bitwise_equal(inclusive, scan_ref::inclusive(h, &wrapping_add<T>)));
      EXPECT_TRUE(bitwise_equal(exclusive, scan_ref::exclusive(h, &wrapping_add<T>, init)));
    } else {
      EXPECT_TRUE(scan_ref::sums_near(inclusive, h, false, T(0)));
      EXPECT_TRUE(scan_ref::sums_near(exclusive, h, true, init));
    }
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
  }
}

TYPED_TEST(Scan, SumsOfExactlyRepresentableValuesAreExact) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T init = static_cast<T>(-2);
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::exact_values<T>(n, 21 + n);
    if constexpr (std::is_floating_point_v<T>) {
      // Every partial sum, in any grouping, is an integer below 2^digits: exactly representable.
      ASSERT_LT(scan_ref::widest_partial_sum(h) + 2,
                std::ldexp(1.0L, std::numeric_limits<T>::digits));
    }
    device_buffer<T> in(h, stream), out(n, stream);
    out.fill_bytes(0xCD);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::inclusive(h, &wrapping_add<T>)));
    out.fill_bytes(0xCD);
    cupar::exclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(), init, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::exclusive(h, &wrapping_add<T>, init)));
  }
}

TYPED_TEST(Scan, MaxScansAreExact) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(1), std::size_t(2), std::size_t(33), std::size_t(1920), std::size_t(1921),
        std::size_t(4097), std::size_t(65537), std::size_t(1) << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = full_range_values<T>(n, 31 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::template maximum<T>(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::inclusive(h, &scan_ref::max_of<T>)));
    // init takes part: with the lowest value it only shifts the scan; with a middle value it
    // clamps the start of it.
    for (T init : {std::numeric_limits<T>::lowest(), static_cast<T>(5)}) {
      SCOPED_TRACE("init = " + printable(init));
      out.fill_bytes(0xAB);
      cupar::exclusive_scan(in.data(), out.data(), n, Ops::template maximum<T>(), init, stream);
      EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::exclusive(h, &scan_ref::max_of<T>, init)));
    }
  }
}

TYPED_TEST(Scan, InPlaceScansMatchTheReference) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T init = static_cast<T>(7);
  for (std::size_t n : {std::size_t(1), std::size_t(1921), std::size_t(4097), std::size_t(65537),
                        scaled((std::size_t(1) << 22) + 3)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::exact_values<T>(n, 41 + n);
    device_buffer<T> io(h, stream);
    cupar::inclusive_scan(io.data(), io.data(), n, Ops::template plus<T>(), stream);
    EXPECT_TRUE(bitwise_equal(io.to_host(), scan_ref::inclusive(h, &wrapping_add<T>)));
    io.copy_from_host(h.data(), n);
    cupar::exclusive_scan(io.data(), io.data(), n, Ops::template plus<T>(), init, stream);
    EXPECT_TRUE(bitwise_equal(io.to_host(), scan_ref::exclusive(h, &wrapping_add<T>, init)));
    io.copy_from_host(h.data(), n);
    cupar::inclusive_scan(io.data(), io.data(), n, Ops::template maximum<T>(), stream);
    EXPECT_TRUE(bitwise_equal(io.to_host(), scan_ref::inclusive(h, &scan_ref::max_of<T>)));
  }
}

// Initial values: an inclusive scan seeded with one (host or device memory), and an exclusive
// scan's read from device memory when its kernels run (cupar::device_value), after the kernel
// that wrote it on the same stream.
TYPED_TEST(Scan, SeededAndDeviceInitialValuesMatchTheReference) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::exact_values<T>(n, 81 + n);
    const T init = static_cast<T>(-2);
    device_buffer<T> in(h, stream), out(n, stream), d_init(std::vector<T>{T(0)}, stream);
    const auto sums = scan_ref::inclusive_init(h, &wrapping_add<T>, init);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(), init, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), sums));
    // The initial value written by a kernel queued just before (a one-element scan of init).
    const device_buffer<T> source(std::vector<T>{init}, stream);
    cupar::inclusive_scan(source.data(), d_init.data(), 1, Ops::template plus<T>(), stream);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(),
                          cupar::device_value{d_init.data()}, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), sums));
    out.fill_bytes(0xAB);
    cupar::exclusive_scan(in.data(), out.data(), n, Ops::template plus<T>(),
                          cupar::device_value{d_init.data()}, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), scan_ref::exclusive(h, &wrapping_add<T>, init)));
    // A seeded maximum: the lowest value only shifts the scan, a middle one clamps its start.
    for (T m : {std::numeric_limits<T>::lowest(), static_cast<T>(5)}) {
      SCOPED_TRACE("init = " + printable(m));
      out.fill_bytes(0xAB);
      cupar::inclusive_scan(in.data(), out.data(), n, Ops::template maximum<T>(), m, stream);
      EXPECT_TRUE(
          bitwise_equal(out.to_host(), scan_ref::inclusive_init(h, &scan_ref::max_of<T>, m)));
    }
    // In place.
    device_buffer<T> io(h, stream);
    cupar::inclusive_scan(io.data(), io.data(), n, Ops::template plus<T>(), init, stream);
    EXPECT_TRUE(bitwise_equal(io.to_host(), sums));
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
  }
  // n = 0 writes nothing; a null device initial value is refused before anything runs.
  device_buffer<T> out(2, stream), d_init(std::vector<T>{T(1)}, stream);
  out.fill_bytes(0xAB);
  const auto poisoned = out.to_host();
  cupar::inclusive_scan(static_cast<const T*>(nullptr), out.data(), 0, Ops::template plus<T>(),
                        T(1), stream);
  cupar::inclusive_scan(static_cast<const T*>(nullptr), out.data(), 0, Ops::template plus<T>(),
                        cupar::device_value{d_init.data()}, stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), poisoned));
  CUPAR_EXPECT_THROW_WITH(cupar::exclusive_scan(out.data(), out.data(), 2, Ops::template plus<T>(),
                                                cupar::device_value<T>{nullptr}, stream),
                          std::invalid_argument, "init.ptr");
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan(out.data(), out.data(), 2, Ops::template plus<T>(),
                                                cupar::device_value<T>{nullptr}, stream),
                          std::invalid_argument, "init.ptr");
  EXPECT_TRUE(bitwise_equal(out.to_host(), poisoned));
}

TYPED_TEST(Scan, AdjacentRangesOfOneAllocationAreNotAnOverlap) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::size_t n = 5000;
  const auto h = scan_ref::exact_values<T>(n, 51);
  device_buffer<T> buf(2 * n, stream);
  buf.copy_from_host(h.data(), n);
  cupar::inclusive_scan(buf.data(), buf.data() + n, n, Ops::template plus<T>(), stream);
  const auto all = buf.to_host();
  EXPECT_TRUE(bitwise_equal(std::vector<T>(all.begin() + n, all.end()),
                            scan_ref::inclusive(h, &wrapping_add<T>)));
  EXPECT_TRUE(bitwise_equal(std::vector<T>(all.begin(), all.begin() + n), h));
}

TYPED_TEST(Scan, PartialOverlapIsRejectedAndTheNextCallWorks) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T buf[16] = {};
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan(buf, buf + 1, 8, Ops::template plus<T>(), s),
                          std::invalid_argument,
                          "cupar::inclusive_scan: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan(buf + 7, buf, 8, Ops::template plus<T>(), s),
                          std::invalid_argument,
                          "cupar::inclusive_scan: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::exclusive_scan(buf, buf + 3, 8, Ops::template plus<T>(), T(0), s),
                          std::invalid_argument,
                          "cupar::exclusive_scan: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::exclusive_scan(buf + 1, buf, 2, Ops::template maximum<T>(), T(0), s),
      std::invalid_argument, "cupar::exclusive_scan: d_in and d_out partially overlap");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3)};
  device_buffer<T> in(h, stream), out(3, stream);
  cupar::inclusive_scan(in.data(), out.data(), 3, Ops::template plus<T>(), stream);
  EXPECT_EQ(out.to_host(), (std::vector<T>{T(1), T(3), T(6)}));
}

TYPED_TEST(Scan, NullPointersWithElementsAreRejected) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T buf[8] = {};
  CUPAR_EXPECT_THROW_WITH(
      cupar::inclusive_scan(static_cast<const T*>(nullptr), buf, 5, Ops::template plus<T>(), s),
      std::invalid_argument, "cupar::inclusive_scan: d_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::inclusive_scan(buf, static_cast<T*>(nullptr), 5, Ops::template plus<T>(), s),
      std::invalid_argument, "cupar::inclusive_scan: d_out is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(cupar::exclusive_scan(static_cast<const T*>(nullptr), buf, 2,
                                                Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "cupar::exclusive_scan: d_in is null but n = 2");
  CUPAR_EXPECT_THROW_WITH(
      cupar::exclusive_scan(buf, static_cast<T*>(nullptr), 2, Ops::template plus<T>(), T(0), s),
      std::invalid_argument, "cupar::exclusive_scan: d_out is null but n = 2");
  // Seeded scans check the same, and a device initial value must not be null (before any GPU
  // work: these run without a GPU).
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan(static_cast<const T*>(nullptr), buf, 5,
                                                Ops::template plus<T>(), T(1), s),
                          std::invalid_argument, "cupar::inclusive_scan: d_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(cupar::inclusive_scan(buf, buf, 2, Ops::template plus<T>(),
                                                cupar::device_value<T>{nullptr}, s),
                          std::invalid_argument, "cupar::inclusive_scan: init.ptr");
  CUPAR_EXPECT_THROW_WITH(cupar::exclusive_scan(buf, buf, 2, Ops::template plus<T>(),
                                                cupar::device_value<T>{nullptr}, s),
                          std::invalid_argument, "cupar::exclusive_scan: init.ptr");
}

TYPED_TEST(Scan, EmptyInputWritesNothing) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3), T(4)};
  device_buffer<T> in(h, stream), out(4, stream);
  out.fill_bytes(0xAB);
  const auto poisoned = out.to_host();
  cupar::inclusive_scan(in.data(), out.data(), 0, Ops::template plus<T>(), stream);
  cupar::exclusive_scan(in.data(), out.data(), 0, Ops::template plus<T>(), T(42), stream);
  cupar::inclusive_scan(static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0,
                        Ops::template plus<T>(), stream);
  cupar::exclusive_scan(static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0,
                        Ops::template maximum<T>(), T(42), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), poisoned));
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

namespace scan_ref {
inline std::vector<mat2> random_mats(std::size_t n, std::uint64_t seed) {
  std::vector<mat2> h(n);
  const auto r = random_values<std::uint32_t>(4 * n, seed, 0, 0xFFFFFFFFu);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
  return h;
}
}  // namespace scan_ref

TEST(ScanStruct, NonCommutativeProductKeepsOperandOrder) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const mat2 init{1, 2, 3, 4};
  for (std::size_t n : standard_sizes()) {
    if (n > (std::size_t(1) << 22)) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::random_mats(n, 61 + n);
    device_buffer<mat2> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::mat2_mul(), stream);
    EXPECT_TRUE(value_equal(out.to_host(), scan_ref::inclusive(h, &cupar::testing::mat2_mul)));
    out.fill_bytes(0xAB);
    cupar::exclusive_scan(in.data(), out.data(), n, Ops::mat2_mul(), init, stream);
    EXPECT_TRUE(
        value_equal(out.to_host(), scan_ref::exclusive(h, &cupar::testing::mat2_mul, init)));
  }
}

// A seeded inclusive scan of a non-commutative product: init * x0 * ... * xi, init on the left.
TEST(ScanStruct, SeededNonCommutativeProductKeepsOperandOrder) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const mat2 init{1, 2, 3, 4};
  device_buffer<mat2> d_init(std::vector<mat2>{init}, stream);
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1921), std::size_t(100003),
                        std::size_t(1) << 20}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = scan_ref::random_mats(n, 91 + n);
    const auto want = scan_ref::inclusive_init(h, &cupar::testing::mat2_mul, init);
    device_buffer<mat2> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::mat2_mul(), init, stream);
    EXPECT_TRUE(value_equal(out.to_host(), want));
    out.fill_bytes(0xAB);
    cupar::inclusive_scan(in.data(), out.data(), n, Ops::mat2_mul(),
                          cupar::device_value{d_init.data()}, stream);
    EXPECT_TRUE(value_equal(out.to_host(), want));
    out.fill_bytes(0xAB);
    cupar::exclusive_scan(in.data(), out.data(), n, Ops::mat2_mul(),
                          cupar::device_value{d_init.data()}, stream);
    EXPECT_TRUE(
        value_equal(out.to_host(), scan_ref::exclusive(h, &cupar::testing::mat2_mul, init)));
  }
}

TEST(ScanStruct, InPlaceNonCommutativeProduct) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = scan_ref::random_mats(n, 71);
  device_buffer<mat2> io(h, stream);
  cupar::inclusive_scan(io.data(), io.data(), n, Ops::mat2_mul(), stream);
  EXPECT_TRUE(value_equal(io.to_host(), scan_ref::inclusive(h, &cupar::testing::mat2_mul)));
  io.copy_from_host(h.data(), n);
  cupar::exclusive_scan(io.data(), io.data(), n, Ops::mat2_mul(), mat2_identity, stream);
  EXPECT_TRUE(
      value_equal(io.to_host(), scan_ref::exclusive(h, &cupar::testing::mat2_mul, mat2_identity)));
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
