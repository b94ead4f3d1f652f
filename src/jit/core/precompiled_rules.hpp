// cupar internal: the sets the library precompiles, from the families' rules.
//
// A rule is a string "precompile <loops>: <key pattern>", one per line of a family's rule array,
// read both by the library (the precompile tool's `list`, the tests) and by CMake
// (cmake/cupar_sets.cmake, which reads the same lines from the family files):
//   "precompile t=types: reduce<$t>"                         one set per arithmetic type
//   "precompile k=classes v=classes: reduce_by_key<$k,$v>"   every pair of size classes
//   "precompile s=structs o=f32|f64: transform_unary<$s,$o>" a domain times a literal list
//   "precompile: for_each<u64>"                              one set
// Loops are `name=domain`, the domain one of the lists below (structs and dp_structs are the
// defaults of CUPAR_JIT_STRUCT_CLASSES and CUPAR_JIT_STRUCT_DP_CLASSES) or values joined by '|';
// the pattern's `$name` takes each value, every combination of the loops in turn.
#pragma once

#include <string>
#include <vector>

namespace cupar::detail::jit {

struct set_domains {
  std::vector<std::string> types, classes, structs, dp_structs;
  /// The default domains (the domain lines of family.cpp).
  static set_domains defaults();
};

/// The set keys of every family's rules with these domains, in family order.
std::vector<std::string> precompiled_set_keys(const set_domains& domains);
/// The set keys of one rule. Throws std::invalid_argument for a malformed rule.
std::vector<std::string> expand_rule(const std::string& rule, const set_domains& domains);

}  // namespace cupar::detail::jit
