// cupar: comparison sorts with a run-time comparator (any host compiler). The overloads taking
// C++ comparators are in sort.cuh; radix sorts in sort.hpp.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cstddef>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(sort)
CUPAR_JIT_CALL(stable_sort)
}  // namespace cupar::detail

namespace cupar {

namespace detail {
inline void set_sort_output(void*& array, const ::cupar::jit::output*& expression, void* p) {
  array = p;
  expression = nullptr;
}
inline void set_sort_output(void*& array, const ::cupar::jit::output*& expression,
                            const ::cupar::jit::output& o) {
  array = nullptr;
  expression = &o;
}

/// The type the JIT knows a sort's values by, for values given or written as expressions; null
/// for a type it does not know (such values are moved as bytes, from and to arrays only).
template <class Value>
const jit_type* value_jit_type() {
  if constexpr (is_scalar_v<Value> || has_type_source<Value>::value) {
    return &jit_type_of<Value>();
  } else {
    return nullptr;
  }
}

/// The run-time sorts' call: keys (an array or an expression) into an array or an output
/// expression; values (null: keys only), moved as bytes of `value`, likewise.
template <class Key, class Value, class KeysOut, class ValuesOut>
void jit_sort_call(const char* fn, bool stable, const ::cupar::jit::input<Key>& keys_in,
                   const KeysOut& keys_out, const jit_type* value,
                   const ::cupar::jit::input<Value>* values_in, const ValuesOut& values_out,
                   std::size_t n, const ::cupar::jit::op& comp, stream_ref stream,
                   memory_resource& mr) {
  // types: the keys', the values' as the sort moves them (bytes of their size and alignment),
  // the values' as the JIT knows them (for expressions; null for a type it does not know).
  jit_args a{fn,
             stable ? &stable_sort_call() : &sort_call(),
             {&jit_type_of<Key>(), value},
             {keys_in.array()}};
  a.in_iter[0] = keys_in.expression();
  set_sort_output(a.out[0], a.out_iter[0], keys_out);
  if (values_in != nullptr) {
    a.in[1] = values_in->array();
    a.in_iter[1] = values_in->expression();
    set_sort_output(a.out[1], a.out_iter[1], values_out);
    a.types[2] = value_jit_type<Value>();
  }
  a.n = n;
  a.ops[0] = &comp;
  jit_run(a, stream, mr);
}
/// A trivially copyable payload as the sorts move it: bytes of its size and alignment.
template <class Value>
const jit_type& payload_type() {
  static const jit_type value{static_cast<scalar>(0), "", nullptr, sizeof(Value), alignof(Value)};
  return value;
}
}  // namespace detail

/// Sorts keys with a run-time comparator of arguments `a`, `b`, true when a goes before b (e.g.
/// "a.key < b.key"). Merge sort of CUB; cupar::jit::less / greater on arithmetic keys run the
/// (faster, stable) radix sort instead. Keys: arithmetic or a struct described with
/// CUPAR_JIT_TYPE. d_keys_out may equal d_keys_in. d_keys_in may be an iterator expression
/// (jit::input: a gather jit::permutation(d_keys, d_rows), computed keys jit::transform(...)): the
/// sorts take arrays, so it is written to d_keys_out in one pass (only its code is compiled) and
/// sorted there in place; it must not read d_keys_out.
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class Key>
void sort_keys(jit::input_t<Key> d_keys_in, Key* d_keys_out, std::size_t n, const jit::op& comp,
               stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_sort_call<Key, Key>("cupar::sort_keys", false, d_keys_in, d_keys_out, nullptr,
                                  nullptr, nullptr, n, comp, stream, mr);
}
/// sort_keys into an output expression (an array of any type Key converts to,
/// jit::transform_output; jit_iterator.hpp), Key named: the sort writes a temporary array of n
/// keys (from `mr`), which one more pass stores through the expression.
template <class Key>
void sort_keys(jit::input_t<Key> d_keys_in, const jit::output& keys_out, std::size_t n,
               const jit::op& comp, stream_ref stream, memory_resource& mr = default_resource()) {
  detail::jit_sort_call<Key, Key>("cupar::sort_keys", false, d_keys_in, keys_out, nullptr, nullptr,
                                  nullptr, n, comp, stream, mr);
}

/// As sort_keys with a run-time comparator, and stable (it always is: CUB's merge sort kernels
/// and the radix sort are stable).
template <class Key>
void stable_sort_keys(jit::input_t<Key> d_keys_in, Key* d_keys_out, std::size_t n,
                      const jit::op& comp, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  detail::jit_sort_call<Key, Key>("cupar::stable_sort_keys", true, d_keys_in, d_keys_out, nullptr,
                                  nullptr, nullptr, n, comp, stream, mr);
}
/// stable_sort_keys into an output expression, Key named.
template <class Key>
void stable_sort_keys(jit::input_t<Key> d_keys_in, const jit::output& keys_out, std::size_t n,
                      const jit::op& comp, stream_ref stream,
                      memory_resource& mr = default_resource()) {
  detail::jit_sort_call<Key, Key>("cupar::stable_sort_keys", true, d_keys_in, keys_out, nullptr,
                                  nullptr, nullptr, n, comp, stream, mr);
}

/// Sorts key-value pairs by key with a run-time comparator. Values: any trivially copyable type,
/// moved as bytes (no CUPAR_JIT_TYPE needed). The merge sort moves 4- and 8-byte values itself
/// (an 8-byte value of alignment 4 too, when both arrays are 8-byte aligned); other values (1, 2,
/// 12, 16 bytes, ...) are sorted by a 4-byte index (8-byte from 2^32 pairs) and gathered by it
/// in one more pass, with temporary storage for two index arrays (and a copy of the values when
/// sorting in place). Either way only the comparator is compiled at run time. Keys and values may
/// each be sorted in place; the key and value arrays must not overlap each other.
/// @param d_keys_in/d_keys_out      device keys (null only when n == 0); d_keys_in may be an
///                                  iterator expression (a gather, computed keys: jit::input),
///                                  written to d_keys_out in one pass and sorted there
/// @param d_values_in/d_values_out  device values (null only when n == 0)
/// @param n     number of pairs
/// @param comp  run-time comparator of arguments `a`, `b` (the keys)
/// @throws std::invalid_argument, cupar::jit_error, cupar::out_of_memory, cupar::cuda_error
/// Asynchronous.
template <class Key, class Value>
void sort_pairs(jit::input_t<Key> d_keys_in, Key* d_keys_out, const Value* d_values_in,
                Value* d_values_out, std::size_t n, const jit::op& comp, stream_ref stream,
                memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::sort_pairs: Value must be trivially copyable");
  const jit::input<Value> values(d_values_in);
  detail::jit_sort_call<Key, Value>("cupar::sort_pairs", false, d_keys_in, d_keys_out,
                                    &detail::payload_type<Value>(), &values, d_values_out, n, comp,
                                    stream, mr);
}
/// sort_pairs with the values an array or an iterator expression (e.g. jit::counting(0) for the
/// sorting permutation; written to the values' output first, and sorted there) and the keys and
/// values written to arrays or through output expressions (e.g. jit::discard() for the sorted
/// keys; see sort_keys); Key and Value named. Values given or written as expressions need a type
/// the JIT knows (arithmetic or CUPAR_JIT_TYPE).
template <class Key, class Value>
void sort_pairs(jit::input_t<Key> d_keys_in, const jit::output& keys_out,
                jit::input_t<Value> values_in, const jit::output& values_out, std::size_t n,
                const jit::op& comp, stream_ref stream, memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::sort_pairs: Value must be trivially copyable");
  detail::jit_sort_call<Key, Value>("cupar::sort_pairs", false, d_keys_in, keys_out,
                                    &detail::payload_type<Value>(), &values_in, values_out, n, comp,
                                    stream, mr);
}

/// As sort_pairs with a run-time comparator, and stable.
template <class Key, class Value>
void stable_sort_pairs(jit::input_t<Key> d_keys_in, Key* d_keys_out, const Value* d_values_in,
                       Value* d_values_out, std::size_t n, const jit::op& comp, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::stable_sort_pairs: Value must be trivially copyable");
  const jit::input<Value> values(d_values_in);
  detail::jit_sort_call<Key, Value>("cupar::stable_sort_pairs", true, d_keys_in, d_keys_out,
                                    &detail::payload_type<Value>(), &values, d_values_out, n, comp,
                                    stream, mr);
}
/// stable_sort_pairs over expressions, Key and Value named (see sort_pairs).
template <class Key, class Value>
void stable_sort_pairs(jit::input_t<Key> d_keys_in, const jit::output& keys_out,
                       jit::input_t<Value> values_in, const jit::output& values_out, std::size_t n,
                       const jit::op& comp, stream_ref stream,
                       memory_resource& mr = default_resource()) {
  static_assert(std::is_trivially_copyable_v<Value>,
                "cupar::stable_sort_pairs: Value must be trivially copyable");
  detail::jit_sort_call<Key, Value>("cupar::stable_sort_pairs", true, d_keys_in, keys_out,
                                    &detail::payload_type<Value>(), &values_in, values_out, n, comp,
                                    stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for a comparator sorting keys of type K (with values of type
/// V).
template <class K, class V = void>
build_report compile_sort(const op& o, int arch = 90, bool optimized = true) {
  ::cupar::detail::jit_args a{
      "cupar::jit::compile", &::cupar::detail::sort_call(), {&::cupar::detail::jit_type_of<K>()}};
  if constexpr (!std::is_void_v<V>) a.types[1] = &::cupar::detail::payload_type<V>();
  a.ops[0] = &o;
  return ::cupar::detail::jit_compile(a, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
