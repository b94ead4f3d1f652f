// cupar tests: checks shared by the compile-only tests of the struct size classes
// (compile_test.cpp, compile_by_key_test.cpp).
#pragma once

#include <cupar/cupar.hpp>
#include <cupar/jit_compile.hpp>

#include <gtest/gtest.h>

#include <string>

namespace cupar::testing {

/// A quick (tier 1) and an optimised (tier 2) build of one operator, and the precompiled set
/// that should serve them when this build made it.
struct class_case {
  std::string set;
  cupar::jit::build_report quick, optimised;
};

/// Both builds of `c` were served by its precompiled set: the operator alone compiled, linked
/// out of line first (tier 1), then inlined (tier 2).
inline void expect_served_by_set(const class_case& c) {
  EXPECT_TRUE(c.quick.precompiled_kernels);
  EXPECT_EQ(c.quick.kernel_set, c.set);
  EXPECT_EQ(c.quick.tier, 1);
  EXPECT_TRUE(c.optimised.precompiled_kernels);
  EXPECT_EQ(c.optimised.kernel_set, c.set);
  EXPECT_EQ(c.optimised.tier, 2);
}

}  // namespace cupar::testing
