// cupar tests: shared pieces of the conformance suites. A suite header is included by a test
// translation unit after `using Ops = <operator kind>;` (compiled_ops or jit_ops), so the same
// checks run against both operator paths.
#pragma once

#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/streams.hpp"
#include "../common/types.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_TEST_FEW_TYPES) && CUPAR_TEST_FEW_TYPES
// CUPAR_TEST_TYPES=few (scripts/test.sh on a machine without a GPU, i.e. CI): the GPU suites only
// compile there, so they are instantiated for one type of each group (their templates are still
// checked by the compiler); builds with a GPU instantiate every type.
using arithmetic_types = ::testing::Types<std::int32_t, std::uint64_t, float>;
using signed_integer_types = ::testing::Types<std::int32_t>;
using unsigned_integer_types = ::testing::Types<std::uint64_t>;
using floating_types = ::testing::Types<float>;
#else
using arithmetic_types =
    ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                     std::uint16_t, std::uint32_t, std::uint64_t, float, double>;

/// Type groups for splitting a heavy typed suite over several translation units: a test TU
/// defines CUPAR_SUITE_TYPES (one of these, or any ::testing::Types) before including a suite,
/// and CUPAR_SUITE_UNTYPED to 0 in all but one TU of a binary so the untyped tests exist once.
using signed_integer_types =
    ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
using unsigned_integer_types =
    ::testing::Types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
using floating_types = ::testing::Types<float, double>;
#endif

struct type_names {
  template <class T>
  static std::string GetName(int) {
    return type_label<T>();
  }
};

/// Small values, so that integer sums stay meaningful and float sums well conditioned.
template <class T>
std::vector<T> small_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>)
    return random_values<T>(n, seed, 0.0, 1.0);
  else if constexpr (std::is_signed_v<T>)
    return random_values<T>(n, seed, -3, 3);
  else
    return random_values<T>(n, seed, 0, 5);
}

/// Bitwise equality (tells -0.0 from +0.0 and compares NaNs by payload).
template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// `x` in a form that prints readably: small integers as numbers (not characters), floating
/// point with every significant digit.
template <class T>
std::string printable(const T& x) {
  std::ostringstream os;
  if constexpr (std::is_floating_point_v<T>) {
    os << std::setprecision(std::numeric_limits<T>::max_digits10) << x;
  } else if constexpr (std::is_arithmetic_v<T>) {
    os << +x;
  } else {
    os << x;
  }
  return os.str();
}

/// Success when `got` and `want` have the same size and `eq` holds for every pair of elements;
/// otherwise the number of mismatches and the first few of them.
template <class T, class Eq>
::testing::AssertionResult elements_match(const std::vector<T>& got, const std::vector<T>& want,
                                          Eq eq) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << "sizes differ: got " << got.size() << ", want " << want.size();
  }
  std::size_t bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (eq(got[i], want[i])) continue;
    if (bad < 5) {
      first << "\n  [" << i << "] got " << printable(got[i]) << ", want " << printable(want[i]);
    }
    ++bad;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " elements differ; first:" << first.str();
}

/// Element-wise bitwise equality (tells -0.0 from +0.0).
template <class T>
::testing::AssertionResult bitwise_equal(const std::vector<T>& got, const std::vector<T>& want) {
  return elements_match(got, want, [](const T& a, const T& b) { return same_bits(a, b); });
}

/// Element-wise equality with operator== (-0.0 == +0.0).
template <class T>
::testing::AssertionResult value_equal(const std::vector<T>& got, const std::vector<T>& want) {
  return elements_match(got, want, [](const T& a, const T& b) { return a == b; });
}

/// Expects `what()` of the exception thrown by `stmt` to contain `needle`.
#define CUPAR_EXPECT_THROW_WITH(stmt, exception, needle)                       \
  do {                                                                         \
    try {                                                                      \
      stmt;                                                                    \
      ADD_FAILURE() << "expected " #exception " from: " #stmt;                 \
    } catch (const exception& e) {                                             \
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)         \
          << "message: " << e.what() << "\nexpected to contain: " << (needle); \
    }                                                                          \
  } while (0)

}  // namespace cupar::testing
