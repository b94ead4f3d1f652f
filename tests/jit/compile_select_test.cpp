// cupar tests: compile-only builds of the stream compaction families' operators (select_if,
// partition, three_way_partition, unique): no GPU needed, these run in CI. They check that the
// kernels come precompiled for every arithmetic type (only the operator is compiled), that named
// and default operators compile nothing, that user structs build from source, and that malformed
// operators give jit_error naming the right operator.
#include "common/precompiled.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>

namespace {

using cupar::jit::op;

struct tagged {
  float key;
  std::uint32_t tag;
};

struct six_floats {  // 24 bytes of 4-byte fields: no class of its own
  float v[6];
};

// A device function that holds 32 doubles at once: compiled alone it takes more registers than
// any capped tier-1 kernel here allows (the capped kernels' operators are compiled within a
// limit, without which their links fail).
const char* const register_hungry =
    "__device__ double hungry(double a, double b) { double v[32]; for (int k = 0; k < 32; ++k) "
    "v[k] = sin(a * k) + cos(b + k); double s = 0; for (int k = 0; k < 32; ++k) s += v[k] * "
    "v[31 - k] * v[(k * 7) % 32]; return s; }";

}  // namespace

CUPAR_JIT_TYPE(tagged, "tagged", "struct tagged { float key; unsigned int tag; };")
CUPAR_JIT_TYPE(six_floats, "six_floats", "struct six_floats { float v[6]; };")

namespace {

template <class T>
void expect_precompiled_predicate_build() {
  SCOPED_TRACE(typeid(T).name());
  const std::string c = cupar::testing::size_class<T>();
  // CI's build precompiles fewer size classes (tests/common/precompiled.hpp); the default, all.
  if (!cupar::testing::precompiled_here("select_if<" + c + ">")) return;
  for (bool optimized : {false, true}) {
    const auto r = cupar::jit::compile_select_if<T>(op("x > t").param("t", T(1)), 90, optimized);
    EXPECT_TRUE(r.precompiled_kernels);
    EXPECT_EQ(r.tier, optimized ? 2 : 1);
    EXPECT_EQ(r.kernels.size(), 2u);
    EXPECT_GT(r.cubin_bytes, 0u);
    EXPECT_TRUE(cupar::jit::compile_partition<T>(op("x != t").param("t", T(1)), 90, optimized)
                    .precompiled_kernels);
    EXPECT_TRUE(cupar::jit::compile_unique<T>(nullptr, 90, optimized).precompiled_kernels);
    EXPECT_TRUE(cupar::jit::compile_three_way_partition<T>(
                    op("x < t").param("t", T(1)), op("x < u").param("u", T(2)), 90, optimized)
                    .precompiled_kernels);
  }
}

TEST(JitCompileSelect, EveryArithmeticTypeHasPrecompiledKernels) {
  expect_precompiled_predicate_build<std::int8_t>();
  expect_precompiled_predicate_build<std::int16_t>();
  expect_precompiled_predicate_build<std::int32_t>();
  expect_precompiled_predicate_build<std::int64_t>();
  expect_precompiled_predicate_build<std::uint8_t>();
  expect_precompiled_predicate_build<std::uint16_t>();
  expect_precompiled_predicate_build<std::uint32_t>();
  expect_precompiled_predicate_build<std::uint64_t>();
  expect_precompiled_predicate_build<float>();
  expect_precompiled_predicate_build<double>();
}

TEST(JitCompileSelect, DefaultAndNamedEqualitiesCompileNothing) {
  CUPAR_REQUIRE_PRECOMPILED("unique<u32>", "unique<u64>");
  const auto before = cupar::jit::get_stats();
  const auto a = cupar::jit::compile_unique<float>(nullptr, 90, false);
  const auto b = cupar::jit::compile_unique<std::int64_t>(&cupar::jit::equal_to, 90, true);
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_EQ(after.links, before.links + 2);
  EXPECT_EQ(a.compile_ms, 0.0);
  EXPECT_EQ(b.compile_ms, 0.0);
}

// The partitions of 4-byte items are linked for the compiled path's occupancy (engine.cpp,
// occupancy_options): ptxas gave their LTO builds more registers than nvcc gives CUB's kernels.
TEST(JitCompileSelect, FourBytePartitionsAreLinkedForTheCompiledPathsOccupancy) {
  if (!cupar::testing::precompiled_here("partition_if<u32>") ||
      !cupar::testing::precompiled_here("three_way_partition<u32>")) {
    GTEST_SKIP() << "this build does not precompile the 4-byte partitions (its type filter)";
  }
  const op pred = op("x < t").param("t", 1.0f);
  EXPECT_TRUE(cupar::jit::compile_partition<float>(pred, 90, true).register_capped);
  EXPECT_TRUE(cupar::jit::compile_partition<std::int32_t>(op("x < 1"), 90, true).register_capped);
  EXPECT_TRUE(
      cupar::jit::compile_three_way_partition<std::uint32_t>(op("x < 1"), op("x < 2"), 90, true)
          .register_capped);
  // Other sizes, quick builds and select_if keep ptxas's choice (the compiled path's already).
  EXPECT_FALSE(cupar::jit::compile_partition<double>(op("x < 1"), 90, true).register_capped);
  EXPECT_FALSE(cupar::jit::compile_partition<float>(pred, 90, false).register_capped);
  EXPECT_FALSE(cupar::jit::compile_select_if<float>(pred, 90, true).register_capped);
}

// The tier-1 (out-of-line) select and partition kernels take a tile's selection flags from the
// predicate's batched forms (_pred8 for items up to 4 bytes, _pred4 up to 8), and select_if's is
// compiled for 3 blocks of 384 threads an SM on sm_90 (56 registers), three_way_partition's for 2
// of 256 (128), with their operators within 32 (a callee may not use more registers than its
// kernel): heavy predicates of both widths must still link.
TEST(JitCompileSelect, HeavyPredicatesLinkWithTheOutOfLineKernels) {
  if (!cupar::testing::precompiled_here("select_if<u32>") ||
      !cupar::testing::precompiled_here("select_if<u64>")) {
    GTEST_SKIP() << "this build does not precompile the 4- and 8-byte select_if sets";
  }
  op f32("sinf(x) * cosf(x * 0.5f) + expf(-x * x) + log1pf(fabsf(x)) + powf(fabsf(x), 0.3f) > t");
  op f64("sin(x) * cos(x * 0.5) + exp(-x * x) + log1p(fabs(x)) + pow(fabs(x), 0.3) > t");
  f32.param("t", 0.7f);
  f64.param("t", 0.7);
  const auto a = cupar::jit::compile_select_if<float>(f32, 90, false);
  EXPECT_EQ(a.tier, 1);
  EXPECT_TRUE(a.precompiled_kernels);
  const auto b = cupar::jit::compile_select_if<double>(f64, 90, false);
  EXPECT_EQ(b.tier, 1);
  EXPECT_TRUE(b.precompiled_kernels);
  const auto c = cupar::jit::compile_partition<double>(f64, 90, false);
  EXPECT_EQ(c.tier, 1);
  EXPECT_TRUE(c.precompiled_kernels);
  const auto d = cupar::jit::compile_partition<std::uint32_t>(op("x % 7u == 3u"), 90, false);
  EXPECT_EQ(d.tier, 1);
  // three_way_partition's tier-1 sweep is compiled for 2 blocks of 256 threads an SM (128
  // registers), its predicates within 32.
  if (cupar::testing::precompiled_here("three_way_partition<u64>")) {
    op g64 = op("hungry(x, x) < u").preamble(register_hungry);
    g64.param("u", 0.2);
    const auto t = cupar::jit::compile_three_way_partition<double>(f64, g64, 90, false);
    EXPECT_EQ(t.tier, 1);
    EXPECT_EQ(t.kernel_set, "three_way_partition<u64>");
  }
  // An iterator expression's loader is called by the same capped kernel ("+index" sets): it is
  // compiled with the predicate, within the same 32 registers.
  if (cupar::testing::precompiled_here("select_if<u64>+index")) {
    const double* no_doubles = nullptr;  // compile-only: arrays are never read
    const auto e = cupar::jit::compile_select_if<double>(
        cupar::jit::transform(no_doubles,
                              op("sin(x) * cos(x * 0.5) + exp(-x * x) + "
                                 "log1p(fabs(x)) + pow(fabs(x), 0.3) + tanh(x) * erf(x)")),
        op("x > 0.5"), 90, false);
    EXPECT_EQ(e.tier, 1);
    EXPECT_EQ(e.kernel_set, "select_if<u64>+index");
  }
}

// unique's tier-1 sweep kernel of 4- and 8-byte items is compiled for 2 blocks of 384 threads an
// SM on sm_90 (80 registers), with the equality's functions within the same registers: an
// equality that needs more (register_hungry) must still link.
TEST(JitCompileSelect, HeavyEqualitiesLinkWithTheCappedUniqueKernel) {
  const op eq = op("hungry(a, b) < 1e300 && a == b").preamble(register_hungry);
  const std::pair<const char*, cupar::jit::build_report (*)(const op&)> cases[] = {
      {"unique<u32>", [](const op& e) { return cupar::jit::compile_unique<float>(&e, 90, false); }},
      {"unique<u64>",
       [](const op& e) { return cupar::jit::compile_unique<double>(&e, 90, false); }},
  };
  for (const auto& [set, build] : cases) {
    SCOPED_TRACE(set);
    if (!cupar::testing::precompiled_here(set)) continue;
    const auto r = build(eq);
    EXPECT_EQ(r.tier, 1);
    EXPECT_TRUE(r.precompiled_kernels);
    EXPECT_EQ(r.kernel_set, set);
  }
}

TEST(JitCompileSelect, StructsOfAClassLinkTheClassKernels) {
  // tagged is 8 bytes of 4-byte fields: class s8a4. With the class's sets (the default build;
  // CI's has none) only the operator compiles; without them, CUB's kernels from source.
  const op same_tag("a.tag == b.tag");
  const op below("x.key < t");
  const op above("x.key > u");
  const op by_key("a.key < b.key");
  const op first("a.v[0] < b.v[0]");
  const std::pair<std::string, cupar::jit::build_report> cases[] = {
      {"select_if<s8a4>", cupar::jit::compile_select_if<tagged>(op(below).param("t", 2.0f))},
      {"partition_if<s8a4>",
       cupar::jit::compile_partition<tagged>(op(below).param("t", 2.0f), 90, false)},
      {"three_way_partition<s8a4>",
       cupar::jit::compile_three_way_partition<tagged>(op(below).param("t", 2.0f),
                                                       op(above).param("u", 5.0f), 90, false)},
      {"unique<s8a4>", cupar::jit::compile_unique<tagged>(&same_tag)},
      // Records searched by a comparator on their fields (search.hpp, the class's sets).
      {"binary_search<s8a4,u32>",
       cupar::jit::compile_binary_search<tagged, std::uint32_t>(&by_key, 90, false)},
      {"binary_search<s8a4,u64>",
       cupar::jit::compile_binary_search<tagged, std::uint64_t>(&by_key, 90, true)},
      // A call on 8-byte-aligned arrays would give six_floats the class s24a8 (docs/JIT.md);
      // a compile-only build knows no arrays, so its kernels are the struct's own.
      {"binary_search<s24a4,u32>",
       cupar::jit::compile_binary_search<six_floats, std::uint32_t>(&first, 90, false)},
  };
  for (const auto& [set, r] : cases) {
    SCOPED_TRACE(set);
    EXPECT_EQ(r.precompiled_kernels, cupar::testing::precompiled_here(set));
    if (r.precompiled_kernels) {
      EXPECT_EQ(r.kernel_set, set);
    }
    EXPECT_FALSE(r.kernels.empty());
  }
}

TEST(JitCompileSelect, ErrorsNameTheOperatorThatFailed) {
  try {
    cupar::jit::compile_three_way_partition<float>(op("x < 1"), op("x < nope"), 90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.line_text(), "x < nope");
    EXPECT_NE(std::string(e.what()).find("second predicate"), std::string::npos) << e.what();
  }
  try {
    cupar::jit::compile_select_if<int>(op("x.y > 0"), 90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.line(), 1);
  }
  // A predicate whose result does not convert to bool.
  try {
    cupar::jit::compile_select_if<tagged>(op("x"), 90, true);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("a predicate (tagged x) -> bool"), std::string::npos)
        << e.what();
  }
  // The JIT keeps working.
  EXPECT_EQ(cupar::jit::compile_select_if<float>(op("x > 0"), 90, false).precompiled_kernels,
            cupar::testing::precompiled_here("select_if<u32>"));
}

}  // namespace
