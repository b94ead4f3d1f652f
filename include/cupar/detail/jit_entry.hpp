// cupar internal: what the public JIT overloads hand to the library.
#pragma once

#include <cupar/config.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace cupar::jit {
class iterator;
class output;
}  // namespace cupar::jit

namespace cupar::detail {

/// An element type as the JIT sees it. One static instance per C++ type (jit_type_of), so the
/// library can tell types apart by address on its per-call path.
struct jit_type {
  scalar kind;             // an arithmetic type, or 0 for a user type
  const char* name;        // spelling in device code
  const char* definition;  // device source of a user type (null for arithmetic types)
  std::uint32_t size;
  std::uint32_t align;
  /// A user type whose values the kernels may move as the unsigned integer of its size (bool,
  /// __half, __nv_bfloat16: CUPAR_JIT_WORD_TYPE): served by the kernel sets of that integer, its
  /// operators' wrappers bit-casting to the type the snippet sees.
  bool word = false;

  /// A user type (CUPAR_JIT_TYPE / CUPAR_JIT_STRUCT), not an arithmetic one.
  constexpr bool is_struct() const noexcept { return static_cast<int>(kind) == 0; }
};

template <class T, class = void>
struct has_type_source : std::false_type {};
template <class T>
struct has_type_source<T, std::void_t<decltype(jit::type_source<T>::definition)>> : std::true_type {
};

template <class T, class = void>
struct is_word_type : std::false_type {};
template <class T>
struct is_word_type<T, std::void_t<decltype(jit::type_source<T>::word)>>
    : std::bool_constant<jit::type_source<T>::word> {};

template <class T>
const jit_type& jit_type_of() {
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::jit: element types must be trivially copyable");
  if constexpr (is_scalar_v<T>) {
    static const jit_type t{scalar_of<T>(), scalar_cxx_name(scalar_of<T>()), nullptr, sizeof(T),
                            alignof(T)};
    return t;
  } else {
    static_assert(
        has_type_source<T>::value,
        "cupar::jit: this element type is not arithmetic and has no device-side "
        "definition; describe it with CUPAR_JIT_TYPE(Type, \"name\", \"struct ... {...};\") "
        "or define it with CUPAR_JIT_STRUCT");
    static_assert(!is_word_type<T>::value || (sizeof(T) == alignof(T) && sizeof(T) <= 8),
                  "cupar::jit: a word type has the size and alignment of an unsigned integer");
    static const jit_type t{static_cast<scalar>(0),
                            jit::type_source<T>::name,
                            jit::type_source<T>::definition,
                            sizeof(T),
                            alignof(T),
                            is_word_type<T>::value};
    return t;
  }
}

/// A plan's build (see plan.hpp), opaque outside the library.
struct plan_state;

/// A run-time operation of the library ("reduce", "select_if", "lower_bound", ...): one record in
/// the library's table of calls (src/jit/families/), opaque outside it.
struct jit_call;

/// The operation named `name`. Throws std::invalid_argument when the library has no such
/// operation (a header of another cupar version). The public headers look each one up once,
/// through CUPAR_JIT_CALL.
CUPAR_EXPORT const jit_call& jit_call_named(const char* name);

/// Defines `const jit_call& <name>_call()` in the enclosing namespace: the operation `name`,
/// looked up once (a function-local static). A public header names each operation it calls:
///   CUPAR_JIT_CALL(reduce)  ...  jit_args a{"cupar::reduce", &reduce_call()};
#define CUPAR_JIT_CALL(name)                                                               \
  inline const ::cupar::detail::jit_call& name##_call() {                                  \
    static const ::cupar::detail::jit_call& call = ::cupar::detail::jit_call_named(#name); \
    return call;                                                                           \
  }

/// The arguments of every run-time call, compile-only build and plan: one shape for every
/// operation. Each field means the same thing in every call; a call leaves the fields it does not
/// use null / zero (each public function says what it passes).
struct jit_args {
  const char* function = nullptr;  // the public function's name, for errors
  const jit_call* call = nullptr;  // the operation (jit_call_named)
  /// The element types, in the order the operation's public function names its template
  /// parameters (T; K, V; In, Out; A, B, Out; Acc, In; Key, Value, ...).
  const jit_type* types[3] = {nullptr, nullptr, nullptr};
  const void* in[2] = {nullptr, nullptr};  // input arrays (items or keys; values, flags, needles)
  /// Iterator expressions in place of in[k] (jit::input): null where in[k] is an array.
  const jit::iterator* in_iter[2] = {nullptr, nullptr};
  void* out[3] = {nullptr, nullptr, nullptr};  // output arrays
  /// Output expressions in place of out[k] (jit::output): null where out[k] is an array.
  const jit::output* out_iter[3] = {nullptr, nullptr, nullptr};
  void* host_out = nullptr;                     // a result returned to host memory (reduce_value)
  std::size_t* d_count = nullptr;               // device count(s) the call writes
  std::size_t* host_count = nullptr;            // the *_count forms: count(s) returned to the host
  std::size_t n = 0;                            // elements of the input(s)
  std::size_t m = 0;                            // needles (binary search) or segments
  const std::int64_t* begin_offsets = nullptr;  // segments' offsets
  const std::int64_t* end_offsets = nullptr;
  /// Iterator expressions in place of the begin / end offsets (segmented operations).
  const jit::iterator* offsets_iter[2] = {nullptr, nullptr};
  /// The operators, in the order the public function takes them; null: the slot's default
  /// (equality, less).
  const jit::op* ops[2] = {nullptr, nullptr};
  /// The initial value in host memory (reduce, the scans: an inclusive scan with one is seeded
  /// with it), or null.
  const void* init = nullptr;
  /// Or the address of the initial value in device memory, read when the kernels run
  /// (cupar::device_value): reduce and the scans.
  const void* d_init = nullptr;
  /// reduce: determinism::not_guaranteed permits the single-pass sum (named plus on arrays).
  determinism order = determinism::run_to_run;
  const plan_state* plan = nullptr;  // set by plan objects: skips the cache lookup
  /// Set by the library for a compile-only build or a plan's (jit_compile, jit_make_plan): no
  /// arrays are known. (A call's arrays may all be null too, when it has no elements.)
  bool build_only = false;
  /// The operation's own parameters: a struct its public header defines (histogram_params), or
  /// null for operations without any.
  const void* params = nullptr;
};

/// The address of an initial value given as cupar::device_value: not null (else
/// std::invalid_argument naming `function`).
inline const void* device_init_address(const char* function, const void* ptr) {
  if (ptr == nullptr) throw_invalid_argument(function, "init.ptr (a cupar::device_value) is null");
  return ptr;
}

/// Runs the operation `args.call` on `stream` (on the stream's device). Synchronises only where
/// the public function says so (host results and counts). Throws as the public function says.
CUPAR_EXPORT void jit_run(const jit_args& args, stream_ref stream, memory_resource& mr);

/// Builds (or finds) what the operation `args.call` runs for its types, operators and expressions
/// (arrays may be null) for sm_<arch>, without loading it (jit_compile.hpp).
CUPAR_EXPORT ::cupar::jit::build_report jit_compile(const jit_args& args, int arch, bool optimized);

/// The compile-only build of the public headers' compile_* functions: `call` on the types t0, t1
/// with the operators op0, op1 (null: none, or the slot's default), reading the expression `in`
/// and writing through `out` where given.
inline ::cupar::jit::build_report jit_compile_call(
    const jit_call& call, const jit_type* t0, const jit_type* t1, const ::cupar::jit::op* op0,
    const ::cupar::jit::op* op1, int arch, bool optimized,
    const ::cupar::jit::iterator* in = nullptr, const ::cupar::jit::output* out = nullptr,
    bool seeded = false, const ::cupar::jit::iterator* in1 = nullptr) {
  jit_args a{"cupar::jit::compile", &call, {t0, t1}};
  a.ops[0] = op0;
  a.ops[1] = op1;
  a.in_iter[0] = in;
  a.in_iter[1] = in1;  // the second input (values) as an expression
  a.out_iter[0] = out;
  // An inclusive scan with an initial value: only whether there is one matters to a build.
  static const long long some_value = 0;
  if (seeded) a.init = &some_value;
  return jit_compile(a, arch, optimized);
}

/// A plan's build for the current device (plan.hpp).
CUPAR_EXPORT std::shared_ptr<plan_state> jit_make_plan(const jit_args& args);

}  // namespace cupar::detail
