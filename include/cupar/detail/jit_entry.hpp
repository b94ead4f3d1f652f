// cupar internal: what the public JIT overloads hand to the library.
#pragma once

#include <cupar/config.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>
#include <cstdint>
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

  /// A user type (CUPAR_JIT_TYPE / CUPAR_JIT_STRUCT), not an arithmetic one.
  constexpr bool is_struct() const noexcept { return static_cast<int>(kind) == 0; }
};

template <class T, class = void>
struct has_type_source : std::false_type {};
template <class T>
struct has_type_source<T, std::void_t<decltype(jit::type_source<T>::definition)>> : std::true_type {
};

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
    static const jit_type t{static_cast<scalar>(0), jit::type_source<T>::name,
                            jit::type_source<T>::definition, sizeof(T), alignof(T)};
    return t;
  }
}

/// A plan's build (see plan.hpp), opaque outside the library.
struct plan_state;

struct jit_reduce_args {
  const char* function;
  const jit_type* type;  // the accumulator's (the elements' when there is no transform)
  const void* in;
  void* out;       // device result (null: return to host_out)
  void* host_out;  // host result for reduce_value
  std::size_t n;
  const jit::op* op;
  const void* init;
  const plan_state* plan = nullptr;        // set by plan objects: skips the cache lookup
  const jit::op* transform = nullptr;      // transform_reduce: applied to each element first
  const jit_type* in_type = nullptr;       // transform_reduce: the elements' type
  const jit::iterator* in_iter = nullptr;  // an iterator expression instead of `in`
};
CUPAR_EXPORT void jit_reduce(const jit_reduce_args& args, stream_ref stream, memory_resource& mr);

struct jit_scan_args {
  const char* function;
  const jit_type* type;
  const void* in;
  void* out;
  std::size_t n;
  const jit::op* op;
  const void* init;                        // exclusive scans; null for inclusive
  const plan_state* plan = nullptr;        // set by plan objects: skips the cache lookup
  const jit::iterator* in_iter = nullptr;  // an iterator expression instead of `in`
  const jit::output* out_iter = nullptr;   // an output expression instead of `out` (with in_iter)
};
CUPAR_EXPORT void jit_scan(const jit_scan_args& args, stream_ref stream, memory_resource& mr);

struct jit_transform_args {
  const char* function;
  int arity;  // 1 or 2
  const jit_type* in_types[2];
  const void* in[2];
  const jit_type* out_type;
  void* out;
  std::size_t n;
  const jit::op* op;
  const plan_state* plan = nullptr;  // set by plan objects: skips the cache lookup
};
CUPAR_EXPORT void jit_transform(const jit_transform_args& args, stream_ref stream);

/// transform over iterator expressions into an output expression (the "for_each" set).
struct jit_apply_args {
  const char* function;
  int arity;  // 1 or 2
  const jit::iterator* in[2];
  const jit::output* out;
  std::size_t n;
  const jit::op* op;
};
CUPAR_EXPORT void jit_transform_apply(const jit_apply_args& args, stream_ref stream);

struct jit_sort_args {
  const char* function;
  bool stable;
  const jit_type* key_type;
  const jit_type* value_type;  // null: keys only
  const void* keys_in;
  void* keys_out;
  const void* values_in;
  void* values_out;
  std::size_t n;
  const jit::op* op;
  const plan_state* plan = nullptr;              // set by plan objects: skips the cache lookup
  const jit::iterator* keys_iter = nullptr;      // an expression in place of keys_in
  const jit::iterator* values_iter = nullptr;    // an expression in place of values_in
  const jit::output* keys_out_iter = nullptr;    // an output expression in place of keys_out
  const jit::output* values_out_iter = nullptr;  // ... in place of values_out
  /// The values' type as the JIT sees it (arithmetic or CUPAR_JIT_TYPE), for values given or
  /// written as expressions; null when the value type has none (moved as bytes only).
  const jit_type* value_jit_type = nullptr;
};
CUPAR_EXPORT void jit_sort(const jit_sort_args& args, stream_ref stream, memory_resource& mr);

struct jit_histogram_args {
  const char* function;
  const jit_type* sample_type;
  scalar level;  // the operator's result type (arithmetic)
  const void* samples;
  std::size_t n;
  void* histogram;
  std::size_t counter_size;
  int num_levels;
  const void* lower;  // even: canonical level values
  const void* upper;
  const void* levels;  // range: host array of canonical levels
  const jit::op* op;
  const plan_state* plan = nullptr;  // set by plan objects: skips the cache lookup
};
CUPAR_EXPORT void jit_histogram(const jit_histogram_args& args, stream_ref stream,
                                memory_resource& mr);

/// Writes the first n elements of the iterator expression `in`, converted to `t`, to the device
/// array `dst` in one pass of the "for_each" set (only the expression's code is compiled), for
/// the functions whose kernels take arrays (the histograms). Throws as the expression's other
/// uses (jit_iterator.hpp), naming `fn`.
CUPAR_EXPORT void jit_materialize(const jit::iterator& in, const jit_type& t, void* dst,
                                  std::size_t n, stream_ref stream, const char* fn);

/// The data-processing operations with run-time operators (select.hpp, unique.hpp, by_key.hpp,
/// segmented.hpp, search.hpp), served by one library entry point.
enum class dp_op : std::uint8_t {
  select_if,
  select_flagged,
  partition,
  three_way_partition,
  unique,
  unique_by_key,
  run_length_encode,
  reduce_by_key,
  inclusive_scan_by_key,
  exclusive_scan_by_key,
  segmented_reduce,
  segmented_inclusive_scan,
  segmented_exclusive_scan,
  lower_bound,
  upper_bound,
};

/// Arguments of a data-processing call. Which fields a call uses depends on `what` (see each
/// public function); the others stay null / zero.
struct jit_dp_args {
  const char* function;
  dp_op what;
  const jit_type* types[2] = {nullptr, nullptr};  // T or K; then V, Flag, Count or Index
  const void* in[2] = {nullptr, nullptr};         // items or keys; values, flags or needles
  /// Iterator expressions in place of in[0] / in[1] (jit::input): null where in[] is an array.
  const jit::iterator* in_iter[2] = {nullptr, nullptr};
  void* out[3] = {nullptr, nullptr, nullptr};
  /// Output expressions in place of out[k] (jit::output): null where out[k] is an array.
  const jit::output* out_iter[3] = {nullptr, nullptr, nullptr};
  std::size_t* d_count = nullptr;     // device count(s) the call writes
  std::size_t* host_count = nullptr;  // the *_count forms: count(s) returned to the host
  std::size_t n = 0;
  std::size_t m = 0;  // needles (binary search) or segments
  const std::int64_t* begin_offsets = nullptr;
  const std::int64_t* end_offsets = nullptr;
  /// Iterator expressions in place of the begin / end offsets (segmented families).
  const jit::iterator* offsets_iter[2] = {nullptr, nullptr};
  const jit::op* ops[2] = {nullptr, nullptr};  // null: the default (equality, less)
  const void* init = nullptr;
};
CUPAR_EXPORT void jit_data_processing(const jit_dp_args& args, stream_ref stream,
                                      memory_resource& mr);

}  // namespace cupar::detail
