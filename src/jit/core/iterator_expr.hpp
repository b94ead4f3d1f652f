// cupar internal: iterator expressions (jit_iterator.hpp) turned into the operator of an index
// set's first slot.
#pragma once

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>

#include <cstddef>
#include <string>
#include <utility>

namespace cupar::detail::jit {

/// The operator computing element `cupar_i` of `it` converted to `acc` (the first slot of the
/// "+index" transform_reduce sets), with its state (the expression's pointers, start values,
/// constants, the transforms' parameters and `n`, which reverse() reads) filled. Operators of the
/// same expression shape share one definition, so their builds are found in its cache.
/// Throws std::invalid_argument, naming `fn`, for a null array with n > 0, a state larger than
/// cupar::jit::max_param_bytes, or a zip reduced into an arithmetic type.
cupar::jit::op expression_op(const cupar::jit::iterator& it, const jit_type& acc, std::size_t n,
                             const char* fn);

/// The predicate on positions x (of select_if, over a counting sequence) `!comp(*threshold,
/// keys[x])`: key x does not come after the key at `threshold` in the order of the run-time
/// comparator `comp` (arguments a, b; its parameters in the predicate's state). `keys` and
/// `threshold` are device arrays of `key`. For top_k with a comparator (merge_sort.cu). Throws
/// std::invalid_argument when comp's parameters and the two pointers exceed
/// cupar::jit::max_param_bytes.
cupar::jit::op not_after_predicate(const cupar::jit::op& comp, const jit_type& key,
                                   const void* keys, const void* threshold, const char* fn);

/// The one array an iterator expression reads, when every element reads it at its own index
/// only (transforms and zips of that array and of constants; no counting sequence, permutation or
/// reversal): its pointer and element type; {} otherwise. An expression of that kind commutes
/// with a reordering of the rows: element j of it over the array's rows reordered is element j
/// of the reordered expression (group_by's partitioned rows move the array, not the values).
struct sole_array {
  const void* pointer = nullptr;
  const jit_type* type = nullptr;
};
sole_array sole_array_of(const cupar::jit::iterator& it);

/// `it` with its sole array (sole_array_of; std::logic_error if none) replaced by `array`, of the
/// same type and at least as long: the same shape, so expression_op gives the same definition.
cupar::jit::iterator with_sole_array(const cupar::jit::iterator& it, const void* array);

/// An expression that is one transform of a plain device array, `jit::transform<R>(array, f)`
/// (no cache modifier): the array, its element type, R and f (pointers into the expression's
/// nodes, valid while `it` lives); all null otherwise. Its element i is f applied to array[i],
/// which an array set taking f as its transform computes the same way.
struct array_transform {
  const void* array = nullptr;
  const jit_type* element = nullptr;
  const jit_type* result = nullptr;
  const cupar::jit::op* f = nullptr;
};
array_transform array_transform_of(const cupar::jit::iterator& it);

/// What follows the element type in an expression's code reading a pointer leaf's array from
/// the state (`(*reinterpret_cast<const T* const*>(cupar_state + offset))`, iterator.cpp), and
/// nowhere else in its source: expression_array_reads counts it.
inline constexpr const char* pointer_leaf_marker = "* const*>(cupar_state + ";

/// How many array elements (pointer leaves, a cache-modified one included) the source of an
/// expression_op reads for one element of the expression: 2 for a dot product's zip of two
/// arrays, 16 for a zip of sixteen. For the strided form's chunk size (codegen.cpp), which keeps
/// a chunk's loads in flight without the registers of too many at once.
/// (Inline: the precompile tool's codegen does not link the expressions.)
inline std::size_t expression_array_reads(const std::string& source) {
  std::size_t reads = 0;
  for (std::size_t at = source.find(pointer_leaf_marker); at != std::string::npos;
       at = source.find(pointer_leaf_marker, at + 1))
    ++reads;
  return reads;
}

/// The type of the "+index" sets' input (unsigned long long indices).
const jit_type& index_type();

/// Threads per block of the "for_each" set's kernel (jit_ops/cupar_for_each.cuh): the generated
/// code of a thread handles the indices first, first + this, ... (`items` of them).
inline constexpr unsigned for_each_threads = 256;

/// The operator of the "for_each" set (its cupar_jit_apply slot) for transform: for each index
/// of its thread, the inputs' elements (`arity` of them: 1 or 2) loaded, `f` applied (argument
/// x, or a and b) and the result stored through `out`; `items`: indices per thread, which the
/// launch's tile must match. Cached by shape like expression_op. Throws std::invalid_argument,
/// naming `fn`, for a null array with n > 0 or a state larger than cupar::jit::max_param_bytes.
struct for_each_op {
  cupar::jit::op op;
  unsigned items;
};
for_each_op transform_apply_op(const cupar::jit::iterator* const* ins, int arity,
                               const cupar::jit::output& out, const cupar::jit::op& f,
                               std::size_t n, const char* fn);

/// The "for_each" operator writing each row's mark for the by-key families on struct keys of no
/// set (by_key.cu): marks[i] = (i << 1) | head, head 1 where `eq(keys[i - 1], keys[i])` is false
/// (row 0: 0), as 4- or 8-byte unsigned integers (mark_size); `keys` a device array of n `key`
/// and eq a run-time equality on `key` (arguments a, b; its parameters in the state after the
/// two pointers, a wide state when they exceed cupar::jit::max_param_bytes). Throws
/// std::invalid_argument past cupar::jit::max_expression_state_bytes.
for_each_op run_marks_op(const cupar::jit::op& eq, const jit_type& key, const void* keys,
                         void* marks, std::size_t mark_size, std::size_t n, const char* fn);

/// As transform_apply_op without an operator: element i of `in` converted to what `out` takes
/// (as by assignment; a zip's fields initialise the output's struct in order), for materialising
/// an expression into an array. Throws as transform_apply_op, and for a zip into a non-struct.
for_each_op convert_apply_op(const cupar::jit::iterator& in, const cupar::jit::output& out,
                             std::size_t n, const char* fn);

/// How many of a store pass's n indices it stores: all, or as many as a count the algorithm
/// before it wrote to device memory: counts[0], counts[1], or n - counts[0] - counts[1] (the
/// third part of a three-way partition).
struct store_bound {
  enum kind_t { all, first, second, rest } kind = all;
  const std::size_t* counts = nullptr;  // device
};

/// The "for_each" operator storing src[i] (a device array of `t`, which an algorithm wrote)
/// through the output expression `out`, converted to what it takes, for i < n within `bound`
/// (read on the device: the algorithm's count need not reach the host). For the outputs of
/// algorithms whose kernels write arrays. `by_index`: the algorithm wrote element i of n at i
/// (scans), not by position among what it selected (a reverse_output needs the former). Throws
/// as transform_apply_op, and for a reverse_output where `by_index` is false.
for_each_op bounded_store_op(const void* src, const jit_type& t, const cupar::jit::output& out,
                             std::size_t n, const store_bound& bound, bool by_index,
                             const char* fn);

/// As bounded_store_op, element i of the expression `in` (a gather by positions an algorithm wrote:
/// permutation(values, positions), whose positions past the count are never read).
for_each_op bounded_convert_op(const cupar::jit::iterator& in, const cupar::jit::output& out,
                               std::size_t n, const store_bound& bound, const char* fn);

/// The operator of the "+io" sets' store slot: element i (the algorithm's value, of type `v`)
/// stored through the output expression `out`. `by_index`: i is the element's index of n (the
/// scans), not its position among what the algorithm selected (a reverse_output needs the
/// former). Throws as expression_op, and for a reverse_output where `by_index` is false.
cupar::jit::op store_op(const cupar::jit::output& out, const jit_type& v, std::size_t n,
                        bool by_index, const char* fn);

/// The array of an expression that is a plain array and its element size, else {null, 0} (for
/// the callers' range checks).
std::pair<const void*, std::size_t> input_array(const cupar::jit::iterator& in);
std::pair<const void*, std::size_t> output_array(const cupar::jit::output& out);
/// Whether `out` is discard().
bool is_discard(const cupar::jit::output& out);
/// Whether an array `out` writes (n elements each) may overlap what an algorithm reads: the arrays
/// of the expression `in` (n elements each; a permutation's values, whose extent is unknown, from
/// their start on) and `array` (n elements of `array_element_size` bytes). For the algorithms
/// that store through `out` as they read (the "+io" sets): an overlap takes the unfused route,
/// which reads everything before it stores.
bool output_may_overlap(const cupar::jit::output& out, std::size_t n,
                        const cupar::jit::iterator* in, const void* array,
                        std::size_t array_element_size);
/// Whether `out` stores through a reverse_output (writes element i at n - 1 - i).
bool output_has_reverse(const cupar::jit::output& out);
/// `a` with its first input, an expression that is a plain array (no cache modifier) of exactly
/// `*a.types[0]`, null or not, given as that array instead (reduce and the scans then run the call
/// on the array): true and `b` filled; false, `b` untouched, for any other first input.
bool with_plain_first_input(const jit_args& a, jit_args& b);
/// The array of an expression that is a plain array of exactly type `t` (a call then takes the
/// array itself), else null.
const void* plain_input(const cupar::jit::iterator& in, const jit_type& t);
void* plain_output(const cupar::jit::output& out, const jit_type& t);

}  // namespace cupar::detail::jit
