// cupar internal: reduce and scan with named operators on arithmetic types: CUB's own
// instantiations with cuda::std function objects, compiled into the library (nothing to JIT).
#pragma once

#include "library_types.hpp"

#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {

/// Whether `named` has a precompiled instantiation for T (bitwise operators: integers only; none
/// for a type the library is not built for: CUPAR_LIBRARY_TYPES).
template <class T>
constexpr bool named_op_supported(cupar::jit::named_op named) {
  if (!library_has_v<T>) return false;
  switch (named) {
    case cupar::jit::named_op::plus:
    case cupar::jit::named_op::multiplies:
    case cupar::jit::named_op::minimum:
    case cupar::jit::named_op::maximum:
      return true;
    case cupar::jit::named_op::bit_and:
    case cupar::jit::named_op::bit_or:
    case cupar::jit::named_op::bit_xor:
      return std::is_integral_v<T>;
    default:
      return false;
  }
}

/// `any_order` (determinism::not_guaranteed): plus on a type with atomic adds runs the
/// single-pass sum (detail/atomic_reduce.cuh).
template <class T>
void named_reduce(cupar::jit::named_op named, const T* d_in, T* d_out, std::size_t n, T init,
                  bool any_order, stream_ref stream, memory_resource& mr);

/// `init` null: inclusive scan.
template <class T>
void named_scan(cupar::jit::named_op named, const T* d_in, T* d_out, std::size_t n, const T* init,
                stream_ref stream, memory_resource& mr);

#define CUPAR_DECLARE_NAMED(T)                                                                   \
  extern template void named_reduce<T>(cupar::jit::named_op, const T*, T*, std::size_t, T, bool, \
                                       stream_ref, memory_resource&);                            \
  extern template void named_scan<T>(cupar::jit::named_op, const T*, T*, std::size_t, const T*,  \
                                     stream_ref, memory_resource&);
CUPAR_DECLARE_NAMED(signed char)
CUPAR_DECLARE_NAMED(short)
CUPAR_DECLARE_NAMED(int)
CUPAR_DECLARE_NAMED(long long)
CUPAR_DECLARE_NAMED(unsigned char)
CUPAR_DECLARE_NAMED(unsigned short)
CUPAR_DECLARE_NAMED(unsigned int)
CUPAR_DECLARE_NAMED(unsigned long long)
CUPAR_DECLARE_NAMED(float)
CUPAR_DECLARE_NAMED(double)
#undef CUPAR_DECLARE_NAMED

}  // namespace cupar::detail
