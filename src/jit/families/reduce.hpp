// cupar internal: the host dispatch of reduce and transform_reduce (reduce_run.cu), called by its
// library entry (reduce_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// reduce and, with a transform's state (transform_reduce sets), transform_reduce.
cudaError_t run_reduce(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const void* in, void* out,
                       std::size_t n, const void* op_state, const void* init,
                       std::size_t value_size, cudaStream_t stream,
                       const void* transform_state = nullptr);

}  // namespace cupar::detail::jit
