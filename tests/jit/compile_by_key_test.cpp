// cupar tests: compile-only builds of the by-key families' operators (reduce_by_key, the scans by
// key, unique_by_key, run_length_encode): no GPU needed, these run in CI. They check that the
// kernels come precompiled for every arithmetic key and value type (only the operator is
// compiled), that named and default operators compile nothing, that user structs build from
// source, and that a malformed operator gives a jit_error naming the one that failed (the
// operator or the equality).
#include "common/precompiled.hpp"
#include "jit/class_sets.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <typeinfo>

namespace {

using cupar::jit::op;

struct tagged_key {
  float key;
  std::uint32_t tag;
};
struct agg4 {  // a group-by accumulator: count, sum, min, max
  std::uint32_t count;
  float sum, min, max;
};

}  // namespace

CUPAR_JIT_TYPE(tagged_key, "tagged_key", "struct tagged_key { float key; unsigned int tag; };")
CUPAR_JIT_TYPE(agg4, "agg4", "struct agg4 { unsigned int count; float sum, min, max; };")

namespace {

void expect_precompiled(const cupar::jit::build_report& r, bool optimized) {
  EXPECT_TRUE(r.precompiled_kernels);
  EXPECT_EQ(r.tier, optimized ? 2 : 1);
  EXPECT_EQ(r.kernels.size(), 2u);
  EXPECT_GT(r.cubin_bytes, 0u);
}

/// Every family on keys K and values V, with snippet operators (the equality given or not). Each
/// build is checked where this build precompiled its set (all of them in the default build; CI's
/// and filtered builds fewer: tests/common/precompiled.hpp), so a filtered build checks what it
/// has instead of expecting one family's set to stand for the others'.
template <class K, class V>
void expect_precompiled_by_key(bool optimized) {
  SCOPED_TRACE(std::string(typeid(K).name()) + " keys, " + typeid(V).name() + " values" +
               (optimized ? ", optimized" : ", quick"));
  const std::string classes =
      "<" + cupar::testing::size_class<K>() + "," + cupar::testing::size_class<V>() + ">";
  auto here = [&](const char* family) {
    return cupar::testing::precompiled_here(family + classes);
  };
  const op sum("a + b");
  const op same("a == b");
  if (here("reduce_by_key")) {
    expect_precompiled(cupar::jit::compile_reduce_by_key<K, V>(sum, nullptr, 90, optimized),
                       optimized);
    expect_precompiled(cupar::jit::compile_reduce_by_key<K, V>(sum, &same, 90, optimized),
                       optimized);
  }
  if (here("scan_by_key_inclusive")) {
    expect_precompiled(cupar::jit::compile_scan_by_key<K, V>(sum, nullptr, true, 90, optimized),
                       optimized);
  }
  if (here("scan_by_key_exclusive")) {
    expect_precompiled(cupar::jit::compile_scan_by_key<K, V>(sum, &same, false, 90, optimized),
                       optimized);
  }
  if (here("unique_by_key")) {
    expect_precompiled(cupar::jit::compile_unique_by_key<K, V>(&same, 90, optimized), optimized);
  }
}

template <class K>
void expect_precompiled_run_length(bool optimized) {
  SCOPED_TRACE(typeid(K).name());
  if (!cupar::testing::precompiled_here("run_length_encode<" + cupar::testing::size_class<K>() +
                                        ",u32>")) {
    return;
  }
  expect_precompiled(cupar::jit::compile_run_length_encode<K, std::uint32_t>(90, optimized),
                     optimized);
  expect_precompiled(cupar::jit::compile_run_length_encode<K, std::int64_t>(90, optimized),
                     optimized);
}

TEST(JitCompileByKey, EveryArithmeticTypeHasPrecompiledKernels) {
  // Keys and values of one type, every arithmetic type (quick builds).
  expect_precompiled_by_key<std::int8_t, std::int8_t>(false);
  expect_precompiled_by_key<std::int16_t, std::int16_t>(false);
  expect_precompiled_by_key<std::int32_t, std::int32_t>(false);
  expect_precompiled_by_key<std::int64_t, std::int64_t>(false);
  expect_precompiled_by_key<std::uint8_t, std::uint8_t>(false);
  expect_precompiled_by_key<std::uint16_t, std::uint16_t>(false);
  expect_precompiled_by_key<std::uint32_t, std::uint32_t>(false);
  expect_precompiled_by_key<std::uint64_t, std::uint64_t>(false);
  expect_precompiled_by_key<float, float>(false);
  expect_precompiled_by_key<double, double>(false);
  // Every pair of size classes of key and value.
  expect_precompiled_by_key<std::uint8_t, std::int16_t>(false);
  expect_precompiled_by_key<std::uint8_t, float>(false);
  expect_precompiled_by_key<std::uint8_t, std::int64_t>(false);
  expect_precompiled_by_key<std::int16_t, std::uint8_t>(false);
  expect_precompiled_by_key<std::int16_t, std::uint32_t>(false);
  expect_precompiled_by_key<std::int16_t, double>(false);
  expect_precompiled_by_key<float, std::int8_t>(false);
  expect_precompiled_by_key<float, std::uint16_t>(false);
  expect_precompiled_by_key<std::int32_t, double>(false);
  expect_precompiled_by_key<double, std::uint8_t>(false);
  expect_precompiled_by_key<std::int64_t, std::int16_t>(false);
  expect_precompiled_by_key<std::uint64_t, float>(false);
  // The inlined (LTO) builds of the benchmarked shape.
  expect_precompiled_by_key<std::uint32_t, float>(true);
  // run_length_encode: every key type with 4- and 8-byte counts.
  expect_precompiled_run_length<std::int8_t>(false);
  expect_precompiled_run_length<std::int16_t>(false);
  expect_precompiled_run_length<std::int32_t>(false);
  expect_precompiled_run_length<std::int64_t>(false);
  expect_precompiled_run_length<std::uint8_t>(false);
  expect_precompiled_run_length<std::uint16_t>(false);
  expect_precompiled_run_length<std::uint32_t>(false);
  expect_precompiled_run_length<std::uint64_t>(false);
  expect_precompiled_run_length<float>(false);
  expect_precompiled_run_length<double>(true);
}

TEST(JitCompileByKey, NamedAndDefaultOperatorsCompileNothing) {
  CUPAR_REQUIRE_PRECOMPILED("reduce_by_key<u64,u8>", "scan_by_key_inclusive<u16,u32>",
                            "unique_by_key<u64,u16>", "unique_by_key<u8,u32>",
                            "run_length_encode<u16,u32>");
  const auto before = cupar::jit::get_stats();
  const cupar::jit::build_report r[] = {
      cupar::jit::compile_reduce_by_key<float, float>(cupar::jit::plus, nullptr, 90, false),
      cupar::jit::compile_reduce_by_key<std::int64_t, std::uint8_t>(
          cupar::jit::maximum, &cupar::jit::equal_to, 90, true),
      cupar::jit::compile_scan_by_key<std::int32_t, double>(cupar::jit::plus, nullptr, true, 90,
                                                            false),
      cupar::jit::compile_scan_by_key<std::uint16_t, std::int32_t>(
          cupar::jit::minimum, &cupar::jit::equal_to, false, 90, true),
      cupar::jit::compile_unique_by_key<double, std::int16_t>(nullptr, 90, false),
      cupar::jit::compile_unique_by_key<std::int8_t, float>(&cupar::jit::equal_to, 90, true),
      cupar::jit::compile_run_length_encode<float, std::uint64_t>(90, false),
      cupar::jit::compile_run_length_encode<std::uint16_t, std::int32_t>(90, true),
  };
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_EQ(after.links, before.links + 8);
  for (const auto& b : r) {
    EXPECT_TRUE(b.precompiled_kernels);
    EXPECT_EQ(b.compile_ms, 0.0);
  }
}

// The named plus on 4- and 8-byte arithmetic values is served by the "+plus" sets, where
// cuda::std::plus<> is compiled into CUB's kernels (its reduce-by-key agent takes a cheaper scan
// for it, and the kernels need fewer registers); every other operator keeps the generic sets.
TEST(JitCompileByKey, NamedPlusOnFourAndEightByteValuesUsesThePlusSets) {
  CUPAR_REQUIRE_PRECOMPILED("reduce_by_key<u32,f32>+plus", "scan_by_key_inclusive<u64,u64>+plus",
                            "scan_by_key_exclusive<u32,f64>+plus", "reduce_by_key<u32,u32>");
  const auto before = cupar::jit::get_stats();
  using cupar::jit::compile_reduce_by_key;
  using cupar::jit::compile_scan_by_key;
  const auto reduce =
      compile_reduce_by_key<std::uint32_t, float>(cupar::jit::plus, nullptr, 90, true);
  const auto float_keys = compile_reduce_by_key<float, float>(cupar::jit::plus, nullptr, 90, false);
  const auto inclusive = compile_scan_by_key<std::uint64_t, std::uint64_t>(
      cupar::jit::plus, &cupar::jit::equal_to, true, 90, true);
  const auto exclusive =
      compile_scan_by_key<std::int32_t, double>(cupar::jit::plus, nullptr, false, 90, false);
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(reduce.kernel_set, "reduce_by_key<u32,f32>+plus");
  EXPECT_EQ(float_keys.kernel_set, "reduce_by_key<u32,f32>+plus");  // keys by size class
  EXPECT_EQ(inclusive.kernel_set, "scan_by_key_inclusive<u64,u64>+plus");
  EXPECT_EQ(exclusive.kernel_set, "scan_by_key_exclusive<u32,f64>+plus");
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);  // the equality is named too
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_TRUE(reduce.precompiled_kernels);
  EXPECT_EQ(reduce.kernels.size(), 2u);

  // Not the plus sets: a snippet adding, another named operator, 2-byte values.
  const op sum("a + b");
  const auto snippet = compile_reduce_by_key<std::uint32_t, std::uint32_t>(sum, nullptr, 90, false);
  const auto maximum =
      compile_reduce_by_key<std::uint32_t, std::uint32_t>(cupar::jit::maximum, nullptr, 90, false);
  EXPECT_EQ(snippet.kernel_set, "reduce_by_key<u32,u32>");
  EXPECT_EQ(maximum.kernel_set, "reduce_by_key<u32,u32>");
  if (cupar::testing::precompiled_here("reduce_by_key<u32,u16>")) {  // not in CI's build
    const auto narrow =
        compile_reduce_by_key<std::uint32_t, std::int16_t>(cupar::jit::plus, nullptr, 90, false);
    EXPECT_EQ(narrow.kernel_set, "reduce_by_key<u32,u16>");
  }
}

TEST(JitCompileByKey, StructValuesOfAClassLinkTheClassKernelsStructKeysCompileFromSource) {
  // A group-by accumulator (count, sum, min, max: 16 bytes, class s16a4) as the value of a
  // reduce and a scan by key with 4- and 8-byte keys: the class's precompiled kernels, only the
  // operator compiled (CUPAR_JIT_STRUCT_DP_CLASSES; CI's build has none: from source there).
  const op merge(
      "agg4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  const cupar::testing::class_case cases[] = {
      {"reduce_by_key<u32,s16a4>",
       cupar::jit::compile_reduce_by_key<std::int32_t, agg4>(merge, nullptr, 90, false),
       cupar::jit::compile_reduce_by_key<std::int32_t, agg4>(merge, nullptr, 90, true)},
      {"scan_by_key_inclusive<u64,s16a4>",
       cupar::jit::compile_scan_by_key<std::uint64_t, agg4>(merge, nullptr, true, 90, false),
       cupar::jit::compile_scan_by_key<std::uint64_t, agg4>(merge, nullptr, true, 90, true)},
      {"unique_by_key<u32,s16a4>",
       cupar::jit::compile_unique_by_key<float, agg4>(nullptr, 90, false),
       cupar::jit::compile_unique_by_key<float, agg4>(nullptr, 90, true)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    EXPECT_EQ(c.quick.kernels.size(), 2u);
    if (!cupar::testing::precompiled_here(c.set)) {
      EXPECT_FALSE(c.quick.precompiled_kernels);
      continue;
    }
    cupar::testing::expect_served_by_set(c);
  }
  // Struct keys with an equality on a member: no precompiled class for keys.
  const op same_tag("a.tag == b.tag");
  const auto u = cupar::jit::compile_unique_by_key<tagged_key, std::uint32_t>(&same_tag, 90, false);
  EXPECT_FALSE(u.precompiled_kernels);
  EXPECT_EQ(u.kernels.size(), 2u);
  const auto s =
      cupar::jit::compile_scan_by_key<tagged_key, agg4>(merge, &same_tag, false, 90, false);
  EXPECT_FALSE(s.precompiled_kernels);
  EXPECT_EQ(s.kernels.size(), 2u);
}

TEST(JitCompileByKey, ErrorsNameTheOperatorThatFailed) {
  // Both slots hold snippets: the message says which one failed.
  const op good_eq("a == b");
  try {
    cupar::jit::compile_reduce_by_key<float, float>(op("a + nope"), &good_eq, 90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.line_text(), "a + nope");
    EXPECT_NE(std::string(e.what()).find("of the operator: a + nope"), std::string::npos)
        << e.what();
  }
  const op bad_eq("a == nope");
  try {
    cupar::jit::compile_scan_by_key<std::int32_t, double>(op("a * b"), &bad_eq, true, 90, false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.line_text(), "a == nope");
    EXPECT_NE(std::string(e.what()).find("of the equality: a == nope"), std::string::npos)
        << e.what();
  }
  // An equality whose result does not convert to bool.
  const op not_a_bool("a");
  try {
    cupar::jit::compile_unique_by_key<tagged_key, float>(&not_a_bool, 90, true);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("an equality (tagged_key a, tagged_key b) -> bool"),
              std::string::npos)
        << e.what();
  }
  // An operator whose result is not the value type.
  try {
    cupar::jit::compile_reduce_by_key<std::uint32_t, agg4>(op("a.count + b.count"), nullptr, 90,
                                                           false);
    ADD_FAILURE() << "expected jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("a binary operator (agg4 a, agg4 b) -> agg4"),
              std::string::npos)
        << e.what();
  }
  // The JIT keeps working.
  const auto after_errors =
      cupar::jit::compile_reduce_by_key<float, float>(op("a + b"), nullptr, 90, false);
  EXPECT_EQ(after_errors.precompiled_kernels,
            cupar::testing::precompiled_here("reduce_by_key<u32,u32>"));
}

}  // namespace

namespace {

cupar::jit::build_report compile_group_u32(const op& o) {
  return cupar::jit::compile_group_by<std::uint32_t, float>(o, 90, false);
}

// group_by's kernels (the warps' tables and their second pass, the gather, the block tables for
// rows as given and partitioned) of the keys' and values' size classes (float keys by their
// bits), precompiled for 4- and 8-byte keys; only the operator compiles. Struct values of a
// data-processing class link that class's kernels (CI's build has none: from source there).
TEST(JitCompileByKey, GroupByLinksThePrecompiledHashKernels) {
  const op sum("a + b");
  const struct {
    const char* set;
    cupar::jit::build_report quick;
  } cases[] = {
      {"group_by<u32,u32>", cupar::jit::compile_group_by<std::uint32_t, float>(sum, 90, false)},
      {"group_by<u32,u64>", cupar::jit::compile_group_by<float, double>(sum, 90, false)},
      {"group_by<u64,u32>",
       cupar::jit::compile_group_by<std::int64_t, std::int32_t>(sum, 90, false)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    EXPECT_EQ(c.quick.kernel_set, c.set);
    EXPECT_EQ(c.quick.kernels.size(), 5u);
    EXPECT_EQ(c.quick.precompiled_kernels, cupar::testing::precompiled_here(c.set));
  }
  const op merge(
      "agg4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  const auto stats = cupar::jit::compile_group_by<std::uint32_t, agg4>(merge, 90, false);
  EXPECT_EQ(stats.kernels.size(), 5u);
  EXPECT_EQ(stats.precompiled_kernels, cupar::testing::precompiled_here("group_by<u32,s16a4>"));
  // A malformed operator: a jit_error, and the library keeps working.
  const op bad("a +* b");
  EXPECT_THROW((void)compile_group_u32(bad), cupar::jit_error);
  EXPECT_EQ(compile_group_u32(sum).kernel_set, "group_by<u32,u32>");
}

}  // namespace

namespace {

// Joins with a run-time hash and equality on composite keys: a struct of a struct class links the
// class's precompiled kernels (only the two operators compile); an operator that does not compile
// names itself. The module also holds group_by's kernels for keys under the same operators (the
// sketch of the hashes, the encoding into representatives of 4 and 8 bytes, the keys' gather of
// either): what group_by on struct keys links, so compile_join builds that half of it too.
TEST(JitCompileByKey, JoinsWithOperatorsLinkTheStructClassKernels) {
  const op hash("(static_cast<unsigned long long>(x.tag) << 32) ^ __float_as_uint(x.key)");
  const op same("a.key == b.key && a.tag == b.tag");
  const auto quick = cupar::jit::compile_join<tagged_key>(hash, same, 90, false);
  EXPECT_EQ(quick.kernels.size(), 14u);
  // (A filtered build without the class's set compiles the kernels for tagged_key itself.)
  if (cupar::testing::precompiled_here("join<s8a4>")) {
    EXPECT_EQ(quick.kernel_set, "join<s8a4>");
  }
  EXPECT_EQ(quick.precompiled_kernels, cupar::testing::precompiled_here("join<s8a4>"));
  try {
    (void)cupar::jit::compile_join<tagged_key>(hash, op("a.key == b.nope"), 90, false);
    ADD_FAILURE() << "no jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("equality"), std::string::npos) << e.what();
  }
}

}  // namespace
