// cupar internal: iterator expressions (jit_iterator.hpp) turned into the operator of an index
// set's first slot.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>

#include <cstddef>

namespace cupar::detail::jit {

/// The operator computing element `cupar_i` of `it` converted to `acc` (the first slot of the
/// "+index" transform_reduce sets), with its state (the expression's pointers, start values,
/// constants, the transforms' parameters and `n`, which reverse() reads) filled. Operators of the
/// same expression shape share one definition, so their builds are found in its cache.
/// Throws std::invalid_argument, naming `fn`, for a null array with n > 0, a state larger than
/// cupar::jit::max_param_bytes, or a zip reduced into an arithmetic type.
cupar::jit::op expression_op(const cupar::jit::iterator& it, const jit_type& acc, std::size_t n,
                             const char* fn);

/// The type of the "+index" sets' input (unsigned long long indices).
const jit_type& index_type();

}  // namespace cupar::detail::jit
