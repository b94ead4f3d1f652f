// cupar: run-time iterator expressions. An input an algorithm reads through code instead of from
// an array: counting(start), constant(value), transform(input, op), zip(inputs...),
// permutation(values, indices), reverse(input), over device arrays, composed freely and fused:
// the algorithm's kernels compute element i of the expression where they would have loaded it,
// in one pass, with no temporary array.
//
//   // dot product: one pass over a and b
//   float dot = cupar::reduce_value(
//       jit::transform<float>(jit::zip(d_a, d_b), jit::op("x._0 * x._1")), n, jit::plus, 0.0f, s);
//   // index of the largest value, lowest index on ties
//   CUPAR_JIT_STRUCT(arg, long long i; float v;)
//   arg best = cupar::reduce_value(
//       jit::zip({{"i", jit::counting(0ll)}, {"v", d_x}}), n,
//       jit::op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a"), arg{-1, -INFINITY}, s);
//
// How an expression is served: the library precompiles, for each accumulator type it precompiles
// reduce for (the arithmetic types and the struct classes, docs/JIT.md), a reduce whose kernels
// read indices; the expression is generated as a small device function of the index (its
// pointers, start values, constants and the transforms' parameters live in the operator state)
// and compiled and linked like an operator: ready in tens of milliseconds, then inlined by the
// optimised (tier 2) build, which is the fused pass. Builds are cached by the expression's
// shape (kinds, types, snippets), not its pointers or values, so rebuilding the same expression
// for each call over other arrays compiles nothing. The state travels in the kernels' 64-byte
// parameter block (cupar::jit::max_param_bytes: a zip of eight arrays); a wider one, up to
// cupar::jit::max_expression_state_bytes (a zip of 16 columns and more), is written to device
// memory on the call's stream before its kernels (one more one-block kernel, freed after them),
// and the generated code reads it from there.
//
// Today reduce, reduce_value, inclusive_scan and exclusive_scan take iterator expressions (the
// scans through "+index" scan sets whose kernels read the expression by value), and transform
// takes them as inputs and output expressions (an array, discard(), transform_output,
// zip_output, reverse_output) as its output: one precompiled "for_each" kernel set walks the
// indices and calls the generated code that loads, applies the operator and stores, so every
// combination of types is served without compiling kernels. The scans write through output
// expressions too ("+io" sets), and reduce its one result (into a slot, then a one-element
// store). The data-processing families and the run-time sorts take expressions as inputs through
// jit::input<T> (below): select_if, partition, unique, select_flagged's items and reduce_by_key's
// and group_by's values fused, the others after writing the expression to a temporary array
// (docs/DESIGN_FUSION.md). Their outputs take output expressions in overloads whose element types
// are named (select_if<float>(in, jit::discard(), ...)): the kernels write a temporary array,
// stored through the expression by one more pass that reads the call's count on the device (only
// what the call wrote is stored).
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace cupar::jit {

namespace detail {
struct iterator_node;
using node_ptr = std::shared_ptr<const iterator_node>;
CUPAR_EXPORT node_ptr iterator_pointer(const cupar::detail::jit_type& t, const void* p);
CUPAR_EXPORT node_ptr iterator_counting(const cupar::detail::jit_type& t, const void* start);
CUPAR_EXPORT node_ptr iterator_cache_modified(const cupar::detail::jit_type& t, const void* p,
                                              char modifier);
CUPAR_EXPORT node_ptr iterator_constant(const cupar::detail::jit_type& t, const void* value);
CUPAR_EXPORT node_ptr iterator_transform(const node_ptr& in, const op& f,
                                         const cupar::detail::jit_type* result);
CUPAR_EXPORT node_ptr iterator_zip(const std::vector<std::pair<std::string, node_ptr>>& fields);
CUPAR_EXPORT node_ptr iterator_permutation(const node_ptr& values, const node_ptr& indices);
CUPAR_EXPORT node_ptr iterator_reverse(const node_ptr& in);
CUPAR_EXPORT const cupar::detail::jit_type& iterator_value_type(const iterator_node& n);
CUPAR_EXPORT node_ptr output_pointer(const cupar::detail::jit_type& t, void* p);
CUPAR_EXPORT node_ptr output_discard();
CUPAR_EXPORT node_ptr output_zip(const std::vector<node_ptr>& outs,
                                 const cupar::detail::jit_type* value);
CUPAR_EXPORT node_ptr output_reverse(const node_ptr& out);
CUPAR_EXPORT node_ptr output_transform(const node_ptr& out, const op& f,
                                       const cupar::detail::jit_type* value);
/// `root` with parameter `name` of every operator in it set to `value` (of scalar `type`): the
/// nodes above those operators copied, the rest shared. Throws std::invalid_argument, naming
/// `fn`, when no operator declares `name` or one declares it with another type.
CUPAR_EXPORT node_ptr rebind_parameter(const node_ptr& root, std::string_view name,
                                       cupar::detail::scalar type, const void* value,
                                       const char* fn);
}  // namespace detail

/// A run-time iterator expression: a read-only input whose element i is computed on the device.
/// Cheap to copy (it shares its immutable tree). Pointers inside it must stay valid until the
/// algorithms using it have run.
class iterator {
 public:
  /// A device array: element i is d[i]. T: an arithmetic type or a struct described with
  /// CUPAR_JIT_TYPE. The pointer may be null only for calls with n == 0.
  template <class T, class = std::enable_if_t<!std::is_void_v<T>>>
  iterator(const T* d)  // NOLINT(google-explicit-constructor): arrays are iterators
      : node_(detail::iterator_pointer(::cupar::detail::jit_type_of<T>(), d)) {}
  template <class T, class = std::enable_if_t<!std::is_void_v<T>>>
  iterator(T* d)  // NOLINT(google-explicit-constructor)
      : iterator(static_cast<const T*>(d)) {}

  explicit iterator(detail::node_ptr node) : node_(std::move(node)) {}

  /// Sets run-time parameter `name` (T: its declared type) of every operator in the expression
  /// that declares it, for the calls made with this object from now on: the prepared-statement
  /// pattern (build the expression once, set the parameters, call, set, call again), without
  /// recompiling. The expression's operators took their values when it was built: op::set on
  /// the operator afterwards does not reach it; this does. Other copies of the expression, and
  /// expressions built from it before, keep their values (the nodes on the way are copied;
  /// synchronises nothing, allocates a few nodes). Throws std::invalid_argument when no operator
  /// of the expression declares `name`, or one declares it with another type.
  template <class T>
  iterator& set(std::string_view name, T value) {
    static_assert(::cupar::detail::is_scalar_v<T>,
                  "cupar::jit::iterator::set: parameters are arithmetic values");
    node_ = detail::rebind_parameter(node_, name, ::cupar::detail::scalar_of<T>(), &value,
                                     "cupar::jit::iterator::set");
    return *this;
  }

  /// The element type as the JIT sees it (a zip's: a generated struct).
  const ::cupar::detail::jit_type& value_type() const {
    return detail::iterator_value_type(*node_);
  }
  const detail::node_ptr& node() const noexcept { return node_; }

 private:
  detail::node_ptr node_;
};

/// start, start + 1, ...: element i is start + i computed in T. T: an integral type (wraps as T
/// does) or a floating-point type (i converted to T, then added: float counts exactly up to
/// 2^24, double up to 2^53, and rounds as T rounds beyond).
template <class T>
iterator counting(T start) {
  static_assert((std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_floating_point_v<T>,
                "cupar::jit::counting: the start is an integer or a floating-point value");
  return iterator(detail::iterator_counting(::cupar::detail::jit_type_of<T>(), &start));
}

/// How cache_modified's loads use the caches: PTX's cache operators, CUB's LOAD_* modifiers.
enum class load : char {
  ldg = 'g',  ///< through the read-only data cache (__ldg; CUB's LOAD_LDG)
  ca = 'a',   ///< cached at every level (__ldca; LOAD_CA)
  cg = 'c',   ///< cached in L2, not L1 (__ldcg; LOAD_CG)
  cs = 's',   ///< streaming: likely read once, evicted first (__ldcs; LOAD_CS)
  lu = 'l',   ///< last use of the line (__ldlu; LOAD_LU)
  cv = 'v',   ///< volatile: fetched again on every load (__ldcv; LOAD_CV)
};

/// The device array d read with the cache modifier m (CUB's CacheModifiedInputIterator): element
/// i is d[i], loaded with m's instruction (a struct in words of its alignment, at most 16 bytes).
/// For streaming reads that should not displace what else is cached (load::cs), or data the
/// read-only cache serves better (load::ldg). The algorithms read it as an expression: a
/// family that takes arrays writes it to a temporary first (see input), so use it where the
/// kernels read expressions (reduce, scans, transform, select_if, partition, unique, ...). T:
/// arithmetic or a CUPAR_JIT_TYPE struct. Throws std::invalid_argument for another modifier.
template <class T, class = std::enable_if_t<!std::is_void_v<T>>>
iterator cache_modified(const T* d, load m = load::cs) {
  return iterator(
      detail::iterator_cache_modified(::cupar::detail::jit_type_of<T>(), d, static_cast<char>(m)));
}

/// `value` at every position (T: arithmetic or a CUPAR_JIT_TYPE struct).
template <class T>
iterator constant(T value) {
  return iterator(detail::iterator_constant(::cupar::detail::jit_type_of<T>(), &value));
}

/// f(in[i]), with f a unary run-time operator (argument `x`, run-time parameters allowed; their
/// values are taken when the expression is built: iterator::set changes them later), its result
/// converted to R (arithmetic or a CUPAR_JIT_TYPE struct). A zip's element is a struct: `x.name`
/// or `x._0` (see zip).
template <class R>
iterator transform(const iterator& in, const op& f) {
  return iterator(detail::iterator_transform(in.node(), f, &::cupar::detail::jit_type_of<R>()));
}
/// f(in[i]) converted to in's element type (not for zips: name the result type).
inline iterator transform(const iterator& in, const op& f) {
  return iterator(detail::iterator_transform(in.node(), f, nullptr));
}

/// A field of a zip with a name the snippets use: zip({{"i", counting(0ll)}, {"v", d_x}}).
struct field {
  std::string name;
  iterator input;
};

/// Element i is a struct of the inputs' elements i, fields named by the caller (C++ identifiers,
/// not starting with cupar_), laid out in order as a C++ struct of those types would be. Reduced,
/// scanned or converted into a struct type T, the fields initialise T's members in order
/// (aggregate initialisation: same types or conversions without narrowing). Zips nest: a field
/// that is a zip (or a permutation or reversal of one) is a struct member (`x._0._1`), and its
/// leaf fields, in order, initialise T's members whether they nest as the zips do or are flat
/// (brace elision); an operator may return the element, or a part of it that is a zip, as T:
///   CUPAR_JIT_STRUCT(xyw, float x; float y; float w;)
///   cupar::transform(jit::zip(jit::zip(d_x, d_y), d_w), d_out, n, jit::op("x"), s);  // xyw*
inline iterator zip(const std::vector<field>& fields) {
  std::vector<std::pair<std::string, detail::node_ptr>> f;
  f.reserve(fields.size());
  for (const auto& x : fields)
    f.emplace_back(x.name, x.input.node());
  return iterator(detail::iterator_zip(f));
}
/// As zip(fields), with the fields named _0, _1, ... in order.
template <class... I>
iterator zip(const I&... inputs) {
  static_assert(sizeof...(I) > 0, "cupar::jit::zip: at least one input");
  std::vector<std::pair<std::string, detail::node_ptr>> f;
  int i = 0;
  (f.emplace_back("_" + std::to_string(i++), iterator(inputs).node()), ...);
  return iterator(detail::iterator_zip(f));
}

/// values[indices[i]] (a gather; indices of an integral type, each within values' extent).
inline iterator permutation(const iterator& values, const iterator& indices) {
  return iterator(detail::iterator_permutation(values.node(), indices.node()));
}

/// in[n - 1 - i], where n is the element count of the call the expression is used in.
inline iterator reverse(const iterator& in) {
  return iterator(detail::iterator_reverse(in.node()));
}

/// An input of elements of type T as the data-processing families and the run-time sorts take
/// it: a device array (`const T*` or `T*`, implicit) or an iterator expression (implicit from
/// `jit::iterator`) whose element i, converted to T, is the input's element i. Functions take it
/// as `jit::input_t<T>`, so T is deduced from their other arguments (an output array, a sorted
/// range) and an array argument of another type does not convert.
///
/// How each family reads an expression: select_if, partition and unique read it in their own
/// kernels (fused: one pass, no temporary), and so do select_flagged (its items), reduce_by_key
/// and group_by (their values) where their "+index" kernel sets serve the call (their headers
/// say when); the other families' kernels take arrays, so the expression is first
/// written to a temporary array of T by one fused pass (the "for_each" kernels, only the
/// expression's code compiled), which costs a write and a read of n elements of T and
/// n * sizeof(T) bytes of temporary storage from the call's memory resource.
/// Holds a reference to the expression: build it in the call's argument list or keep it alive
/// until the call returns (the call reads it before returning; the device work it queues does not).
template <class T>
class input {
 public:
  input(const T* d) noexcept : array_(d) {}               // NOLINT(google-explicit-constructor)
  input(std::nullptr_t) noexcept {}                       // NOLINT(google-explicit-constructor)
  input(const iterator& e) noexcept : expression_(&e) {}  // NOLINT(google-explicit-constructor)

  /// The array, or null for an expression (or a null array).
  const T* array() const noexcept { return array_; }
  /// The expression, or null for an array.
  const iterator* expression() const noexcept { return expression_; }

 private:
  const T* array_ = nullptr;
  const iterator* expression_ = nullptr;
};
/// jit::input<T> as a parameter type that does not take part in deducing T.
template <class T>
using input_t = typename ::cupar::detail::type_identity<input<T>>::type;

/// Segment offsets as the segmented families with run-time operators take them: a device array
/// of 32- or 64-bit integers, signed or not (implicit from `const I*`), or an iterator expression
/// (implicit from `jit::iterator`) whose element s, converted to std::int64_t, is the offset. An
/// array of std::int64_t is read as it is; an array of another type is read as an expression of
/// it that this object owns (its num_segments offsets are widened to 64 bits in a temporary array
/// first: one small pass, as for any offsets expression). Holds a reference to an expression
/// argument, as input does.
class offsets {
 public:
  offsets(const std::int64_t* d) noexcept : array_(d) {}    // NOLINT(google-explicit-constructor)
  offsets(std::nullptr_t) noexcept {}                       // NOLINT(google-explicit-constructor)
  offsets(const iterator& e) noexcept : expression_(&e) {}  // NOLINT(google-explicit-constructor)
  template <class I, class = std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                              (sizeof(I) == 4 || sizeof(I) == 8) &&
                                              !std::is_same_v<I, std::int64_t>>>
  offsets(const I* d)  // NOLINT(google-explicit-constructor)
      : owned_(std::make_shared<const iterator>(d)), expression_(owned_.get()) {}

  /// The array of 64-bit offsets, or null for an expression (or a null array).
  const std::int64_t* array() const noexcept { return array_; }
  /// The expression, or null for an array of 64-bit offsets.
  const iterator* expression() const noexcept { return expression_; }

 private:
  const std::int64_t* array_ = nullptr;
  std::shared_ptr<const iterator> owned_;
  const iterator* expression_ = nullptr;
};

}  // namespace cupar::jit

namespace cupar::detail {
/// Input k of a data-processing call: an array (in[k]) or an iterator expression (in_iter[k]).
template <class T>
void set_input(jit_args& a, int k, const ::cupar::jit::input<T>& in) {
  a.in[k] = in.array();
  a.in_iter[k] = in.expression();
}
}  // namespace cupar::detail

namespace cupar::jit {

/// A run-time output expression: where an algorithm's element i goes, through code instead of
/// straight into an array: a device array (`T*`, implicit), discard(), transform_output(out, f),
/// zip_output(outs...), reverse_output(out). Cheap to copy. Pointers inside it must stay valid
/// until the algorithms using it have run.
class output {
 public:
  /// A device array: element i is stored to d[i], converted to T as by assignment. T: an
  /// arithmetic type or a struct described with CUPAR_JIT_TYPE. Null only for calls with n == 0.
  template <class T, class = std::enable_if_t<!std::is_void_v<T> && !std::is_const_v<T>>>
  output(T* d)  // NOLINT(google-explicit-constructor): arrays are outputs
      : node_(detail::output_pointer(::cupar::detail::jit_type_of<T>(), d)) {}

  explicit output(detail::node_ptr node) : node_(std::move(node)) {}

  /// Sets run-time parameter `name` of every operator in the output expression that declares it,
  /// for the calls made with this object from now on, as iterator::set does (no recompiling;
  /// other copies keep their values). Throws std::invalid_argument when no operator declares
  /// `name`, or one declares it with another type.
  template <class T>
  output& set(std::string_view name, T value) {
    static_assert(::cupar::detail::is_scalar_v<T>,
                  "cupar::jit::output::set: parameters are arithmetic values");
    node_ = detail::rebind_parameter(node_, name, ::cupar::detail::scalar_of<T>(), &value,
                                     "cupar::jit::output::set");
    return *this;
  }

  const detail::node_ptr& node() const noexcept { return node_; }

 private:
  detail::node_ptr node_;
};

/// Takes any value and stores nothing (an algorithm's output the caller does not need).
inline output discard() {
  return output(detail::output_discard());
}

/// Element i is f(v) stored to `out`, where v is the value the algorithm writes, taken as V (an
/// arithmetic type or a CUPAR_JIT_TYPE struct; argument `x` of the unary run-time operator f,
/// run-time parameters allowed; their values are taken when the expression is built:
/// output::set changes them later), and f's result is converted to what `out` takes.
template <class V>
output transform_output(const output& out, const op& f) {
  return output(detail::output_transform(out.node(), f, &::cupar::detail::jit_type_of<V>()));
}
/// As transform_output<V>, with V the element type of `out` (an array or another
/// transform_output; not discard() or a zip_output).
inline output transform_output(const output& out, const op& f) {
  return output(detail::output_transform(out.node(), f, nullptr));
}

/// Each field of the value stored through its own output, in order: field k (the value is a
/// struct, a user's or a zip's element, decomposed as by a structured binding, so it has exactly
/// as many public members as there are outputs) goes to outs[k] (an array or any output
/// expression, a zip_output too for a member that is a struct). Takes any such value: a
/// transform's operator result as it is, a scan's accumulator. Throws std::invalid_argument
/// without outputs; a value of another field count fails to compile (jit_error).
///   CUPAR_JIT_STRUCT(sum_count, float sum; unsigned count;)
///   cupar::inclusive_scan<sum_count>(in, jit::zip_output(d_sums, d_counts), n, merge, s);
template <class... O>
output zip_output(const O&... outs) {
  static_assert(sizeof...(O) > 0, "cupar::jit::zip_output: at least one output");
  return output(detail::output_zip({output(outs).node()...}, nullptr));
}
/// As zip_output, the value first converted to V (arithmetic or a CUPAR_JIT_TYPE struct): a
/// transform's operator then returns V (its snippet may name V, whose definition the generated
/// code holds).
template <class V, class... O>
output zip_output(const O&... outs) {
  static_assert(sizeof...(O) > 0, "cupar::jit::zip_output: at least one output");
  return output(detail::output_zip({output(outs).node()...}, &::cupar::detail::jit_type_of<V>()));
}

/// Element i stored at position n - 1 - i of `out` (n: the call's element count). For the
/// transforms, the scans and the sorts, which write element i of n by index; the families that
/// compact (select, partition, unique, by-key) throw std::invalid_argument. A transform's
/// reversed output may not overlap what it reads (std::invalid_argument); a scan reading what
/// it writes takes the unfused route (scan into a temporary, then store).
inline output reverse_output(const output& out) {
  return output(detail::output_reverse(out.node()));
}

}  // namespace cupar::jit

namespace cupar::detail {
/// Output k of a data-processing call: an array (out[k]) or an output expression (out_iter[k]).
inline void set_output(jit_args& a, int k, void* array) {
  a.out[k] = array;
}
inline void set_output(jit_args& a, int k, const ::cupar::jit::output& out) {
  a.out_iter[k] = &out;
}
}  // namespace cupar::detail
