// cupar internal: kernel sets (the CUB kernels of one algorithm for some element types) and the
// device source generated for them and for operators.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cupar::detail::jit {

enum class family : std::uint8_t {
  reduce,
  scan_inclusive,
  scan_exclusive,
  transform_unary,
  transform_binary,
  merge_sort_keys,
  merge_sort_pairs,
  histogram_even,
  histogram_range,
};

/// An element type spelled for device code.
struct type_ref {
  scalar kind = static_cast<scalar>(0);  // 0: user or storage type
  std::string name;
  std::string definition;  // user types
  std::uint32_t size = 0, align = 0;

  static type_ref of(const jit_type& t);
  static type_ref of(scalar s);
  /// Opaque storage of a value only moved by the kernels (sort payloads).
  static type_ref storage(std::uint32_t size, std::uint32_t align);
  /// Stable identity for keys and file names, e.g. "f32", "s8a4",
  /// "point/8/4/1a2b3c4d5e6f7a8b" (user types carry a hash of their definition).
  std::string key() const;
};

/// Kernel sets. Types per family:
///   reduce, scan_*: {T}; transform_unary: {In, Out}; transform_binary: {A, B, Out};
///   merge_sort_keys: {K}; merge_sort_pairs: {K, V (storage)};
///   histogram_*: {Sample, Level, Counter (u32 or u64)}.
struct set_spec {
  family fam;
  std::vector<type_ref> types;
  std::string key() const;  // e.g. "reduce<f32>", "histogram_even<u8,u8,u32>"
};

/// Parses a key of a set of arithmetic and storage types (the precompiled ones), e.g.
/// "merge_sort_pairs<f32,s4a4>". Throws std::invalid_argument.
set_spec parse_set_key(const std::string& key);

/// Number of kernels (entry points) of a family's set; the metadata expression comes after them.
int kernel_count(family f);
/// NVRTC name expressions: the kernels in role order, then the metadata carrier.
std::vector<std::string> name_expressions(family f);
/// Metadata values from the carrier's lowered name ("_Z10cupar_metaIJLx256E...EEvv").
std::vector<long long> parse_meta(const std::string& lowered_name);

/// Source of a kernel set. With `op` the operator is defined in it (compiled with the kernels);
/// without it only declared (precompiled sets, linked with an operator later).
std::string set_source(const set_spec& spec, const cupar::jit::op* op);
/// Source of an operator alone, to be linked with a precompiled kernel set.
std::string operator_source(const set_spec& spec, const cupar::jit::op& op);
/// What the operator of a set must be, e.g. "a binary operator (float a, float b) -> float".
std::string role_description(const set_spec& spec);
/// The snippet text compiled for `op` (a named operator's expression).
std::string snippet_text(const cupar::jit::op& op);

/// NVRTC options for device code (sets and operators).
std::vector<std::string> compile_options(int arch, bool ltoir, bool relocatable);
/// Where CCCL's headers were found, or a jit_error naming every place tried.
const std::string& cccl_include_dir();

}  // namespace cupar::detail::jit
