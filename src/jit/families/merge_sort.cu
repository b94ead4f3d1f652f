// cupar family: merge sort of keys, or of keys with a payload moved as opaque storage (CUB's
// merge sort kernels). Device code: jit_ops/cupar_merge_sort.cuh. Types: merge_sort_keys {K};
// merge_sort_pairs {K, V (storage)}.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string keys_typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_K;\n";
}

std::string pairs_typedefs(const set_spec& s) {
  return "#define CUPAR_SORT_PAIRS 1\ntypedef " + s.types[0].name + " cupar_K;\ntypedef " +
         s.types[1].name + " cupar_V;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  // The out-of-line kernels call the comparator's merge path search, and those of keys its
  // odd-even network and serial merge in chunks returned by value (jit_ops/cupar_merge_sort.cuh;
  // a build generates only what its kernels call). One call a whole merge, its keys and
  // positions written to the caller's local memory, made tier 1 1.6x slower
  // (docs/PERFORMANCE_NOTES.md).
  return {
      with_batches(op_slot({s.types[0], s.types[0]}, type_ref::boolean(), {"a", "b"}, "comparator"),
                   batch::oddeven | batch::merge_chunk | batch::merge_path)};
}

std::vector<std::string> names(const set_spec&) {
  return {
      "cub::detail::merge_sort::DeviceMergeSortBlockSortKernel<cupar_policy, "
      "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
      "cupar_sort_compare, cupar_K, cupar_value>",
      "cub::detail::merge_sort::DeviceMergeSortPartitionKernel<cupar_K*, cupar_offset, "
      "cupar_sort_compare, cupar_K>",
      "cub::detail::merge_sort::DeviceMergeSortMergeKernel<cupar_policy, "
      "const cupar_K*, cupar_value_in, cupar_K*, cupar_value_out, cupar_offset, "
      "cupar_sort_compare, cupar_K, cupar_value>",
      "cupar_meta<(long long)cupar_vsmem_helper::policy_t::BLOCK_THREADS, "
      "(long long)cupar_vsmem_helper::policy_t::ITEMS_PER_TILE, "
      "(long long)cub::detail::vsmem_helper_impl<"
      "cupar_vsmem_helper::block_sort_agent_t>::vsmem_per_block, "
      "(long long)cub::detail::vsmem_helper_impl<"
      "cupar_vsmem_helper::merge_agent_t>::vsmem_per_block>"};
}

/// The keys (the payload is storage already).
bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const keys_rules[] = {
    "precompile t=types: merge_sort_keys<$t>",
    "precompile s=structs: merge_sort_keys<$s>",
};

const char* const pairs_rules[] = {
    // 4- and 8-byte payloads (an index, a row id); other payload sizes compile from source.
    "precompile t=types v=s4a4|s8a8: merge_sort_pairs<$t,$v>",
    "precompile s=structs v=s4a4|s8a8: merge_sort_pairs<$s,$v>",
};

}  // namespace

extern const family_def merge_sort_keys_family =
    family_def::make(family::merge_sort_keys, "merge_sort_keys", "cupar_merge_sort.cuh", 3,
                     keys_typedefs, slots, names)
        .with_struct_classes(struct_position)
        .taking_states_by_reference()
        // The tier-1 block-sort and merge kernels on 4- and 8-byte arithmetic keys on sm_90 (256
        // threads a block) at 4 blocks an SM: linked with a comparator (CUPAR_JIT_DUMP_DIR,
        // 2026-12-01) the block sort took 96 registers and the merge 64 for f32 (2 blocks; the
        // optimised kernels 40, 6 blocks); capped, 63-64 without local memory for f32, 2 local
        // stores for f64, 26 for u32. The comparator's functions within the same 64 registers:
        // its odd-even network holds a thread's 17 keys in registers.
        .with_out_of_line_options(sm90_words_blocks<256, 64>, sm90_words_operators<64>)
        .precompiling(keys_rules);

extern const family_def merge_sort_pairs_family =
    family_def::make(family::merge_sort_pairs, "merge_sort_pairs", "cupar_merge_sort.cuh", 3,
                     pairs_typedefs, slots, names)
        .with_struct_classes(struct_position)
        .taking_states_by_reference()
        .precompiling(pairs_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"

#include "compiled/index_gather.hpp"
#include "compiled/library_types.hpp"
#include "compiled/top_k_sample.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/sort.hpp>
#include <cupar/top_k.hpp>

#include <cub/util_temporary_storage.cuh>
#include <cub/util_vsmem.cuh>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Merge sort (module meta: block threads, items per tile, block-sort and merge virtual shared
/// memory per block). Mirrors CUB's DispatchMergeSort::Invoke, whose 3.0.1 form sizes its buffers
/// with sizeof(KeyT) and so cannot serve a key type known only at run time.
cudaError_t run_merge_sort(const loaded_module& m, const device_info& dev, launch_status& st,
                           void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                           const void* values_in, void* values_out, std::size_t n,
                           std::size_t key_size, std::size_t value_size, const void* op_state,
                           cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

int log2_round_up(long long x) {
  int r = 0;
  while ((1ll << r) < x)
    ++r;
  return r;
}

}  // namespace

cudaError_t run_merge_sort(const loaded_module& m, const device_info& dev, launch_status& st,
                           void* temp, std::size_t& temp_bytes, const void* keys_in, void* keys_out,
                           const void* values_in, void* values_out, std::size_t n_total,
                           std::size_t key_size, std::size_t value_size, const void* op_state,
                           cudaStream_t stream) {
  using offset_t = long long;
  const auto n = static_cast<offset_t>(n_total);
  if (n == 0) {
    if (temp == nullptr) temp_bytes = 0;
    return cudaSuccess;
  }
  const int block_threads = static_cast<int>(m.meta(0));
  const offset_t tile_size = m.meta(1);
  const offset_t num_tiles = ceil_div(n, tile_size);
  const std::size_t vsmem_per_block = static_cast<std::size_t>(std::max(m.meta(2), m.meta(3)));
  std::size_t sizes[4] = {static_cast<std::size_t>(1 + num_tiles) * sizeof(offset_t),
                          n_total * key_size, n_total * value_size,
                          static_cast<std::size_t>(num_tiles) * vsmem_per_block};
  void* allocations[4] = {};
  cudaError_t error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  const int num_passes = log2_round_up(num_tiles);
  bool ping = num_passes % 2 == 0;
  auto* merge_partitions = static_cast<offset_t*>(allocations[0]);
  void* keys_buffer = allocations[1];
  void* items_buffer = allocations[2];
  const cub::detail::vsmem_t vsmem{allocations[3]};
  const erased_arg compare{op_state};
  jit_launcher_factory launch{&dev, &m, &st};

  launch(static_cast<int>(num_tiles), block_threads, 0, stream, true)
      .doit(m.kernel(0), ping, keys_in, values_in, keys_out, values_out, n, keys_buffer,
            items_buffer, compare, vsmem);
  const offset_t num_partitions = num_tiles + 1;
  constexpr int threads_per_partition_block = 256;
  const int partition_grid =
      static_cast<int>(ceil_div(num_partitions, threads_per_partition_block));
  const int items_per_tile = static_cast<int>(tile_size);
  for (int pass = 0; pass < num_passes; ++pass, ping = !ping) {
    const offset_t target_merged_tiles = offset_t(2) << pass;
    launch(partition_grid, threads_per_partition_block, 0, stream, true)
        .doit(m.kernel(1), ping, keys_out, keys_buffer, n, num_partitions, merge_partitions,
              compare, target_merged_tiles, items_per_tile);
    launch(static_cast<int>(num_tiles), block_threads, 0, stream, true)
        .doit(m.kernel(2), ping, keys_out, values_out, n, keys_buffer, items_buffer, compare,
              merge_partitions, target_merged_tiles, vsmem);
  }
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

namespace {

/// The payload type a merge sort of pairs moves: a 4- or 8-byte payload whose arrays are both
/// aligned to its size takes the set of that size and alignment (the kernels only move its bytes),
/// so a {float, int} payload (8 bytes, alignment 4) needs no set of its own.
const jit_type* sort_payload_type(const jit_type* value, const void* in, const void* out) {
  static const jit_type word4{static_cast<scalar>(0), "", nullptr, 4, 4};
  static const jit_type word8{static_cast<scalar>(0), "", nullptr, 8, 8};
  const std::size_t size = value->size;
  if (value->align == size || (size != 4 && size != 8)) return value;
  const auto bits = reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out);
  if (bits % size != 0) return value;
  return size == 4 ? &word4 : &word8;
}

/// The index type a sort of n pairs moves instead of the payload.
const jit_type& sort_index_type(std::size_t n) {
  return n > std::numeric_limits<std::uint32_t>::max() ? jit_type_of<unsigned long long>()
                                                       : jit_type_of<std::uint32_t>();
}

}  // namespace

namespace {

/// The request of a sort of keys `key` with `comp`, and a payload (null: keys only) that the
/// kernels move as bytes of its size and alignment.
set_request sort_set_request(const jit_type& key, const jit_type* payload,
                             const cupar::jit::op* comp) {
  set_request r{payload != nullptr ? family::merge_sort_pairs : family::merge_sort_keys,
                {&key, payload}};
  if (payload != nullptr) r.moved = 1;
  r.ops[0] = comp;
  return r;
}

void sort_arrays(const jit_args& call, stream_ref s, memory_resource& mr);

/// A sort whose keys or values go through output expressions: the sort writes temporary arrays,
/// which one "for_each" pass each (prepared before the sort) stores through the expressions;
/// discard() takes the temporary alone. An output expression that is a plain array of the
/// call's type is that array.
void sort_into_expressions(const jit_args& call, stream_ref s, memory_resource& mr) {
  const char* fn = call.function;
  jit_args b = call;
  b.out_iter[0] = nullptr;
  b.out_iter[1] = nullptr;
  const bool pairs = call.types[1] != nullptr;
  require_size(fn, call.n,
               std::max<std::size_t>(call.types[0]->size, pairs ? call.types[1]->size : 0));
  std::optional<temp_storage> temps[2];
  std::optional<for_each_pass> stores[2];
  const cupar::jit::output* outs[2] = {call.out_iter[0], pairs ? call.out_iter[1] : nullptr};
  const jit_type* types[2] = {call.types[0], call.types[2]};
  void** dst[2] = {&b.out[0], &b.out[1]};
  for (int k = 0; k < 2; ++k) {
    if (outs[k] == nullptr) continue;
    const jit_type* t = types[k];
    const bool discard = jit::is_discard(*outs[k]);
    if (t == nullptr && !discard) {
      throw_invalid_argument(fn,
                             "values written through an output expression need a type the "
                             "JIT knows (arithmetic, or a struct described with "
                             "CUPAR_JIT_TYPE)");
    }
    if (t != nullptr) {
      if (void* p = jit::plain_output(*outs[k], *t)) {
        *dst[k] = p;
        continue;
      }
    }
    const std::size_t size = k == 0 ? call.types[0]->size : call.types[1]->size;
    temps[k].emplace(mr, call.n * size, s);
    *dst[k] = temps[k]->get();
    if (discard) continue;
    stores[k].emplace(prepare_for_each(
        jit::bounded_store_op(*dst[k], *t, *outs[k], call.n, {}, true, fn), call.n, fn));
  }
  sort_arrays(b, s, mr);
  for (const auto& store : stores) {
    if (store) store->launch(s, mr, "cupar: a sort's output expression stored (run-time operator)");
  }
}

/// A sort into arrays (keys and values may still be expressions), on the stream's device.
void sort_arrays(const jit_args& call, stream_ref s, memory_resource& mr) {
  // Keys (values) given as an expression (a gather, a computed key, counting positions): the
  // sorts take arrays, so the expression is written to d_keys_out (d_values_out) in one pass once
  // the arguments are checked, and sorted there in place.
  jit_args a = call;
  if (a.in_iter[0] != nullptr) a.in[0] = a.out[0];
  const char* fn = a.function;
  if (a.in_iter[1] != nullptr) {
    if (a.types[1] == nullptr) throw_invalid_argument(fn, "values given to a keys-only sort");
    if (a.types[2] == nullptr) {
      throw_invalid_argument(fn,
                             "values given as an iterator expression need a type the JIT "
                             "knows (arithmetic, or a struct described with CUPAR_JIT_TYPE)");
    }
    a.in[1] = a.out[1];
  }
  const jit_type& k = *a.types[0];
  const bool pairs = a.types[1] != nullptr;
  const std::size_t vsize = pairs ? a.types[1]->size : 0;
  require_size(fn, a.n, std::max<std::size_t>(k.size, vsize));
  require_data(fn, "d_keys_in", a.in[0], a.n);
  require_data(fn, "d_keys_out", a.out[0], a.n);
  const std::size_t kb = a.n * k.size, vb = a.n * vsize;
  require_same_or_disjoint(fn, "d_keys_in", a.in[0], kb, "d_keys_out", a.out[0], kb);
  if (pairs) {
    require_data(fn, "d_values_in", a.in[1], a.n);
    require_data(fn, "d_values_out", a.out[1], a.n);
    require_same_or_disjoint(fn, "d_values_in", a.in[1], vb, "d_values_out", a.out[1], vb);
    require_disjoint(fn, "d_keys_out", a.out[0], kb, "d_values_out", a.out[1], vb);
    require_disjoint(fn, "d_keys_out", a.out[0], kb, "d_values_in", a.in[1], vb);
    require_disjoint(fn, "d_keys_in", a.in[0], kb, "d_values_out", a.out[1], vb);
  }
  if (a.in_iter[0] != nullptr) {
    materialize(*a.in_iter[0], k, a.out[0], a.n, s, mr, fn);
    a.in_iter[0] = nullptr;
  }
  if (a.in_iter[1] != nullptr) {
    materialize(*a.in_iter[1], *a.types[2], a.out[1], a.n, s, mr, fn);
    a.in_iter[1] = nullptr;
  }
  if (a.n == 0) return;
  const cupar::jit::named_op named = a.ops[0]->named();
  if ((named == cupar::jit::named_op::less || named == cupar::jit::named_op::greater) &&
      !k.is_struct()) {
    // less / greater on arithmetic keys: the library's (stable) radix sort.
    const radix_options options{
        named == cupar::jit::named_op::less ? sort_order::ascending : sort_order::descending, 0,
        -1};
    radix_sort({fn, k.kind, a.in[0], a.out[0], vsize, pairs ? a.types[1]->align : 0, a.in[1],
                a.out[1], a.n, options},
               s, mr);
    return;
  }
  set_request req = sort_set_request(
      k, pairs && a.plan == nullptr ? sort_payload_type(a.types[1], a.in[1], a.out[1]) : a.types[1],
      a.ops[0]);
  req.aligned8 = arrays_aligned8(a);
  if (pairs && a.plan == nullptr && !precompiled_request(req)) {
    // A payload without a precompiled set (a struct of another size than 4 or 8 bytes, 1- and
    // 2-byte values): sort the keys with a 4- or 8-byte index as payload, whose sets exist for
    // every precompiled key, then gather the values by the sorted index in one pass, as the
    // radix sort does for such payloads. Only the comparator is compiled, not CUB's kernels from
    // source. The sort stays stable: equal keys keep their indices, so their values, in order.
    const jit_type& index = sort_index_type(a.n);
    set_request by_index = req;
    by_index.t[1] = &index;
    if (precompiled_request(by_index)) {
      const std::size_t ib = align_up(a.n * index.size, 256);
      const bool in_place = a.in[1] == a.out[1];
      temp_storage temp(mr, 2 * ib + (in_place ? vb : 0), s);
      auto* base = static_cast<unsigned char*>(temp.get());
      index_iota(base, index.size, a.n, s);
      jit_args sorted = a;
      sorted.types[1] = &index;
      sorted.in[1] = base;
      sorted.out[1] = base + ib;
      sort_arrays(sorted, s, mr);
      const void* src = a.in[1];
      if (in_place) {
        check_cuda(cudaMemcpyAsync(base + 2 * ib, a.in[1], vb, cudaMemcpyDeviceToDevice, s.get()),
                   "cudaMemcpyAsync");
        src = base + 2 * ib;
      }
      index_gather(src, a.out[1], base + ib, index.size, vsize, a.n, s);
      return;
    }
  }
  const jit::resolved resolved = resolve(req, a.plan, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  jit::launch_status st;
  const kernel_states states(*module, {a.ops[0]->state()}, s, mr);
  run_with_temp_storage("cupar sort (run-time comparator)", mr, s, {a.n, module->serial()},
                        [&](void* temp, std::size_t& bytes) {
                          const cudaError_t e = jit::run_merge_sort(
                              *module, dev, st, temp, bytes, a.in[0], a.out[0],
                              pairs ? a.in[1] : nullptr, pairs ? a.out[1] : nullptr, a.n, k.size,
                              vsize, states[0], s.get());
                          jit::check_dispatch(e, st, "cupar sort (run-time comparator)");
                          return cudaSuccess;
                        });
}

/// sort and stable_sort (types {Key, the values as moved (null: keys only), the values' JIT type
/// (for expressions)}; ops {comparator}; in/in_iter, out/out_iter: keys then values). The merge
/// sort and the radix sort it hands less / greater to are both stable, so the two are one.
void run_sort(const jit_args& call, stream_ref s, memory_resource& mr, const pending_inputs*) {
  if (call.out_iter[0] != nullptr || call.out_iter[1] != nullptr) {
    return sort_into_expressions(call, s, mr);
  }
  sort_arrays(call, s, mr);
}

/// The request of a compile-only build or a plan: keys {Key}, values moved as types[1]'s bytes.
set_request sort_request(const jit_args& a, request_scratch&) {
  return sort_set_request(*a.types[0], a.types[1], a.ops[0]);
}

/// less / greater on arithmetic keys: the library's radix sort serves them.
bool radix_sorted(const set_request& r, const cupar::jit::op& op) {
  const cupar::jit::named_op named = op.named();
  return !r.t[0]->is_struct() &&
         (named == cupar::jit::named_op::less || named == cupar::jit::named_op::greater);
}

}  // namespace

// ---- top_k with a run-time comparator ---------------------------------------------------------

/// out[j] = keys[j * stride] for j < count: `size` bytes each (moved in 4-byte words when size and
/// both arrays allow).
__global__ void strided_sample_kernel(const unsigned char* keys, std::size_t size,
                                      unsigned long long stride, unsigned char* out,
                                      unsigned long long count) {
  const unsigned long long j =
      static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= count) return;
  const unsigned char* from = keys + j * stride * size;
  unsigned char* to = out + j * size;
  if (size % 4 == 0 && reinterpret_cast<std::uintptr_t>(keys) % 4 == 0) {
    for (std::size_t b = 0; b < size; b += 4) {
      *reinterpret_cast<unsigned int*>(to + b) = *reinterpret_cast<const unsigned int*>(from + b);
    }
  } else {
    for (std::size_t b = 0; b < size; ++b)
      to[b] = from[b];
  }
}

/// The keys of a sample the comparator route draws (evenly spaced): its threshold's rank is
/// sample_threshold_rank's (compiled/top_k_sample.hpp), used where k <= n / 16.
constexpr std::size_t top_k_sample = std::size_t(1) << 16;

/// top_k, top_k_pairs and top_k_positions with a run-time comparator (top_k.hpp): types {Key, the
/// values as moved (null: none), Position (null: none)}; in {keys, values}; out {keys (may be
/// null with positions), values, positions}; n; m = k; ops {comp}. The first k keys of a stable
/// sort by comp: the keys not after a threshold drawn from a sorted sample are selected with
/// their positions (select_if over positions, one pass over the keys), at least k of them, then
/// only those are sorted (stable: they are in position order), and the first k taken; the
/// values gathered by position. Where k > n / 16, n < 2^16 or the threshold fell short (fewer
/// than k keys not after it), all n are sorted. less / greater on arithmetic keys: the radix
/// select of top_k.hpp. Synchronises (the number of candidates sizes their sort).
void run_top_k(const jit_args& a, stream_ref s, memory_resource& mr, const pending_inputs*) {
  const char* fn = a.function;
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no comparator");
  const jit_type& key = *a.types[0];
  const jit_type* values = a.types[1];
  const jit_type* position = a.types[2];
  const std::size_t n = a.n, k = a.m;
  if (k > n) {
    throw_invalid_argument(fn, "k = " + std::to_string(k) + " exceeds n = " + std::to_string(n));
  }
  require_size(fn, n, key.size);
  require_data(fn, "d_keys", a.in[0], n);
  const std::size_t kb = k * key.size;
  if (a.out[0] != nullptr || position == nullptr) {
    require_data(fn, "d_keys_out", a.out[0], k);
    require_disjoint(fn, "d_keys", a.in[0], n * key.size, "d_keys_out", a.out[0], kb);
  }
  if (values != nullptr) {
    require_size(fn, n, values->size);
    require_data(fn, "d_values", a.in[1], n);
    require_data(fn, "d_values_out", a.out[1], k);
    const std::size_t vb = k * values->size;
    require_disjoint(fn, "d_values", a.in[1], n * values->size, "d_values_out", a.out[1], vb);
    require_disjoint(fn, "d_keys", a.in[0], n * key.size, "d_values_out", a.out[1], vb);
    if (a.out[0] != nullptr) {
      require_disjoint(fn, "d_keys_out", a.out[0], kb, "d_values_out", a.out[1], vb);
    }
  }
  if (position != nullptr) {
    require_data(fn, "d_positions", a.out[2], k);
    const std::size_t pb = k * position->size;
    const std::uint64_t most = position->size == 8
                                   ? (position->kind == scalar::i64 ? INT64_MAX : UINT64_MAX)
                                   : (position->kind == scalar::i32 ? INT32_MAX : UINT32_MAX);
    if (n > 0 && static_cast<std::uint64_t>(n - 1) > most) {
      throw_invalid_argument(fn, std::string("positions of type ") + position->name +
                                     " cannot hold n - 1 = " + std::to_string(n - 1));
    }
    require_disjoint(fn, "d_keys", a.in[0], n * key.size, "d_positions", a.out[2], pb);
    if (a.out[0] != nullptr) {
      require_disjoint(fn, "d_keys_out", a.out[0], kb, "d_positions", a.out[2], pb);
    }
    if (values != nullptr) {
      require_disjoint(fn, "d_values_out", a.out[1], k * values->size, "d_positions", a.out[2], pb);
    }
  }
  if (k == 0) return;
  const cupar::jit::op& comp = *a.ops[0];
  const cupar::jit::named_op named = comp.named();
  if ((named == cupar::jit::named_op::less || named == cupar::jit::named_op::greater) &&
      !key.is_struct() && library_types[static_cast<int>(key.kind)]) {
    top_k(
        {fn, key.kind, a.in[0], a.out[0], values != nullptr ? values->size : 0,
         values != nullptr ? values->align : 0, a.in[1], a.out[1], a.out[2],
         position != nullptr ? position->size : 0,
         position != nullptr && (position->kind == scalar::i32 || position->kind == scalar::i64), n,
         k, named == cupar::jit::named_op::less ? sort_order::ascending : sort_order::descending},
        s, mr);
    return;
  }
  // The positions the candidates travel with: the caller's width (their bits are the positions),
  // else the narrowest that holds n - 1.
  const jit_type& index =
      position != nullptr
          ? (position->size == 8 ? jit_type_of<unsigned long long>() : jit_type_of<std::uint32_t>())
          : sort_index_type(n);
  // The candidates: up to n keys and their positions.
  const std::size_t at_positions = align_up(n * key.size, 256);
  temp_storage temp(mr, at_positions + n * index.size, s);
  auto* candidate_keys = static_cast<unsigned char*>(temp.get());
  unsigned char* positions = candidate_keys + at_positions;
  static const jit_call& stable = jit_call_named("stable_sort");
  std::size_t candidates = n;
  bool sampled = n >= top_k_sample && k <= n / 16;
  if (sampled) {
    // The sample sorted, its key at the threshold's rank; the positions of the keys not after
    // it selected in order.
    const std::size_t samples = std::min(top_k_sample, n / 16);
    temp_storage sample(mr, samples * key.size, s);
    const int threads = 256;
    strided_sample_kernel<<<static_cast<unsigned>((samples + threads - 1) / threads), threads, 0,
                            s.get()>>>(static_cast<const unsigned char*>(a.in[0]), key.size,
                                       n / samples, static_cast<unsigned char*>(sample.get()),
                                       samples);
    check_cuda(cudaGetLastError(), fn);
    jit_args sorted{fn, &stable, {&key}};
    sorted.in[0] = sample.get();
    sorted.out[0] = sample.get();
    sorted.n = samples;
    sorted.ops[0] = &comp;
    sort_arrays(sorted, s, mr);
    const void* threshold =
        static_cast<unsigned char*>(sample.get()) + sample_threshold_rank(n, k, samples) * key.size;
    const cupar::jit::op keep = jit::not_after_predicate(comp, key, a.in[0], threshold, fn);
    const cupar::jit::iterator all =
        index.size == 8 ? cupar::jit::counting(0ull) : cupar::jit::counting(0u);
    static const jit_call& select = jit_call_named("select_if");
    jit_args chosen{fn, &select, {&index}};
    chosen.in_iter[0] = &all;
    chosen.out[0] = positions;
    chosen.host_count = &candidates;
    chosen.n = n;
    chosen.ops[0] = &keep;
    jit_run(chosen, s, mr);  // synchronises: the count
    sampled = candidates >= k;
  }
  if (!sampled) {
    index_iota(positions, index.size, n, s);
    candidates = n;
  }
  index_gather(a.in[0], candidate_keys, positions, index.size, key.size, candidates, s);
  // Stable: the candidates are in position order, so equal keys keep it.
  jit_args sorted{fn, &stable, {&key, &index}};
  sorted.in[0] = sorted.out[0] = candidate_keys;
  sorted.in[1] = sorted.out[1] = positions;
  sorted.n = candidates;
  sorted.ops[0] = &comp;
  sort_arrays(sorted, s, mr);
  cudaStream_t cs = s.get();
  if (a.out[0] != nullptr) {
    check_cuda(cudaMemcpyAsync(a.out[0], candidate_keys, kb, cudaMemcpyDeviceToDevice, cs), fn);
  }
  if (position != nullptr) {
    check_cuda(cudaMemcpyAsync(a.out[2], positions, k * index.size, cudaMemcpyDeviceToDevice, cs),
               fn);
  }
  if (values != nullptr) {
    index_gather(a.in[1], a.out[1], positions, index.size, values->size, k, s);
  }
}

extern const jit_call sort_jit_call =
    jit_call::make("sort", jit::family::merge_sort_keys, run_sort, sort_request)
        .served_by(radix_sorted);
extern const jit_call stable_sort_jit_call =
    jit_call::make("stable_sort", jit::family::merge_sort_keys, run_sort, sort_request)
        .served_by(radix_sorted);
/// No compile-only build (the sorts' and select_if's are its kernels).
extern const jit_call top_k_by_jit_call =
    jit_call::make("top_k_by", jit::family::merge_sort_keys, run_top_k, nullptr);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
