// cupar tests: unary and binary transform conformance (include after `using Ops = ...;`).
//
// Integer results are exact (the reference computes the operator's expression on the CPU, with
// the same conversions). Floating-point x * 3 + 1 may be contracted to one fused multiply-add on
// the GPU: it is compared with a tolerance of 2 * eps * (|3x| + 1) (one rounding of the product
// plus one of the sum). Subtractions round once and are exact to the reference.
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp.
#pragma once

#include "common.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using transform_types = CUPAR_SUITE_TYPES;
#else
using transform_types = arithmetic_types;
#endif

namespace transform_ref {

/// Inputs for x * 3 + 1 and a - b: integers of 4 and 8 bytes that are signed stay within a quarter
/// of their range (no signed overflow); narrower integers are promoted to int by C++, unsigned ones
/// wrap, so those use their whole range; floating point in [-1000, 1000).
template <class T>
std::vector<T> values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    return random_values<T>(n, seed, -1000.0, 1000.0);
  } else if constexpr (std::is_signed_v<T> && sizeof(T) >= 4) {
    const double q = static_cast<double>(std::numeric_limits<T>::max() / 4);
    return random_values<T>(n, seed, -q, q);
  } else {
    return full_range_values<T>(n, seed);
  }
}

/// The operators' expressions, evaluated on the CPU.
template <class In, class Out>
Out affine(In x) {
  return static_cast<Out>(static_cast<Out>(x) * static_cast<Out>(3) + static_cast<Out>(1));
}
template <class A, class B, class Out>
Out sub(A a, B b) {
  return static_cast<Out>(static_cast<Out>(a) - static_cast<Out>(b));
}

/// Checks got[i] against affine<In, Out>(in[i]) (see the tolerance at the top).
template <class In, class Out>
::testing::AssertionResult affine_matches(const std::vector<Out>& got, const std::vector<In>& in) {
  std::vector<Out> want(in.size());
  for (std::size_t i = 0; i < in.size(); ++i)
    want[i] = affine<In, Out>(in[i]);
  if constexpr (std::is_floating_point_v<Out>) {
    if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
    std::size_t bad = 0;
    std::ostringstream first;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double x3 = std::fabs(static_cast<double>(static_cast<Out>(in[i])) * 3.0);
      const double tol = 2.0 * std::numeric_limits<Out>::epsilon() * (x3 + 1.0);
      if (std::fabs(static_cast<double>(got[i]) - static_cast<double>(want[i])) <= tol) continue;
      if (bad++ < 5) {
        first << "\n  [" << i << "] got " << printable(got[i]) << ", want " << printable(want[i]);
      }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << bad << " of " << got.size()
           << " elements outside the tolerance; first:" << first.str();
  } else {
    return bitwise_equal(got, want);
  }
}

template <class A, class B, class Out>
std::vector<Out> sub_reference(const std::vector<A>& a, const std::vector<B>& b) {
  std::vector<Out> want(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    want[i] = sub<A, B, Out>(a[i], b[i]);
  return want;
}

}  // namespace transform_ref

template <class T>
class Transform : public ::testing::Test {};
TYPED_TEST_SUITE(Transform, transform_types, type_names);

TYPED_TEST(Transform, UnaryToTheSameTypeAtEverySize) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = transform_ref::values<T>(n, 100 + n);
    device_buffer<T> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::transform(in.data(), out.data(), n, Ops::template affine<T, T>(), stream);
    EXPECT_TRUE((transform_ref::affine_matches<T, T>(out.to_host(), h)));
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
  }
}

TYPED_TEST(Transform, UnaryToAnotherOutputType) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = transform_ref::values<T>(n, 200 + n);
    device_buffer<T> in(h, stream);
    device_buffer<double> out(n, stream);
    out.fill_bytes(0xAB);
    cupar::transform(in.data(), out.data(), n, Ops::template affine<T, double>(), stream);
    EXPECT_TRUE((transform_ref::affine_matches<T, double>(out.to_host(), h)));
    if constexpr (std::is_floating_point_v<T> || sizeof(T) <= 2 ||
                  std::is_same_v<T, std::int32_t>) {
      // A narrower output than the operator's result: its int result converted to 8 bits
      // (types whose x * 3 + 1 cannot overflow an int).
      device_buffer<std::uint8_t> out8(n, stream);
      out8.fill_bytes(0xAB);
      cupar::transform(in.data(), out8.data(), n, Ops::template affine<T, std::int32_t>(), stream);
      std::vector<std::uint8_t> want8(n);
      for (std::size_t i = 0; i < n; ++i) {
        want8[i] = static_cast<std::uint8_t>(transform_ref::affine<T, std::int32_t>(h[i]));
      }
      EXPECT_TRUE(bitwise_equal(out8.to_host(), want8));
    }
  }
}

TYPED_TEST(Transform, BinaryOfTheSameType) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = transform_ref::values<T>(n, 300 + n);
    const auto b = transform_ref::values<T>(n, 400 + n);
    device_buffer<T> da(a, stream), db(b, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::transform(da.data(), db.data(), out.data(), n, Ops::template sub<T, T, T>(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), transform_ref::sub_reference<T, T, T>(a, b)));
  }
}

TYPED_TEST(Transform, BinaryOfMixedTypes) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65537),
                        scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = transform_ref::values<T>(n, 500 + n);
    const auto b = transform_ref::values<float>(n, 600 + n);
    device_buffer<T> da(a, stream);
    device_buffer<float> db(b, stream);
    device_buffer<double> out(n, stream);
    out.fill_bytes(0xAB);
    cupar::transform(da.data(), db.data(), out.data(), n, Ops::template sub<T, float, double>(),
                     stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), transform_ref::sub_reference<T, float, double>(a, b)));
    // The other way round, into a 4-byte output.
    device_buffer<float> outf(n, stream);
    outf.fill_bytes(0xAB);
    cupar::transform(db.data(), da.data(), outf.data(), n, Ops::template sub<float, T, float>(),
                     stream);
    EXPECT_TRUE(bitwise_equal(outf.to_host(), transform_ref::sub_reference<float, T, float>(b, a)));
  }
}

// Arrays that start inside an allocation (a column's slice): CUB's transform copies each tile of an
// input from the 128-byte boundary before it, the elements at a head offset, which differs between
// the inputs here (1 and 3 elements in) and the output (5 in).
TYPED_TEST(Transform, ArraysThatStartInsideAnAllocation) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(1), std::size_t(33), std::size_t(4097), scaled((std::size_t(1) << 20) + 7)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = transform_ref::values<T>(n + 1, 1100 + n);
    const auto b = transform_ref::values<T>(n + 3, 1200 + n);
    device_buffer<T> da(a, stream), db(b, stream), out(n + 5, stream);
    const std::vector<T> a1(a.begin() + 1, a.end()), b3(b.begin() + 3, b.end());
    out.fill_bytes(0xAB);
    cupar::transform(da.data() + 1, out.data() + 5, n, Ops::template affine<T, T>(), stream);
    std::vector<T> got = out.to_host();
    EXPECT_TRUE(
        (transform_ref::affine_matches<T, T>(std::vector<T>(got.begin() + 5, got.end()), a1)));
    std::vector<T> untouched(5);
    std::memset(untouched.data(), 0xAB, 5 * sizeof(T));
    EXPECT_TRUE(bitwise_equal(std::vector<T>(got.begin(), got.begin() + 5), untouched))
        << "an element before the output was written";
    cupar::transform(da.data() + 1, db.data() + 3, out.data() + 5, n, Ops::template sub<T, T, T>(),
                     stream);
    got = out.to_host();
    EXPECT_TRUE(bitwise_equal(std::vector<T>(got.begin() + 5, got.end()),
                              transform_ref::sub_reference<T, T, T>(a1, b3)));
  }
}

TYPED_TEST(Transform, InPlace) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(4097), scaled((std::size_t(1) << 22) + 1)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto a = transform_ref::values<T>(n, 700 + n);
    const auto b = transform_ref::values<T>(n, 800 + n);
    device_buffer<T> da(a, stream), db(b, stream);
    cupar::transform(da.data(), da.data(), n, Ops::template affine<T, T>(), stream);
    EXPECT_TRUE((transform_ref::affine_matches<T, T>(da.to_host(), a)));
    // Output over the first input, then over the second.
    da.copy_from_host(a.data(), n);
    cupar::transform(da.data(), db.data(), da.data(), n, Ops::template sub<T, T, T>(), stream);
    EXPECT_TRUE(bitwise_equal(da.to_host(), transform_ref::sub_reference<T, T, T>(a, b)));
    da.copy_from_host(a.data(), n);
    cupar::transform(da.data(), db.data(), db.data(), n, Ops::template sub<T, T, T>(), stream);
    EXPECT_TRUE(bitwise_equal(db.to_host(), transform_ref::sub_reference<T, T, T>(a, b)));
    // Both inputs and the output are one range.
    da.copy_from_host(a.data(), n);
    cupar::transform(da.data(), da.data(), da.data(), n, Ops::template sub<T, T, T>(), stream);
    EXPECT_TRUE(bitwise_equal(da.to_host(), transform_ref::sub_reference<T, T, T>(a, a)));
    if constexpr (sizeof(T) == sizeof(double)) {
      // Same element size, another type: still the same range, so allowed.
      da.copy_from_host(a.data(), n);
      auto* as_double = reinterpret_cast<double*>(da.data());
      cupar::transform(da.data(), as_double, n, Ops::template affine<T, double>(), stream);
      std::vector<double> got(n);
      da.copy_to_host(reinterpret_cast<T*>(got.data()), n);
      EXPECT_TRUE((transform_ref::affine_matches<T, double>(got, a)));
    }
  }
}

TYPED_TEST(Transform, PartialOverlapIsRejected) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  alignas(16) T buf[32] = {};
  CUPAR_EXPECT_THROW_WITH(cupar::transform(buf, buf + 1, 8, Ops::template affine<T, T>(), s),
                          std::invalid_argument,
                          "cupar::transform: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::transform(buf + 4, buf, 8, Ops::template affine<T, T>(), s),
                          std::invalid_argument,
                          "cupar::transform: d_in and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::transform(buf, buf + 8, buf + 9, 8, Ops::template sub<T, T, T>(), s),
      std::invalid_argument, "d_b and d_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(
      cupar::transform(buf + 2, buf + 16, buf, 8, Ops::template sub<T, T, T>(), s),
      std::invalid_argument, "d_a and d_out partially overlap");
  if constexpr (sizeof(T) < sizeof(double)) {
    // The same address with a wider output element is not the same range: the first outputs
    // would overwrite inputs not read yet.
    CUPAR_EXPECT_THROW_WITH(cupar::transform(buf, reinterpret_cast<double*>(buf), 4,
                                             Ops::template affine<T, double>(), s),
                            std::invalid_argument, "d_in and d_out partially overlap");
  }
}

TYPED_TEST(Transform, NullPointersWithElementsAreRejected) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T buf[8] = {};
  CUPAR_EXPECT_THROW_WITH(
      cupar::transform(static_cast<const T*>(nullptr), buf, 3, Ops::template affine<T, T>(), s),
      std::invalid_argument, "cupar::transform: d_in is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::transform(buf, static_cast<T*>(nullptr), 3, Ops::template affine<T, T>(), s),
      std::invalid_argument, "cupar::transform: d_out is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(cupar::transform(static_cast<const T*>(nullptr), buf, buf, 3,
                                           Ops::template sub<T, T, T>(), s),
                          std::invalid_argument, "d_a is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(cupar::transform(buf, static_cast<const T*>(nullptr), buf, 3,
                                           Ops::template sub<T, T, T>(), s),
                          std::invalid_argument, "d_b is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::transform(buf, buf, static_cast<T*>(nullptr), 3, Ops::template sub<T, T, T>(), s),
      std::invalid_argument, "d_out is null but n = 3");
}

TYPED_TEST(Transform, EmptyInputWritesNothing) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3)};
  device_buffer<T> in(h, stream), out(3, stream);
  out.fill_bytes(0xAB);
  const auto poisoned = out.to_host();
  cupar::transform(in.data(), out.data(), 0, Ops::template affine<T, T>(), stream);
  cupar::transform(in.data(), in.data(), out.data(), 0, Ops::template sub<T, T, T>(), stream);
  cupar::transform(static_cast<const T*>(nullptr), static_cast<T*>(nullptr), 0,
                   Ops::template affine<T, T>(), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), poisoned));
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

TEST(TransformStruct, RecordToItsKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    if (n > (std::size_t(1) << 22)) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = full_range_values<float>(n, 900 + n);
    std::vector<record> h(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = {keys[i], static_cast<std::uint32_t>(i)};
      if (i % 97 == 5) h[i].key = std::numeric_limits<float>::quiet_NaN();
      if (i % 89 == 7) h[i].key = -0.0f;
    }
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i)
      want[i] = h[i].key;
    device_buffer<record> in(h, stream);
    device_buffer<float> out(n, stream);
    out.fill_bytes(0xAB);
    cupar::transform(in.data(), out.data(), n, Ops::record_key(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want));
  }
}

// A record to a record of its type, and a float to a record (the run-time operators take the
// struct class's precompiled kernels where the build has that class, s8a4).
TEST(TransformStruct, RecordToRecordAndKeyToRecord) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    if (n > (std::size_t(1) << 22)) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = random_values<float>(n, 950 + n, -1000, 1000);  // doubled exactly
    std::vector<record> h(n), want(n), from_keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = {keys[i], static_cast<std::uint32_t>(i * 3)};
      want[i] = {keys[i] * 2.0f, static_cast<std::uint32_t>(i * 3 + 1)};
      from_keys[i] = {keys[i], 7u};
    }
    device_buffer<record> in(h, stream), out(n, stream);
    device_buffer<float> k(keys, stream);
    out.fill_bytes(0xAB);
    cupar::transform(in.data(), out.data(), n, Ops::record_bumped(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), want));
    cupar::transform(k.data(), out.data(), n, Ops::record_of_key(), stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), from_keys));
  }
}

namespace transform_ref {
template <class A, class B, class Out>
void check_mixed(std::size_t n, std::uint64_t seed) {
  SCOPED_TRACE(type_label<A>() + " - " + type_label<B>() + " -> " + type_label<Out>());
  owned_stream stream;
  const auto a = values<A>(n, seed);
  const auto b = values<B>(n, seed + 1);
  device_buffer<A> da(a, stream);
  device_buffer<B> db(b, stream);
  device_buffer<Out> out(n, stream);
  out.fill_bytes(0xAB);
  cupar::transform(da.data(), db.data(), out.data(), n, Ops::template sub<A, B, Out>(), stream);
  EXPECT_TRUE(bitwise_equal(out.to_host(), sub_reference<A, B, Out>(a, b)));
}
}  // namespace transform_ref

TEST(TransformMixed, InputsAndOutputOfThreeTypes) {
  CUPAR_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(1), std::size_t(4099), scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    transform_ref::check_mixed<std::uint8_t, std::int16_t, std::int32_t>(n, 1);
    transform_ref::check_mixed<std::int32_t, double, float>(n, 2);
    transform_ref::check_mixed<float, std::int64_t, double>(n, 3);
    transform_ref::check_mixed<std::uint16_t, std::uint8_t, std::uint64_t>(n, 4);
  }
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
