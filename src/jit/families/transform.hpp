// cupar internal: the host dispatch of transform (transform_run.cu), called by its library
// entry (transform_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// Transform (module meta: algorithm, block threads, min / max items per thread, minimum bytes in
/// flight, bytes loaded per item). Mirrors CUB's detail::transform::dispatch_t, whose bulk-copy
/// path in 3.0.1 launches through CUB's triple-chevron launcher only.
cudaError_t run_transform(const loaded_module& m, const device_info& dev, launch_status& st,
                          int arity, const void* const* inputs, void* out, std::size_t n,
                          const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit
