// cupar tests: run-time iterator expressions (jit_iterator.hpp), compile only (NVRTC and
// nvJitLink, no GPU): the expression's generated code and the operator linked to the "+index"
// reduce sets, the builders' argument checks, and errors in the transforms' snippets.
#include "common/dumped_source.hpp"
#include "common/precompiled.hpp"
#include "jit/class_sets.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace jit = cupar::jit;
using jit::op;

// (index, value) for argmin / argmax: 16 bytes aligned to 8, the class s16a8.
CUPAR_JIT_STRUCT(arg_f32, long long i; float v;)
// (sum, count) for a mean: 8 bytes aligned to 4, the class s8a4.
CUPAR_JIT_STRUCT(sum_count, float sum; unsigned count;)
// A record read from an array (its definition appears in the expression's code and, as the
// accumulator, in the operator's: both must compile together).
CUPAR_JIT_STRUCT(rec12, float x; float y; float w;)
// 16 bytes aligned to 8: cache_modified loads it in two 8-byte words.
CUPAR_JIT_STRUCT(pair16, double a; long long b;)

// Nested zips: a struct whose member is a struct (two levels and three), and flat ones of the
// same leaves.
struct pt2_f32 {
  float x, y;
};
struct nested_f32 {
  pt2_f32 p;
  float w;
};
CUPAR_JIT_TYPE(nested_f32, "nested_f32",
               "struct nested_pt2_f32 { float x, y; }; "
               "struct nested_f32 { nested_pt2_f32 p; float w; };")
struct deep_f32 {
  nested_f32 n;
  float z;
};
CUPAR_JIT_TYPE(deep_f32, "deep_f32",
               "struct deep_pt2_f32 { float x, y; }; struct deep_mid_f32 { deep_pt2_f32 p; "
               "float w; }; struct deep_f32 { deep_mid_f32 n; float z; };")
CUPAR_JIT_STRUCT(flat4_f32, float a; float b; float c; float d;)

namespace {

const float* no_floats = nullptr;  // compile-only: arrays are never read

const op sum_op("a + b");

/// The set a reduction of `transform(array of In, f)` into Acc takes: transform_reduce's array
/// set <In,Acc> where it is precompiled (the expression is that set's transform), else the
/// "+index" set of Acc.
std::string transformed_array_set(const char* in, const char* acc) {
  const std::string array = std::string("transform_reduce<") + in + "," + acc + ">";
  return cupar::testing::precompiled_here(array)
             ? array
             : std::string("transform_reduce<u64,") + acc + ">+index";
}

TEST(JitIteratorCompile, SumOfSquaresDotAndCountWhereLinkToTheArrayAndIndexSets) {
  // A transform of one array: served like transform_reduce on the array (its array set).
  const jit::iterator squares = jit::transform<float>(no_floats, op("x * x"));
  const cupar::testing::class_case sum_of_squares{
      transformed_array_set("f32", "f32"), jit::compile_reduce<float>(squares, sum_op, 90, false),
      jit::compile_reduce<float>(squares, sum_op, 90, true)};
  EXPECT_EQ(sum_of_squares.quick.kernel_set, sum_of_squares.set);
  if (cupar::testing::precompiled_here(sum_of_squares.set)) {
    cupar::testing::expect_served_by_set(sum_of_squares);
    EXPECT_EQ(sum_of_squares.quick.kernels.size(), 3u);
  }
  // The dot product: a zip of two arrays, its fields named positionally.
  const auto dot = jit::compile_reduce<float>(
      jit::transform<float>(jit::zip(no_floats, no_floats), op("x._0 * x._1")), jit::plus, 90,
      true);
  EXPECT_EQ(dot.kernel_set, "transform_reduce<u64,f32>+index");
  EXPECT_EQ(dot.tier, 2);
  // Count where, with a run-time parameter, into a 64-bit count.
  const auto count = jit::compile_reduce<unsigned long long>(
      jit::transform<unsigned long long>(no_floats, op("x > t ? 1ull : 0ull").param("t", 0.5f)),
      jit::plus, 90, false);
  EXPECT_EQ(count.kernel_set, transformed_array_set("f32", "u64"));
  EXPECT_EQ(count.precompiled_kernels, cupar::testing::precompiled_here(count.kernel_set));
}

TEST(JitIteratorCompile, ReductionsAndScansOfArrayExpressionsTakeTheArraySets) {
  if (!cupar::testing::precompiled_here("transform_reduce<f32,f32>") ||
      !cupar::testing::precompiled_here("transform_reduce<f32,u64>")) {
    GTEST_SKIP() << "transform_reduce<f32,f32> or <f32,u64> is not precompiled here";
  }
  // jit::transform<R>(array, f) reduced into R: transform_reduce(array, f) on the array set, its
  // parameters carried by f, in both tiers.
  const op over("x > t ? 1ull : 0ull");
  for (bool optimized : {false, true}) {
    EXPECT_EQ(
        jit::compile_reduce<float>(jit::transform(no_floats, op("x * x")), sum_op, 90, optimized)
            .kernel_set,
        "transform_reduce<f32,f32>");
    EXPECT_EQ(jit::compile_reduce<unsigned long long>(
                  jit::transform<unsigned long long>(no_floats, op(over).param("t", 0.5f)),
                  jit::plus, 90, optimized)
                  .kernel_set,
              "transform_reduce<f32,u64>");
  }
  // The set transform_reduce on the array itself takes.
  const auto direct =
      jit::compile_transform_reduce<float, float>(op("x * 3.0f"), sum_op, 90, false);
  EXPECT_EQ(direct.kernel_set, "transform_reduce<f32,f32>");
  // A plain array of the accumulator's type is reduced, and scanned into an array, as the array
  // itself; into an output expression its scan stays on the "+io" sets.
  for (bool optimized : {false, true}) {
    EXPECT_EQ(
        jit::compile_reduce<float>(jit::iterator(no_floats), sum_op, 90, optimized).kernel_set,
        jit::compile_reduce<float>(sum_op, 90, optimized).kernel_set);
    EXPECT_EQ(
        jit::compile_scan<float>(jit::iterator(no_floats), sum_op, true, 90, optimized).kernel_set,
        jit::compile_scan<float>(sum_op, true, 90, optimized).kernel_set);
    EXPECT_EQ(
        jit::compile_scan<float>(jit::iterator(no_floats), sum_op, false, 90, optimized).kernel_set,
        jit::compile_scan<float>(sum_op, false, 90, optimized).kernel_set);
  }
  EXPECT_EQ(jit::compile_reduce<float>(sum_op, 90, false).kernel_set, "reduce<f32>");
  EXPECT_EQ(jit::compile_scan<float>(sum_op, true, 90, false).kernel_set, "scan_inclusive<f32>");
  EXPECT_EQ(
      jit::compile_scan<float>(jit::iterator(no_floats), jit::output(static_cast<float*>(nullptr)),
                               sum_op, true, 90, false)
          .kernel_set,
      "scan_inclusive<f32>+io");
  // Every other shape stays on the "+index" sets: a result type other than the accumulator's,
  // a cache-modified array, two arrays, a transform of a transform, a reversal, a plain array of
  // another type.
  const auto index_set = [](const jit::iterator& e) {
    return jit::compile_reduce<float>(e, sum_op, 90, false).kernel_set;
  };
  const std::string plus_index = "transform_reduce<u64,f32>+index";
  EXPECT_EQ(
      jit::compile_reduce<double>(jit::transform(no_floats, op("x * x")), jit::plus, 90, false)
          .kernel_set,
      "transform_reduce<u64,f64>+index");
  EXPECT_EQ(index_set(jit::transform(jit::cache_modified(no_floats, jit::load::cs), op("x * x"))),
            plus_index);
  EXPECT_EQ(index_set(jit::transform<float>(jit::zip(no_floats, no_floats), op("x._0 * x._1"))),
            plus_index);
  EXPECT_EQ(index_set(jit::transform(jit::transform(no_floats, op("x + 1.0f")), op("x * x"))),
            plus_index);
  EXPECT_EQ(index_set(jit::transform(jit::reverse(no_floats), op("x * x"))), plus_index);
  const int* no_ints = nullptr;
  EXPECT_EQ(index_set(jit::iterator(no_ints)), plus_index);
}

// The tier-1 "+index" reduce computes a thread's items in one call of the expression's strided
// form, in chunks whose loads are in flight together: 8 items for up to four arrays, 4 for up to
// eight, 2 for up to sixteen, 1 beyond (codegen.cpp; chunks of 8 of a zip of sixteen took 163
// registers and ran 3.9x slower than chunks of 2 on the H200). Read from the source of the build
// (CUPAR_JIT_DUMP_DIR), each expression new to the process (its snippet carries the pid).
TEST(JitIteratorCompile, StridedChunksShrinkWithTheExpressionsArrays) {
  const std::string salt = " + 0.0f * " + std::to_string(::getpid() % 1000) + ".0f";
  struct width_case {
    int arrays;
    int chunk;
  };
  std::vector<std::string> sources;
  for (const width_case c : {width_case{2, 8}, {4, 8}, {5, 4}, {8, 4}, {16, 2}, {17, 1}}) {
    std::vector<jit::field> columns;
    std::string sum;
    for (int k = 0; k < c.arrays; ++k) {
      columns.push_back({"_" + std::to_string(k), no_floats});
      sum += (k ? " + x._" : "x._") + std::to_string(k);
    }
    const std::string text = cupar::testing::dumped_source(sum + salt, [&] {
      (void)jit::compile_reduce<float>(jit::transform<float>(jit::zip(columns), op(sum + salt)),
                                       jit::plus, 90, false);
    });
    SCOPED_TRACE(std::to_string(c.arrays) + " arrays");
    ASSERT_FALSE(text.empty()) << "no dumped source of the build";
    const std::string widest = "for (; i + " + std::to_string(c.chunk) + " <= cupar_n;";
    EXPECT_NE(text.find("#pragma unroll 1\n  " + widest), std::string::npos);
    // No chunk loop is unrolled further: the narrower ones run at most a few times a call, and
    // NVVM's unrolling of them cost compile time and no kernel time.
    auto count = [&](const std::string& what) {
      std::size_t n = 0;
      for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
      return n;
    };
    EXPECT_GT(count("for (; i + "), 0u);
    EXPECT_EQ(count("#pragma unroll 1\n  for (; i + "), count("for (; i + "));
    for (int wider = c.chunk * 2; wider <= 8; wider *= 2) {
      EXPECT_EQ(text.find("for (; i + " + std::to_string(wider) + " <= cupar_n;"),
                std::string::npos);
    }
  }
}

TEST(JitIteratorCompile, ArgmaxOverAZipWithACountingIndexIsAStructClass) {
  const jit::iterator indexed = jit::zip({{"i", jit::counting(0ll)}, {"v", no_floats}});
  const op argmax("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a");
  const cupar::testing::class_case c{"transform_reduce<u64,s16a8>+index",
                                     jit::compile_reduce<arg_f32>(indexed, argmax, 90, false),
                                     jit::compile_reduce<arg_f32>(indexed, argmax, 90, true)};
  // Without the class set (a filtered build) the kernels compile from source for arg_f32 itself.
  if (cupar::testing::precompiled_here(c.set)) {
    EXPECT_EQ(c.quick.kernel_set, c.set);
    cupar::testing::expect_served_by_set(c);
  }
  // A mean where: a struct the transform builds from a float.
  const auto mean = jit::compile_reduce<sum_count>(
      jit::transform<sum_count>(
          no_floats, op("x > t ? sum_count{x, 1u} : sum_count{0.0f, 0u}").param("t", 0.f)),
      op("sum_count{a.sum + b.sum, a.count + b.count}"), 90, true);
  EXPECT_EQ(mean.tier, 2);
}

TEST(JitIteratorCompile, ExpressionsCompose) {
  const unsigned* no_indices = nullptr;
  // A transform of a zip of a counting index, a gather, a reversed array and a constant.
  const jit::iterator e =
      jit::transform<double>(jit::zip({{"i", jit::counting(7)},
                                       {"g", jit::permutation(no_floats, no_indices)},
                                       {"r", jit::reverse(no_floats)},
                                       {"c", jit::constant(2.5)}}),
                             op("x.i * x.c + x.g - x.r + s").param("s", 1.0));
  const auto b = jit::compile_reduce<double>(e, jit::maximum, 90, true);
  EXPECT_EQ(b.kernel_set, "transform_reduce<u64,f64>+index");
  EXPECT_EQ(b.tier, 2);
  // Transforms of transforms, a permutation of a zip (one gathered index for both fields).
  const auto nested = jit::compile_reduce<float>(
      jit::transform(
          jit::transform(jit::transform<float>(
                             jit::permutation(jit::zip(no_floats, no_floats), jit::counting(0u)),
                             op("x._0 - x._1")),
                         op("x * x")),
          op("[](float v) { return sqrtf(v); }")),
      sum_op, 90, false);
  EXPECT_EQ(nested.kernel_set, "transform_reduce<u64,f32>+index");
}

// A zip of zips (and a permutation of one, and three levels) reduces, scans and transforms into a
// struct whose members nest as the zips do or are flat: its members take the leaf fields in order.
TEST(JitIteratorCompile, NestedZipsBecomeNestedOrFlatStructs) {
  const jit::iterator two = jit::zip(jit::zip(no_floats, no_floats), no_floats);
  const op add_nested("nested_f32{{a.p.x + b.p.x, a.p.y + b.p.y}, a.w + b.w}");
  const op add_flat("rec12{a.x + b.x, a.y + b.y, a.w + b.w}");
  // The inlined (LTO) build for one case (the same generated code as the quick ones below; each
  // LTO link costs about a second here).
  EXPECT_EQ(jit::compile_reduce<nested_f32>(two, add_nested, 90, true).tier, 2);
  EXPECT_NO_THROW(jit::compile_reduce<nested_f32>(two, add_nested, 90, false));
  EXPECT_NO_THROW(jit::compile_reduce<rec12>(two, add_flat, 90, false));
  // A permutation of a zip of zips: one gathered index for every leaf.
  EXPECT_NO_THROW(
      jit::compile_reduce<rec12>(jit::permutation(two, jit::counting(0u)), add_flat, 90, false));
  EXPECT_NO_THROW(jit::compile_reduce<rec12>(jit::reverse(two), add_flat, 90, false));
  // Three levels, named fields among them, into a three-level struct and a flat one.
  const jit::iterator three =
      jit::zip({{"n", jit::zip({{"p", jit::zip(no_floats, no_floats)}, {"w", no_floats}})},
                {"z", jit::transform(no_floats, op("x * 2.0f"))}});
  EXPECT_NO_THROW(jit::compile_reduce<deep_f32>(
      three, op("deep_f32{{{a.n.p.x + b.n.p.x, a.n.p.y + b.n.p.y}, a.n.w + b.n.w}, a.z + b.z}"), 90,
      false));
  EXPECT_NO_THROW(jit::compile_reduce<flat4_f32>(
      three, op("flat4_f32{a.a + b.a, a.b + b.b, a.c + b.c, a.d + b.d}"), 90, false));
  EXPECT_NO_THROW(jit::compile_scan<nested_f32>(two, add_nested, true, 90, false));
  // Transforms: the operator reads the nested fields, or returns the zip's element (or a part
  // of it that is a zip) as the user's struct.
  rec12* no_recs = nullptr;
  nested_f32* no_nested = nullptr;
  float* no_out = nullptr;
  EXPECT_NO_THROW(jit::compile_transform(two, no_out, op("x._0._0 * x._0._1 + x._1"), 90, false));
  EXPECT_NO_THROW(jit::compile_transform(two, no_recs, op("x"), 90, false));
  EXPECT_NO_THROW(jit::compile_transform(two, no_nested, op("x"), 90, true));
  EXPECT_NO_THROW(
      jit::compile_transform(jit::zip(two, no_floats), no_nested, op("x._0"), 90, false));
  // A zip of one field converts to its arithmetic type.
  EXPECT_NO_THROW(
      jit::compile_transform(jit::zip(jit::zip(no_floats)), no_out, op("x._0"), 90, false));
}

// zip_output: each field of the value through its own output (nested for a member that is a
// struct); reverse_output: element i at n - 1 - i, for the transforms and scans only.
TEST(JitIteratorCompile, ZipAndReverseOutputsCompileForTransformsAndScans) {
  float* no_out = nullptr;
  unsigned* no_counts = nullptr;
  const jit::iterator two = jit::zip(jit::zip(no_floats, no_floats), no_floats);
  for (bool optimized : {false, true}) {
    SCOPED_TRACE(optimized ? "optimised" : "quick");
    // A zip's element, field by field (the inner zip into a zip output of its own).
    EXPECT_EQ(jit::compile_transform(two, jit::zip_output(jit::zip_output(no_out, no_out), no_out),
                                     op("x"), 90, optimized)
                  .kernel_set,
              "for_each<u64>");
    // A user struct the operator returns (zip_output<V> names it), into two arrays, one through
    // a transform output.
    EXPECT_NO_THROW(jit::compile_transform(
        no_floats,
        jit::zip_output<sum_count>(jit::transform_output<float>(no_out, op("x * 2.0f")), no_counts),
        op("sum_count{x, 1u}"), 90, optimized));
    // Scans into reversed outputs.
    EXPECT_NO_THROW(jit::compile_scan<float>(jit::transform(no_floats, op("x")),
                                             jit::reverse_output(no_out), sum_op, false, 90,
                                             optimized));
    EXPECT_NO_THROW(jit::compile_transform(no_floats, jit::reverse_output(no_out), op("x + 1.0f"),
                                           90, optimized));
    EXPECT_NO_THROW(jit::compile_transform(
        two, jit::reverse_output(jit::zip_output(jit::discard(), no_out)), op("x"), 90, optimized));
  }
  // A scan of a struct into its fields' arrays (no struct class has "+io" sets: its kernels
  // compile from source, the inlined build only).
  const op merge("sum_count{a.sum + b.sum, a.count + b.count}");
  const jit::iterator counted = jit::transform<sum_count>(no_floats, op("sum_count{x, 1u}"));
  EXPECT_EQ(jit::compile_scan<sum_count>(counted, jit::zip_output(no_out, no_counts), merge, true,
                                         90, true)
                .tier,
            2);
  // A value of another field count does not compile; a zip output takes any value, so a
  // transform output over it names its type; no outputs at all is refused.
  EXPECT_THROW(
      jit::compile_transform(two, jit::zip_output(no_out, no_out, no_out), op("x"), 90, false),
      cupar::jit_error);
  EXPECT_THROW(jit::transform_output(jit::zip_output(no_out), op("x")), std::invalid_argument);
  EXPECT_THROW(cupar::jit::output(cupar::jit::detail::output_zip({}, nullptr)),
               std::invalid_argument);
  // The families that compact position their outputs by what they select: no reversed output.
  EXPECT_THROW(jit::compile_select_if<float>(no_floats, jit::reverse_output(no_out), op("x > 0.0f"),
                                             90, false),
               std::invalid_argument);
}

TEST(JitIteratorCompile, StructArraysAndStructAccumulatorsCompileTogether) {
  // A struct read from an array (reversed) and reduced as itself: its definition is in both the
  // expression's code and the operator's (from source here unless its class is precompiled).
  const rec12* records = nullptr;
  const op merge("rec12{a.x + b.x, a.y + b.y, a.w < b.w ? a.w : b.w}");
  const auto b = jit::compile_reduce<rec12>(jit::reverse(records), merge, 90, false);
  EXPECT_EQ(b.kernel_set.rfind("transform_reduce<u64,", 0), 0u) << b.kernel_set;
  // The array itself, not reversed: reduce's own sets.
  const auto plain = jit::compile_reduce<rec12>(jit::iterator(records), merge, 90, false);
  EXPECT_EQ(plain.kernel_set.rfind("reduce<", 0), 0u) << plain.kernel_set;
  // A field of a struct array, projected by a transform.
  const auto field = jit::compile_reduce<float>(jit::transform<float>(records, op("x.x * x.w")),
                                                sum_op, 90, false);
  EXPECT_EQ(field.kernel_set, "transform_reduce<u64,f32>+index");
}

TEST(JitIteratorCompile, CacheModifiedArraysAndFloatingCountsCompileInBothTiers) {
  const double* doubles = nullptr;
  const rec12* records = nullptr;
  const pair16* pairs = nullptr;
  const op pair_sum("pair16{a.a + b.a, a.b + b.b}");
  for (jit::load m : {jit::load::ldg, jit::load::ca, jit::load::cg, jit::load::cs, jit::load::lu,
                      jit::load::cv}) {
    SCOPED_TRACE(static_cast<char>(m));
    for (bool optimized : {false, true}) {
      // Arithmetic elements: the intrinsic itself; structs: loaded in words of 4 and 8 bytes.
      EXPECT_EQ(jit::compile_reduce<float>(jit::cache_modified(no_floats, m), sum_op, 90, optimized)
                    .kernel_set,
                "transform_reduce<u64,f32>+index");
      EXPECT_NO_THROW(jit::compile_reduce<double>(
          jit::transform<double>(
              jit::zip(jit::cache_modified(doubles, m), jit::cache_modified(records, m)),
              op("x._0 * x._1.w")),
          op("a + b"), 90, optimized));
      EXPECT_NO_THROW(
          jit::compile_reduce<pair16>(jit::cache_modified(pairs, m), pair_sum, 90, optimized));
    }
  }
  EXPECT_THROW(jit::cache_modified(no_floats, static_cast<jit::load>('x')), std::invalid_argument);
  EXPECT_THROW(jit::cache_modified(no_floats, static_cast<jit::load>(0)), std::invalid_argument);
  // Counting from a floating-point start.
  EXPECT_NO_THROW(jit::compile_reduce<float>(jit::counting(0.5f), sum_op, 90, true));
  EXPECT_NO_THROW(jit::compile_reduce<double>(
      jit::transform<double>(jit::counting(-1.25), op("x * x")), op("a + b"), 90, false));
}

TEST(JitIteratorCompile, ScansOfExpressionsLinkToTheIndexScanSets) {
  // A running count of a predicate, and a prefix sum of a gather (the expression in the first
  // slot, the scan's operator in the second).
  const unsigned* no_indices = nullptr;
  for (bool inclusive : {true, false}) {
    SCOPED_TRACE(inclusive ? "inclusive" : "exclusive");
    const std::string set =
        std::string(inclusive ? "scan_inclusive" : "scan_exclusive") + "<f32>+index";
    // (Of a zip: one transform of an array of the scan's type takes the "+xform" sets.)
    const jit::iterator above =
        jit::transform<float>(jit::zip(no_floats, no_floats), op("x._0 > x._1 ? 1.0f : 0.0f"));
    const cupar::testing::class_case c{
        set, jit::compile_scan<float>(above, sum_op, inclusive, 90, false),
        jit::compile_scan<float>(above, sum_op, inclusive, 90, true)};
    EXPECT_EQ(c.quick.kernel_set, set);
    if (cupar::testing::precompiled_here(set)) {
      cupar::testing::expect_served_by_set(c);
      EXPECT_EQ(c.quick.kernels.size(), 2u);
    }
    const auto gather = jit::compile_scan<float>(jit::permutation(no_floats, no_indices),
                                                 jit::maximum, inclusive, 90, true);
    EXPECT_EQ(gather.kernel_set, set);
    EXPECT_EQ(gather.tier, 2);
  }
}

// The tier-1 scan over an expression reads a thread's full-tile items in one call of the
// expression's strided form (jit_ops/cupar_scan.cuh overloads CUB's LoadDirectWarpStriped for
// the expression iterator; an overload CUB stopped choosing would leave the form uncalled, and
// the quick build compiles only the forms the set's kernels call). Partial tiles keep calling the
// expression an item at a time. Read from the quick build's source (CUPAR_JIT_DUMP_DIR).
TEST(JitIteratorCompile, ScansOfExpressionsReadFullTilesInOneStridedCall) {
  for (const char* set : {"scan_inclusive<f32>+index", "scan_exclusive<f32>+index"}) {
    if (!cupar::testing::precompiled_here(set)) GTEST_SKIP() << set << " is not precompiled here";
  }
  for (bool inclusive : {true, false}) {
    SCOPED_TRACE(inclusive ? "inclusive" : "exclusive");
    // New to the process (the pid in the text), so that the build is made and dumped.
    const std::string text =
        "x._0 * x._1 + " + std::to_string(::getpid() % 1000) + (inclusive ? ".0f" : ".5f");
    const std::string source = cupar::testing::dumped_source(text, [&] {
      (void)jit::compile_scan<float>(
          jit::transform<float>(jit::zip(no_floats, no_floats), op(text)), sum_op, inclusive, 90,
          false);
    });
    ASSERT_FALSE(source.empty()) << "no dumped source of the quick build";
    EXPECT_NE(source.find("cupar_jit_xform_strided("), std::string::npos) << source;
  }
}

// A scan of one transform of an array of the scan's type (jit::transform<T>(array, f)) takes the
// "+xform" sets where they are precompiled: their tier-1 kernels load a thread's items as CUB
// loads an array's and transform them eight a call by value (the operator's _items8 form in the
// quick build's source, not the expression's strided form). Elsewhere, and for an array of
// another type, the "+index" sets as before.
TEST(JitIteratorCompile, ScansOfTransformedArraysTakeTheXformSets) {
  const int* no_ints = nullptr;
  for (bool inclusive : {true, false}) {
    SCOPED_TRACE(inclusive ? "inclusive" : "exclusive");
    const std::string family = inclusive ? "scan_inclusive" : "scan_exclusive";
    const std::string xform_set = family + "<f32>+xform";
    const bool here = cupar::testing::precompiled_here(xform_set);
    const std::string text =
        "x * x + " + std::to_string(::getpid() % 1000) + (inclusive ? ".25f" : ".75f");
    const jit::iterator squares = jit::transform<float>(no_floats, op(text));
    cupar::jit::build_report quick;
    const std::string source = cupar::testing::dumped_source(
        text, [&] { quick = jit::compile_scan<float>(squares, sum_op, inclusive, 90, false); });
    EXPECT_EQ(quick.kernel_set, here ? xform_set : family + "<f32>+index");
    if (here) {
      const cupar::testing::class_case c{
          xform_set, quick, jit::compile_scan<float>(squares, sum_op, inclusive, 90, true)};
      cupar::testing::expect_served_by_set(c);
      EXPECT_EQ(c.quick.kernels.size(), 2u);
      ASSERT_FALSE(source.empty()) << "no dumped source of the quick build";
      EXPECT_NE(source.find("cupar_jit_xform_items8("), std::string::npos) << source;
      EXPECT_EQ(source.find("cupar_jit_xform_strided("), std::string::npos) << source;
    }
    // Integers transformed into floats: the expression's sets.
    const auto mixed = jit::compile_scan<float>(jit::transform<float>(no_ints, op("x * 0.5f")),
                                                sum_op, inclusive, 90, false);
    EXPECT_EQ(mixed.kernel_set, family + "<f32>+index");
  }
}

TEST(JitIteratorCompile, BuildersCheckTheirArguments) {
  EXPECT_THROW(jit::zip(std::vector<jit::field>{}), std::invalid_argument);
  EXPECT_THROW(jit::zip({{"a", no_floats}, {"a", no_floats}}), std::invalid_argument);
  EXPECT_THROW(jit::zip({{"2a", no_floats}}), std::invalid_argument);
  EXPECT_THROW(jit::zip({{"cupar_x", no_floats}}), std::invalid_argument);
  // A zip's element is a struct: a transform of it names its result type.
  EXPECT_THROW(jit::transform(jit::zip(no_floats, no_floats), op("x._0")), std::invalid_argument);
  EXPECT_THROW(jit::transform(no_floats, jit::plus), std::invalid_argument);  // not unary
  EXPECT_THROW(jit::transform(no_floats, op("  ")), std::invalid_argument);
  EXPECT_THROW(jit::permutation(no_floats, no_floats), std::invalid_argument);  // float indices
  // A zip reduced into an arithmetic type.
  EXPECT_THROW(jit::compile_reduce<float>(jit::zip(no_floats, no_floats), sum_op),
               std::invalid_argument);
  // Nine pointers: more than the 64-byte parameter block, a wide state (in device memory; the
  // limit: WideStatesCompileInBothTiersUpToTheirLimit).
  EXPECT_NO_THROW(jit::compile_reduce<float>(
      jit::transform<float>(jit::zip(no_floats, no_floats, no_floats, no_floats, no_floats,
                                     no_floats, no_floats, no_floats, no_floats),
                            op("x._0 + x._8")),
      sum_op, 90, false));
  // Eight fit in the parameter block.
  EXPECT_NO_THROW(jit::compile_reduce<float>(
      jit::transform<float>(jit::zip(no_floats, no_floats, no_floats, no_floats, no_floats,
                                     no_floats, no_floats, no_floats),
                            op("x._0 + x._7")),
      sum_op, 90, false));
}

TEST(JitIteratorCompile, SetReplacesTheParameterOfEveryOperatorDeclaringItInACopy) {
  const op scaled = op("x * s + t").param("s", 2.0f).param("t", 1.0);
  const jit::iterator a = jit::transform(no_floats, scaled);
  const jit::iterator both = jit::zip(a, jit::transform(no_floats, op("x - s").param("s", 0.5f)));
  // The prepared expression: set() gives it new nodes above the operators; the expression it
  // was copied from keeps its own (and its values).
  jit::iterator prepared = both;
  const jit::detail::node_ptr original = both.node();
  prepared.set("s", 3.0f).set("t", 5.0);
  EXPECT_NE(prepared.node(), both.node());
  EXPECT_EQ(both.node(), original);
  EXPECT_STREQ(prepared.value_type().name, both.value_type().name);  // the same zip struct
  // Errors: an undeclared name, another type, an expression without operators.
  jit::iterator e = both;
  EXPECT_THROW(e.set("u", 1.0f), std::invalid_argument);
  EXPECT_THROW(e.set("s", 1.0), std::invalid_argument);   // declared float
  EXPECT_THROW(e.set("t", 1.0f), std::invalid_argument);  // declared double
  EXPECT_EQ(e.node(), both.node());                       // unchanged by the refused calls
  jit::iterator plain(no_floats);
  EXPECT_THROW(plain.set("s", 1.0f), std::invalid_argument);
  // Output expressions alike.
  float* no_out = nullptr;
  jit::output out = jit::transform_output(no_out, op("x * k").param("k", 2));
  const jit::output before = out;
  out.set("k", 7);
  EXPECT_NE(out.node(), before.node());
  EXPECT_THROW(out.set("k", 7u), std::invalid_argument);
  EXPECT_THROW(jit::output(no_out).set("k", 1), std::invalid_argument);
  // The set expression still compiles to the same sets (its shape is unchanged).
  EXPECT_NO_THROW(jit::compile_reduce<float>(jit::transform<float>(prepared, op("x._0 + x._1")),
                                             sum_op, 90, false));
}

TEST(JitIteratorCompile, ErrorsInATransformPointAtItsSnippet) {
  try {
    (void)jit::compile_reduce<float>(
        jit::transform<float>(jit::transform<float>(no_floats, op("x * 2")), op("x +* 1")), sum_op,
        90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    // The second transform's pseudo-file, at its first line.
    EXPECT_NE(e.log().find("cupar_transform_2"), std::string::npos) << e.log();
    EXPECT_EQ(e.line(), 1) << e.what();
  }
  // Untrusted text in a transform is held to the untrusted rules.
  try {
    (void)jit::compile_reduce<float>(
        jit::transform<float>(no_floats, op::untrusted("#include \"/etc/hostname\"\nx")), sum_op,
        90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_NE(std::string(e.what()).find("preprocessor"), std::string::npos) << e.what();
  }
  // The JIT keeps working.
  EXPECT_NO_THROW(
      jit::compile_reduce<float>(jit::transform<float>(no_floats, op("x + 1")), sum_op, 90, false));
}

// transform over expressions: one "for_each" set for every shape and type combination, only the
// generated code compiled and linked (tier 1, then the inlined tier 2).
TEST(JitIteratorCompile, TransformsOfExpressionsLinkToTheForEachSet) {
  double* no_doubles = nullptr;
  float* no_out = nullptr;
  const cupar::testing::class_case scale{
      "for_each<u64>", jit::compile_transform(no_floats, no_out, op("2.0f * x + 1.0f"), 90, false),
      jit::compile_transform(no_floats, no_out, op("2.0f * x + 1.0f"), 90, true)};
  EXPECT_EQ(scale.quick.kernel_set, scale.set);
  if (cupar::testing::precompiled_here(scale.set)) {
    cupar::testing::expect_served_by_set(scale);
    EXPECT_EQ(scale.quick.kernels.size(), 1u);
  }
  // A binary transform of a zip and a counting index into a transform output, and a struct out.
  const auto b = jit::compile_transform(
      jit::zip({{"x", no_floats}, {"w", jit::constant(0.5f)}}), jit::counting(3ll),
      jit::transform_output<double>(no_doubles, op("x * s").param("s", 2.0)),
      op("a.x * a.w + double(b)"), 90, true);
  EXPECT_EQ(b.kernel_set, "for_each<u64>");
  EXPECT_EQ(b.tier, 2);
  arg_f32* no_args = nullptr;
  EXPECT_EQ(jit::compile_transform(jit::zip({{"i", jit::counting(0ll)}, {"v", no_floats}}), no_args,
                                   op("arg_f32{x.i, x.v}"), 90, false)
                .kernel_set,
            "for_each<u64>");
  // discard(): the operator's own result type; a transform output into discard names its V.
  EXPECT_NO_THROW(jit::compile_transform(no_floats, jit::discard(), op("x + 1"), 90, false));
  EXPECT_NO_THROW(jit::compile_transform(
      no_floats, jit::transform_output<float>(jit::discard(), op("x * 2")), op("x"), 90, false));
}

// States wider than the kernels' parameter block (a zip of 16 columns: 128 bytes of pointers; an
// output transform with eight parameters: 72 bytes): the generated operator reads the address of
// the state's device copy first; it compiles and links to the same sets in both tiers. Over
// max_expression_state_bytes: std::invalid_argument naming the limit.
TEST(JitIteratorCompile, WideStatesCompileInBothTiersUpToTheirLimit) {
  const float* c = no_floats;
  float* no_out = nullptr;
  const jit::iterator zip16 = jit::zip(c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c);
  const op sum16(
      "x._0 + x._1 + x._2 + x._3 + x._4 + x._5 + x._6 + x._7 + x._8 + x._9 + x._10 + "
      "x._11 + x._12 + x._13 + x._14 + x._15");
  const jit::iterator rows = jit::transform<float>(zip16, sum16);
  const cupar::testing::class_case r{"transform_reduce<u64,f32>+index",
                                     jit::compile_reduce<float>(rows, sum_op, 90, false),
                                     jit::compile_reduce<float>(rows, sum_op, 90, true)};
  EXPECT_EQ(r.quick.kernel_set, r.set);
  if (cupar::testing::precompiled_here(r.set)) cupar::testing::expect_served_by_set(r);
  for (bool optimized : {false, true}) {
    EXPECT_EQ(jit::compile_transform(zip16, no_out, sum16, 90, optimized).kernel_set,
              "for_each<u64>");
    op eight("x + p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7");
    for (int k = 0; k < 8; ++k)
      eight.param("p" + std::to_string(k), 1.0);
    EXPECT_EQ(jit::compile_scan<float>(rows, jit::transform_output<float>(no_out, eight), sum_op,
                                       true, 90, optimized)
                  .kernel_set,
              "scan_inclusive<f32>+io");
  }
  std::vector<jit::field> fields;
  for (std::size_t k = 0; k <= jit::max_expression_state_bytes / 8; ++k)
    fields.push_back({"c" + std::to_string(k), c});
  try {
    jit::compile_transform(jit::zip(fields), no_out, op("x.c0"), 90, false);
    FAIL() << "a state over max_expression_state_bytes was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(jit::max_expression_state_bytes)),
              std::string::npos)
        << e.what();
  }
}

// A scan written through an output expression: the "+io" scan sets (the input expression, the
// operator and the output's store in three slots, compiled together and linked).
TEST(JitIteratorCompile, ScansIntoOutputExpressionsLinkToTheIoScanSets) {
  float* no_out = nullptr;
  double* no_doubles = nullptr;
  const jit::output twice = jit::transform_output(no_out, op("2.0f * x"));
  const cupar::testing::class_case c{
      "scan_inclusive<f32>+io", jit::compile_scan<float>(no_floats, twice, sum_op, true, 90, false),
      jit::compile_scan<float>(no_floats, twice, sum_op, true, 90, true)};
  EXPECT_EQ(c.quick.kernel_set, c.set);
  if (cupar::testing::precompiled_here(c.set)) {
    cupar::testing::expect_served_by_set(c);
    EXPECT_EQ(c.quick.kernels.size(), 2u);
  }
  // Input and output transforms together (their functions are named apart), into another type.
  const auto e = jit::compile_scan<float>(
      jit::transform(no_floats, op("x * x")),
      jit::transform_output<float>(no_doubles, op("double(x) * k").param("k", 0.5)), jit::maximum,
      false, 90, true);
  EXPECT_EQ(e.kernel_set, "scan_exclusive<f32>+io");
  EXPECT_EQ(e.tier, 2);
  EXPECT_NO_THROW(jit::compile_scan<float>(no_floats, jit::discard(), sum_op, true, 90, false));
}

// An inclusive scan seeded with an initial value: CUB's ForceInclusive kernels, the "+init" sets
// (arrays), "+index_init" (an iterator expression in) and "+io_init" (an output expression too),
// each its own set beside the unseeded one; a struct's class serves it on arrays.
TEST(JitIteratorCompile, SeededInclusiveScansLinkToTheInitSets) {
  float* no_out = nullptr;
  const jit::output twice = jit::transform_output(no_out, op("2.0f * x"));
  const jit::iterator squares = jit::transform(no_floats, op("x * x"));
  const cupar::testing::class_case cases[] = {
      {"scan_inclusive<f32>+init", jit::compile_scan_init<float>(sum_op, 90, false),
       jit::compile_scan_init<float>(sum_op, 90, true)},
      {"scan_inclusive<f32>+index_init", jit::compile_scan_init<float>(squares, sum_op, 90, false),
       jit::compile_scan_init<float>(squares, sum_op, 90, true)},
      {"scan_inclusive<f32>+io_init",
       jit::compile_scan_init<float>(squares, twice, sum_op, 90, false),
       jit::compile_scan_init<float>(squares, twice, sum_op, 90, true)},
      {"scan_inclusive<s8a4>+init",
       jit::compile_scan_init<sum_count>(op("sum_count{a.sum + b.sum, a.count + b.count}"), 90,
                                         false),
       jit::compile_scan_init<sum_count>(op("sum_count{a.sum + b.sum, a.count + b.count}"), 90,
                                         true)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    if (cupar::testing::precompiled_here(c.set)) {
      cupar::testing::expect_served_by_set(c);
      EXPECT_EQ(c.quick.kernels.size(), 2u);
    } else {
      EXPECT_EQ(c.optimised.tier, 2);
    }
  }
  // The unseeded scan keeps its own set.
  EXPECT_EQ(jit::compile_scan<float>(sum_op, true, 90, false).kernel_set, "scan_inclusive<f32>");
}

// One preamble (an unguarded function definition) used by the input's transform, the output's
// transform and the scan's operator: it appears in three operators of one program and must
// compile once (the preamble blocks are guarded by a hash of their text).
TEST(JitIteratorCompile, APreambleSharedByTheExpressionsAndTheOperatorCompilesOnce) {
  float* no_out = nullptr;
  const std::string helper = "__device__ float cupar_test_twice(float v) { return 2.0f * v; }";
  const op in_op = op("cupar_test_twice(x)").preamble(helper);
  const op out_op = op("cupar_test_twice(x) + 1.0f").preamble(helper);
  const op scan_op = op("cupar_test_twice(a) + b").preamble(helper);
  for (bool optimized : {false, true}) {
    SCOPED_TRACE(optimized ? "tier 2" : "tier 1");
    EXPECT_NO_THROW(jit::compile_scan<float>(jit::transform(no_floats, in_op),
                                             jit::transform_output(no_out, out_op), scan_op, true,
                                             90, optimized));
    EXPECT_NO_THROW(jit::compile_transform(jit::transform(no_floats, in_op),
                                           jit::transform_output(no_out, out_op), in_op, 90,
                                           optimized));
  }
}

TEST(JitIteratorCompile, OutputBuildersAndTransformsCheckTheirArguments) {
  float* no_out = nullptr;
  EXPECT_THROW(jit::transform_output(jit::discard(), op("x")), std::invalid_argument);
  EXPECT_THROW(jit::transform_output(no_out, jit::plus), std::invalid_argument);
  EXPECT_THROW(jit::transform_output(no_out, op(" ")), std::invalid_argument);
  // A result the output cannot take fails to compile in the operator's pseudo-file.
  try {
    (void)jit::compile_transform(no_floats, no_out, op("arg_f32{1, x}"), 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
  }
  // A syntax error in a transform output's snippet points at it.
  try {
    (void)jit::compile_transform(no_floats, jit::transform_output(no_out, op("x +* 2")), op("x"),
                                 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(e.log().find("cupar_output_transform_1"), std::string::npos) << e.log();
    EXPECT_EQ(e.line(), 1) << e.what();
  }
  // ... and in the operator itself at its own pseudo-file.
  try {
    (void)jit::compile_transform(no_floats, no_out, op("x\n+* 2"), 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(e.log().find("cupar_operator"), std::string::npos) << e.log();
    EXPECT_EQ(e.line(), 2) << e.what();
  }
  // Untrusted text in a transform output is held to the untrusted rules.
  EXPECT_THROW(jit::compile_transform(no_floats,
                                      jit::transform_output(no_out, op::untrusted("#define Y\nx")),
                                      op("x"), 90, false),
               cupar::jit_error);
  EXPECT_NO_THROW(jit::compile_transform(no_floats, no_out, op("x + 1"), 90, false));
}

}  // namespace

// An expression rebuilt for every call over other arrays, starts, constants and parameter values
// reuses the code generated for its shape: only the state changes. The suites run with
// CUPAR_JIT_CHECK_SHAPE_CACHE=1, under which every reuse is also generated anew and compared,
// state included (std::logic_error on any difference).
TEST(JitIteratorCompile, ExpressionsOfOneShapeReuseTheirGeneratedCode) {
  op scale("x * s + t");
  scale.param("s", 2.0f).param("t", 1.0f);
  op out_scale("double(x) * k");
  out_scale.param("k", 0.5);
  const op apply("a.x * a.w + double(b)");
  const op copy("x");
  const auto reuses = [] { return jit::get_stats().expression_code_reuses; };
  for (int call = 0; call < 3; ++call) {
    SCOPED_TRACE("call " + std::to_string(call));
    const auto* in = reinterpret_cast<const float*>(std::uintptr_t(0x10000 + 0x1000 * call));
    auto* out = reinterpret_cast<double*>(std::uintptr_t(0x80000 + 0x1000 * call));
    auto* out_f = reinterpret_cast<float*>(std::uintptr_t(0x90000 + 0x1000 * call));
    scale.set("s", 2.0f + static_cast<float>(call));
    out_scale.set("k", 0.5 * call);
    // A binary transform: a zip of a transform and a constant, a reversed counting index, into
    // a transform output.
    const auto before_transform = reuses();
    const auto t = jit::compile_transform(
        jit::zip({{"x", jit::transform(in, scale)}, {"w", jit::constant(0.25f * call)}}),
        jit::reverse(jit::counting(static_cast<long long>(call))),
        jit::transform_output<double>(out, out_scale), apply, 90, false);
    EXPECT_EQ(t.kernel_set, "for_each<u64>");
    // The inputs, the operator and the output: one definition, generated once.
    EXPECT_EQ(reuses(), before_transform + (call > 0 ? 1u : 0u));
    // A scan of a gather through a transform output (the input and the store slots).
    const auto before_scan = reuses();
    const auto s = jit::compile_scan<float>(
        jit::permutation(jit::transform(in, scale), jit::counting(static_cast<unsigned>(7 * call))),
        jit::transform_output<float>(out_f, copy), sum_op, true, 90, false);
    EXPECT_EQ(s.kernel_set, "scan_inclusive<f32>+io");
    // The input expression and the output's store: two definitions.
    EXPECT_EQ(reuses(), before_scan + (call > 0 ? 2u : 0u));
  }
}

// A (tag, value) record of 8 bytes aligned to 4: the data-processing class s8a4.
CUPAR_JIT_STRUCT(tag_f32, unsigned tag; float v;)

namespace {

TEST(JitIteratorCompile, SelectPartitionAndUniqueOfExpressionsLinkToTheIndexSets) {
  const unsigned* no_indices = nullptr;
  const jit::iterator doubled = jit::transform(no_floats, op("x * 2.0f"));
  const op above(op("x > t").param("t", 0.5f));
  // The kernels of the size class read the expression (u32 for floats), the expression's code
  // and the predicate, equality or comparator compiled and linked to them.
  const cupar::testing::class_case select{"select_if<u32>+index",
                                          jit::compile_select_if<float>(doubled, above, 90, false),
                                          jit::compile_select_if<float>(doubled, above, 90, true)};
  const cupar::testing::class_case partition{
      "partition_if<u64>+index",
      jit::compile_partition<unsigned long long>(jit::counting(0ull), op("x % 3ull == 0ull"), 90,
                                                 false),
      jit::compile_partition<unsigned long long>(jit::counting(0ull), op("x % 3ull == 0ull"), 90,
                                                 true)};
  const jit::iterator gathered = jit::permutation(no_floats, no_indices);
  const cupar::testing::class_case unique{"unique<u32>+index",
                                          jit::compile_unique<float>(gathered, nullptr, 90, false),
                                          jit::compile_unique<float>(gathered, nullptr, 90, true)};
  // A zip selected into a record of its class (aggregate initialisation, fields in order).
  const jit::iterator tagged = jit::zip({{"tag", jit::counting(0u)}, {"v", no_floats}});
  const op positive("x.v > 0.0f");
  const cupar::testing::class_case records{
      "select_if<s8a4>+index", jit::compile_select_if<tag_f32>(tagged, positive, 90, false),
      jit::compile_select_if<tag_f32>(tagged, positive, 90, true)};
  for (const auto* c : {&select, &partition, &unique, &records}) {
    SCOPED_TRACE(c->set);
    EXPECT_EQ(c->optimised.tier, 2);
    // Without the set (a filtered build) the kernels compile from source with the expression.
    if (cupar::testing::precompiled_here(c->set)) {
      cupar::testing::expect_served_by_set(*c);
      EXPECT_EQ(c->quick.kernels.size(), 2u);
    }
  }
}

// reduce_by_key's and group_by's values, select_flagged's items: their "+index" sets read the
// expression, the operators linked beside it (the expression in the first slot, the family's
// own slots after it, on the types they take: values for the reduction, keys for the equality).
TEST(JitIteratorCompile, ByKeyValuesFlaggedItemsAndGroupByValuesLinkToTheIndexSets) {
  const jit::iterator doubled = jit::transform(no_floats, op("x * 2.0f"));
  const jit::iterator products =
      jit::transform<double>(jit::zip(no_floats, no_floats), op("(double)x._0 * x._1"));
  const op keys_equal("a == b");
  const cupar::testing::class_case by_key{
      "reduce_by_key<u32,u64>+index",
      jit::compile_reduce_by_key<unsigned, double>(products, sum_op, &keys_equal, 90, false),
      jit::compile_reduce_by_key<unsigned, double>(products, sum_op, &keys_equal, 90, true)};
  const cupar::testing::class_case flagged{
      "select_flagged<u32,u32>+index",
      jit::compile_select_flagged<float, unsigned>(doubled, 90, false),
      jit::compile_select_flagged<float, unsigned>(doubled, 90, true)};
  const cupar::testing::class_case grouped{
      "group_by<u64,u32>+index",
      jit::compile_group_by<std::uint64_t, float>(doubled, op("a + b"), 90, false),
      jit::compile_group_by<std::uint64_t, float>(doubled, op("a + b"), 90, true)};
  for (const auto* c : {&by_key, &flagged, &grouped}) {
    SCOPED_TRACE(c->set);
    EXPECT_EQ(c->optimised.kernel_set, c->set);
    EXPECT_EQ(c->optimised.tier, 2);
    if (cupar::testing::precompiled_here(c->set)) cupar::testing::expect_served_by_set(*c);
  }
  // The other by-key families take values as arrays in their kernels: no compile-only build of
  // an expression.
  EXPECT_THROW(
      (void)::cupar::detail::jit_compile_call(::cupar::detail::inclusive_scan_by_key_call(),
                                              &::cupar::detail::jit_type_of<unsigned>(),
                                              &::cupar::detail::jit_type_of<float>(), &sum_op,
                                              nullptr, 90, true, nullptr, nullptr, false, &doubled),
      std::invalid_argument);
}

TEST(JitIteratorCompile, SelectPartitionAndUniqueIntoOutputExpressionsLinkToTheIoSets) {
  const unsigned* no_indices = nullptr;
  float* no_out = nullptr;
  double* no_doubles = nullptr;
  const op above(op("x > t").param("t", 0.5f));
  // An array input (a call reads it as the expression of that array) into a transform output.
  const jit::output tripled = jit::transform_output(no_out, op("3.0f * x"));
  const cupar::testing::class_case select{
      "select_if<u32>+io", jit::compile_select_if<float>(no_floats, tripled, above, 90, false),
      jit::compile_select_if<float>(no_floats, tripled, above, 90, true)};
  // An input and an output transform into another type, with parameters in both.
  const jit::iterator scaled = jit::transform(no_floats, op("x * s").param("s", 2.0f));
  const jit::output widened =
      jit::transform_output<float>(no_doubles, op("double(x) + k").param("k", 0.25));
  const cupar::testing::class_case partition{
      "partition_if<u32>+io", jit::compile_partition<float>(scaled, widened, above, 90, false),
      jit::compile_partition<float>(scaled, widened, above, 90, true)};
  // A gather deduplicated into discard() (a count only).
  const jit::iterator gathered = jit::permutation(no_floats, no_indices);
  const cupar::testing::class_case unique{
      "unique<u32>+io", jit::compile_unique<float>(gathered, jit::discard(), nullptr, 90, false),
      jit::compile_unique<float>(gathered, jit::discard(), nullptr, 90, true)};
  const cupar::testing::class_case counting{
      "select_if<u64>+io",
      jit::compile_select_if<unsigned long long>(
          jit::counting(0ull),
          jit::transform_output<unsigned long long>(no_doubles, op("double(x) * 0.5")),
          op("x % 7ull == 1ull"), 90, false),
      jit::compile_select_if<unsigned long long>(jit::counting(0ull), jit::discard(),
                                                 op("x % 7ull == 1ull"), 90, true)};
  for (const auto* c : {&select, &partition, &unique, &counting}) {
    SCOPED_TRACE(c->set);
    EXPECT_EQ(c->quick.kernel_set, c->set);
    EXPECT_EQ(c->optimised.tier, 2);
    // Without the set (a filtered build) the kernels compile from source with the expressions.
    if (cupar::testing::precompiled_here(c->set)) {
      cupar::testing::expect_served_by_set(*c);
      EXPECT_EQ(c->quick.kernels.size(), 2u);
    }
  }
  // Errors in the output's snippet name it.
  try {
    (void)jit::compile_select_if<float>(
        no_floats, jit::transform_output(no_out, op("x * not_declared")), above, 90, false);
    FAIL() << "expected a jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("not_declared"), std::string::npos) << e.what();
  }
}

TEST(JitIteratorCompile, ErrorsInASelectionOverAnExpressionNameTheirSnippet) {
  const jit::iterator doubled = jit::transform(no_floats, op("x * 2.0f"));
  try {
    (void)jit::compile_select_if<float>(doubled, op("x > undefined_name"), 90, false);
    FAIL() << "expected a jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("undefined_name"), std::string::npos) << e.what();
  }
  try {
    (void)jit::compile_select_if<float>(jit::transform(no_floats, op("x * missing")),
                                        op("x > 0.0f"), 90, false);
    FAIL() << "expected a jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
  // Of the data-processing families only the stream compaction reads expressions in its kernels.
  const op sum("a + b");
  cupar::detail::jit_args a{
      "test", &cupar::detail::segmented_reduce_call(), {&cupar::detail::jit_type_of<float>()}};
  a.ops[0] = &sum;
  a.in_iter[0] = &doubled;
  EXPECT_THROW((void)cupar::detail::jit_compile(a, 90, false), std::invalid_argument);
}

}  // namespace
