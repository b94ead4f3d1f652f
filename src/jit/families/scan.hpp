// cupar internal: the host dispatch of the scans (scan_run.cu), called by its library
// entry (scan_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Scans; with an iterator expression's state (the "+index" sets) the input is the expression
/// (`in` unused), and with an output expression's state too (the "+io" sets) the output (`out`
/// unused).
cudaError_t run_scan(const loaded_module& m, const device_info& dev, launch_status& st, void* temp,
                     std::size_t& temp_bytes, const void* in, void* out, std::size_t n,
                     const void* op_state, const void* init /* null: inclusive */,
                     cudaStream_t stream, const void* expression_state = nullptr,
                     const void* output_state = nullptr);

}  // namespace cupar::detail::jit
