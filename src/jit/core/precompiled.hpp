// cupar internal: kernel sets compiled when the library was built (tools/cupar_precompile), as
// two compressed fatbins each: a relocatable cubin (the quick out-of-line links) and LTO-IR (the
// inlined link).
#pragma once

#include <cstddef>
#include <string>

namespace cupar::detail::jit {

struct precompiled_set {
  const char* key;  // set_spec::key()
  int arch;
  /// The out-of-line kernels as a relocatable cubin: tier 1's links, the non-LTO one and the LTO
  /// link that compiles only the operator (engine.cpp, the process's first tiered quick build).
  const unsigned char* cubin_fatbin;
  std::size_t cubin_fatbin_size;
  /// The kernels as LTO-IR: tier 2's links (the operators inlined).
  const unsigned char* ltoir_fatbin;
  std::size_t ltoir_fatbin_size;
  const char* const* kernels;  // lowered names, role order
  int kernel_count;
  const long long* meta;
  int meta_count;
  /// The operator symbols its out-of-line (tier-1) kernels call: the batched forms a quick build
  /// generates (the link would drop the others). Null-terminated; call_count 0: not recorded.
  const char* const* calls;
  int call_count;
};

/// A named operator precompiled for a slot of the data-processing families (kernel_set.hpp,
/// named_object_specs): LTO-IR for the inlined link and a relocatable cubin for the quick one.
struct precompiled_named {
  const char* key;  // named_object_key()
  int arch;
  const unsigned char* ltoir;
  std::size_t ltoir_size;
  const unsigned char* cubin;
  std::size_t cubin_size;
};

extern const precompiled_set precompiled_sets[];
extern const int precompiled_set_count;
extern const precompiled_named precompiled_named_objects[];
extern const int precompiled_named_count;
/// Identifies the precompiled table (hash of its inputs); part of every disk cache key.
extern const char* const precompiled_build_id;

const precompiled_set* find_precompiled(const std::string& key, int arch);
const precompiled_named* find_named_object(const std::string& key, int arch);
/// Whether the library precompiled the set `key` for some architecture.
bool precompiled_for_any_arch(const std::string& key);

}  // namespace cupar::detail::jit
