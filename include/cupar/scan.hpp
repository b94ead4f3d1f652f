// cupar: scans with a run-time operator (any host compiler). The overloads taking C++ callables
// are in scan.cuh; both behave the same (see there for the semantics).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar {

/// d_out[i] = d_in[0] op ... op d_in[i] with a run-time operator (arguments `a`, `b`).
/// d_out may equal d_in (in place) but must not otherwise overlap it.
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void inclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan(
      {"cupar::inclusive_scan", &detail::jit_type_of<T>(), d_in, d_out, n, &op, nullptr}, stream,
      mr);
}

/// d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i - 1] with a run-time operator.
/// As inclusive_scan otherwise.
template <class T>
void exclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                    detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan({"cupar::exclusive_scan", &detail::jit_type_of<T>(), d_in, d_out, n, &op, &init},
                   stream, mr);
}

}  // namespace cupar
