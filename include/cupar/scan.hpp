// cupar: scans with a run-time operator (any host compiler). The overloads taking C++ callables
// are in scan.cuh; both behave the same (see there for the semantics).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <cstddef>
#include <type_traits>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(inclusive_scan)
CUPAR_JIT_CALL(exclusive_scan)
}  // namespace cupar::detail

namespace cupar::detail {
/// The run-time scans: the input an array (`in`) or an expression (`in_expr`), the output an array
/// or an output expression, the initial value none (inclusive), a host value or a device one.
template <class T>
void jit_scan(const jit_call& call, const char* fn, const void* in, const jit::iterator* in_expr,
              void* out, const jit::output* out_expr, std::size_t n, const jit::op& op,
              const T* init, const device_value<T>* d_init, stream_ref stream,
              memory_resource& mr) {
  jit_args a{fn, &call, {&jit_type_of<T>()}, {in}};
  a.in_iter[0] = in_expr;
  a.out[0] = out;
  a.out_iter[0] = out_expr;
  a.n = n;
  a.ops[0] = &op;
  a.init = init;
  if (d_init != nullptr) a.d_init = device_init_address(fn, d_init->ptr);
  jit_run(a, stream, mr);
}
}  // namespace cupar::detail

namespace cupar {

/// d_out[i] = d_in[0] op ... op d_in[i] with a run-time operator (arguments `a`, `b`).
/// d_out may equal d_in (in place) but must not otherwise overlap it.
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void inclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", d_in, nullptr, d_out,
                      nullptr, n, op, nullptr, nullptr, stream, mr);
}

/// d_out[0] = init, d_out[i] = init op d_in[0] op ... op d_in[i - 1] with a run-time operator.
/// As inclusive_scan otherwise.
template <class T>
void exclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                    detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", d_in, nullptr, d_out,
                      nullptr, n, op, &init, nullptr, stream, mr);
}

/// d_out[i] = init op d_in[0] op ... op d_in[i]: an inclusive scan seeded with `init` (CUB's
/// InclusiveScanInit; the peer's inclusive_scan with an initial value). As inclusive_scan
/// otherwise. A named operator takes the kernel sets here (tens of milliseconds on its first
/// call with T).
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void inclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                    detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", d_in, nullptr, d_out,
                      nullptr, n, op, &init, nullptr, stream, mr);
}

/// As the seeded inclusive_scan above, the initial value read from device memory at `init.ptr`
/// when the kernels run (cupar::device_value: e.g. a total an earlier kernel on the stream
/// wrote). @throws std::invalid_argument also for a null init.ptr. Asynchronous.
template <class T>
void inclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", d_in, nullptr, d_out,
                      nullptr, n, op, nullptr, &init, stream, mr);
}

/// As exclusive_scan, the initial value read from device memory at `init.ptr` when the kernels
/// run (cupar::device_value). @throws std::invalid_argument also for a null init.ptr.
/// Asynchronous.
template <class T>
void exclusive_scan(const T* d_in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", d_in, nullptr, d_out,
                      nullptr, n, op, nullptr, &init, stream, mr);
}

/// Inclusive scan of the first n elements of the iterator expression `in` (jit_iterator.hpp)
/// into d_out, each element converted to T: one fused pass (a prefix sum of squares, a running
/// count of a predicate, a scan of a gather). d_out must not be an array `in` reads.
/// @throws std::invalid_argument for a null d_out with n > 0, a null array in `in` with n > 0, or
///         an expression whose state exceeds cupar::jit::max_expression_state_bytes
/// @throws cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new expression shape or operator compiles them (tens of
/// milliseconds); the same shape over other arrays or values compiles nothing.
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void inclusive_scan(const I& in, T* d_out, std::size_t n, const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, d_out,
                      nullptr, n, op, nullptr, nullptr, stream, mr);
}

/// Exclusive scan of an iterator expression; as the inclusive one otherwise.
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void exclusive_scan(const I& in, T* d_out, std::size_t n, const jit::op& op,
                    detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", nullptr, &in, d_out,
                      nullptr, n, op, &init, nullptr, stream, mr);
}

/// Inclusive scan of an iterator expression seeded with `init` (a host value, or a
/// cupar::device_value read when the kernels run); as the forms above otherwise.
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void inclusive_scan(const I& in, T* d_out, std::size_t n, const jit::op& op,
                    detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, d_out,
                      nullptr, n, op, &init, nullptr, stream, mr);
}

/// As above, the initial value read from device memory (cupar::device_value).
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void inclusive_scan(const I& in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, d_out,
                      nullptr, n, op, nullptr, &init, stream, mr);
}

/// Exclusive scan of an iterator expression, the initial value read from device memory
/// (cupar::device_value).
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void exclusive_scan(const I& in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", nullptr, &in, d_out,
                      nullptr, n, op, nullptr, &init, stream, mr);
}

/// Inclusive scan with values of type T (named: cupar::inclusive_scan<float>(...)) of the first
/// n elements of the iterator expression `in` (or an array), each converted to T, written
/// through the output expression `out` (jit_iterator.hpp: an array, jit::transform_output,
/// jit::discard()): one fused pass, e.g. a running sum written scaled, or into another type.
/// `out` must not write an array `in` reads.
/// @throws std::invalid_argument for a null array in `in` or `out` with n > 0, or an expression
///         whose state exceeds cupar::jit::max_expression_state_bytes
/// @throws cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The "+io" scan sets: precompiled for the arithmetic types (the expressions'
/// code and the operator compiled and linked, tens of milliseconds), from source for structs.
template <class T>
void inclusive_scan(const jit::iterator& in, const jit::output& out, std::size_t n,
                    const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, nullptr,
                      &out, n, op, nullptr, nullptr, stream, mr);
}

/// Exclusive scan into an output expression, T deduced from `init`; as the inclusive one.
template <class T>
void exclusive_scan(const jit::iterator& in, const jit::output& out, std::size_t n,
                    const jit::op& op, T init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", nullptr, &in, nullptr,
                      &out, n, op, &init, nullptr, stream, mr);
}

/// Inclusive scan into an output expression seeded with `init`, T deduced from it (a host value:
/// pass 0.0f, not 0, for floats); as the forms above otherwise.
template <class T>
void inclusive_scan(const jit::iterator& in, const jit::output& out, std::size_t n,
                    const jit::op& op, T init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, nullptr,
                      &out, n, op, &init, nullptr, stream, mr);
}

/// As above, the initial value read from device memory (cupar::device_value).
template <class T>
void inclusive_scan(const jit::iterator& in, const jit::output& out, std::size_t n,
                    const jit::op& op, device_value<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::inclusive_scan_call(), "cupar::inclusive_scan", nullptr, &in, nullptr,
                      &out, n, op, nullptr, &init, stream, mr);
}

/// Exclusive scan into an output expression, the initial value read from device memory
/// (cupar::device_value).
template <class T>
void exclusive_scan(const jit::iterator& in, const jit::output& out, std::size_t n,
                    const jit::op& op, device_value<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::jit_scan<T>(detail::exclusive_scan_call(), "cupar::exclusive_scan", nullptr, &in, nullptr,
                      &out, n, op, nullptr, &init, stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for an inclusive or exclusive scan's operator.
template <class T>
build_report compile_scan(const op& o, bool inclusive, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      (inclusive ? ::cupar::detail::inclusive_scan_call() : ::cupar::detail::exclusive_scan_call()),
      &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr, arch, optimized);
}

/// As compile_scan, for a scan of the iterator expression `in` into T (the "+index" scan sets).
template <class T>
build_report compile_scan(const iterator& in, const op& o, bool inclusive, int arch = 90,
                          bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      (inclusive ? ::cupar::detail::inclusive_scan_call() : ::cupar::detail::exclusive_scan_call()),
      &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr, arch, optimized, &in);
}

/// As compile_scan, for a scan of the iterator expression `in` into the output expression `out`
/// with values of type T (the "+io" scan sets).
template <class T>
build_report compile_scan(const iterator& in, const output& out, const op& o, bool inclusive,
                          int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      (inclusive ? ::cupar::detail::inclusive_scan_call() : ::cupar::detail::exclusive_scan_call()),
      &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr, arch, optimized, &in, &out);
}

/// As compile_scan, for an inclusive scan seeded with an initial value (the "+init" sets; with an
/// iterator expression "+index_init", into an output expression too "+io_init").
template <class T>
build_report compile_scan_init(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::inclusive_scan_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr,
                                           arch, optimized, nullptr, nullptr, true);
}
/// As compile_scan_init, for a scan of the iterator expression `in`.
template <class T>
build_report compile_scan_init(const iterator& in, const op& o, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::inclusive_scan_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr,
                                           arch, optimized, &in, nullptr, true);
}
/// As compile_scan_init, for a scan of `in` into the output expression `out`.
template <class T>
build_report compile_scan_init(const iterator& in, const output& out, const op& o, int arch = 90,
                               bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::inclusive_scan_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr,
                                           arch, optimized, &in, &out, true);
}

}  // namespace jit

}  // namespace cupar
