// cupar internal: the data-processing families' library entry (jit_data_processing) hands each
// call to its family's file (api_select.cpp, api_by_key.cpp, api_segmented.cpp, api_search.cpp).
#pragma once

#include "request.hpp"

#include <cupar/detail/jit_entry.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

namespace cupar::detail {

/// The kernel set family serving an operation.
jit::family family_of(dp_op what);

/// The JIT request of a data-processing operation on the caller's types with the caller's
/// operators (null: the slot's default). `in_place`: select_if / select_flagged writing over
/// their input.
jit::set_request dp_request(dp_op what, const jit_type* const types[2],
                            const cupar::jit::op* const ops[2], bool in_place);

void call_select(const jit_dp_args& a, stream_ref s, memory_resource& mr);
void call_three_way(const jit_dp_args& a, stream_ref s, memory_resource& mr);
void call_by_key(const jit_dp_args& a, stream_ref s, memory_resource& mr);
void call_segmented(const jit_dp_args& a, stream_ref s, memory_resource& mr);
void call_search(const jit_dp_args& a, stream_ref s, memory_resource& mr);

}  // namespace cupar::detail
