// cupar internal: kernel sets (the CUB kernels of one algorithm for some element types), the
// operator slots they call, and the device source generated for them and for operators.
#pragma once

#include "cupar_families.inc"  // generated from the family files (cmake/cupar_sets.cmake)

#include <cupar/detail/jit_entry.hpp>
#include <cupar/jit.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace cupar::detail::jit {

/// A family of kernel sets (the list: the records in families/*.cu; what the core knows of each:
/// its record, family.hpp).
enum class family : std::uint8_t {
#define CUPAR_JIT_FAMILY_ENUM(name) name,
  CUPAR_JIT_FAMILIES(CUPAR_JIT_FAMILY_ENUM)
#undef CUPAR_JIT_FAMILY_ENUM
};
#define CUPAR_JIT_FAMILY_COUNT(name) +1
inline constexpr int family_count = 0 CUPAR_JIT_FAMILIES(CUPAR_JIT_FAMILY_COUNT);
#undef CUPAR_JIT_FAMILY_COUNT

/// An element type spelled for device code.
struct type_ref {
  scalar kind = static_cast<scalar>(0);  // 0: user or storage type
  std::string name;
  std::string definition;  // user types
  std::uint32_t size = 0, align = 0;

  static type_ref of(const jit_type& t);
  static type_ref of(scalar s);
  /// Opaque storage of a value only moved by the kernels (sort payloads).
  static type_ref storage(std::uint32_t size, std::uint32_t align);
  /// The size class a data-processing kernel set is compiled for: the unsigned integer of the
  /// same size for an arithmetic type, opaque storage of the same size and alignment otherwise.
  static type_ref size_class(const jit_type& t);
  /// `bool`, the result of predicates, equalities and comparators.
  static type_ref boolean();
  bool is_boolean() const { return kind == static_cast<scalar>(0) && name == "bool"; }
  /// An arithmetic type (not a user struct, its storage class or bool).
  bool is_scalar() const { return kind != static_cast<scalar>(0); }
  /// Stable identity for keys and file names, e.g. "f32", "s8a4",
  /// "point/8/4/1a2b3c4d5e6f7a8b" (user types carry a hash of their definition).
  std::string key() const;
};

/// The library's descriptor of an arithmetic type: a family's own types in a kernel set request
/// (a histogram's level and counter types), beside the caller's.
const jit_type& scalar_type(scalar s);

/// A kernel set: a family and its types (each family's file says what they are).
struct set_spec {
  family fam;
  std::vector<type_ref> types;
  // "" or "inplace" (select_if, select_flagged: output may be the input), "index" (the input is
  // an iterator expression: reduce, scans, select_if, partition_if, unique), "io" (scans: also
  // the output), "wide", "plus" (the by-key families)
  std::string variant;
  std::string key() const;  // e.g. "reduce<f32>", "histogram_even<u8,u8,u32>", "select_if<u32>"
};

/// One operator a kernel set calls: an external function the kernels were compiled against
/// (precompiled sets) or compiled with them (sets built from source).
struct slot_spec {
  const char* symbol;          // e.g. "cupar_jit_op"
  const char* what;            // for messages: "operator", "equality", "predicate", ...
  std::vector<type_ref> args;  // as the kernels pass them (the set's types)
  type_ref result;
  std::vector<const char*> arg_names;  // as the snippet names them: {"a", "b"} or {"x"}
  /// The batched forms the family's out-of-line (tier-1) kernels call besides the slot itself
  /// (a `batch` bit set, see slot_batches); 0: the slot alone.
  unsigned batches = 0;
};

/// Batched forms of a slot's operator: one out-of-line call applies the operator to a thread's
/// items (in the caller's local memory), where the tier-1 kernels would otherwise call it once
/// per item (jit_ops: the CUPAR_OUT_OF_LINE hooks). The operator is inlined in them.
namespace batch {
/// Binary operator (T, T) -> T: `T <symbol>_fold8(state, T acc, T x0, ..., T x7)` and
/// `_fold4`, the left fold acc op x0 op ... (the order CUB's ThreadReduce takes for an operator
/// it does not know), the items by value; `_fold_upto8(state, T acc, T x0, ..., T x7, int m)` and
/// `_fold_upto4` fold only the first m items.
inline constexpr unsigned fold = 1;
/// Iterator expression (index) -> T: `void <symbol>_strided(state, unsigned long long first,
/// unsigned long long stride, T* out, int n)`, element first + k * stride into out[k].
inline constexpr unsigned strided = 8;
/// Binary operator (T, T) -> T, with fold: `T <symbol>_warp_reduce(state, T x)`, a full warp's
/// reduction in CUB's shuffle order (the reduce kernels), and `T <symbol>_warp_reduce_partial(
/// state, T x, int last)`, the same over lanes 0 to last (the segmented reduce kernel's partial
/// warps).
inline constexpr unsigned warp_reduce = 16;
/// Binary operator (T, T) -> T, with fold: `cupar_items<T, 8> <symbol>_scan8(state, T acc, T x0,
/// ..., T x7)` and `_scan4`, the running values acc op x0, acc op x0 op x1, ... (the order of
/// CUB's thread scans; `_scan_upto8` / `_scan_upto4` the first m only), `T <symbol>_warp_scan(
/// state, T x)`, a full warp's inclusive scan in CUB's shuffle order, and `T
/// <symbol>_warp_tail_reduce(state, T x, int last)`, the look-back's tail-segmented warp
/// reduction with the arguments swapped (CUB's SwizzleScanOp) (the scan kernels).
inline constexpr unsigned scan = 32;
/// Predicate In -> bool: `unsigned <symbol>_pred8(state, In x0, ..., In x7)` and `_pred4`, bit k
/// the predicate of x_k, the items by value (the stream compaction kernels' selection flags).
inline constexpr unsigned pred = 64;
/// Operator of one or two arguments (A[, B]) -> T: `void <symbol>_transform(state, const A* in0[,
/// const B* in1], T* out, int stride, int n)`, out[k * stride] = op(in0[k * stride][,
/// in1[k * stride]]) for k < n: a thread's items of a transform tile in one call (the
/// out-of-line transform kernels, jit_ops/cupar_transform.cuh: the inputs are the tile CUB copied
/// to shared memory, the output global memory).
inline constexpr unsigned transform = 128;
/// Equality (T, T) -> bool: `unsigned <symbol>_heads8(state, T p, T x0, ..., T x7)` and
/// `_heads4`, bit k set when x_k differs from the item before it (p before x0): !eq(x_{k-1},
/// x_k), CUB's head flags (the unique and by-key kernels' BlockDiscontinuity), the items by value.
inline constexpr unsigned heads = 256;
/// Binary operator (T, T) -> T: `T <symbol>_segfold8(state, T acc, unsigned m, T x0, ..., T x7)`
/// and `_segfold4`, `cupar_items<T, 8> <symbol>_segscan8(...)` and `_segscan4`: the fold (the
/// running values) where item k replaces the running value when bit k of m is set and is combined
/// with it (acc op x_k) otherwise, CUB's ReduceBySegmentOp / ScanBySegmentOp on a thread's
/// (flag, value) pairs (the by-key kernels' thread reductions and scans); `T
/// <symbol>_segwarp_scan(state, T x, unsigned f)` and `T <symbol>_segwarp_tail_reduce(state, T x,
/// unsigned f, int last)`, the values of a warp's scan of such pairs and of the look-back's
/// tail-segmented reduction of them (the flags combined by the caller).
inline constexpr unsigned segmented = 512;
/// Predicate In -> bool: `unsigned <symbol>_predm8(state, unsigned m, In x0, ..., In x7)` and
/// `_predm4`, bit k the predicate of x_k where bit k of m is set (the predicate is not called
/// for the others, whose bits are 0), the items by value (the three-way partition kernels: the
/// second predicate only where the first was false, as CUB calls it).
inline constexpr unsigned pred_masked = 1024;
/// Unary operator In -> T: `cupar_items<T, 8> <symbol>_items8(state, In x0, ..., In x7)` and
/// `_items4`, the operator of each item, the items and the results by value (registers for up to
/// eight words each way: transform_reduce's out-of-line kernels after CUB's vector loads,
/// jit_ops/cupar_reduce.cuh).
inline constexpr unsigned items = 2048;
/// Comparator (K, K) -> bool: `void <symbol>_oddeven(state, K* keys, int n)`, CUB's stable
/// odd-even transposition sort (StableOddEvenSort) of keys[0..n) for n <= oddeven_max, the
/// comparator inlined into the network (the out-of-line merge sort's block sort: one call for a
/// thread's items instead of one per compare-swap).
inline constexpr unsigned oddeven = 4096;
/// Comparator (K, K) -> bool: `cupar_merged<K, cupar_merge_chunk<K>::value>
/// <symbol>_merge_chunk(state, const K* keys, int begin1, int begin2, int end1, int end2, int n)`,
/// n (at most the chunk) steps of CUB's SerialMerge of the sorted runs keys[begin1..end1) and
/// keys[begin2..end2): the merged keys and the first run's new begin returned by value, in
/// registers (at most 12 words: 11 4-byte keys, 5 8-byte ones), the comparator inlined (the
/// out-of-line merge sort of keys: its block sort's and merge kernel's serial merges in two calls
/// of 17 keys instead of 17).
inline constexpr unsigned merge_chunk = 8192;
/// Comparator (K, K) -> bool: `int <symbol>_merge_path(state, const K* keys1, const K* keys2, int
/// count1, int count2, int diag)`, CUB's MergePath (the binary search for where diagonal `diag`
/// crosses the merge of two sorted runs) with the comparator inlined (the out-of-line merge
/// sort's block sort and merge kernels, over their tile in shared memory).
inline constexpr unsigned merge_path = 16384;
}  // namespace batch
/// The most keys batch::oddeven sorts: CUB's merge sort takes at most 17 items a thread
/// (Nominal4BItemsToItems of 17 nominal 4-byte items).
inline constexpr int oddeven_max = 17;
/// `slot` with the batched forms `batches` added.
inline slot_spec with_batches(slot_spec slot, unsigned batches) {
  slot.batches |= batches;
  return slot;
}
/// The slots of a set, in the order callers bind operators to them (its family's record).
std::vector<slot_spec> slots_of(const set_spec& spec);

/// An operator bound to a slot, with the types the user's snippet sees (for the existing
/// families the set's own types; for the data-processing families the user's types, whose bits
/// the slot's arguments carry).
struct slot_binding {
  cupar::jit::op op;
  std::vector<type_ref> args;
  type_ref result;
};

/// Everything a build depends on besides the architecture and tier.
struct build_spec {
  set_spec set;
  std::vector<slot_binding> slots;  // one per slot_of(set), in order
};

/// Parses a key of a set of arithmetic and storage types (the precompiled ones), e.g.
/// "merge_sort_pairs<f32,s4a4>". Throws std::invalid_argument.
set_spec parse_set_key(const std::string& key);

/// A stable 64-bit hash of `text` (FNV-1a) as 16 hex digits, for generated names and keys.
std::string hash_hex(const std::string& text);

/// An operator's preamble under `#line 1 "cupar_preamble"`, the lines after it attributed to
/// `back_to`, guarded by a hash of its text: one program may hold the same preamble more than once
/// (an operator's own, and inside the generated code of expressions that use the operator or
/// another operator with the same preamble), and it must compile once.
std::string preamble_text_block(const std::string& preamble, const std::string& back_to);

/// The lines that declare an operator's run-time parameters in a generated function, read from
/// the state bytes `cupar_state` at `base` + each one's offset.
std::string parameter_lines(const std::vector<cupar::jit::detail::op_param>& params,
                            std::size_t base);

/// The lines that evaluate a snippet into `Result cupar_result`: an expression in parentheses,
/// or a lambda (text starting with '[') bound to cupar_fn and called with `args`; the snippet
/// under `#line 1 "file"`, the lines after it attributed to `back_to`.
std::string snippet_evaluation(const std::string& text, const std::string& file,
                               const std::string& back_to, const std::string& result,
                               const std::vector<const char*>& args);

/// The definition of a user type `t` (empty for others), guarded so that it may appear more than
/// once in a source, with a check that the device type has the host type's size and alignment;
/// `back_to`: the pseudo-file the lines after it are attributed to.
std::string type_definition_block(const type_ref& t, const char* back_to);

/// Number of kernels (entry points) of a family's set; the metadata expression comes after them.
int kernel_count(family f);
/// Whether the family's kernels are compiled for size classes (the data-processing families).
bool is_data_processing(family f);
/// NVRTC name expressions: the kernels in role order, then the metadata carrier.
std::vector<std::string> name_expressions(const set_spec& set);
/// Metadata values from the carrier's lowered name ("_Z10cupar_metaIJLx256E...EEvv").
std::vector<long long> parse_meta(const std::string& lowered_name);

/// Source of a kernel set. With `spec` the slots' operators are defined in it (compiled with the
/// kernels); without it they are only declared (precompiled sets, linked with operators later).
std::string set_source(const set_spec& set, const build_spec* spec);
/// Source of the operators of the slots `which` (indices into spec.slots), to be linked with a
/// precompiled kernel set.
/// `batches`: with the slots' batched forms (the out-of-line build, whose kernels call them);
/// `called`, when not null, the symbols the kernels call (precompiled_set::calls): batched forms
/// not among them are left out (their compile is a new operator's first-call time, and the link
/// drops them anyway).
std::string operator_source(const build_spec& spec, const std::vector<int>& which, bool batches,
                            const std::set<std::string>* called = nullptr);
/// What the operator of a slot must be, e.g. "a binary operator (float a, float b) -> float".
std::string role_description(const slot_spec& slot, const slot_binding& binding);
/// The snippet text compiled for `op` (a named operator's expression).
std::string snippet_text(const cupar::jit::op& op);
/// The pseudo-file slot `index`'s snippet is compiled as ("cupar_snippet" for the first), so that
/// compile errors are mapped back to the snippet they are in.
std::string snippet_file_of(int index);
/// The pseudo-file of the generated code around slot `index`'s snippet ("cupar_generated"...).
std::string generated_file_of(int index);

/// The slot kinds of the data-processing families, on a size class `c` (their symbols are the
/// same in every family, so one precompiled named-operator object serves them all).
slot_spec binary_op_slot(const type_ref& c);             // cupar_jit_op(a, b) -> c
slot_spec equality_slot(const type_ref& c);              // cupar_jit_eq(a, b) -> bool
slot_spec predicate_slot(const type_ref& c, int which);  // cupar_jit_pred / _pred2(x) -> bool
slot_spec comparator_slot(const type_ref& c);            // cupar_jit_comp(a, b) -> bool
/// The first slot of the "+index" scan and stream compaction sets: element cupar_i of an iterator
/// expression, as `c` (for a size class its generated wrapper bit-casts from the caller's type).
slot_spec expression_slot(const type_ref& c);  // cupar_jit_xform(cupar_i) -> c

/// Named operators on arithmetic types filling a slot of a data-processing family are
/// precompiled when the library is built, so such calls compile nothing (they are linked).
/// The key of such an object, e.g. "cupar_jit_op:f32:plus".
std::string named_object_key(const char* symbol, scalar user_type, cupar::jit::named_op named);
struct named_object_spec {
  std::string key;
  slot_spec slot;
  slot_binding binding;
};
/// Every named-operator object the library precompiles.
std::vector<named_object_spec> named_object_specs();
/// Source of one slot's operator alone (what operator_source writes for each slot it is given).
std::string slot_operator_source(const slot_spec& slot, const slot_binding& binding, int index);

/// NVRTC options for device code (sets and operators).
std::vector<std::string> compile_options(int arch, bool ltoir, bool relocatable);
/// Where CCCL's headers were found, or a jit_error naming every place tried.
const std::string& cccl_include_dir();

}  // namespace cupar::detail::jit
