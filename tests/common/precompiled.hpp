// cupar tests: which JIT kernel sets this build precompiled (the list the build wrote, so that
// the compile-only tests expect precompiled kernels exactly where the build made them: all of
// them in a default build; CI's build without a GPU precompiles fewer types).
#pragma once

#include <set>
#include <string>

#ifndef CUPAR_TEST_PRECOMPILE
#define CUPAR_TEST_PRECOMPILE 1
#endif
#ifndef CUPAR_TEST_PRECOMPILE_TYPES
#define CUPAR_TEST_PRECOMPILE_TYPES "all"
#endif
#ifndef CUPAR_TEST_STRUCT_CLASSES
#define CUPAR_TEST_STRUCT_CLASSES "all"
#endif
#ifndef CUPAR_TEST_STRUCT_DP_CLASSES
#define CUPAR_TEST_STRUCT_DP_CLASSES "default"
#endif
#ifndef CUPAR_TEST_PRECOMPILE_EXCLUDE
#define CUPAR_TEST_PRECOMPILE_EXCLUDE ""
#endif
#ifndef CUPAR_TEST_PRECOMPILE_FILTER
#define CUPAR_TEST_PRECOMPILE_FILTER ""
#endif
#ifndef CUPAR_TEST_LIBRARY_TYPES
#define CUPAR_TEST_LIBRARY_TYPES "all"
#endif

namespace cupar::testing {

/// True when every element type was precompiled (the default build).
inline bool all_precompiled() {
  return CUPAR_TEST_PRECOMPILE && std::string(CUPAR_TEST_PRECOMPILE_TYPES) == "all" &&
         std::string(CUPAR_TEST_STRUCT_CLASSES) == "all" &&
         std::string(CUPAR_TEST_STRUCT_DP_CLASSES) == "default" &&
         std::string(CUPAR_TEST_PRECOMPILE_FILTER).empty() &&
         std::string(CUPAR_TEST_PRECOMPILE_EXCLUDE).empty();
}

/// Whether the set with this key (e.g. "select_if<u32>", "merge_sort_pairs<f32,s4a4>") was
/// precompiled by this build: the list the build made from the families' precompile rules and
/// its selections (CUPAR_JIT_PRECOMPILE_TYPES, _FILTER, _EXCLUDE, CUPAR_JIT_STRUCT_CLASSES,
/// CUPAR_JIT_STRUCT_DP_CLASSES; src/CMakeLists.txt writes it).
inline bool precompiled_here(const std::string& set_key) {
  static const std::set<std::string> built = {
#include "cupar_precompiled_sets.inc"
  };
  return built.count(set_key) != 0;
}

}  // namespace cupar::testing

#include <cupar/detail/type_id.hpp>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <type_traits>

namespace cupar::testing {

/// Whether the compiled library of this build has element type T (CUPAR_LIBRARY_TYPES: the
/// radix sorts, histograms, joins and group-by routes over T throw where it does not).
template <class T>
bool library_has() {
  const std::string types = std::string(",") + CUPAR_TEST_LIBRARY_TYPES + ",";
  return types == ",all," ||
         types.find(std::string(",") + cupar::detail::scalar_name(cupar::detail::scalar_of<T>()) +
                    ",") != std::string::npos;
}

/// For a test over several element types of which the library serves some calls: whether this
/// build's library has T; where it has not (a lean build's CUPAR_LIBRARY_TYPES), prints that
/// `what` is left out, so that the types it has are still tested.
template <class T>
bool library_serves(const char* what) {
  if (library_has<T>()) return true;
  std::printf("[   NOTE   ] %s left out: its type is not in this build's CUPAR_LIBRARY_TYPES\n",
              what);
  return false;
}

/// The data-processing families' size class of an arithmetic type: "u8" .. "u64".
template <class T>
std::string size_class() {
  static_assert(std::is_arithmetic_v<T>);
  return "u" + std::to_string(8 * sizeof(T));
}

/// The sets of `keys` that this build did not precompile, comma-separated (empty: all were).
inline std::string missing_sets(std::initializer_list<std::string> keys) {
  std::string out;
  for (const auto& k : keys) {
    if (!precompiled_here(k)) out += (out.empty() ? "" : ", ") + k;
  }
  return out;
}

}  // namespace cupar::testing

/// Skips a compile-only test whose subject is precompiled kernels when this build did not
/// precompile the sets it uses (CI's profile, CUPAR_JIT_PRECOMPILE_TYPES): the default build,
/// which precompiles every type, runs it.
#define CUPAR_REQUIRE_PRECOMPILED(...)                                                  \
  do {                                                                                  \
    const std::string cupar_missing_ = ::cupar::testing::missing_sets({__VA_ARGS__});   \
    if (!cupar_missing_.empty()) {                                                      \
      GTEST_SKIP() << "this build did not precompile " << cupar_missing_                \
                   << " (CUPAR_JIT_PRECOMPILE_TYPES=" CUPAR_TEST_PRECOMPILE_TYPES       \
                      "); the default build precompiles every type and runs this test"; \
    }                                                                                   \
  } while (0)
