// cupar tests: which JIT kernel sets this build precompiled, by the rule src/CMakeLists.txt
// applies (CUPAR_JIT_PRECOMPILE, CUPAR_JIT_PRECOMPILE_TYPES, CUPAR_JIT_PRECOMPILE_FILTER), so
// the compile-only tests expect precompiled kernels exactly where the build made them (all of
// them in a default build; CI's build without a GPU precompiles fewer types).
#pragma once

#include <regex>
#include <sstream>
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

namespace cupar::testing {

/// True when every element type was precompiled (the default build).
inline bool all_precompiled() {
  return CUPAR_TEST_PRECOMPILE && std::string(CUPAR_TEST_PRECOMPILE_TYPES) == "all" &&
         std::string(CUPAR_TEST_STRUCT_CLASSES) == "all" &&
         std::string(CUPAR_TEST_STRUCT_DP_CLASSES) == "default" &&
         std::string(CUPAR_TEST_PRECOMPILE_FILTER).empty() &&
         std::string(CUPAR_TEST_PRECOMPILE_EXCLUDE).empty();
}

/// Whether the struct class (e.g. "s16a4") is in CUPAR_JIT_STRUCT_CLASSES ("all": the 23 of
/// src/jit/precompiled_sets.cmake).
inline bool struct_class_listed(const std::string& cls) {
  const std::string classes = CUPAR_TEST_STRUCT_CLASSES;
  if (classes == "none") return false;
  if (classes == "all") {
    static const char* const all[] = {"s4a4",   "s8a4",   "s12a4",  "s16a4",  "s20a4",  "s24a4",
                                      "s28a4",  "s32a4",  "s8a8",   "s16a8",  "s24a8",  "s32a8",
                                      "s40a8",  "s48a8",  "s64a8",  "s96a8",  "s128a8", "s16a16",
                                      "s32a16", "s48a16", "s64a16", "s96a16", "s128a16"};
    for (const char* c : all)
      if (cls == c) return true;
    return false;
  }
  return ("," + classes + ",").find("," + cls + ",") != std::string::npos;
}

/// Whether the struct class is in CUPAR_JIT_STRUCT_DP_CLASSES ("default": the 6 of
/// src/jit/precompiled_sets.cmake), the classes of the data-processing families.
inline bool struct_dp_class_listed(const std::string& cls) {
  const std::string classes = CUPAR_TEST_STRUCT_DP_CLASSES;
  if (classes == "none") return false;
  if (classes == "default") {
    for (const char* c : {"s8a4", "s16a4", "s20a4", "s8a8", "s16a8", "s32a8"})
      if (cls == c) return true;
    return false;
  }
  return ("," + classes + ",").find("," + cls + ",") != std::string::npos;
}

/// Whether the set with this key (e.g. "select_if<u32>", "merge_sort_pairs<f32,s4a4>") was
/// precompiled by this build (CUPAR_TEST_PRECOMPILE_TYPES: "all" or e.g. "i32,f32").
inline bool precompiled_here(const std::string& set_key) {
  if (!CUPAR_TEST_PRECOMPILE) return false;
  const std::string filter = CUPAR_TEST_PRECOMPILE_FILTER;
  if (!filter.empty() && !std::regex_search(set_key, std::regex(filter))) return false;
  const std::string exclude = CUPAR_TEST_PRECOMPILE_EXCLUDE;
  if (!exclude.empty() && std::regex_search(set_key, std::regex(exclude))) return false;
  const auto open = set_key.find('<'), close = set_key.find('>');
  if (open == std::string::npos || close == std::string::npos) return false;
  // Struct classes of reduce, the scans, merge sort keys and merge sort pairs with 4- and 8-byte
  // payloads: CUPAR_JIT_STRUCT_CLASSES (transforms and histograms below).
  static const std::regex struct_set(
      "^(reduce|scan_inclusive|scan_exclusive|merge_sort_keys)<(s[0-9]+a[0-9]+)>$|"
      "^merge_sort_pairs<(s[0-9]+a[0-9]+),(s4a4|s8a8)>$");
  std::smatch m;
  if (std::regex_match(set_key, m, struct_set)) {
    return struct_class_listed(m[2].matched ? m[2].str() : m[3].str());
  }
  const std::string types = CUPAR_TEST_PRECOMPILE_TYPES;
  const auto type_listed = [&](const std::string& t) {
    return types == "all" || ("," + types + ",").find("," + t + ",") != std::string::npos;
  };
  // Struct classes of the transforms (to the same class, to f32 or f64, from f32) and of the
  // histograms (f32 levels, u32 counters): CUPAR_JIT_STRUCT_CLASSES, the arithmetic types subject
  // to CUPAR_JIT_PRECOMPILE_TYPES.
  // Reduces over iterator expressions into a struct class: CUPAR_JIT_STRUCT_CLASSES (and u64).
  static const std::regex index_struct("^transform_reduce<u64,(s[0-9]+a[0-9]+)>\\+index$");
  if (std::regex_match(set_key, m, index_struct)) {
    return struct_class_listed(m[1].str()) && type_listed("u64");
  }
  static const std::regex struct_map(
      "^transform_unary<(s[0-9]+a[0-9]+),(s[0-9]+a[0-9]+|f32|f64)>$|"
      "^histogram_even<(s[0-9]+a[0-9]+),f32,u32>$|^transform_unary<f32,(s[0-9]+a[0-9]+)>$");
  if (std::regex_match(set_key, m, struct_map)) {
    if (m[3].matched) return struct_class_listed(m[3].str()) && type_listed("f32");
    if (m[4].matched) return struct_class_listed(m[4].str()) && type_listed("f32");
    const std::string out = m[2].str();
    if (out[0] == 's') return out == m[1].str() && struct_class_listed(out);
    return struct_class_listed(m[1].str()) && type_listed(out);
  }
  // Struct classes of the data-processing families: CUPAR_JIT_STRUCT_DP_CLASSES, with 4- and
  // 8-byte keys (themselves subject to CUPAR_JIT_PRECOMPILE_TYPES) in the by-key families.
  static const std::regex dp_struct(
      "^(select_if|partition_if|three_way_partition|unique|segmented_reduce|"
      "segmented_scan_inclusive|segmented_scan_exclusive)<(s[0-9]+a[0-9]+)>$|"
      "^select_if<(s[0-9]+a[0-9]+)>\\+inplace$|"
      "^(reduce_by_key|scan_by_key_inclusive|scan_by_key_exclusive|unique_by_key)<(u32|u64),"
      "(s[0-9]+a[0-9]+)>$|"
      "^(select_if|partition_if)<(s[0-9]+a[0-9]+)>\\+(index|io)$");
  if (std::regex_match(set_key, m, dp_struct)) {
    if (m[2].matched) return struct_dp_class_listed(m[2].str());
    if (m[3].matched) return struct_dp_class_listed(m[3].str());
    if (m[8].matched) return struct_dp_class_listed(m[8].str());
    return type_listed(m[5].str()) && struct_dp_class_listed(m[6].str());
  }
  // Any other set on a struct class is compiled from source, but for the sort payloads of
  // merge_sort_pairs (s4a4, s8a8: the arithmetic keys' sets).
  static const std::regex storage_arg("[<,]s[0-9]+a[0-9]+[,>]");
  static const std::regex pairs_payload("^merge_sort_pairs<[iuf][0-9]+,(s4a4|s8a8)>$");
  if (std::regex_search(set_key, storage_arg) && !std::regex_match(set_key, pairs_payload)) {
    return false;
  }
  if (types == "all") return true;
  std::istringstream args(set_key.substr(open + 1, close - open - 1));
  static const std::regex storage("^s[0-9]+a[0-9]+$");
  for (std::string a; std::getline(args, a, ',');) {
    if (std::regex_match(a, storage)) continue;
    if (("," + types + ",").find("," + a + ",") == std::string::npos) return false;
  }
  return true;
}

}  // namespace cupar::testing

#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace cupar::testing {

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
