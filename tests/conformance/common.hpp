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
#include <string>
#include <type_traits>

namespace cupar::testing {

using arithmetic_types = ::testing::Types<std::int8_t, std::int16_t, std::int32_t, std::int64_t,
                                          std::uint8_t, std::uint16_t, std::uint32_t,
                                          std::uint64_t, float, double>;

struct type_names {
  template <class T>
  static std::string GetName(int) {
    return type_label<T>();
  }
};

/// Small values, so that integer sums stay meaningful and float sums well conditioned.
template <class T>
std::vector<T> small_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) return random_values<T>(n, seed, 0.0, 1.0);
  else if constexpr (std::is_signed_v<T>) return random_values<T>(n, seed, -3, 3);
  else return random_values<T>(n, seed, 0, 5);
}

/// Expects `what()` of the exception thrown by `stmt` to contain `needle`.
#define CUPAR_EXPECT_THROW_WITH(stmt, exception, needle)                               \
  do {                                                                                 \
    try {                                                                              \
      stmt;                                                                            \
      ADD_FAILURE() << "expected " #exception " from: " #stmt;                         \
    } catch (const exception& e) {                                                     \
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)                 \
          << "message: " << e.what() << "\nexpected to contain: " << (needle);        \
    }                                                                                  \
  } while (0)

}  // namespace cupar::testing
