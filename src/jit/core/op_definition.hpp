// cupar internal: what a jit::op refers to (immutable once built, shared by copies of the op).
#pragma once

#include "engine.hpp"

#include <cupar/jit.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cupar::jit::detail {

struct op_definition {
  std::string source;
  named_op named = named_op::none;
  std::vector<op_param> params;
  std::string preamble;
  std::size_t state_bytes = 0;
  trust level = trust::trusted;
  /// Operators cupar generates (iterator expressions, iterator.cpp): `source` and `preamble`
  /// are cupar's own code, which places the user's snippets given by `parts` in their own
  /// pseudo-files (compile errors point into them; their text is checked as the operators'
  /// trust level says), and whose state bytes the generator fills.
  bool generated = false;
  /// A generated operator whose state is wider than max_param_bytes: the kernels' parameter
  /// bytes hold the address of its device copy, which the operator function reads first.
  bool wide_state = false;
  struct part {
    std::string file;  // e.g. "cupar_transform_1"
    cupar::jit::op op;
    // For messages (empty: an iterator expression's transform of argument x).
    std::string what = std::string();
    std::string role = std::string();
  };
  std::vector<part> parts;

  /// Identity of everything that changes the compiled operator (not the parameter values).
  std::string fingerprint() const;

  /// Programs this operator was built into, for the per-call lookup without hashing.
  struct cached_program {
    cupar::detail::jit::fast_key key;
    std::shared_ptr<cupar::detail::jit::program_entry> entry;
    /// The other slots' operator definitions the key names by address, kept alive so that the
    /// address cannot be reused by another definition while the key is remembered.
    std::vector<std::shared_ptr<const op_definition>> others;
  };
  mutable std::mutex cache_mutex;
  mutable std::vector<cached_program> cache;
  mutable std::uint64_t cache_generation = 0;
};

}  // namespace cupar::jit::detail
