// cupar internal: copies of arrays of records between two strides, for the run-time path's
// padded records (src/jit/core/entry.cpp): a record of 4-byte fields whose size or array has no
// precompiled class is copied into an 8-byte-aligned array of the next 8-byte size, served by
// that size's class, and its outputs copied back. Plain C++ (the kernels live in restride.cu), so
// the host-compiled JIT front end can call them.
#pragma once

#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar::detail {

/// Which elements a restride copies: all n, or as many as a count the call wrote to device
/// memory says (counts[0], counts[1], or n - counts[0] - counts[1]: a three-way partition's
/// parts), at most n, read when the copy runs.
struct restride_bound {
  enum kind_t { all, first, second, rest } kind = all;
  const std::size_t* counts = nullptr;  // device
};

/// For i below n (or the bound): the first min(src_size, dst_size) bytes of record i of `src`
/// (records src_size bytes apart) to record i of `dst` (dst_size apart), the rest of a larger
/// record zeroed. Both sizes multiples of 4 and both arrays 4-byte aligned; the arrays must not
/// overlap. Queued on `stream`; does not synchronise. Throws cupar::cuda_error if the launch
/// fails.
void restride(const void* src, std::size_t src_size, void* dst, std::size_t dst_size, std::size_t n,
              restride_bound bound, stream_ref stream);

}  // namespace cupar::detail
