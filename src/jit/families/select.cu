// cupar family: stream compaction (select_if, select_flagged, partition_if, unique). Device code:
// jit_ops/cupar_select.cuh, one header whose CUPAR_SELECT_MODE picks the family. Size classes:
// select_if, partition_if, unique {T}; select_flagged {T, Flag}. Variants: "inplace" (select_if,
// select_flagged: the output is the input), "index" (the input is an iterator expression read by
// the kernels, cupar_expr_input.cuh), "io" (the output too, cupar_expr_output).
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  const int mode = s.fam == family::select_if        ? 0
                   : s.fam == family::select_flagged ? 1
                   : s.fam == family::unique         ? 2
                                                     : 3;
  std::string out = "#define CUPAR_SELECT_MODE " + std::to_string(mode) + "\n";
  if (s.variant == "inplace") out += "#define CUPAR_SELECT_IN_PLACE 1\n";
  if (reads_expression(s)) out += "#define CUPAR_INDEX_INPUT 1\n";
  if (s.variant == "io") out += "#define CUPAR_INDEX_OUTPUT 1\n";
  out += "typedef " + s.types[0].name + " cupar_T;\n";
  if (s.fam == family::select_flagged) out += "typedef " + s.types[1].name + " cupar_F;\n";
  return out;
}

/// The family's own slot after the expression's loader ("+index", "+io") and before the output
/// expression's store ("+io").
std::vector<slot_spec> with_expressions(const set_spec& s, slot_spec own) {
  if (s.variant == "index") return {expression_slot(s.types[0]), own};
  if (s.variant == "io") return {expression_slot(s.types[0]), own, store_slot(s.types[0])};
  return {own};
}

/// The predicate with its batched forms: the out-of-line kernels compute a thread's selection
/// flags eight or four items a call (jit_ops/cupar_select.cuh).
std::vector<slot_spec> predicate_slots(const set_spec& s) {
  return with_expressions(s, with_batches(predicate_slot(s.types[0], 1), batch::pred));
}

/// The equality with its batched head flags: the out-of-line kernels flag a thread's items eight
/// or four a call (jit_ops/cupar_select.cuh).
std::vector<slot_spec> unique_slots(const set_spec& s) {
  return with_expressions(s, with_batches(equality_slot(s.types[0]), batch::heads));
}

/// select_flagged: no operator; the "+index" sets' expression alone.
std::vector<slot_spec> flagged_slots(const set_spec& s) {
  if (s.variant == "index") return {expression_slot(s.types[0])};
  return {};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_select_init", "cupar_select_sweep", meta_expression(3)};
}

/// Partition of 4-byte items (sm_90, ptxas -v, compile only): the compiled path's sweep kernel
/// gets 48 registers (5 blocks of 256 threads per SM), the LTO build 64 (4 blocks); it ran at
/// 0.94-0.95 of CUB at 2^24..2^28 on the H100 (2026-11-23). --minnctapersm reaches 48 without
/// spills. Metadata: {threads, items, vsmem}.
std::vector<std::vector<std::string>> partition_occupancy(const set_spec& s, long long threads,
                                                          int arch) {
  if (arch != 90 || s.types.empty() || s.types[0].size != 4) return {};
  return {{blocks_for_registers(threads, 48)}};
}

/// select_flagged of 4-byte items (sm_90): the "+index" sets' LTO build gave the sweep kernel
/// 69 registers where the arrays' set and select_if's "+index" set get 56 (cuobjdump of the
/// optimised builds, H200, 2026-11-29), and ran at 0.80 / 0.76 of CUB over a transform iterator
/// at 2^24 / 2^28; 56 registers, as there, if that spills nothing.
std::vector<std::vector<std::string>> flagged_occupancy(const set_spec& s, long long threads,
                                                        int arch) {
  if (arch != 90 || s.types.empty() || s.types[0].size != 4) return {};
  return {{blocks_for_registers(threads, 56)}};
}

const char* const select_if_rules[] = {
    "precompile c=classes: select_if<$c>",
    "precompile c=classes: select_if<$c>+inplace",
    // "+index": a run-time iterator expression read by the kernels, fused; "+io": into an output
    // expression (transform_output, discard, ...), stored by the kernels as they compact.
    "precompile c=classes: select_if<$c>+index",
    "precompile c=classes: select_if<$c>+io",
    // Records filtered: a precompiled set of the struct's class serves every struct of it.
    "precompile s=dp_structs: select_if<$s>",
    "precompile s=dp_structs: select_if<$s>+inplace",
    "precompile s=dp_structs: select_if<$s>+index",
    "precompile s=dp_structs: select_if<$s>+io",
};

const char* const select_flagged_rules[] = {
    "precompile c=classes f=u8|u32: select_flagged<$c,$f>",
    "precompile c=classes f=u8|u32: select_flagged<$c,$f>+inplace",
    // "+index": the items an iterator expression read by the kernels (flags given as an
    // expression are written as bytes of `x != 0` first, entry.cpp).
    "precompile c=classes f=u8|u32: select_flagged<$c,$f>+index",
    // Records: no operator to compile, so a set of the struct's class serves every struct of it
    // at once (in place: the items copied to a temporary first, call_select).
    "precompile s=dp_structs f=u8|u32: select_flagged<$s,$f>",
};

const char* const partition_if_rules[] = {
    "precompile c=classes: partition_if<$c>",
    "precompile c=classes: partition_if<$c>+index",
    "precompile c=classes: partition_if<$c>+io",
    "precompile s=dp_structs: partition_if<$s>",
    "precompile s=dp_structs: partition_if<$s>+index",
    "precompile s=dp_structs: partition_if<$s>+io",
};

const char* const unique_rules[] = {
    "precompile c=classes: unique<$c>",
    "precompile c=classes: unique<$c>+index",
    "precompile c=classes: unique<$c>+io",
    "precompile s=dp_structs: unique<$s>",
};

/// unique's tier-1 sweep (384 threads a block): 4-byte items at 3 blocks an SM, the optimised
/// kernel's (56 registers: 39 local stores once linked, CUPAR_JIT_DUMP_DIR, 2026-12-01), 8-byte
/// items at 2 (80 registers).
std::vector<std::string> unique_blocks(const set_spec& s, int arch) {
  if (!sm90_words(s, arch)) return {};
  return {blocks_for_registers(384, s.types[0].size == 4 ? 56 : 80)};
}
std::vector<std::string> unique_operators(const set_spec& s, int arch) {
  if (!sm90_words(s, arch)) return {};
  return {register_limit(s.types[0].size == 4 ? out_of_line_registers : 80)};
}

}  // namespace

extern const family_def select_if_family =
    family_def::make(family::select_if, "select_if", "cupar_select.cuh", 2, typedefs,
                     predicate_slots, names)
        .for_size_classes()
        // select_if's out-of-line (tier-1) sweep kernel at the optimised one's occupancy, for 4-
        // and 8-byte arithmetic items on sm_90 (CUB 3.0.1's tuning: 384 threads a block; the
        // optimised kernel takes 56 registers, 3 blocks an SM). Compiled alone it took 88
        // registers, 1 block an SM (the launch bounds name no block count, so only --minnctapersm
        // caps it); capped, tier 1 ran 1.5-1.6x faster (H200, 2026-11-30:
        // docs/PERFORMANCE_NOTES.md, "Stream compaction"). The partition kernel capped the same way
        // (79 -> 48 registers, 3 -> 5 blocks of 256) gained nothing and keeps its own. Smaller
        // items have other block sizes and records other tunings: they keep theirs. The predicate's
        // functions the capped kernel calls are compiled within 32 registers (a callee may not use
        // more than its kernel).
        .with_out_of_line_options(sm90_words_blocks<384, 56>,
                                  sm90_words_operators<out_of_line_registers>)
        .taking_states_by_reference()
        .precompiling(select_if_rules);

extern const family_def select_flagged_family =
    family_def::make(family::select_flagged, "select_flagged", "cupar_select.cuh", 2, typedefs,
                     flagged_slots, names)
        .for_size_classes()
        .with_occupancy(flagged_occupancy)
        .taking_states_by_reference()
        .precompiling(select_flagged_rules);

extern const family_def partition_if_family =
    family_def::make(family::partition_if, "partition_if", "cupar_select.cuh", 2, typedefs,
                     predicate_slots, names)
        .for_size_classes()
        .with_occupancy(partition_occupancy)
        // partition_if's tier-1 sweep kernel for 4-byte arithmetic items on sm_90 (256 threads a
        // block): compiled alone it took 79 registers, 3 blocks an SM, where the optimised sweep
        // takes 62 (4 blocks); at 64 (4 blocks) ptxas adds 6 local stores and 12 loads (compile
        // only, CUPAR_JIT_DUMP_DIR, 2026-12-02).
        .with_out_of_line_options(sm90_four_byte_blocks<256, 64>,
                                  sm90_four_byte_operators<out_of_line_registers>)
        .taking_states_by_reference()
        .precompiling(partition_if_rules);

extern const family_def unique_family =
    family_def::make(family::unique, "unique", "cupar_select.cuh", 2, typedefs, unique_slots, names)
        .for_size_classes()
        // unique's out-of-line (tier-1) sweep kernel for 4- and 8-byte arithmetic items on sm_90
        // (384 threads a block): compiled alone it took 98-113 registers, 1 block an SM, where the
        // optimised kernel runs 3; at 80 registers, 2 blocks (ptxas adds 4-12 local stores and 5-16
        // loads, compile only, cuobjdump), and tier 1 ran 1.17x / 1.20x faster at 2^24 / 2^28
        // (H200, 2026-11-30: docs/PERFORMANCE_NOTES.md, "Tier-1 kernels"). The equality's functions
        // are compiled within the same registers (a callee may not use more than its kernel).
        .with_out_of_line_options(unique_blocks, unique_operators)
        .taking_states_by_reference()
        .precompiling(unique_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>

#include <cub/agent/single_pass_scan_operators.cuh>
#include <cub/util_temporary_storage.cuh>
#include <cub/util_vsmem.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Stream compaction (module meta: block threads, items per thread, virtual shared memory per
/// block). Mirrors CUB's DispatchSelectIf::Invoke, partitions of at most INT_MAX items included.
struct select_launch {
  const void* in;                // null with an expression input
  const void* expression_state;  // "+index" sets: the input expression's state, else null
  const void* flags;             // select_flagged, else null
  void* out;
  void* d_count;  // device count of selected items (64-bit)
  std::size_t n;
  const void* pred_state;  // predicate's state (select_if, partition), else null
  const void* eq_state;    // equality's state (unique), else null
  /// "+io" sets: the output expression's store state (`out` unused), else null.
  const void* output_state = nullptr;
};
cudaError_t run_select(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const select_launch& s,
                       cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

/// Host image of cupar_select_streaming (jit_ops/cupar_select.cuh): CUB's streaming context for
/// 64-bit totals, same members in the same order.
struct select_streaming {
  bool first_partition;
  bool last_partition;
  long long total_num_items;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;
};
static_assert(sizeof(select_streaming) == 40, "layout of cupar_select_streaming");

}  // namespace

cudaError_t run_select(const loaded_module& m, const device_info& dev, launch_status& st,
                       void* temp, std::size_t& temp_bytes, const select_launch& s,
                       cudaStream_t stream) {
  using tile_state_t = cub::ScanTileState<int>;
  constexpr int init_threads = 128;
  const long long n = static_cast<long long>(s.n);
  const int block_threads = static_cast<int>(m.meta(0));
  const long long tile_size = m.meta(0) * m.meta(1);
  const long long vsmem_per_block = m.meta(2);
  const long long partition_size = INT_MAX;
  const long long max_partition_size = n > partition_size ? partition_size : n;
  const long long num_partitions = max_partition_size == 0 ? 1 : ceil_div(n, max_partition_size);
  const long long max_tiles = ceil_div(max_partition_size, tile_size);

  std::size_t sizes[3] = {0, static_cast<std::size_t>(max_tiles * vsmem_per_block),
                          num_partitions > 1 ? 2 * sizeof(long long) : 0};
  cudaError_t error = tile_state_t::AllocationSize(static_cast<int>(max_tiles), sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[3] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  auto* tmp_selected = static_cast<long long*>(allocations[2]);
  select_streaming streaming{true, num_partitions <= 1, n, 0, tmp_selected, tmp_selected + 1};
  const unsigned char null_type = 0;  // cub::NullType arguments (an empty struct's byte)
  const erased_arg select_op{s.pred_state != nullptr ? s.pred_state : &null_type};
  const erased_arg equality_op{s.eq_state != nullptr ? s.eq_state : &null_type};
  const cub::detail::vsmem_t vsmem{allocations[1]};
  jit_launcher_factory launch{&dev, &m, &st};
  // "+index" sets: the input expression's state by value (cupar_expr_iterator), from index 0;
  // the kernels add each partition's offset to it as to a pointer.
  const expression_input e = expression_input::of(s.expression_state);
  // "+io" sets: the output expression likewise (cupar_expr_output), from index 0; the kernels
  // offset it by the items selected (and rejected) before, as they would a pointer.
  const expression_input o = expression_input::of(s.output_state);
  for (long long p = 0; p < num_partitions; ++p) {
    const long long offset = p * max_partition_size;
    const long long items = p + 1 == num_partitions ? n - offset : max_partition_size;
    const int num_tiles = static_cast<int>(ceil_div(items, tile_size));
    tile_state_t tile_state;
    error = tile_state.Init(num_tiles, allocations[0], sizes[0]);
    if (error != cudaSuccess) return error;
    const int init_grid = std::max(1, static_cast<int>(ceil_div(num_tiles, init_threads)));
    launch(init_grid, init_threads, 0, stream).doit(m.kernel(0), tile_state, num_tiles, s.d_count);
    // No early return for n == 0: the initialisation kernel writes the zero count.
    if (items == 0) break;
    auto sweep = [&](const auto& input, const auto& output) {
      launch(num_tiles, block_threads, 0, stream)
          .doit(m.kernel(1), input, s.flags, output, s.d_count, tile_state, select_op, equality_op,
                static_cast<int>(items), num_tiles, streaming, vsmem);
    };
    if (s.output_state != nullptr) {
      sweep(erased_arg{&e}, erased_arg{&o});
    } else if (s.expression_state != nullptr) {
      sweep(erased_arg{&e}, s.out);
    } else {
      sweep(s.in, s.out);
    }
    // CUB's streaming_context_t::advance
    std::swap(streaming.d_num_selected_in, streaming.d_num_selected_out);
    streaming.first_partition = false;
    streaming.last_partition = p + 2 == num_partitions;
    streaming.total_previous_num_items += items;
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

namespace {

/// The request of select_if, partition or unique reading the iterator expression whose generated
/// code is `loader` (the "+index" sets: the expression in the first slot, anchoring the cache, the
/// family's operator after it); with `store`, the generated store of an output expression, the
/// "+io" sets (the store in the last slot).
jit::set_request expression_request(const jit_args& a, const cupar::jit::op& loader,
                                    const cupar::jit::op* store) {
  jit::set_request r = dp_index_request(a, loader);
  if (store != nullptr) {
    r.io = true;
    r.ops[2] = store;
  }
  return r;
}

/// select_if, select_flagged, partition and unique (types {T} (select_flagged {T, Flag}); ops
/// {the predicate or equality (null: ==)}). An expression input (a.in_iter[0]) is read by the
/// kernels of the "+index" sets, fused (select_flagged: where its "+index" set is precompiled,
/// else the items are written to a temporary first); an output expression left in a.out_iter[0]
/// (by the fused-output route of entry.cpp only) is stored through by the kernels of the "+io"
/// sets.
void call_select(const jit_args& given, stream_ref s, memory_resource& mr,
                 const pending_inputs* pending) {
  jit_args a = given;
  const char* fn = a.function;
  const jit_type& t = *a.types[0];
  const bool to_host = a.host_count != nullptr;
  const jit::family fam = a.call->fam;
  const bool flagged = fam == jit::family::select_flagged;
  // An iterator expression input: the "+index" sets read it. An
  // output expression (fuses_output, entry.cpp, chose it: no overlap with the input, a "+io" set
  // precompiled): the "+io" sets store through it as they compact, and read an array input as
  // an expression of that array.
  const cupar::jit::output* output = a.out_iter[0];
  std::optional<cupar::jit::iterator> array_input;
  if (output != nullptr && a.in_iter[0] == nullptr) {
    require_size(fn, a.n, t.size);
    require_data(fn, "d_in", a.in[0], a.n);
    array_input.emplace(cupar::jit::detail::iterator_pointer(t, a.in[0]));
  }
  const cupar::jit::iterator* expression = array_input ? &*array_input : a.in_iter[0];
  // CUB compacts in place for select_if and select_flagged only.
  const bool may_alias = fam == jit::family::select_if || flagged;
  if (expression != nullptr) {
    // The expression checks its own arrays; the output must not be one of them (documented).
    require_size(fn, a.n, t.size);
    if (output == nullptr) require_data(fn, "d_out", a.out[0], a.n);
    require_count(fn, "d_num_selected", a.d_count, to_host);
    if (flagged) check_flags(fn, a.in[1], a.n, a.types[1]->size, a.out[0], t.size);
  } else {
    check_select(fn, a.in[0], a.out[0], a.d_count, to_host, a.n, t.size, may_alias);
    if (flagged) check_flags(fn, a.in[1], a.n, a.types[1]->size, a.out[0], t.size);
  }
  write_pending(pending, s, mr);
  std::optional<cupar::jit::op> loader, store;
  if (expression != nullptr) loader.emplace(jit::expression_op(*expression, t, a.n, fn));
  if (output != nullptr) store.emplace(jit::store_op(*output, t, a.n, false, fn));
  std::optional<temp_storage> items;
  if (flagged && loader && !jit::precompiled_request(expression_request(a, *loader, nullptr)) &&
      jit::precompiled_request(dp_request(a, false))) {
    // Only the arrays' set precompiled (flags of another type): the items written to a temporary
    // (one pass of the "for_each" set, nothing compiled), then that set.
    items.emplace(mr, a.n * t.size, s);
    materialize(*expression, t, items->get(), a.n, s, mr, fn);
    a.in[0] = items->get();
    a.in_iter[0] = nullptr;
    expression = nullptr;
    loader.reset();
  }
  bool in_place = expression == nullptr && may_alias && a.n != 0 && a.in[0] == a.out[0];
  std::optional<temp_storage> copy;
  if (in_place && !jit::precompiled_request(dp_request(a, true)) &&
      jit::precompiled_request(dp_request(a, false))) {
    // Only the out-of-place set precompiled (records' select_flagged): the items copied to a
    // temporary, compacted from there into the caller's array (nothing compiled; the items past
    // the count keep their values, as CUB's in-place compaction leaves them).
    copy.emplace(mr, a.n * t.size, s);
    check_cuda(
        cudaMemcpyAsync(copy->get(), a.in[0], a.n * t.size, cudaMemcpyDeviceToDevice, s.get()),
        "cudaMemcpyAsync");
    a.in[0] = copy->get();
    in_place = false;
  }
  const jit::set_request req =
      loader ? expression_request(a, *loader, store ? &*store : nullptr) : dp_request(a, in_place);
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const placed_state placed_loader(loader, s, mr);
  const placed_state placed_store(store, s, mr);
  const cupar::jit::op* op = a.ops[0] != nullptr ? a.ops[0] : &cupar::jit::equal_to;
  const bool with_op = fam == jit::family::unique || !flagged;
  const kernel_states states(*module,
                             {loader ? loader->state() : nullptr, with_op ? op->state() : nullptr,
                              store ? store->state() : nullptr},
                             s, mr);
  jit::select_launch launch{a.in[0],
                            states[0],
                            flagged ? a.in[1] : nullptr,
                            output != nullptr ? nullptr : a.out[0],
                            nullptr,
                            a.n,
                            nullptr,
                            nullptr,
                            states[2]};
  if (fam == jit::family::unique) {
    launch.eq_state = states[1];
  } else if (!flagged) {
    launch.pred_state = states[1];
  }
  jit::launch_status st;
  const char* call = "cupar stream compaction (run-time operator)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 1,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_count = counts;
                jit::check_dispatch(jit::run_select(*module, dev, st, temp, bytes, launch, s.get()),
                                    st, call);
                return cudaSuccess;
              });
}

/// The request of a compile-only build or a plan: the "+index" sets for an input expression,
/// the "+io" sets for an output expression too.
jit::set_request select_request(const jit_args& a, request_scratch& scratch) {
  if (a.in_iter[0] == nullptr) return dp_request(a, false);
  const char* fn = "cupar::jit::compile";
  scratch.loader.emplace(jit::expression_op(*a.in_iter[0], *a.types[0], 0, fn));
  if (a.out_iter[0] != nullptr) {
    scratch.store.emplace(jit::store_op(*a.out_iter[0], *a.types[0], 0, false, fn));
  }
  return expression_request(a, *scratch.loader, scratch.store ? &*scratch.store : nullptr);
}

/// partition fills its whole output (the selected items, then the others in reverse).
constexpr call_io partition_io() {
  call_io io = io_of_compaction(true);
  io.bound[0] = jit::store_bound::all;
  return io;
}

/// select_flagged reads an items expression in its "+index" kernels (call_select); its flags
/// are tested for non-zero.
constexpr call_io select_flagged_io() {
  call_io io = io_of_compaction(false);
  io.reads_input[0] = true;
  io.nonzero_flags = true;
  return io;
}

}  // namespace

extern const jit_call select_if_jit_call =
    jit_call::make("select_if", jit::family::select_if, call_select, select_request)
        .with_io(io_of_compaction(true));
extern const jit_call select_flagged_jit_call =
    jit_call::make("select_flagged", jit::family::select_flagged, call_select, select_request)
        .with_io(select_flagged_io());
extern const jit_call partition_jit_call =
    jit_call::make("partition", jit::family::partition_if, call_select, select_request)
        .with_io(partition_io());
extern const jit_call unique_jit_call =
    jit_call::make("unique", jit::family::unique, call_select, select_request)
        .with_io(io_of_compaction(true));

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
