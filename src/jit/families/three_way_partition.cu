// cupar family: three-way partition by two predicates. Device code:
// jit_ops/cupar_three_way_partition.cuh. Size classes {T}.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_T;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  // With their batched forms: the out-of-line kernels flag a thread's items eight or four a
  // call, the second predicate only where the first was false
  // (jit_ops/cupar_three_way_partition.cuh).
  return {with_batches(predicate_slot(s.types[0], 1), batch::pred),
          with_batches(predicate_slot(s.types[0], 2), batch::pred_masked)};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_three_way_partition_init", "cupar_three_way_partition_sweep", meta_expression(4)};
}

/// 4-byte items on sm_90: 64, 80, 128 registers in turn (the first link without spills is kept).
/// With the 32-bit offsets' tuning (320 x 12) the LTO build took 76 registers and
/// -maxrregcount=64 gave 64 without spills (0.97 of CUB at 2^24..2^28, H100, 2026-11-23). The
/// 64-bit offsets' tuning (256 x 23, jit_ops) declares its sweep with __launch_bounds__, for
/// which ptxas ignores -maxrregcount: the sweep links at its own 128 registers (2 blocks an SM)
/// at the first try (the init kernel takes the cap; it needs 16). Measured with working caps
/// (-Xptxas=--minnctapersm, ptxas -v, 2026-11-30): 64 registers spill 548 bytes, 80 spill 244,
/// 2 blocks (124 registers) none, so 2 blocks is the sweep's occupancy either way. The list
/// stays because a link with options is linked without split compilation, which changes code
/// (link.cpp); dropping it waits on a measurement of the split-compiled kernel.
std::vector<std::vector<std::string>> occupancy(const set_spec& s, long long, int arch) {
  if (arch != 90 || s.types.empty() || s.types[0].size != 4) return {};
  return {{"-maxrregcount=64"}, {"-maxrregcount=80"}, {"-maxrregcount=128"}};
}

const char* const rules[] = {
    "precompile c=classes: three_way_partition<$c>",
    "precompile s=dp_structs: three_way_partition<$s>",
};

}  // namespace

extern const family_def three_way_partition_family =
    family_def::make(family::three_way_partition, "three_way_partition",
                     "cupar_three_way_partition.cuh", 2, typedefs, slots, names)
        .for_size_classes()
        .with_occupancy(occupancy)
        // The out-of-line (tier-1) sweep kernel at 2 blocks of 256 threads an SM on sm_90 for 4-
        // and 8-byte arithmetic items: compiled alone it took 193-199 registers, 1 block an SM; at
        // 128 ptxas spills 376 / 448 bytes (compile only, ptxas -v), and tier 1 still ran 1.23x
        // faster at 2^24 and 2^28 (H200, 2026-11-30: docs/PERFORMANCE_NOTES.md, "Tier-1 kernels").
        // The predicates' functions it calls are compiled within 32 registers (a callee may not use
        // more than its kernel; the named operators' batched forms are compiled so too).
        .with_out_of_line_options(sm90_words_blocks<256, 128>,
                                  sm90_words_operators<out_of_line_registers>)
        .taking_states_by_reference()
        .precompiling(rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/launch.hpp"

#include <cupar/detail/counted.hpp>
#include <cupar/detail/dp_checks.hpp>

#include <cub/agent/agent_three_way_partition.cuh>
#include <cub/util_temporary_storage.cuh>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <utility>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Three-way partition (module meta: block threads, items per thread, size of the accumulator
/// pack). Mirrors CUB's DispatchThreeWayPartitionIf::Invoke.
struct three_way_launch {
  const void* in;
  void* out[3];    // first part, second part, unselected
  void* d_counts;  // two 64-bit counts
  std::size_t n;
  const void* first_state;
  const void* second_state;
};
cudaError_t run_three_way(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const three_way_launch& t,
                          cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

/// Host image of cupar_three_way_streaming (jit_ops/cupar_three_way_partition.cuh).
struct three_way_streaming {
  bool first_partition;
  bool last_partition;
  long long total_previous_num_items;
  long long* d_num_selected_in;
  long long* d_num_selected_out;
};
static_assert(sizeof(three_way_streaming) == 32, "layout of cupar_three_way_streaming");

}  // namespace

cudaError_t run_three_way(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const three_way_launch& t,
                          cudaStream_t stream) {
  using pack_t = cub::detail::three_way_partition::accumulator_pack_t<int>::pack_t;
  using tile_state_t = cub::ScanTileState<pack_t>;
  static_assert(sizeof(pack_t) == 8, "the kernels' accumulator pack");
  constexpr int init_threads = 256;
  constexpr long long counters_per_pass = 3;
  if (m.meta(2) != static_cast<long long>(sizeof(pack_t))) return cudaErrorInvalidValue;
  const long long n = static_cast<long long>(t.n);
  const int block_threads = static_cast<int>(m.meta(0));
  const long long tile_size = m.meta(0) * m.meta(1);
  const long long max_partition_size = std::min<long long>(n, INT_MAX);
  const long long num_partitions = max_partition_size == 0 ? 1 : ceil_div(n, max_partition_size);
  const long long max_tiles = ceil_div(max_partition_size, tile_size);

  std::size_t sizes[2] = {
      0, num_partitions > 1 ? 2 * counters_per_pass * sizeof(long long) : std::size_t{0}};
  cudaError_t error = tile_state_t::AllocationSize(static_cast<int>(max_tiles), sizes[0]);
  if (error != cudaSuccess) return error;
  void* allocations[2] = {};
  error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  auto* tmp = static_cast<long long*>(allocations[1]);
  three_way_streaming streaming{true, num_partitions <= 1, 0, tmp, tmp + counters_per_pass};
  const erased_arg first{t.first_state}, second{t.second_state};
  jit_launcher_factory launch{&dev, &m, &st};
  for (long long p = 0; p < num_partitions; ++p) {
    const long long offset = p * max_partition_size;
    const long long items = p + 1 == num_partitions ? n - offset : max_partition_size;
    const int num_tiles = static_cast<int>(ceil_div(items, tile_size));
    tile_state_t tile_state;
    error = tile_state.Init(num_tiles, allocations[0], sizes[0]);
    if (error != cudaSuccess) return error;
    const int init_grid = std::max(1, static_cast<int>(ceil_div(num_tiles, init_threads)));
    launch(init_grid, init_threads, 0, stream).doit(m.kernel(0), tile_state, num_tiles, t.d_counts);
    if (items == 0) break;  // the initialisation kernel wrote the zero counts
    launch(num_tiles, block_threads, 0, stream)
        .doit(m.kernel(1), t.in, t.out[0], t.out[1], t.out[2], t.d_counts, tile_state, first,
              second, static_cast<int>(items), num_tiles, streaming);
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

void call_three_way(const jit_args& a, stream_ref s, memory_resource& mr,
                    const pending_inputs* pending) {
  const char* fn = a.function;
  const jit_type& t = *a.types[0];
  const void* outs[3] = {a.out[0], a.out[1], a.out[2]};
  check_three_way(fn, a.in[0], outs, a.d_count, a.host_count != nullptr, a.n, t.size);
  write_pending(pending, s, mr);
  const jit::set_request req = dp_request(a, false);
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const kernel_states states(*module, {a.ops[0]->state(), a.ops[1]->state()}, s, mr);
  jit::three_way_launch launch{a.in[0],  {a.out[0], a.out[1], a.out[2]}, nullptr, a.n, states[0],
                               states[1]};
  jit::launch_status st;
  const char* call = "cupar three-way partition (run-time operators)";
  run_counted(call, mr, s, {a.n, module->serial()}, a.d_count, a.host_count, 2,
              [&](void* temp, std::size_t& bytes, std::size_t* counts) {
                launch.d_counts = counts;
                jit::check_dispatch(
                    jit::run_three_way(*module, dev, st, temp, bytes, launch, s.get()), st, call);
                return cudaSuccess;
              });
}

constexpr call_io three_way_io() {
  call_io io{};
  io.count_words = 2;
  io.bound[0] = jit::store_bound::first;
  io.bound[1] = jit::store_bound::second;
  io.bound[2] = jit::store_bound::rest;
  return io;
}

}  // namespace

extern const jit_call three_way_partition_jit_call =
    jit_call::make("three_way_partition", jit::family::three_way_partition, call_three_way,
                   dp_compile_request)
        .with_io(three_way_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
