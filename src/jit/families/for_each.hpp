// cupar internal: the host dispatch of the for_each set (for_each_run.cu), called by its library
// entry (for_each_call.cpp).
#pragma once

#include "../core/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace cupar::detail::jit {

/// The "for_each" set (module meta: block threads): `items` indices per thread (the generated
/// slot's choice), one tile of block threads x items per block, at most the grid's limit of
/// blocks (the kernel strides over the rest). No temporary storage.
cudaError_t run_for_each(const loaded_module& m, const device_info& dev, launch_status& st,
                         std::size_t n, unsigned items, const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit
