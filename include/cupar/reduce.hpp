// cupar: reduce with a run-time operator (any host compiler). The overloads taking C++ callables
// are in reduce.cuh; both behave the same (see there for the semantics).
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
CUPAR_JIT_CALL(reduce)
CUPAR_JIT_CALL(transform_reduce)
}  // namespace cupar::detail

namespace cupar {

// The reduce with a determinism choice (documented where it is defined, below), which the plain
// reduce calls.
template <class T>
void reduce(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
            detail::type_identity_t<T> init, determinism order, stream_ref stream,
            memory_resource& mr = default_resource());

/// Reduces `d_in[0, n)` with the run-time operator `op` (arguments `a`, `b`; e.g. "a + b",
/// cupar::jit::maximum), starting from `init`, into `*d_out` (device memory; receives `init` when
/// n == 0). `op` must be associative. T: an arithmetic type or a struct described with
/// CUPAR_JIT_TYPE. Named operators on arithmetic types compile nothing.
/// @throws std::invalid_argument for null pointers (d_in with n > 0, d_out)
/// @throws cupar::jit_error when the operator does not compile or link (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new operator compiles it (see jit.hpp).
template <class T>
void reduce(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
            detail::type_identity_t<T> init, stream_ref stream,
            memory_resource& mr = default_resource()) {
  reduce<T>(d_in, d_out, n, op, init, determinism::run_to_run, stream, mr);
}

/// As reduce(), starting from the value at `init.ptr` in device memory, read when the kernels run
/// (cupar::device_value: e.g. the result of an earlier reduction on the stream, no trip to the
/// host). A named operator takes the kernel sets here (tens of milliseconds on its first call).
/// @throws std::invalid_argument for null pointers (d_in with n > 0, d_out, init.ptr)
/// @throws cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void reduce(const T* d_in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
            stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}, {d_in}};
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  a.d_init = detail::device_init_address("cupar::reduce", init.ptr);
  detail::jit_run(a, stream, mr);
}

/// As reduce(), with the determinism the caller needs (cupar::determinism). With
/// determinism::not_guaranteed the named cupar::jit::plus on 32- or 64-bit integers, float or
/// double runs in one pass: every block adds its total to `*d_out` with one atomic add, with no
/// second kernel and no temporary storage, and a floating-point result may differ in its last bits
/// from run to run. Any other operator (a snippet computing a + b included) or type runs the
/// run-to-run reduce, and so does an output inside the input array.
/// @throws std::invalid_argument as reduce(), and for an `order` that is not a determinism value
/// @throws cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void reduce(const T* d_in, T* d_out, std::size_t n, const jit::op& op,
            detail::type_identity_t<T> init, determinism order, stream_ref stream,
            memory_resource& mr) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}, {d_in}};
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  a.init = &init;
  a.order = order;
  detail::jit_run(a, stream, mr);
}

/// Reduces like reduce() and returns the result to the host. Synchronises `stream` (only it).
template <class T>
T reduce_value(const T* d_in, std::size_t n, const jit::op& op, detail::type_identity_t<T> init,
               stream_ref stream, memory_resource& mr = default_resource()) {
  T result;
  detail::jit_args a{
      "cupar::reduce_value", &detail::reduce_call(), {&detail::jit_type_of<T>()}, {d_in}};
  a.host_out = &result;
  a.n = n;
  a.ops[0] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
  return result;
}

/// Reduces the first n elements of the iterator expression `in` (jit_iterator.hpp: counting,
/// constant, transform, zip, permutation, reverse over device arrays) with `op`, starting from
/// `init`, into `*d_out`: one fused pass, element i computed where the kernels would load it. Each
/// element is converted to T; a zip's elements initialise a struct T's members in order (argmin
/// and argmax: zip({{"i", counting(0ll)}, {"v", d_x}}) into a struct {long long i; float v;}).
///
/// @param in    the expression (its arrays must hold the elements it reads for i < n)
/// @param d_out device result, one T; receives `init` when n == 0
/// @param op    run-time operator T x T -> T, arguments `a`, `b` (associative)
/// @param init  initial value
/// T: an arithmetic type or a struct described with CUPAR_JIT_TYPE.
/// @throws std::invalid_argument for a null d_out, a null array in `in` with n > 0, an expression
///         whose pointers, values and parameters exceed cupar::jit::max_expression_state_bytes, or
///         a zip reduced into an arithmetic T
/// @throws cupar::jit_error when a snippet does not compile or link (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new expression shape or operator compiles them (tens of
/// milliseconds; see jit_iterator.hpp); the same shape over other arrays or values compiles
/// nothing.
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void reduce(const I& in, T* d_out, std::size_t n, const jit::op& op,
            detail::type_identity_t<T> init, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}};
  a.in_iter[0] = &in;
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
}

/// As reduce over an iterator expression, starting from the value at `init.ptr` in device memory
/// (cupar::device_value), read when the kernels run.
/// @throws std::invalid_argument as the form above, and for a null init.ptr
/// Asynchronous.
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
void reduce(const I& in, T* d_out, std::size_t n, const jit::op& op, device_value<T> init,
            stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}};
  a.in_iter[0] = &in;
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &op;
  a.d_init = detail::device_init_address("cupar::reduce", init.ptr);
  detail::jit_run(a, stream, mr);
}

/// Reduces the first n elements of `in` (an iterator expression, or an array: jit::iterator(d_x))
/// with `op` from `init` (T deduced from it: pass 0.0f, not 0, for a float sum), writing the one
/// result through the output expression `out` (jit_iterator.hpp: jit::transform_output(d_y, f)
/// stores f(result) into d_y[0], jit::zip_output each field of a struct result to its own
/// array; an array receives it at [0]). The result goes to a temporary slot first, then one
/// more pass of one element stores it (both queued on `stream`).
///   // the mean in one call: the sum written divided by n
///   jit::op mean("x / n");
///   mean.param("n", static_cast<float>(n));
///   cupar::reduce(jit::iterator(d_x), jit::transform_output(d_mean, mean), n, jit::plus, 0.0f, s);
/// @throws std::invalid_argument as the reduce over an expression, and for a null array in `out`
/// @throws cupar::jit_error when the store does not compile (before anything runs),
///         cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class T>
void reduce(const jit::iterator& in, const jit::output& out, std::size_t n, const jit::op& op,
            T init, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}};
  a.in_iter[0] = &in;
  a.out_iter[0] = &out;
  a.n = n;
  a.ops[0] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
}

/// As above, the initial value read from device memory when the kernels run
/// (cupar::device_value).
template <class T>
void reduce(const jit::iterator& in, const jit::output& out, std::size_t n, const jit::op& op,
            device_value<T> init, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::reduce", &detail::reduce_call(), {&detail::jit_type_of<T>()}};
  a.in_iter[0] = &in;
  a.out_iter[0] = &out;
  a.n = n;
  a.ops[0] = &op;
  a.d_init = detail::device_init_address("cupar::reduce", init.ptr);
  detail::jit_run(a, stream, mr);
}

/// As reduce over an iterator expression, and returns the result to the host. T is deduced from
/// `init` (pass 0.0f, not 0, for a float sum). Synchronises `stream` (only it).
template <class T, class I, class = std::enable_if_t<std::is_same_v<I, jit::iterator>>>
T reduce_value(const I& in, std::size_t n, const jit::op& op, T init, stream_ref stream,
               memory_resource& mr = default_resource()) {
  T result;
  detail::jit_args a{"cupar::reduce_value", &detail::reduce_call(), {&detail::jit_type_of<T>()}};
  a.in_iter[0] = &in;
  a.host_out = &result;
  a.n = n;
  a.ops[0] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
  return result;
}

/// Reduces transform(d_in[i]) for i in [0, n) with `op`, starting from `init`, into `*d_out`: the
/// fused pass of a transform and a reduce (sum of squares: transform "x * x", op
/// cupar::jit::plus; count where: transform "x > t ? 1ull : 0ull"), at the plain reduce's speed:
/// CUB's reduce kernels load the elements (vector loads for arithmetic In) and apply `transform`
/// in registers, with no temporary array.
///
/// @param d_in      device elements (may be null when n == 0)
/// @param d_out     device result, one Acc; receives `init` when n == 0
/// @param transform run-time operator In -> Acc, argument `x` (its result is converted to Acc)
/// @param op        run-time operator Acc x Acc -> Acc, arguments `a`, `b` (associative)
/// @param init      initial value, of the accumulator type Acc
/// In, Acc: arithmetic types or structs described with CUPAR_JIT_TYPE.
/// @throws std::invalid_argument for null pointers (d_in with n > 0, d_out)
/// @throws cupar::jit_error when an operator does not compile or link (log and line inside)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. The first call with a new pair of operators compiles them (see jit.hpp).
template <class In, class Acc>
void transform_reduce(const In* d_in, Acc* d_out, std::size_t n, const jit::op& transform,
                      const jit::op& op, detail::type_identity_t<Acc> init, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  detail::jit_args a{"cupar::transform_reduce",
                     &detail::transform_reduce_call(),
                     {&detail::jit_type_of<In>(), &detail::jit_type_of<Acc>()},
                     {d_in}};
  a.out[0] = d_out;
  a.n = n;
  a.ops[0] = &transform;
  a.ops[1] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
}

/// As transform_reduce, and returns the result to the host. Acc is deduced from `init` (pass
/// 0.0f, not 0, for a float sum). Synchronises `stream` (only it).
template <class In, class Acc>
Acc transform_reduce_value(const In* d_in, std::size_t n, const jit::op& transform,
                           const jit::op& op, Acc init, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  Acc result;
  detail::jit_args a{"cupar::transform_reduce_value",
                     &detail::transform_reduce_call(),
                     {&detail::jit_type_of<In>(), &detail::jit_type_of<Acc>()},
                     {d_in}};
  a.host_out = &result;
  a.n = n;
  a.ops[0] = &transform;
  a.ops[1] = &op;
  a.init = &init;
  detail::jit_run(a, stream, mr);
  return result;
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// Builds `op` as reduce's operator on T for sm_<arch> without running anything (no GPU needed:
/// validate operators ahead of time, or test on machines without one). `optimized`: the inlined
/// (LTO) build, else the quick out-of-line one. Throws cupar::jit_error as reduce would.
template <class T>
build_report compile_reduce(const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::reduce_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr,
                                           arch, optimized);
}

/// As compile_reduce, for a reduce over the iterator expression `in` into T (the expression's
/// code and the operator built together, linked to the "+index" kernels). Null arrays are
/// allowed (nothing runs).
template <class T>
build_report compile_reduce(const iterator& in, const op& o, int arch = 90, bool optimized = true) {
  return ::cupar::detail::jit_compile_call(::cupar::detail::reduce_call(),
                                           &::cupar::detail::jit_type_of<T>(), nullptr, &o, nullptr,
                                           arch, optimized, &in);
}

/// As compile_reduce, for transform_reduce: `transform` (In -> Acc, argument `x`) and the
/// reduction `op` (Acc x Acc -> Acc) built together.
template <class In, class Acc>
build_report compile_transform_reduce(const op& transform, const op& o, int arch = 90,
                                      bool optimized = true) {
  return ::cupar::detail::jit_compile_call(
      ::cupar::detail::transform_reduce_call(), &::cupar::detail::jit_type_of<In>(),
      &::cupar::detail::jit_type_of<Acc>(), &transform, &o, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
