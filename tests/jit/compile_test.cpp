// cupar tests: run-time operators, compile only (NVRTC and nvJitLink, no GPU): these run in CI.
// Malformed operators must give cupar::jit_error with the stage, the compiler's log and the
// offending line, never crash, and leave the JIT working for the next operator.
#include "common/dumped_source.hpp"
#include "common/precompiled.hpp"
#include "jit/class_sets.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

struct point {
  float x, y;
};
CUPAR_JIT_TYPE(point, "point", "struct point { float x, y; };")

CUPAR_JIT_STRUCT(pixel, unsigned char r; unsigned char g; unsigned char b; unsigned char a;)

// Struct shapes of the size classes (issue 11): padding after a 1-byte member (8 bytes, aligned
// to 4), an 8-byte member after a 4-byte one (16 bytes, aligned to 8), four floats (16, 4), and
// a size no class has (36 bytes).
struct padded {
  unsigned char tag;
  float value;
};
CUPAR_JIT_TYPE(padded, "padded", "struct padded { unsigned char tag; float value; };")
struct counted {
  int count;
  double sum;
};
CUPAR_JIT_TYPE(counted, "counted", "struct counted { int count; double sum; };")
struct stats4 {
  float count, sum, min, max;
};
CUPAR_JIT_TYPE(stats4, "stats4", "struct stats4 { float count, sum, min, max; };")
struct nine {
  float v[9];
};
CUPAR_JIT_TYPE(nine, "nine", "struct nine { float v[9]; };")

namespace {

using cupar::jit::op;

enum class role { reduce_f32, reduce_point, sort_point, transform_f32, histogram_f32 };

cupar::jit::build_report build(role r, const op& o) {
  switch (r) {
    case role::reduce_f32:
      return cupar::jit::compile_reduce<float>(o, 90, false);
    case role::reduce_point:
      return cupar::jit::compile_reduce<point>(o, 90, true);
    case role::sort_point:
      return cupar::jit::compile_sort<point>(o, 90, true);
    case role::transform_f32:
      return cupar::jit::compile_transform<float, float>(o, 90, false);
    case role::histogram_f32:
      return cupar::jit::compile_histogram<float, float>(o, true, 90, false);
  }
  return {};
}

struct bad_case {
  const char* what;
  role r;
  op o;
  cupar::jit_stage stage;
  int line;  // expected snippet line of the first error, 0: not in the snippet
};

std::vector<bad_case> bad_cases() {
  using cupar::jit_stage;
  const auto c = jit_stage::compile;
  const auto l = jit_stage::link;
  return {
      {"empty source", role::reduce_f32, op(""), c, 0},
      {"only whitespace", role::reduce_f32, op("  \n\t "), c, 0},
      {"dangling operator", role::reduce_f32, op("a +"), c, 0},
      {"unbalanced open paren", role::reduce_f32, op("a + (b"), c, 0},
      {"unbalanced close paren", role::reduce_f32, op("a + b)"), c, 0},
      {"two operands, no operator", role::reduce_f32, op("a b"), c, 1},
      {"increment of a value then a name", role::reduce_f32, op("a ++ b"), c, 1},
      {"undefined name", role::reduce_f32, op("a + c"), c, 1},
      {"undefined function", role::reduce_f32, op("sqrtt(a) + b"), c, 1},
      {"member of a float", role::reduce_f32, op("a.x + b"), c, 1},
      {"a statement instead of an expression", role::reduce_f32, op("return a + b;"), c, 1},
      {"trailing semicolon", role::reduce_f32, op("a + b;"), c, 1},
      {"lambda with one argument for a binary role", role::reduce_f32,
       op("[](float a) { return a; }"), c, 0},
      {"lambda with three arguments", role::reduce_f32,
       op("[](float a, float b, float c) { return a; }"), c, 0},
      {"lambda returning void", role::reduce_f32, op("[](float a, float b) { return; }"), c, 0},
      {"lambda missing a semicolon", role::reduce_f32, op("[](float a, float b) { return a + b }"),
       c, 1},
      {"lambda returning a pointer", role::reduce_f32, op("[](float a, float b) { return &a; }"), c,
       0},
      {"pointer result", role::reduce_f32, op("&a"), c, 0},
      {"string literal result", role::reduce_f32, op("\"a + b\""), c, 0},
      {"braced list", role::reduce_f32, op("{a, b}"), c, 1},
      {"unterminated comment", role::reduce_f32, op("a + b /* never closed"), c, 0},
      {"stray comment end", role::reduce_f32, op("a + b */"), c, 1},
      {"missing include in the snippet", role::reduce_f32,
       op("#include <no/such/header.cuh>\na + b"), c, 1},
      {"missing include in the preamble", role::reduce_f32,
       op("a + b").preamble("#include <no/such/header.cuh>"), c, 0},
      {"syntax error in the preamble", role::reduce_f32,
       op("f(a) + b").preamble("__device__ float f(float v) { return v +; }"), c, 0},
      {"undefined extern function", role::reduce_f32,
       op("foo(a) + b").preamble("extern \"C\" __device__ float foo(float);"), l, 0},
      {"undefined extern variable", role::reduce_f32,
       op("a + b + g").preamble("extern __device__ float g;"), l, 0},
      {"unknown intrinsic", role::reduce_f32, op("__no_such_intrinsic(a) + b"), c, 1},
      {"bitwise and on floats", role::reduce_f32, op("a & b"), c, 1},
      {"remainder on floats", role::reduce_f32, op("a % b"), c, 1},
      {"shift of a float", role::reduce_f32, op("a << 1"), c, 1},
      {"incomplete conditional", role::reduce_f32, op("a ? b"), c, 0},
      {"unclosed comma expression", role::reduce_f32, op("(a, b"), c, 0},
      {"too many closing parens", role::reduce_f32, op("a + b)))"), c, 1},
      {"template declaration", role::reduce_f32, op("template <class T> T f(); a"), c, 1},
      {"goto", role::reduce_f32, op("goto end"), c, 1},
      {"escape from the operator's body", role::reduce_f32, op("a + b\n}\n{"), c, 0},
      {"invalid hex literal", role::reduce_f32, op("a + 0x"), c, 1},
      {"invalid float literal", role::reduce_f32, op("a + 1.0.0"), c, 1},
      {"void subexpression", role::reduce_f32, op("__syncthreads() + a"), c, 1},
      {"throw in device code", role::reduce_f32, op("a > b ? a : throw 1"), c, 1},
      {"allocating expression", role::reduce_f32, op("new float(a)"), c, 0},
      {"pointer cast of a value", role::reduce_f32, op("static_cast<int*>(a)"), c, 1},
      {"arrow on a value", role::reduce_f32, op("a->x"), c, 1},
      {"lambda without parameters", role::reduce_f32, op("[] { return 1.0f; }"), c, 0},
      {"lambda with pointer parameters", role::reduce_f32, op("[](int* a, int* b) { return *a; }"),
       c, 0},
      {"lambda returning a struct for a float role", role::reduce_f32,
       op("[](float a, float b) { struct s { float v; }; return s{a}; }"), c, 0},
      {"unary role given binary names", role::transform_f32, op("a + b"), c, 1},
      {"binary role given the unary name", role::reduce_f32, op("x * 2"), c, 1},
      {"histogram operator without the argument", role::histogram_f32, op("y / 2"), c, 1},
      {"named bitwise operator on floats", role::reduce_f32, op(cupar::jit::named_op::bit_xor), c,
       1},
      {"struct without the operator", role::reduce_point, op("a + b"), c, 1},
      {"struct member that does not exist", role::reduce_point, op("point{a.z, b.y}"), c, 1},
      {"too many initialisers", role::reduce_point, op("point{a.x, b.y, 1.0f}"), c, 1},
      {"comparator returning a struct", role::sort_point, op("a"), c, 0},
      {"comparator returning nothing", role::sort_point, op("[](point a, point b) {}"), c, 0},
      {"comparator on a missing member", role::sort_point, op("a.key < b.key"), c, 1},
  };
}

}  // namespace

TEST(JitCompile, MalformedOperatorsGiveJitErrorsThatExplain) {
  const auto cases = bad_cases();
  ASSERT_GE(cases.size(), 50u);
  int index = 0;
  // The link-stage cases of reduce<f32> need its precompiled kernels (the operator linked to
  // them); a build whose CUPAR_JIT_PRECOMPILE_FILTER leaves the set out compiles it whole, where
  // an undefined extern is NVRTC's error or none.
  const bool reduce_precompiled = cupar::testing::precompiled_here("reduce<f32>");
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(index++) + ": " + c.what);
    if (c.stage == cupar::jit_stage::link && c.r == role::reduce_f32 && !reduce_precompiled)
      continue;
    try {
      (void)build(c.r, c.o);
      ADD_FAILURE() << "expected cupar::jit_error";
    } catch (const cupar::jit_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.stage(), c.stage) << what;
      EXPECT_NE(
          what.find(c.stage == cupar::jit_stage::link ? "failed to link" : "failed to compile"),
          std::string::npos)
          << what;
      if (c.o.source().find_first_not_of(" \n\t") != std::string::npos || c.o.is_named()) {
        EXPECT_FALSE(e.log().empty()) << "the full compiler log must be kept";
      }
      if (c.stage == cupar::jit_stage::compile && !c.o.source().empty() &&
          c.o.source().find_first_not_of(" \n\t") != std::string::npos) {
        EXPECT_FALSE(e.source().empty()) << "the generated source must be kept";
        EXPECT_FALSE(e.options().empty());
      }
      if (c.line > 0) {
        EXPECT_EQ(e.line(), c.line) << what << "\n" << e.log();
        EXPECT_FALSE(e.line_text().empty());
        EXPECT_NE(what.find(e.line_text()), std::string::npos) << what;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "expected cupar::jit_error, got: " << e.what();
    }
    // The next, valid operator still builds.
    EXPECT_NO_THROW((void)cupar::jit::compile_reduce<float>(op("a + b"), 90, false));
  }
}

TEST(JitCompile, ErrorMessageQuotesTheOffendingLineOfAMultiLineOperator) {
  try {
    (void)cupar::jit::compile_reduce<float>(
        op("[](float a, float b) {\n  const float t = a * 2.0f;\n  return t + missing;\n}"), 90,
        false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.line(), 3);
    EXPECT_EQ(e.line_text(), "  return t + missing;");
    EXPECT_NE(std::string(e.what()).find("identifier \"missing\" is undefined"), std::string::npos)
        << e.what();
  }
}

TEST(JitCompile, EveryOperationThePublicHeadersCallIsInTheLibrary) {
  // Each public header's CUPAR_JIT_CALL(name) finds `name` in the library's table of operations
  // (made from the family files' records); a name the library lacks throws. The names are read
  // from the headers themselves, so a new family's header is checked without a list to extend.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(CUPAR_SOURCE_DIR "/include/cupar")) {
    if (entry.path().extension() != ".hpp") continue;
    std::ifstream header(entry.path());
    for (std::string line; std::getline(header, line);) {
      const std::string macro = "CUPAR_JIT_CALL(";
      if (line.rfind(macro, 0) != 0) continue;
      names.push_back(line.substr(macro.size(), line.find(')') - macro.size()));
    }
  }
  EXPECT_GE(names.size(), 20u);  // the headers were found
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW((void)cupar::detail::jit_call_named(name.c_str()));
  }
  EXPECT_EQ(&cupar::detail::jit_call_named("select_if"), &cupar::detail::select_if_call());
  EXPECT_NE(&cupar::detail::sort_call(), &cupar::detail::stable_sort_call());
  EXPECT_THROW((void)cupar::detail::jit_call_named("no_such_operation"), std::invalid_argument);
  EXPECT_THROW((void)cupar::detail::jit_call_named(nullptr), std::invalid_argument);
  // A call without an operation is refused before anything runs (no GPU needed).
  const cupar::detail::jit_args none{"test"};
  EXPECT_THROW(
      cupar::detail::jit_run(none, cupar::stream_ref::legacy_default(), cupar::default_resource()),
      std::invalid_argument);
  EXPECT_THROW((void)cupar::detail::jit_compile(none, 90, false), std::invalid_argument);
  const cupar::detail::jit_args unnamed{nullptr};
  EXPECT_THROW(cupar::detail::jit_run(unnamed, cupar::stream_ref::legacy_default(),
                                      cupar::default_resource()),
               std::invalid_argument);
  // materialize has no compile-only build (the expression's code is what transform builds).
  const cupar::detail::jit_args materialize{"test", &cupar::detail::materialize_call()};
  EXPECT_THROW((void)cupar::detail::jit_compile(materialize, 90, false), std::invalid_argument);
}

TEST(JitCompile, DeviceStructMustMatchTheHostType) {
  struct wide {
    double x, y;
  };
  // A device definition with another size than the host type is refused at compile time; built
  // through the compile API with a type description whose definition is smaller than the type.
  static const cupar::detail::jit_type forged{static_cast<cupar::detail::scalar>(0), "wide",
                                              "struct wide { float x, y; };", sizeof(wide),
                                              alignof(wide)};
  const op o("wide{a.x + b.x, a.y + b.y}");
  try {
    cupar::detail::jit_args a{"test", &cupar::detail::reduce_call(), {&forged}};
    a.ops[0] = &o;
    (void)cupar::detail::jit_compile(a, 90, true);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.log()).find("must have the host type's size and alignment"),
              std::string::npos)
        << e.log();
  }
}

TEST(JitCompile, EveryOperatorFormBuilds) {
  // Expression, lambda, named operator, parameters, preamble.
  // A quick build is tier 1 on a precompiled set; from source (a profile without the set) it is
  // always the inlined tier 2.
  auto quick_tier = [](const char* set) { return cupar::testing::precompiled_here(set) ? 1 : 2; };
  EXPECT_EQ(cupar::jit::compile_reduce<float>(op("a + b"), 90, false).tier,
            quick_tier("reduce<f32>"));
  EXPECT_EQ(cupar::jit::compile_reduce<double>(
                op("[](double a, double b) { return a > b ? a : b; }"), 90, false)
                .tier,
            quick_tier("reduce<f64>"));
  EXPECT_NO_THROW((void)cupar::jit::compile_reduce<int>(cupar::jit::plus, 90, false));
  using unary = float;
  auto unary_build = [](const op& o) {
    return cupar::jit::compile_transform<unary, unary>(o, 90, false);
  };
  EXPECT_NO_THROW((void)unary_build(op("x * s + t").param("s", 2.0f).param("t", 1.0f)));
  EXPECT_NO_THROW((void)unary_build(
      op("cube(x)").preamble("__device__ float cube(float v) { return v * v * v; }")));
  EXPECT_NO_THROW((void)unary_build(
      op("cuda::std::clamp(x, 0.0f, 1.0f)").preamble("#include <cuda/std/__algorithm/clamp.h>")));
}

// Optimised scans are linked for 64 registers a thread (8 blocks of 128 threads per SM on sm_90,
// as the compiled path gets) unless ptxas then spills; other families and quick builds never are.
TEST(JitCompile, OptimisedScansAreLinkedForTheCompiledPathsOccupancy) {
  for (bool inclusive : {true, false}) {
    SCOPED_TRACE(inclusive ? "inclusive" : "exclusive");
    const auto f = cupar::jit::compile_scan<float>(op("a + b"), inclusive, 90, true);
    EXPECT_EQ(f.tier, 2);
    // (Only links to a precompiled set carry the target: a profile without the set builds from
    // source.)
    EXPECT_EQ(f.register_capped, cupar::testing::precompiled_here(
                                     inclusive ? "scan_inclusive<f32>" : "scan_exclusive<f32>"));
    EXPECT_FALSE(
        cupar::jit::compile_scan<float>(op("a + b"), inclusive, 90, false).register_capped);
  }
  EXPECT_EQ(cupar::jit::compile_scan<int>(op("a + b"), true, 90, true).register_capped,
            cupar::testing::precompiled_here("scan_inclusive<i32>"));
  // (The exclusive i32 scan spills 4 bytes under the target with CUDA 13.0's ptxas; without it,
  // it gets 64 registers anyway.)
  EXPECT_EQ(cupar::jit::compile_scan<int>(op("a + b"), false, 90, true).tier, 2);
  // An operator that needs many registers spills under the target: linked without it.
  const auto heavy = cupar::jit::compile_scan<double>(
      op("fmax(a, b) + 0.0 * exp(sin(a) * cos(b) + pow(a, b))"), true, 90, true);
  EXPECT_EQ(heavy.tier, 2);
  EXPECT_FALSE(heavy.register_capped);
  EXPECT_FALSE(
      (cupar::jit::compile_transform<float, float>(op("x + 1"), 90, true).register_capped));
}

// Optimised reduces are linked for 32 registers a thread (8 blocks of 256 threads per SM, what the
// compiled path's i32 reduce gets with 32-bit offsets; the JIT kernels count with 64-bit ones and
// got 40) unless ptxas then spills; 1- and 2-byte elements (which spill under 32) are not capped.
TEST(JitCompile, OptimisedReducesAreLinkedForTheCompiledPathsOccupancy) {
  const auto i = cupar::jit::compile_reduce<int>(op("a + b"), 90, true);
  EXPECT_EQ(i.tier, 2);
  EXPECT_EQ(i.register_capped, cupar::testing::precompiled_here("reduce<i32>"));
  EXPECT_EQ(cupar::jit::compile_reduce<float>(op("a < b ? b : a"), 90, true).register_capped,
            cupar::testing::precompiled_here("reduce<f32>"));
  EXPECT_EQ(cupar::jit::compile_reduce<double>(op("a + b"), 90, true).register_capped,
            cupar::testing::precompiled_here("reduce<f64>"));
  EXPECT_FALSE(cupar::jit::compile_reduce<int>(op("a + b"), 90, false).register_capped);
  const auto i8 = cupar::jit::compile_reduce<std::int8_t>(op("a + b"), 90, true);
  EXPECT_EQ(i8.tier, 2);
  EXPECT_FALSE(i8.register_capped);
}

// An optimised build links its set's kernels one by one (each a module of its own) on threads of
// their own; CUPAR_JIT_SPLIT_LINKS=0 links the set whole. Both give the same kernels, and the
// same occupancy target held; out-of-line (tier-1) builds are one link either way.
TEST(JitCompile, OptimisedBuildsLinkTheirKernelsOneByOne) {
  if (!cupar::testing::precompiled_here("reduce<f32>")) {
    GTEST_SKIP() << "reduce<f32> is not precompiled in this build";
  }
  const auto before = cupar::jit::get_stats();
  const auto split = cupar::jit::compile_reduce<float>(op("a + b * 0.5f"), 90, true);
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(split.tier, 2);
  ASSERT_EQ(split.kernels.size(), 3u);  // the main pass, the single tile, the partials' pass
  EXPECT_EQ(after.kernel_links - before.kernel_links, 3u);
  EXPECT_EQ(after.links - before.links, 1u) << "the target held: one attempt per kernel";
  EXPECT_TRUE(split.register_capped);
  ASSERT_EQ(setenv("CUPAR_JIT_SPLIT_LINKS", "0", 1), 0);
  const auto whole = cupar::jit::compile_reduce<float>(op("a + b * 0.5f"), 90, true);
  const auto quick = cupar::jit::compile_reduce<float>(op("a + b * 0.5f"), 90, false);
  unsetenv("CUPAR_JIT_SPLIT_LINKS");
  const auto last = cupar::jit::get_stats();
  EXPECT_EQ(last.kernel_links, after.kernel_links);
  EXPECT_EQ(last.links - after.links, 2u);
  EXPECT_EQ(whole.kernels, split.kernels);
  EXPECT_EQ(whole.register_capped, split.register_capped);
  EXPECT_EQ(quick.tier, 1);
  std::printf("reduce<f32> optimised link: kernel by kernel %.0f ms, whole %.0f ms\n",
              split.link_ms, whole.link_ms);
}

// Operators compile with NVRTC's minimal front end, which leaves out the runtime API's
// declarations; one that names them compiles in full instead, in both builds.
TEST(JitCompile, AnOperatorNamingRuntimeApiTypesStillBuilds) {
  if (!cupar::testing::precompiled_here("transform_unary<f32,f32>")) {
    GTEST_SKIP() << "transform_unary<f32,f32> is not precompiled in this build";
  }
  const op uses_runtime_types("x + static_cast<float>(sizeof(cudaError_t) + sizeof(dim3))");
  const auto quick = cupar::jit::compile_transform<float, float>(uses_runtime_types, 90, false);
  const auto optimised = cupar::jit::compile_transform<float, float>(uses_runtime_types, 90, true);
  EXPECT_EQ(quick.tier, 1);
  EXPECT_EQ(optimised.tier, 2);
  // A snippet that does not compile still reports the full compile's error.
  try {
    (void)cupar::jit::compile_transform<float, float>(op("x + no_such_name"), 90, false);
    ADD_FAILURE() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_name"), std::string::npos) << e.what();
  }
}

// CUPAR_JIT_DUMP_DIR: every build writes its linked modules there (the optimised build one per
// kernel, the tier-1 build one), named by set, architecture and tier, as ELF images cuobjdump
// reads; with the variable unset nothing is written.
TEST(JitCompile, DumpDirectoryReceivesEveryBuildsModules) {
  namespace fs = std::filesystem;
  if (!cupar::testing::precompiled_here("reduce<f32>")) {
    GTEST_SKIP() << "reduce<f32> is not precompiled in this build";
  }
  const fs::path dir =
      fs::temp_directory_path() / ("cupar_dump_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(fs::create_directories(dir));
  ASSERT_EQ(setenv("CUPAR_JIT_DUMP_DIR", dir.c_str(), 1), 0);
  const auto quick = cupar::jit::compile_reduce<float>(op("a + b * 0.25f"), 90, false);
  const auto optimised = cupar::jit::compile_reduce<float>(op("a + b * 0.25f"), 90, true);
  unsetenv("CUPAR_JIT_DUMP_DIR");
  (void)cupar::jit::compile_reduce<float>(op("a + b * 0.125f"), 90, false);  // not written
  ASSERT_EQ(quick.kernel_set, "reduce<f32>");
  std::size_t tier1 = 0, tier2 = 0, sources = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    SCOPED_TRACE(name);
    EXPECT_EQ(name.rfind("reduce_f32_.sm90.tier", 0), 0u);
    if (entry.path().extension() == ".cu") {
      // The operator's source as NVRTC compiled it, its options first.
      ++sources;
      std::ifstream in(entry.path());
      const std::string text((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
      EXPECT_EQ(text.rfind("// NVRTC options: -arch=", 0), 0u);
      // No #include in it: compiled with NVRTC's minimal front end (engine.cpp).
      EXPECT_NE(text.find(" -minimal"), std::string::npos);
      EXPECT_NE(text.find("cupar_jit_op("), std::string::npos);
      EXPECT_NE(text.find("a + b * 0.25f"), std::string::npos);
      if (name.find(".tier1.") != std::string::npos) {
        // Only the batched forms reduce<f32>'s out-of-line kernels call (precompiled_set::calls):
        // they fold 4-byte items eight at a time, so the four-item forms are left out.
        EXPECT_NE(text.find("cupar_jit_op_fold8("), std::string::npos);
        EXPECT_EQ(text.find("cupar_jit_op_fold_upto4("), std::string::npos);
      }
      continue;
    }
    EXPECT_EQ(entry.path().extension(), ".cubin");
    tier1 += name.find(".tier1.") != std::string::npos ? 1 : 0;
    tier2 += name.find(".tier2.") != std::string::npos ? 1 : 0;
    std::ifstream in(entry.path(), std::ios::binary);
    char magic[4] = {};
    in.read(magic, 4);
    EXPECT_EQ(std::string(magic, 4), std::string("\x7f"
                                                 "ELF",
                                                 4));
    EXPECT_GT(fs::file_size(entry.path()), 1000u);
  }
  EXPECT_EQ(tier1, 1u);
  EXPECT_EQ(tier2, optimised.kernels.size()) << "one module per kernel (linked one by one)";
  EXPECT_EQ(sources, 2u) << "one operator source a build";
  fs::remove_all(dir);
}

// CUPAR_JIT_QUICK_OFC: a quick build's operator compile takes NVRTC's --Ofast-compile at the
// level given (min, mid, max), read at each build; unset or any other value leaves it out, and
// the optimised build never takes it. Read from the sources CUPAR_JIT_DUMP_DIR receives.
TEST(JitCompile, QuickFastCompileLevelReachesOnlyTheQuickBuildsCompile) {
  namespace fs = std::filesystem;
  if (!cupar::testing::precompiled_here("reduce<f32>")) {
    GTEST_SKIP() << "reduce<f32> is not precompiled in this build";
  }
  const fs::path dir = fs::temp_directory_path() / ("cupar_ofc_test_" + std::to_string(::getpid()));
  // The options line of the source of the one build made with `level` (nullptr: unset).
  auto options_of = [&](const char* level, const std::string& text, bool optimized) {
    fs::remove_all(dir);
    EXPECT_TRUE(fs::create_directories(dir));
    EXPECT_EQ(setenv("CUPAR_JIT_DUMP_DIR", dir.c_str(), 1), 0);
    if (level != nullptr) {
      EXPECT_EQ(setenv("CUPAR_JIT_QUICK_OFC", level, 1), 0);
    }
    (void)cupar::jit::compile_reduce<float>(op(text), 90, optimized);
    unsetenv("CUPAR_JIT_QUICK_OFC");
    unsetenv("CUPAR_JIT_DUMP_DIR");
    std::string line;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".cu") continue;
      std::ifstream in(entry.path());
      std::getline(in, line);
    }
    fs::remove_all(dir);
    return line;
  };
  const std::string unset = options_of(nullptr, "a + b * 0.5f", false);
  ASSERT_EQ(unset.rfind("// NVRTC options: -arch=", 0), 0u) << unset;
  EXPECT_EQ(unset.find("Ofast-compile"), std::string::npos) << unset;
  EXPECT_NE(options_of("min", "a + b * 0.75f", false).find(" --Ofast-compile=min"),
            std::string::npos);
  EXPECT_NE(options_of("max", "a + b * 0.875f", false).find(" --Ofast-compile=max"),
            std::string::npos);
  EXPECT_EQ(options_of("fast", "a + b * 0.625f", false).find("Ofast-compile"), std::string::npos);
  EXPECT_EQ(options_of("min", "a + b * 0.375f", true).find("Ofast-compile"), std::string::npos);
}

// stats::quick_* count the quick builds made for calls: a compile-only build is not one.
TEST(JitCompile, CompileOnlyBuildsAreNotCountedAsCallsQuickBuilds) {
  const auto before = cupar::jit::get_stats();
  const auto r = cupar::jit::compile_reduce<float>(op("a + b * 0.0625f"), 90, false);
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(r.tier, r.precompiled_kernels ? 1 : 2);
  EXPECT_EQ(after.quick_builds, before.quick_builds);
  EXPECT_EQ(after.quick_compile_ms, before.quick_compile_ms);
  EXPECT_EQ(after.quick_link_ms, before.quick_link_ms);
  EXPECT_EQ(after.quick_load_ms, before.quick_load_ms);
  EXPECT_EQ(after.quick_pool_wait_ms, before.quick_pool_wait_ms);
  EXPECT_EQ(after.quick_lto_links, before.quick_lto_links);
}

// transform_reduce's quick build hands a thread's items to the transform by value, eight or four
// a call, where the items and the results fit the call's registers (jit_ops/cupar_reduce.cuh):
// f32 -> f32 eight a call, f32 -> u64 four (eight 8-byte results would come back through local
// memory); an iterator expression's elements stay one call a tile (`_strided`); the quick build
// compiles only the forms the set's kernels call. Read from the sources CUPAR_JIT_DUMP_DIR
// receives.
TEST(JitCompile, TransformReduceQuickBuildsTakeTheItemsByValue) {
  namespace fs = std::filesystem;
  for (const char* set : {"transform_reduce<f32,f32>", "transform_reduce<f32,u64>"}) {
    if (!cupar::testing::precompiled_here(set)) GTEST_SKIP() << set << " is not precompiled here";
  }
  const fs::path dir =
      fs::temp_directory_path() / ("cupar_by_value_test_" + std::to_string(::getpid()));
  // The operator source of the one build `build` makes.
  auto source_of = [&](auto build) {
    fs::remove_all(dir);
    EXPECT_TRUE(fs::create_directories(dir));
    EXPECT_EQ(setenv("CUPAR_JIT_DUMP_DIR", dir.c_str(), 1), 0);
    build();
    unsetenv("CUPAR_JIT_DUMP_DIR");
    std::string text;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".cu") continue;
      std::ifstream in(entry.path());
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    fs::remove_all(dir);
    return text;
  };
  const std::string squares = source_of([] {
    (void)cupar::jit::compile_transform_reduce<float, float>(op("x * x + 0.5f"), cupar::jit::plus,
                                                             90, false);
  });
  EXPECT_NE(squares.find("cupar_jit_xform_items8("), std::string::npos) << squares;
  EXPECT_EQ(squares.find("_map("), std::string::npos);
  const std::string counts = source_of([] {
    (void)cupar::jit::compile_transform_reduce<float, unsigned long long>(
        op("x > 0.25f ? 1ull : 0ull"), cupar::jit::plus, 90, false);
  });
  EXPECT_NE(counts.find("cupar_jit_xform_items4("), std::string::npos) << counts;
  EXPECT_EQ(counts.find("cupar_jit_xform_items8("), std::string::npos);
  if (cupar::testing::precompiled_here("transform_reduce<u64,f32>+index")) {
    const float* none = nullptr;  // compile-only: never read
    const std::string dot = source_of([&] {
      (void)cupar::jit::compile_reduce<float>(
          cupar::jit::transform<float>(cupar::jit::zip(none, none), op("x._0 * x._1 + 0.5f")),
          cupar::jit::plus, 90, false);
    });
    EXPECT_NE(dot.find("cupar_jit_xform_strided("), std::string::npos) << dot;
    EXPECT_EQ(dot.find("_items"), std::string::npos);
  }
  // The optimised build inlines the transform: no batched form.
  const std::string inlined = source_of([] {
    (void)cupar::jit::compile_transform_reduce<float, unsigned long long>(
        op("x > 0.375f ? 1ull : 0ull"), cupar::jit::plus, 90, true);
  });
  EXPECT_EQ(inlined.find("_items"), std::string::npos);
}

TEST(JitCompile, EveryFamilyBuildsWithPrecompiledKernelsAndFromSource) {
  // Precompiled kernel sets: only the operator is compiled (tier 1 quick link, tier 2 LTO).
  // (A build whose CUPAR_JIT_PRECOMPILE_FILTER leaves reduce<f32> out compiles it from source.)
  const bool reduce_precompiled = cupar::testing::precompiled_here("reduce<f32>");
  const auto r1 = cupar::jit::compile_reduce<float>(op("a * b"), 90, false);
  EXPECT_EQ(r1.precompiled_kernels, reduce_precompiled);
  EXPECT_EQ(r1.kernels.size(), 3u);
  EXPECT_GT(r1.cubin_bytes, 0u);
  const auto r2 = cupar::jit::compile_reduce<float>(op("a * b"), 90, true);
  EXPECT_EQ(r2.tier, 2);
  EXPECT_EQ(r2.precompiled_kernels, reduce_precompiled);
  EXPECT_EQ(cupar::jit::compile_scan<int>(op("a ^ b"), true, 90, false).kernels.size(), 2u);
  EXPECT_EQ(cupar::jit::compile_scan<unsigned char>(op("a | b"), false, 90, false).kernels.size(),
            2u);
  EXPECT_EQ((cupar::jit::compile_transform2<double, double, double>(op("a * b"), 90, false)
                 .kernels.size()),
            1u);
  EXPECT_EQ(cupar::jit::compile_sort<long long>(op("a > b"), 90, false).kernels.size(), 3u);
  EXPECT_EQ((cupar::jit::compile_sort<float, double>(op("a > b"), 90, false).kernels.size()), 3u);
  EXPECT_EQ((cupar::jit::compile_histogram<unsigned short, unsigned short, unsigned long long>(
                 op("x / 2"), false, 90, false)
                 .kernels.size()),
            3u);
  // User types and other combinations compile the kernels from source (tier 2 at once).
  const auto s = cupar::jit::compile_sort<pixel>(op("a.r < b.r"), 90, false);
  EXPECT_FALSE(s.precompiled_kernels);
  EXPECT_EQ(s.tier, 2);
  EXPECT_FALSE(
      (cupar::jit::compile_transform<int, double>(op("x * 0.5"), 90, false).precompiled_kernels));
  // pixel (4 bytes, aligned to 1) is of no struct class: from source.
  EXPECT_FALSE((cupar::jit::compile_histogram<pixel, float>(op("0.299f * x.r + 0.587f * x.g"), true,
                                                            90, false)
                    .precompiled_kernels));
}

// A struct whose size and alignment make a precompiled class (CUPAR_JIT_STRUCT_CLASSES) links its
// operator to the class's kernels, as an operator on a float does: only the operator compiles,
// tier 1 first. Classes the build did not precompile, and structs of no class, compile the kernels
// from source.
// A merge sort's tier-1 kernels call the comparator's generated odd-even network (the block sort
// of keys) and merge path search (both kernels that merge; codegen.cpp, batch::oddeven and
// batch::merge_path): a tier-1 build links only if the operator's compile defined what the
// kernels call, with the keys of every size merge sort's sets take (17, 8 and 4 a thread), and
// for pairs, whose kernels call only the search.
TEST(JitCompile, MergeSortTierOneBuildsLinkTheComparatorsNetworkAndMergePath) {
  auto expect_tier_one = [](const char* set, const cupar::jit::build_report& r) {
    if (!cupar::testing::precompiled_here(set)) return;  // compiled from source: tier 2
    EXPECT_EQ(r.tier, 1) << set;
    EXPECT_TRUE(r.precompiled_kernels) << set;
    EXPECT_EQ(r.kernels.size(), 3u) << set;
  };
  expect_tier_one("merge_sort_keys<f32>", cupar::jit::compile_sort<float>(op("a > b"), 90, false));
  expect_tier_one("merge_sort_keys<u32>",
                  cupar::jit::compile_sort<unsigned>(op("(a & 7u) < (b & 7u)"), 90, false));
  expect_tier_one("merge_sort_keys<u64>",
                  cupar::jit::compile_sort<unsigned long long>(op("a < b"), 90, false));
  expect_tier_one("merge_sort_keys<f64>", cupar::jit::compile_sort<double>(op("a < b"), 90, false));
  expect_tier_one("merge_sort_keys<i32>", cupar::jit::compile_sort<int>(op("a < b"), 90, false));
  expect_tier_one("merge_sort_keys<u8>",
                  cupar::jit::compile_sort<unsigned char>(op("a < b"), 90, false));
  expect_tier_one("merge_sort_keys<s8a4>",
                  cupar::jit::compile_sort<point>(op("a.x < b.x"), 90, false));
  expect_tier_one("merge_sort_keys<s16a8>",
                  cupar::jit::compile_sort<counted>(op("a.sum < b.sum"), 90, false));
  expect_tier_one("merge_sort_pairs<u32,s4a4>",
                  cupar::jit::compile_sort<unsigned, int>(op("a < b"), 90, false));
  expect_tier_one("merge_sort_pairs<s8a4,s4a4>",
                  cupar::jit::compile_sort<point, int>(op("a.y < b.y"), 90, false));
}

// A merge sort's tier-1 forms compile in as little code as their kernels need (codegen.cpp): the
// odd-even network's passes go two at a time in a loop that is not unrolled. All m passes
// unrolled took a third of a new comparator's first call to compile. Read from the source of the
// build (CUPAR_JIT_DUMP_DIR), the comparator new to the process.
TEST(JitCompile, MergeSortTierOneFormsAreCompact) {
  if (!cupar::testing::precompiled_here("merge_sort_keys<f32>")) {
    GTEST_SKIP() << "merge_sort_keys<f32> not precompiled in this build (a filtered build)";
  }
  const std::string text_of_op = "a > b + 0.0f * " + std::to_string(::getpid() % 1000) + ".0f";
  const std::string text = cupar::testing::dumped_source(text_of_op, [&] {
    EXPECT_EQ(cupar::jit::compile_sort<float>(op(text_of_op), 90, false).tier, 1);
  });
  ASSERT_FALSE(text.empty()) << "no dumped source of the build";
  EXPECT_NE(text.find("#pragma unroll 1\n  for (int i = 0; i < 17; i += 2) {"), std::string::npos);
  EXPECT_EQ(text.find("for (int i = 0; i < 17; ++i)"), std::string::npos);
}

TEST(JitCompile, StructsOfAPrecompiledClassLinkTheClassKernels) {
  const op sum_counted("counted{a.count + b.count, a.sum + b.sum}");
  const op max_tag("padded{a.tag > b.tag ? a.tag : b.tag, a.value + b.value}");
  const op merge_stats(
      "stats4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}");
  const cupar::testing::class_case cases[] = {
      {"reduce<s8a4>", cupar::jit::compile_reduce<padded>(max_tag, 90, false),
       cupar::jit::compile_reduce<padded>(max_tag, 90, true)},
      {"scan_inclusive<s16a8>", cupar::jit::compile_scan<counted>(sum_counted, true, 90, false),
       cupar::jit::compile_scan<counted>(sum_counted, true, 90, true)},
      {"scan_exclusive<s16a4>", cupar::jit::compile_scan<stats4>(merge_stats, false, 90, false),
       cupar::jit::compile_scan<stats4>(merge_stats, false, 90, true)},
      {"merge_sort_keys<s16a8>", cupar::jit::compile_sort<counted>(op("a.sum < b.sum"), 90, false),
       cupar::jit::compile_sort<counted>(op("a.sum < b.sum"), 90, true)},
      // Struct keys carrying a 4- or 8-byte payload (a row index, a double).
      {"merge_sort_pairs<s16a8,s4a4>",
       cupar::jit::compile_sort<counted, std::uint32_t>(op("a.count < b.count"), 90, false),
       cupar::jit::compile_sort<counted, std::uint32_t>(op("a.count < b.count"), 90, true)},
      {"merge_sort_pairs<s16a4,s8a8>",
       cupar::jit::compile_sort<stats4, double>(op("a.max < b.max"), 90, false),
       cupar::jit::compile_sort<stats4, double>(op("a.max < b.max"), 90, true)},
      // Transforms: a record to a record of its class, a record to a float or a double.
      {"transform_unary<s16a4,s16a4>",
       cupar::jit::compile_transform<stats4, stats4>(
           op("stats4{x.count, x.sum * s, x.min * s, x.max * s}").param("s", 2.0f), 90, false),
       cupar::jit::compile_transform<stats4, stats4>(
           op("stats4{x.count, x.sum * s, x.min * s, x.max * s}").param("s", 2.0f), 90, true)},
      {"transform_unary<s8a4,f32>",
       cupar::jit::compile_transform<padded, float>(op("x.tag == 1 ? x.value : 0.0f"), 90, false),
       cupar::jit::compile_transform<padded, float>(op("x.tag == 1 ? x.value : 0.0f"), 90, true)},
      {"transform_unary<s16a8,f64>",
       cupar::jit::compile_transform<counted, double>(op("x.sum / x.count"), 90, false),
       cupar::jit::compile_transform<counted, double>(op("x.sum / x.count"), 90, true)},
      {"transform_unary<f32,s16a4>",
       cupar::jit::compile_transform<float, stats4>(op("stats4{1.0f, x, x, x}"), 90, false),
       cupar::jit::compile_transform<float, stats4>(op("stats4{1.0f, x, x, x}"), 90, true)},
      // A histogram of records binned by a float the sample operator computes.
      {"histogram_even<s16a4,f32,u32>",
       cupar::jit::compile_histogram<stats4, float>(op("x.sum / x.count"), true, 90, false),
       cupar::jit::compile_histogram<stats4, float>(op("x.sum / x.count"), true, 90, true)},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    if (!cupar::testing::precompiled_here(c.set)) {
      EXPECT_FALSE(c.quick.precompiled_kernels);
      EXPECT_EQ(c.quick.tier, 2);
      continue;
    }
    cupar::testing::expect_served_by_set(c);
    EXPECT_EQ(c.quick.kernels, c.optimised.kernels);
  }
  // 36 bytes: no class.
  const auto r = cupar::jit::compile_reduce<nine>(op("a"), 90, false);
  EXPECT_FALSE(r.precompiled_kernels);
  EXPECT_EQ(r.tier, 2);
  // A mix the classes do not cover (a double to a record): from source.
  const auto m = cupar::jit::compile_transform<double, stats4>(
      op("stats4{1.0f, float(x), 0.0f, 0.0f}"), 90, false);
  EXPECT_FALSE(m.precompiled_kernels);
  EXPECT_EQ(m.tier, 2);
  // The operator still sees the user's struct: an unknown member fails in the snippet's line.
  try {
    (void)cupar::jit::compile_reduce<padded>(op("padded{a.tag, a.nope}"), 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(std::string(e.log()).find("nope"), std::string::npos) << e.log();
  }
}

// transform_reduce: the transform and the reduction compiled together and linked to the set's
// precompiled kernels (CUB's reduce kernels with the transform applied after the loads).
TEST(JitCompile, TransformReduceLinksTheTransformAndTheReduction) {
  const op square("x * x");
  const cupar::testing::class_case sum_of_squares{
      "transform_reduce<f32,f32>",
      cupar::jit::compile_transform_reduce<float, float>(square, op("a + b"), 90, false),
      cupar::jit::compile_transform_reduce<float, float>(square, op("a + b"), 90, true)};
  if (cupar::testing::precompiled_here(sum_of_squares.set)) {
    cupar::testing::expect_served_by_set(sum_of_squares);
    EXPECT_EQ(sum_of_squares.quick.kernels.size(), 3u);
  }
  // A count where into a 64-bit accumulator, with a run-time parameter and the named plus.
  const auto count = cupar::jit::compile_transform_reduce<float, unsigned long long>(
      op("x > t ? 1ull : 0ull").param("t", 0.5f), cupar::jit::plus, 90, false);
  EXPECT_EQ(count.kernel_set, "transform_reduce<f32,u64>");
  EXPECT_EQ(count.precompiled_kernels,
            cupar::testing::precompiled_here("transform_reduce<f32,u64>"));
  // A struct accumulator (count, sum, min, max of floats): compiled from source.
  const auto stats = cupar::jit::compile_transform_reduce<float, stats4>(
      op("stats4{1.0f, x, x, x}"),
      op("stats4{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}"), 90,
      false);
  EXPECT_FALSE(stats.precompiled_kernels);
  EXPECT_EQ(stats.tier, 2);
  // Each operator's errors name its role.
  try {
    (void)cupar::jit::compile_transform_reduce<float, float>(op("x.nope"), op("a + b"), 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("transform"), std::string::npos) << e.what();
  }
  try {
    (void)cupar::jit::compile_transform_reduce<float, float>(square, op("a +"), 90, false);
    FAIL() << "expected cupar::jit_error";
  } catch (const cupar::jit_error& e) {
    EXPECT_NE(std::string(e.what()).find("operator"), std::string::npos) << e.what();
  }
}

TEST(JitCompile, ParametersAreCheckedWhenDeclaredAndSet) {
  EXPECT_THROW(op("a").param("a", 1.0f), std::invalid_argument);        // an argument's name
  EXPECT_THROW(op("x").param("2x", 1.0f), std::invalid_argument);       // not an identifier
  EXPECT_THROW(op("x").param("cupar_s", 1.0f), std::invalid_argument);  // reserved prefix
  EXPECT_THROW(op("x").param("s", 1.0f).param("s", 2.0f), std::invalid_argument);
  op o("x * s");
  o.param("s", 2.0f);
  EXPECT_THROW(o.set("t", 1.0f), std::invalid_argument);  // unknown
  EXPECT_THROW(o.set("s", 1.0), std::invalid_argument);   // declared float, given double
  EXPECT_NO_THROW(o.set("s", 3.0f));
  op big("x");
  for (int i = 0; i < 8; ++i)
    big.param("p" + std::to_string(i), 1.0);  // 64 bytes
  EXPECT_THROW(big.param("one_more", 1.0f), std::invalid_argument);
}

// The direct-build budget (no GPU needed): bad values are refused and change nothing.
TEST(JitCompile, DirectBuildBudgetRefusesBadValues) {
  const double before = cupar::jit::get_direct_build_budget();
  EXPECT_THROW(cupar::jit::set_direct_build_budget(-1.0), std::invalid_argument);
  EXPECT_THROW(cupar::jit::set_direct_build_budget(std::numeric_limits<double>::quiet_NaN()),
               std::invalid_argument);
  EXPECT_THROW(cupar::jit::set_direct_build_budget(std::numeric_limits<double>::infinity()),
               std::invalid_argument);
  EXPECT_EQ(cupar::jit::get_direct_build_budget(), before);
  cupar::jit::set_direct_build_budget(75.0);
  EXPECT_EQ(cupar::jit::get_direct_build_budget(), 75.0);
  cupar::jit::set_direct_build_budget(0.0);
  EXPECT_EQ(cupar::jit::get_direct_build_budget(), 0.0);
  cupar::jit::set_direct_build_budget(before);
}

// Word types (bool, __half, __nv_bfloat16: CUPAR_JIT_WORD_TYPE): served by the kernel sets of
// the unsigned integer of their size, the operator's wrapper converting the bits for the snippet,
// which sees the type itself (cuda_fp16.h's arithmetic for __half). Where those sets are not
// precompiled here (the CI selection), an expression over the type (the type-free for_each set)
// still compiles with the toolkit's headers.
TEST(JitCompile, WordTypesAreServedByTheIntegerSets) {
  const __half* no_halves = nullptr;
  const __nv_bfloat16* no_bf16 = nullptr;
  const bool* no_bools = nullptr;
  float* no_floats_out = nullptr;
  EXPECT_NO_THROW(cupar::jit::compile_transform(cupar::jit::iterator(no_halves),
                                                cupar::jit::output(no_floats_out),
                                                op("float(x + x)"), 90, false));
  EXPECT_NO_THROW(cupar::jit::compile_transform(cupar::jit::iterator(no_bf16),
                                                cupar::jit::output(no_floats_out),
                                                op("float(x) * 2.0f"), 90, false));
  EXPECT_NO_THROW(cupar::jit::compile_transform(cupar::jit::iterator(no_bools),
                                                cupar::jit::output(no_floats_out),
                                                op("x ? 1.0f : 0.0f"), 90, false));
  struct word_case {
    std::string set;
    cupar::jit::build_report (*quick)();
  };
  const word_case cases[] = {
      {"reduce<u16>",
       [] { return cupar::jit::compile_reduce<__half>(cupar::jit::plus, 90, false); }},
      {"reduce<u16>",
       [] { return cupar::jit::compile_reduce<__nv_bfloat16>(cupar::jit::maximum, 90, false); }},
      {"reduce<u8>",
       [] { return cupar::jit::compile_reduce<bool>(cupar::jit::logical_or, 90, false); }},
      {"scan_inclusive<u8>",
       [] { return cupar::jit::compile_scan<bool>(cupar::jit::logical_and, true, 90, false); }},
      {"scan_exclusive<u16>",
       [] { return cupar::jit::compile_scan<__half>(op("a + b"), false, 90, false); }},
  };
  int built = 0;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.set);
    if (!cupar::testing::precompiled_here(c.set)) continue;
    const auto r = c.quick();
    EXPECT_EQ(r.kernel_set, c.set);
    EXPECT_TRUE(r.precompiled_kernels);
    EXPECT_EQ(r.tier, 1);
    ++built;
  }
  if (built == 0) GTEST_SKIP() << "the u8 / u16 sets are not precompiled in this build";
}
