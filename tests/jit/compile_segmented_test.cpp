// cupar tests: compile-only builds of the segmented families' operators (segmented_reduce, the
// segmented scans) and of the binary searches' comparators: no GPU needed, these run in CI. They
// check that the kernels come precompiled for every arithmetic type (only the operator is
// compiled, and nothing at all for named operators and the default comparator), that user structs
// build from source, and that malformed operators give jit_error naming the right role.
#include "common/precompiled.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <typeinfo>

namespace {

using cupar::jit::op;

struct span2 {
  float lo, hi;
};

}  // namespace

CUPAR_JIT_TYPE(span2, "span2", "struct span2 { float lo, hi; };")

namespace {

template <class T>
void expect_precompiled_builds() {
  SCOPED_TRACE(typeid(T).name());
  // Each build is checked where this build precompiled its set (all of them in the default
  // build; CI's and filtered builds fewer: tests/common/precompiled.hpp).
  const std::string c = cupar::testing::size_class<T>();
  for (bool optimized : {false, true}) {
    if (cupar::testing::precompiled_here("segmented_reduce<" + c + ">")) {
      const auto r = cupar::jit::compile_segmented_reduce<T>(op("a < b ? b : a"), 90, optimized);
      EXPECT_TRUE(r.precompiled_kernels);
      EXPECT_EQ(r.tier, optimized ? 2 : 1);
      EXPECT_EQ(r.kernels.size(), 1u);
      EXPECT_GT(r.cubin_bytes, 0u);
    }
    for (bool inclusive : {true, false}) {
      if (!cupar::testing::precompiled_here(
              std::string(inclusive ? "segmented_scan_inclusive<" : "segmented_scan_exclusive<") +
              c + ">")) {
        continue;
      }
      const auto s = cupar::jit::compile_segmented_scan<T>(op("a + b * s").param("s", T(1)),
                                                           inclusive, 90, optimized);
      EXPECT_TRUE(s.precompiled_kernels);
      EXPECT_EQ(s.kernels.size(), 2u);  // initialisation and sweep
    }
    // The searches' sets are keyed by the position type too (a build's type filter may keep
    // the element's class and not u32).
    const op less("a < b");
    if (cupar::testing::precompiled_here("binary_search<" + c + ",u32>")) {
      const auto b32 = cupar::jit::compile_binary_search<T, std::uint32_t>(&less, 90, optimized);
      EXPECT_TRUE(b32.precompiled_kernels);
      EXPECT_EQ(b32.kernels.size(), 1u);
    }
    if (cupar::testing::precompiled_here("binary_search<" + c + ",u64>")) {
      EXPECT_TRUE((cupar::jit::compile_binary_search<T, std::int64_t>(&less, 90, optimized)
                       .precompiled_kernels));
    }
  }
}

TEST(JitCompileSegmented, EveryArithmeticTypeHasPrecompiledKernels) {
  expect_precompiled_builds<std::int8_t>();
  expect_precompiled_builds<std::int16_t>();
  expect_precompiled_builds<std::int32_t>();
  expect_precompiled_builds<std::int64_t>();
  expect_precompiled_builds<std::uint8_t>();
  expect_precompiled_builds<std::uint16_t>();
  expect_precompiled_builds<std::uint32_t>();
  expect_precompiled_builds<std::uint64_t>();
  expect_precompiled_builds<float>();
  expect_precompiled_builds<double>();
}

TEST(JitCompileSegmented, NamedOperatorsAndTheDefaultComparatorCompileNothing) {
  CUPAR_REQUIRE_PRECOMPILED("segmented_scan_inclusive<u16>", "binary_search<u8,u64>");
  const auto before = cupar::jit::get_stats();
  const auto a = cupar::jit::compile_segmented_reduce<float>(cupar::jit::plus, 90, false);
  const auto b =
      cupar::jit::compile_segmented_scan<std::int16_t>(cupar::jit::maximum, true, 90, true);
  const auto c =
      cupar::jit::compile_segmented_scan<double>(cupar::jit::multiplies, false, 90, false);
  const auto d = cupar::jit::compile_binary_search<float, std::uint32_t>(nullptr, 90, true);
  const auto e =
      cupar::jit::compile_binary_search<std::uint8_t, std::size_t>(&cupar::jit::greater, 90, false);
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_EQ(after.links, before.links + 5);
  for (const auto& r : {a, b, c, d, e}) {
    EXPECT_TRUE(r.precompiled_kernels);
    EXPECT_EQ(r.compile_ms, 0.0);
  }
}

TEST(JitCompileSegmented, StructsOfAClassLinkTheClassKernels) {
  // span2 is class s8a4: the segmented reduce and scans and the binary searches take the class's
  // precompiled kernels where this build made them (the default build; CI's has none), else
  // CUB's from source.
  const op hull("span2{b.lo < a.lo ? b.lo : a.lo, a.hi < b.hi ? b.hi : a.hi}");
  const auto r = cupar::jit::compile_segmented_reduce<span2>(hull, 90, true);
  EXPECT_EQ(r.precompiled_kernels, cupar::testing::precompiled_here("segmented_reduce<s8a4>"));
  if (r.precompiled_kernels) {
    EXPECT_EQ(r.kernel_set, "segmented_reduce<s8a4>");
  }
  EXPECT_EQ(r.kernels.size(), 1u);
  const auto s = cupar::jit::compile_segmented_scan<span2>(hull, false, 90, true);
  EXPECT_EQ(s.precompiled_kernels,
            cupar::testing::precompiled_here("segmented_scan_exclusive<s8a4>"));
  if (s.precompiled_kernels) {
    EXPECT_EQ(s.kernel_set, "segmented_scan_exclusive<s8a4>");
  }
  EXPECT_EQ(s.kernels.size(), 2u);
  const op by_lo("a.lo < b.lo");
  const auto b = cupar::jit::compile_binary_search<span2, std::uint64_t>(&by_lo, 90, true);
  EXPECT_EQ(b.precompiled_kernels, cupar::testing::precompiled_here("binary_search<s8a4,u64>"));
  if (b.precompiled_kernels) {
    EXPECT_EQ(b.kernel_set, "binary_search<s8a4,u64>");
  }
  EXPECT_EQ(b.kernels.size(), 1u);
}

// Segment offsets (jit::offsets): 32- and 64-bit integer arrays, signed or not, and expressions;
// an int64 array as it is, the others through an expression the argument owns.
TEST(JitCompileSegmented, OffsetsTakeEveryFourAndEightByteIntegerArray) {
  using cupar::jit::offsets;
  static_assert(std::is_convertible_v<const std::int64_t*, offsets>);
  static_assert(std::is_convertible_v<std::int64_t*, offsets>);
  static_assert(std::is_convertible_v<const std::int32_t*, offsets>);
  static_assert(std::is_convertible_v<std::uint32_t*, offsets>);
  static_assert(std::is_convertible_v<const std::uint64_t*, offsets>);
  static_assert(std::is_convertible_v<const long long*, offsets>);
  static_assert(std::is_convertible_v<const cupar::jit::iterator&, offsets>);
  static_assert(!std::is_convertible_v<const std::int16_t*, offsets>);
  static_assert(!std::is_convertible_v<const float*, offsets>);
  static_assert(!std::is_convertible_v<const double*, offsets>);
  const std::int64_t* wide = nullptr;
  const offsets plain(wide);
  EXPECT_EQ(plain.expression(), nullptr);
  static const std::uint32_t narrow[1] = {0};
  const offsets o(narrow);
  EXPECT_EQ(o.array(), nullptr);
  ASSERT_NE(o.expression(), nullptr);
  // A copy shares the owned expression (it stays valid while any copy lives).
  const cupar::jit::iterator* e = o.expression();
  offsets copy = o;
  EXPECT_EQ(copy.expression(), e);
  EXPECT_EQ(e->value_type().kind, cupar::detail::scalar::u32);
  const cupar::jit::iterator fixed =
      cupar::jit::transform<std::int64_t>(cupar::jit::counting(0ll), op("x * 64"));
  EXPECT_EQ(offsets(fixed).expression(), &fixed);
}

TEST(JitCompileSegmented, ErrorsNameTheOperatorThatFailed) {
  try {
    cupar::jit::compile_segmented_scan<float>(op("a + nope"), true, 90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.line_text(), "a + nope");
  }
  // A result that does not convert to the values' type: reported where it is used, not in the
  // snippet; for a struct (built from source) the message says what was expected.
  try {
    cupar::jit::compile_segmented_scan<float>(op("&a"), false, 90, true);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_EQ(e.line(), 0);
  }
  try {
    cupar::jit::compile_segmented_scan<span2>(op("a.lo + b.lo"), true, 90, true);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("a binary operator (span2 a, span2 b) -> span2"),
              std::string::npos)
        << e.what();
  }
  try {
    cupar::jit::compile_segmented_reduce<std::int32_t>(op("[](int a, int b) {\n  return a.x;\n}"),
                                                       90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.line(), 2);
  }
  // A comparator whose result does not convert to bool, and the default `<` on a struct that has
  // no operator<.
  const op not_bool("a");
  try {
    cupar::jit::compile_binary_search<span2, std::uint32_t>(&not_bool, 90, true);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("a comparator (span2 a, span2 b) -> bool"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((cupar::jit::compile_binary_search<span2, std::uint32_t>(nullptr, 90, true)),
               cupar::jit_error);
  // The JIT keeps working.
  EXPECT_EQ(cupar::jit::compile_segmented_reduce<float>(op("a + b"), 90, false).precompiled_kernels,
            cupar::testing::precompiled_here("segmented_reduce<u32>"));
}

}  // namespace
