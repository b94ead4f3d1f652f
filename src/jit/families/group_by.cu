// cupar family: GROUP BY with a run-time combining operator (cupar::group_by, group_by.hpp).
// Device code: jit_ops/cupar_group_by.cuh (the hash method's kernels, the C++ path's own from
// cupar/detail/device/hash_table.cuh). Size classes {K, V}; floating-point keys are normalised
// to their bits first (-0.0 as +0.0, every NaN as one), so the kernels see unsigned keys.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, the library entry: argument checks, the
// HyperLogLog sketch, the choice of method, the hash method (the module's kernels, the
// compaction of the table's ready slots) and the sort route (the library's radix sort, then the
// run-time reduce_by_key with the same operator).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  std::string out =
      "typedef " + s.types[0].name + " cupar_K;\ntypedef " + s.types[1].name + " cupar_V;\n";
  // "+index": the values an iterator expression yielding cupar_V (cupar_expr_input.cuh's cupar_T).
  if (s.variant == "index") out += "#define CUPAR_INDEX_INPUT 1\ntypedef cupar_V cupar_T;\n";
  return out;
}

/// The combining operator, on the values (type 1); "+index": the values' expression first.
std::vector<slot_spec> slots(const set_spec& s) {
  if (s.variant == "index") return {expression_slot(s.types[1]), binary_op_slot(s.types[1])};
  return {binary_op_slot(s.types[1])};
}
std::size_t slot_types(std::size_t) {
  return 1;
}

std::vector<std::string> names(const set_spec&) {
  return {
      "cupar::detail::hash::aggregate_kernel<cupar_group_threads, cupar_group_warp_slots, "
      "const cupar_K*, cupar_group_values, cupar_K, cupar_V, cupar_group_by_op, "
      "unsigned long long>",
      "cupar::detail::hash::aggregate_kernel<cupar_group_threads, cupar_group_warp_slots, "
      "cupar::detail::hash::slot_keys<cupar_K, cupar_V>, "
      "cupar::detail::hash::slot_values<cupar_K, cupar_V>, cupar_K, cupar_V, "
      "cupar_group_by_op, unsigned long long>",
      "cupar::detail::hash::gather_groups_kernel<cupar_K, cupar_V, unsigned long long, "
      "cupar_K*, cupar_V*>",
      "cupar::detail::hash::block_table_kernel<cupar_group_table_threads, "
      "cupar_group_table_unroll, cupar_K, cupar_V, cupar_group_direct_rows, cupar_group_by_op>",
      "cupar::detail::hash::block_table_kernel<cupar_group_table_threads, "
      "cupar_group_table_unroll, cupar_K, cupar_V, cupar_group_mixed_rows, cupar_group_by_op>",
      meta_expression(7)};
}

// Keys of 4 and 8 bytes (integers, and float / double keys by their bits) with values of every
// size class and the data-processing struct classes (accumulators such as (count, sum, min,
// max)); 1- and 2-byte keys compile from source at their first call. "+index": the values an
// iterator expression (an accumulator made from columns), read by the kernels.
const char* const rules[] = {
    "precompile k=u32|u64 v=classes: group_by<$k,$v>",
    "precompile k=u32|u64 s=dp_structs: group_by<$k,$s>",
    "precompile k=u32|u64 v=classes: group_by<$k,$v>+index",
    "precompile k=u32|u64 s=dp_structs: group_by<$k,$s>+index",
};

}  // namespace

extern const family_def group_by_family =
    family_def::make(family::group_by, "group_by", "cupar_group_by.cuh", 5, typedefs, slots, names)
        .for_size_classes()
        .with_slot_types(slot_types)
        .precompiling(rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/request.hpp"
#include "compiled/library_types.hpp"
#include "compiled/restride.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/hash_table.cuh>
#include <cupar/detail/device/key_table.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/group_by_sketch.cuh>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/runs.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/group_by.hpp>
#include <cupar/sort.hpp>

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_select.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

// ---- kernels of the library (nvcc): type-free, or by the keys' size --------------------------

namespace cupar::detail {
namespace {

/// Floating-point keys as the bits of their normalised values (hash::key_bits).
template <class F, class U>
__global__ void normalise_keys_kernel(const F* keys, U* bits, unsigned long long n) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    bits[i] = static_cast<U>(hash::key_bits(keys[i]));
  }
}

/// Whether slot i of a table of `stride`-byte slots holds a group (its state, the slot's first
/// word, is ready): the compaction's predicate for every slot type.
struct ready_slot {
  const unsigned char* table;
  unsigned long long stride;
  __device__ bool operator()(unsigned long long i) const {
    return *reinterpret_cast<const unsigned int*>(table + i * stride) == hash::slot_ready;
  }
};

double sketch_of_size(const char* fn, const void* keys, std::size_t key_size, std::size_t n,
                      stream_ref stream, memory_resource& mr) {
  switch (key_size) {
    case 1:
      return sketch_groups(fn, static_cast<const std::uint8_t*>(keys), n, stream, mr);
    case 2:
      return sketch_groups(fn, static_cast<const std::uint16_t*>(keys), n, stream, mr);
    case 4:
      return sketch_groups(fn, static_cast<const std::uint32_t*>(keys), n, stream, mr);
    default:
      return sketch_groups(fn, static_cast<const std::uint64_t*>(keys), n, stream, mr);
  }
}

/// The bytes of hash::slot<K, V> for keys of `key_size` bytes and accumulators of `v_size` bytes
/// aligned to `v_align` (the module's meta says the same; checked).
std::size_t slot_bytes(std::size_t key_size, std::size_t v_size, std::size_t v_align) {
  const std::size_t word = v_size <= 4 ? 4 : v_size <= 8 ? 8 : v_size <= 16 ? 16 : v_size;
  const std::size_t word_align = v_size <= 16 ? word : v_align;
  auto up = [](std::size_t x, std::size_t a) { return (x + a - 1) / a * a; };
  const std::size_t align = std::max<std::size_t>({4, key_size, word_align});
  std::size_t at = up(4, key_size) + key_size;  // state, key
  at = up(at, word_align) + word;
  return up(at, align);
}

/// The bytes of a slot of the table method's block tables (hash::block_table<K, V>::slot_bytes):
/// keys of up to 4 bytes keep a 4-byte key word and a lock word, the accumulator's word apart.
std::size_t block_slot_bytes(std::size_t key_size, std::size_t v_size, std::size_t v_align) {
  if (key_size > 4) return slot_bytes(key_size, v_size, v_align);
  return 8 + (v_size <= 4 ? 4 : v_size <= 8 ? 8 : v_size <= 16 ? 16 : v_size);
}

/// The slots of a warp's table for a slot of `bytes` (hash::warp_table_slots).
int warp_slots_for(std::size_t bytes) {
  return bytes <= 32 ? 256 : bytes <= 64 ? 128 : bytes <= 256 ? 32 : 8;
}

const jit_type& unsigned_of_size(std::size_t size) {
  switch (size) {
    case 1:
      return jit_type_of<std::uint8_t>();
    case 2:
      return jit_type_of<std::uint16_t>();
    case 4:
      return jit_type_of<std::uint32_t>();
    default:
      return jit_type_of<std::uint64_t>();
  }
}

/// Where the groups go: the caller's arrays (room for `capacity` groups) or exact-size arrays
/// from params.allocate.
struct group_outputs {
  const char* fn;
  const group_by_params* params;
  void* keys;
  void* values;
  /// Padded values (pad_values): the routes write records of `padded` bytes to a temporary,
  /// finish() copies their first `user` bytes to the values' array.
  struct padding {
    std::size_t user = 0, padded = 0;
    memory_resource* mr = nullptr;
    stream_ref stream = stream_ref::legacy_default();
    std::optional<temp_storage> staged;
    void* values = nullptr;  // the caller's (or new) array
    std::size_t count = 0;
  };
  std::optional<padding> pad;
  /// The arrays for `count` groups: the caller's (std::length_error when they lack room) or new.
  void take(std::size_t count) {
    if (params->allocate != nullptr) {
      params->allocate(params->context, count, &keys, &values);
    } else if (count > params->out_capacity) {
      throw std::length_error(
          std::string(fn) + ": " + std::to_string(count) +
          " groups do not fit out_capacity = " + std::to_string(params->out_capacity));
    }
    if (pad) {
      pad->values = values;
      pad->count = count;
      pad->staged.emplace(*pad->mr, count * pad->padded, pad->stream);
      values = pad->staged->get();
    }
  }
  /// Padded values: copied to the values' array once the routes wrote them.
  void finish() {
    if (!pad || pad->count == 0) return;
    restride(pad->staged->get(), pad->padded, pad->values, pad->user, pad->count, {}, pad->stream);
  }
};

/// The call's values: the caller's array, or an iterator expression that the hash method's first
/// pass and the block tables over the rows as given read in their kernels (the "+index" sets,
/// `loader` their first slot) and the other routes (partitioned rows, the sort route) write to a
/// temporary first.
struct group_values {
  const jit_args* a = nullptr;
  const cupar::jit::iterator* expression = nullptr;
  /// The one array the expression reads at the row's index, if that is all it reads
  /// (sole_array_of): the routes that reorder the rows move it instead of the values.
  jit::sole_array moved;
  std::optional<cupar::jit::op> loader;
  std::optional<temp_storage> written;
  /// The values as an array: the caller's, or the expression written to a temporary (once).
  const void* array(stream_ref s, memory_resource& mr) {
    if (expression == nullptr) return a->in[1];
    if (!written) {
      written.emplace(mr, a->n * a->types[1]->size, s);
      materialize(*expression, *a->types[1], written->get(), a->n, s, mr, a->function);
    }
    return written->get();
  }
  /// `f(values)` with the kernels' values argument: the array's pointer, or (a "+index" set) the
  /// expression's state as cupar_expr_iterator takes it, from row 0.
  template <class F>
  void with_kernel_values(F&& f) const {
    if (!loader) return f(a->in[1]);
    f(jit::expression_input::of(loader->state()));
  }
};

/// The groups sorted by key from `keys` / `values` (count of them, temporary) into the outputs.
void sort_groups(const char* fn, scalar key, const void* keys, const jit_type& v,
                 const void* values, std::size_t count, void* keys_out, void* values_out,
                 stream_ref stream, memory_resource& mr) {
  radix_sort_args r{fn,      key,    keys,       keys_out, v.size,
                    v.align, values, values_out, count,    radix_options{}};
  radix_sort(r, stream, mr);
}

/// The sort route: keys (normalised bits for floating-point keys, read as the keys' own type)
/// radix-sorted with the values, then reduce_by_key with the operator over the runs (keys
/// compared by their bits). Groups in key order. A values expression that reads one array at the
/// row's index (sole_array_of) sorts that array instead, and reduce_by_key reads the expression
/// over the sorted copy (its "+index" set where one is precompiled); any other expression is
/// written to an array first.
void sort_route(const jit_args& a, const group_by_params& p, const void* keys, group_values& values,
                group_outputs& out, stream_ref stream, memory_resource& mr) {
  const char* fn = a.function;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  const std::size_t n = a.n;
  // The caller's arrays with room for every row take the groups as reduce_by_key finds them
  // (nothing may be written before a max_groups check, hence none); else the groups are counted
  // in the sorted keys first and written where they go (out.take: new arrays of their size, or
  // the caller's, std::length_error when they lack room; a padded temporary).
  const bool room_for_rows =
      p.allocate == nullptr && p.out_capacity >= n && p.options.max_groups == 0 && !out.pad;
  const jit::sole_array& moved = values.moved;
  const bool rebind = moved.type != nullptr;
  const std::size_t payload = rebind ? moved.type->size : v.size;
  carve parts;
  const std::size_t at_keys = parts.add(n * k.size);
  const std::size_t at_values = parts.add(n * payload);
  temp_storage storage(mr, parts.total, stream);
  auto* base = static_cast<unsigned char*>(storage.get());
  void* sorted_keys = base + at_keys;
  void* sorted_values = base + at_values;
  radix_sort_args r{fn,
                    k.kind,
                    keys,
                    sorted_keys,
                    payload,
                    rebind ? moved.type->align : v.align,
                    rebind ? moved.pointer : values.array(stream, mr),
                    sorted_values,
                    n,
                    radix_options{}};
  radix_sort(r, stream, mr);
  std::size_t runs = n;
  if (!room_for_rows) {
    runs = count_runs(fn, sorted_keys, k.size, n, stream, mr);
    require_max_groups(fn, p.options.max_groups, false, runs);
    out.take(runs);
  }
  std::optional<cupar::jit::iterator> sorted_expression;
  if (rebind) sorted_expression.emplace(jit::with_sole_array(*values.expression, sorted_values));
  static const jit_call& reduce_by_key = jit_call_named("reduce_by_key");  // looked up once
  jit_args b{fn, &reduce_by_key};
  b.types[0] = &unsigned_of_size(k.size);  // equal keys: equal bits (NaN included)
  b.types[1] = &v;
  b.in[0] = sorted_keys;
  if (sorted_expression) {
    b.in_iter[1] = &*sorted_expression;
  } else {
    b.in[1] = sorted_values;
  }
  b.out[0] = out.keys;
  b.out[1] = out.values;
  b.ops[0] = a.ops[0];
  b.n = n;
  std::size_t count = 0;
  b.host_count = &count;
  jit_run(b, stream, mr);
  require_max_groups(fn, p.options.max_groups, false, count);
  if (count > runs) {
    throw std::logic_error(std::string(fn) + ": reduce_by_key found " + std::to_string(count) +
                           " groups where the sorted keys have " + std::to_string(runs) + " runs");
  }
  *p.groups = count;
}

/// The request of the group_by set for the call's key and value classes; with `loader`, the
/// "+index" set whose kernels read the values' expression.
jit::set_request group_by_set(const jit_args& a, const cupar::jit::op* loader) {
  jit::set_request req{jit::family::group_by, {&unsigned_of_size(a.types[0]->size), a.types[1]}};
  req.ops[0] = a.ops[0];
  req.aligned8 = arrays_aligned8(a);
  if (loader != nullptr) {
    req.index = true;
    req.ops[1] = a.ops[0];
    req.ops[0] = loader;
  }
  return req;
}

/// The module of the group_by set for the call's key and value classes (the "+index" set for a
/// values expression read by the kernels), checked against the library's slot layout.
jit::resolved group_by_module(const jit_args& a, const group_values& values) {
  const char* fn = a.function;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  const jit::set_request req = group_by_set(a, values.loader ? &*values.loader : nullptr);
  jit::resolved resolved = jit::resolve(req, a.plan, fn);
  const jit::loaded_module& m = *resolved.module;
  const std::size_t slot = static_cast<std::size_t>(m.meta(2));
  if (slot != slot_bytes(k.size, v.size, v.align) ||
      static_cast<int>(m.meta(1)) != warp_slots_for(slot)) {
    throw std::logic_error(std::string(fn) + ": the kernels' slot layout is not the library's");
  }
  return resolved;
}

/// Aggregates into a global table sized from max_groups or the sketch's estimate (grown, and the
/// rows aggregated again, in the rare case the estimate was low), then compacts its ready slots
/// and gathers the groups. `aggregate(launch, table, mask, overflow, partials, partial_count)`
/// launches the aggregation into the zeroed table; `partial_slots` sizes its partials. With
/// `appended`, the aggregation appends each group once to the table's first slots
/// (hash::append_groups): the table is sized for the groups alone, neither cleared nor compacted.
/// Returns false, having written nothing, when a block's table filled (hash::block_full).
template <class Aggregate>
bool table_groups(const jit_args& a, const group_by_params& p, double expected,
                  std::size_t partial_slots, bool appended, const jit::resolved& resolved,
                  group_outputs& out, stream_ref stream, memory_resource& mr,
                  Aggregate&& aggregate) {
  const char* fn = a.function;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  const std::size_t n = a.n;
  const jit::loaded_module& m = *resolved.module;
  const jit::device_info& dev = *resolved.dev;
  const std::size_t slot = static_cast<std::size_t>(m.meta(2));
  std::size_t capacity = appended ? appended_capacity(n, p.options.max_groups, expected)
                                  : hash_capacity(n, p.options.max_groups, expected);
  cudaStream_t s = stream.get();
  const char* call = "cupar group_by (run-time operator)";
  for (;;) {
    carve parts;
    const std::size_t at_table = parts.add(capacity * slot);
    const std::size_t at_index = parts.add(capacity * sizeof(std::uint64_t));
    const std::size_t at_counts = parts.add(3 * sizeof(std::uint64_t));
    const std::size_t at_partials = parts.add(partial_slots * slot);
    std::size_t select_bytes = 0;
    // CUB's select of the ready slots (an appended table has no slots to find).
    if (!appended) {
      check_cuda(cub::DeviceSelect::If(
                     nullptr, select_bytes, thrust::counting_iterator<std::uint64_t>(0),
                     static_cast<std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
                     static_cast<std::int64_t>(capacity), ready_slot{}, s),
                 "cub::DeviceSelect::If");
    }
    const std::size_t at_select = parts.add(select_bytes);
    temp_storage storage(mr, parts.total, stream);
    auto* base = static_cast<unsigned char*>(storage.get());
    unsigned char* table = base + at_table;
    auto* index = reinterpret_cast<std::uint64_t*>(base + at_index);
    // counts: [0] groups, [1] the overflow flags, [2] the partial groups of a first pass
    auto* counts = reinterpret_cast<std::uint64_t*>(base + at_counts);
    unsigned char* partials = partial_slots != 0 ? base + at_partials : nullptr;
    auto* overflow = reinterpret_cast<unsigned int*>(counts + 1);
    auto* partial_count = reinterpret_cast<unsigned long long*>(counts + 2);
    if (!appended) check_cuda(cudaMemsetAsync(table, 0, capacity * slot, s), fn);
    check_cuda(cudaMemsetAsync(counts, 0, 3 * sizeof(std::uint64_t), s), fn);
    jit::launch_status st;
    jit::jit_launcher_factory launch{&dev, &m, &st};
    const unsigned long long mask = capacity - 1;
    aggregate(launch, static_cast<void*>(table), mask, overflow, static_cast<void*>(partials),
              partial_count);
    jit::check_dispatch(st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, st, call);
    if (appended) {
      const std::size_t blocks = (capacity + 255) / 256;
      hash::appended_index_kernel<<<static_cast<int>(std::min<std::size_t>(blocks, 4096)), 256, 0,
                                    s>>>(overflow + 1, static_cast<unsigned long long>(capacity),
                                         index, counts);
      check_cuda(cudaGetLastError(), fn);
    } else {
      check_cuda(
          cub::DeviceSelect::If(base + at_select, select_bytes,
                                thrust::counting_iterator<std::uint64_t>(0), index, counts,
                                static_cast<std::int64_t>(capacity), ready_slot{table, slot}, s),
          "cub::DeviceSelect::If");
    }
    std::uint64_t host_counts[2] = {0, 0};
    check_cuda(cudaMemcpyAsync(host_counts, counts, sizeof(host_counts), cudaMemcpyDeviceToHost, s),
               fn);
    // A fault of the operator is reported here, named after the call.
    check_cuda(cudaStreamSynchronize(s), fn);
    const unsigned int flags = static_cast<unsigned int>(host_counts[1] & 0xffffffffu);
    if ((flags & hash::block_full) != 0) return false;
    const bool overflowed = flags != 0;
    const std::size_t count = static_cast<std::size_t>(host_counts[0]);
    require_max_groups(fn, p.options.max_groups, overflowed, count);
    if (overflowed) {
      capacity = grown_capacity(capacity, n);
      if (capacity == 0) throw std::logic_error(std::string(fn) + ": hash table overflow");
      continue;
    }
    *p.groups = count;
    out.take(count);
    if (count == 0) return true;
    const unsigned long long groups = count;
    const int gather_threads = 256;
    const int gather_grid = static_cast<int>(std::min<std::size_t>(
        (count + gather_threads - 1) / gather_threads, static_cast<std::size_t>(65536)));
    if (!p.options.sort_by_key) {
      launch(gather_grid, gather_threads, 0, s)
          .doit(m.kernel(2), static_cast<const void*>(table), static_cast<const void*>(index),
                groups, out.keys, out.values);
      jit::check_dispatch(st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, st,
                          call);
      return true;
    }
    carve sorted;
    const std::size_t at_k = sorted.add(count * k.size);
    const std::size_t at_v = sorted.add(count * v.size);
    temp_storage staging(mr, sorted.total, stream);
    auto* sb = static_cast<unsigned char*>(staging.get());
    launch(gather_grid, gather_threads, 0, s)
        .doit(m.kernel(2), static_cast<const void*>(table), static_cast<const void*>(index), groups,
              static_cast<void*>(sb + at_k), static_cast<void*>(sb + at_v));
    jit::check_dispatch(st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, st, call);
    // The stored keys are the normalised keys' bits: sorted as the keys' own type.
    sort_groups(fn, k.kind, sb + at_k, v, sb + at_v, count, out.keys, out.values, stream, mr);
    return true;
  }
}

/// The hash method (up to group_by_hash_limit groups, or forced): the warps' tables in shared
/// memory in front of the global table, the warps' groups through a second pass when few.
void hash_route(const jit_args& a, const group_by_params& p, const void* keys,
                const group_values& values, double expected, group_outputs& out, stream_ref stream,
                memory_resource& mr) {
  const jit::resolved resolved = group_by_module(a, values);
  const jit::loaded_module& m = *resolved.module;
  const int threads = static_cast<int>(m.meta(0));
  const int warp_slots = static_cast<int>(m.meta(1));
  // The first pass's grid and the second pass's partials as the C++ path's (plan_hash_pass).
  const hash_pass pass = plan_hash_pass(
      a.n, expected, threads, warp_slots,
      resident_blocks(a.n, threads, m.occupancy(m.kernel(0), threads, 0), resolved.dev->sm_count),
      resolved.dev->sm_count);
  const jit::erased_arg op{a.ops[0]->state()};
  const unsigned long long rows = a.n, partial_rows = pass.partial_slots;
  cudaStream_t s = stream.get();
  (void)table_groups(
      a, p, expected, pass.partial_slots, false, resolved, out, stream, mr,
      [&](const jit::jit_launcher_factory& launch, void* table, unsigned long long mask,
          unsigned int* overflow, void* partials, unsigned long long* partial_count) {
        const unsigned long long* no_count = nullptr;
        values.with_kernel_values([&](const auto& in) {
          launch(pass.grid, threads, 0, s)
              .doit(m.kernel(0), keys, in, rows, no_count, table, mask, op, overflow, partials,
                    partial_count);
        });
        if (!pass.second_pass) return;
        const void* none = nullptr;
        launch(16, threads, 0, s)
            .doit(m.kernel(1), static_cast<const void*>(partials),
                  static_cast<const void*>(partials), partial_rows,
                  static_cast<const unsigned long long*>(partial_count), table, mask, op, overflow,
                  none, none);
      });
}

/// Key bits (of U, the keys' size class) mixed for the partition (hash::part_mix).
template <class U>
__global__ void mix_keys_kernel(const U* keys, hash::part_word<U>* mixed, unsigned long long n) {
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i =
           static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < n; i += stride) {
    mixed[i] = hash::part_mix(static_cast<hash::part_word<U>>(keys[i]));
  }
}

/// Kernel parameters of hash::direct_rows / hash::mixed_rows: two device pointers.
struct row_pointers {
  const void* keys;
  const void* values;
};
/// ... of hash::direct_rows over a values expression (cupar_expr_iterator, 16-byte aligned).
struct expression_rows {
  const void* keys;
  jit::expression_input values;
};

/// The table method (as the C++ path's, group_by.cuh: a table a block in shared memory, the rows
/// partitioned by their mixed keys beyond what one table holds). Returns false, having written
/// nothing, when its plan does not serve `expected` groups or a block's table filled.
bool table_route(const jit_args& a, const group_by_params& p, const void* keys,
                 group_values& values, double expected, group_outputs& out, stream_ref stream,
                 memory_resource& mr) {
  const char* fn = a.function;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  const std::size_t n = a.n;
  const std::size_t slot = block_slot_bytes(k.size, v.size, v.align);
  const unsigned int slots =
      block_table_slots(slot, static_cast<std::size_t>(current_shared_memory_optin()));
  const int sms = current_multiprocessor_count();
  table_plan plan = plan_tables(n, expected, slots, sms);
  const scalar word = k.size <= 4 ? scalar::u32 : scalar::u64;
  // The partition radix-sorts the mixed keys as u32 or u64 words: the library's kernels.
  if (!plan.serves || (plan.bits != 0 && !library_types[static_cast<int>(word)])) return false;
  // Partitioned rows move their values with the keys. A values expression that reads one array
  // at the row's index moves that array instead and is read over the moved copy by the "+index"
  // set's kernels (its shape unchanged: the same build); any other expression is written to an
  // array first and the arrays' set reads it.
  const jit::sole_array& moved = values.moved;
  std::optional<jit::resolved> resolved_set;
  for (;;) {
    resolved_set = group_by_module(a, values);
    const jit::loaded_module& m = *resolved_set->module;
    if (static_cast<std::size_t>(m.meta(6)) != slot) {
      throw std::logic_error(std::string(fn) + ": the block tables' layout is not the library's");
    }
    const int threads = static_cast<int>(m.meta(4));
    const std::size_t table_bytes = block_table_bytes(slots, slot);
    const int occupancy = m.occupancy(m.kernel(plan.bits == 0 ? 3 : 4), threads, table_bytes);
    if (occupancy == 0) return false;
    const table_plan final_plan = plan_tables(n, expected, slots, sms * occupancy);
    if (final_plan.bits != 0 && values.loader && moved.type == nullptr) {
      values.loader.reset();  // the arrays' set, the expression written first
      continue;
    }
    plan = final_plan;
    break;
  }
  const jit::resolved& resolved = *resolved_set;
  const jit::loaded_module& m = *resolved.module;
  const int threads = static_cast<int>(m.meta(4));
  const unsigned long long chunk = static_cast<unsigned long long>(threads) * m.meta(5);
  const int role = plan.bits == 0 ? 3 : 4;
  const std::size_t table_bytes = block_table_bytes(slots, slot);
  if (plan.bits == 0) {
    const unsigned long long chunks = (n + chunk - 1) / chunk;
    if (plan.blocks_per_part > chunks) plan.blocks_per_part = static_cast<unsigned int>(chunks);
  }
  cudaStream_t s = stream.get();
  // Partitioned rows: the mixed keys sorted by their low bits with the values (or the array the
  // values' expression reads), and each part's first row.
  const bool rebind = plan.bits != 0 && values.loader.has_value();
  const std::size_t payload = rebind ? moved.type->size : v.size;
  const std::size_t payload_align = rebind ? moved.type->align : v.align;
  const std::size_t w = k.size <= 4 ? 4 : 8;
  const std::size_t rows = plan.bits == 0 ? 0 : n;
  carve staged_parts;
  const std::size_t at_mixed = staged_parts.add(rows * w);
  const std::size_t at_sorted = staged_parts.add(rows * w);
  const std::size_t at_order = staged_parts.add(rows * payload);
  const std::size_t at_starts =
      staged_parts.add(plan.bits == 0 ? 0 : (plan.parts + 1) * sizeof(unsigned long long));
  temp_storage staged(mr, staged_parts.total, stream);
  auto* sb = static_cast<unsigned char*>(staged.get());
  void* sorted = sb + at_sorted;
  void* order = sb + at_order;
  auto* starts = reinterpret_cast<unsigned long long*>(sb + at_starts);
  std::optional<cupar::jit::op> moved_loader;  // the expression over the moved array
  if (plan.bits != 0) {
    void* mixed = sb + at_mixed;
    const int grid = static_cast<int>(std::min<std::size_t>((n + 255) / 256, 65536));
    const unsigned long long count = n;
    switch (k.size) {
      case 1:
        mix_keys_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint8_t*>(keys),
                                             static_cast<unsigned int*>(mixed), count);
        break;
      case 2:
        mix_keys_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint16_t*>(keys),
                                             static_cast<unsigned int*>(mixed), count);
        break;
      case 4:
        mix_keys_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint32_t*>(keys),
                                             static_cast<unsigned int*>(mixed), count);
        break;
      default:
        mix_keys_kernel<<<grid, 256, 0, s>>>(static_cast<const std::uint64_t*>(keys),
                                             static_cast<unsigned long long*>(mixed), count);
        break;
    }
    check_cuda(cudaGetLastError(), fn);
    // The values (or the expression's array) travel with the keys: the parts' rows are read out
    // of order.
    radix_sort_args r{fn,
                      word,
                      mixed,
                      sorted,
                      payload,
                      payload_align,
                      rebind ? moved.pointer : values.array(stream, mr),
                      order,
                      n,
                      radix_options{sort_order::ascending, 0, plan.bits}};
    radix_sort(r, stream, mr);
    if (rebind) {
      moved_loader.emplace(
          jit::expression_op(jit::with_sole_array(*values.expression, order), v, n, fn));
      if (moved_loader->definition() != values.loader->definition()) {
        throw std::logic_error(std::string(fn) +
                               ": the values' expression over the moved array is another build");
      }
    }
    const unsigned int blocks = (plan.parts + 1 + 255) / 256;
    if (w == 4) {
      hash::part_starts_kernel<<<blocks, 256, 0, s>>>(static_cast<const unsigned int*>(sorted),
                                                      count, plan.parts, starts);
    } else {
      hash::part_starts_kernel<<<blocks, 256, 0, s>>>(
          static_cast<const unsigned long long*>(sorted), count, plan.parts, starts);
    }
    check_cuda(cudaGetLastError(), fn);
  }
  const placed_state moved_placed(moved_loader, stream, mr);
  const jit::erased_arg op{a.ops[0]->state()};
  const unsigned int grid = plan.parts * plan.blocks_per_part;
  const row_pointers inputs =
      plan.bits == 0 ? row_pointers{keys, a.in[1]} : row_pointers{sorted, order};
  // The values an expression: over the rows as given, or over the moved array.
  std::optional<expression_rows> read;
  if (plan.bits == 0 && values.loader) {
    read = expression_rows{keys, jit::expression_input::of(values.loader->state())};
  } else if (moved_loader) {
    read = expression_rows{sorted, jit::expression_input::of(moved_loader->state())};
  }
  const unsigned long long count = n;
  const unsigned long long* part_starts = plan.bits == 0 ? nullptr : starts;
  const unsigned int per_part = plan.blocks_per_part;
  const int shift = plan.bits;
  return table_groups(
      a, p, expected, 0, plan_appends(plan), resolved, out, stream, mr,
      [&](const jit::jit_launcher_factory& launch, void* table, unsigned long long mask,
          unsigned int* overflow, void*, unsigned long long*) {
        if (read) {
          launch(grid, threads, table_bytes, s)
              .doit(m.kernel(role), *read, count, part_starts, per_part, slots, shift, table, mask,
                    op, overflow);
        } else {
          launch(grid, threads, table_bytes, s)
              .doit(m.kernel(role), inputs, count, part_starts, per_part, slots, shift, table, mask,
                    op, overflow);
        }
      });
}

void call_group_by(const jit_args& a, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending);
bool pads_values(const jit_args& a);
void group_rows(const jit_args& a, const group_by_params& p, bool keyed, group_outputs& out,
                stream_ref s, memory_resource& mr);

/// Keys of any type under a run-time hash and equality (params.key_hash, key_eq): the rows'
/// representatives by the join module's kernels for the keys' type (cupar/detail/device/
/// key_table.cuh: the sketch of the hashes, the encoding into a table of 8-byte words), grouped
/// with the values as 4- or 8-byte integer keys by the arithmetic routes (max_groups their exact
/// count), then the groups' keys gathered from their representatives' rows. Called after the
/// argument checks, the pending inputs written.
void keyed_route(const jit_args& a, const group_by_params& p, group_outputs& out, stream_ref s,
                 memory_resource& mr) {
  const char* fn = a.function;
  const jit_type& user_key = *a.types[0];
  const std::size_t n = a.n;
  // Representatives of 4 bytes while every row fits them (all ones is the table's empty word).
  const bool wide = n >= 0xffffffffull;
  const jit_type& r = unsigned_of_size(wide ? 8 : 4);
  const auto join_request = [&](const jit_type& key) {
    jit::set_request q{jit::family::join, {&key, nullptr}};
    q.ops[0] = p.key_hash;
    q.ops[1] = p.key_eq;
    return q;
  };
  // Keys of 4-byte fields whose own class has no join set: padded to the next 8-byte size (as
  // entry.cpp's run_padded pads other records), the groups' keys copied back from the padded
  // rows the gather writes.
  const bool pad = a.plan == nullptr && jit::paddable(user_key) &&
                   !jit::precompiled_request(join_request(user_key)) &&
                   jit::precompiled_request(join_request(jit::padded_view(user_key)));
  const jit_type& k = pad ? jit::padded_view(user_key) : user_key;
  std::optional<temp_storage> padded_rows;
  const void* key_rows = a.in[0];
  if (pad) {
    padded_rows.emplace(mr, n * k.size, s);
    restride(a.in[0], user_key.size, padded_rows->get(), k.size, n, {}, s);
    key_rows = padded_rows->get();
  }
  const jit::set_request req = join_request(k);
  const jit::resolved resolved = jit::resolve(req, nullptr, fn);
  const jit::loaded_module& m = *resolved.module;
  const jit::device_info& dev = *resolved.dev;
  const char* call = "cupar group_by (run-time key hash and equality)";
  const jit::erased_arg hash{p.key_hash->state()}, eq{p.key_eq->state()};
  jit::launch_status ls;
  jit::jit_launcher_factory launch{&dev, &m, &ls};
  cudaStream_t st = s.get();
  const unsigned long long rows = n;
  temp_storage reps(mr, n * r.size, s);
  void* d_reps = reps.get();
  double estimate = -1;
  if (p.options.max_groups == 0) {
    estimate = sketch_with(fn, s, mr, [&](unsigned int* registers) {
      const int threads = hash::block_threads;
      const int grid =
          resident_blocks(n, threads, m.occupancy(m.kernel(9), threads, 0), dev.sm_count);
      launch(grid, threads, 0, st).doit(m.kernel(9), key_rows, rows, hash, registers);
      jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls,
                          call);
    });
  }
  const CUkernel encode = m.kernel(wide ? 11 : 10);
  const int threads = keys::encode_threads;
  const int grid = resident_blocks(n, threads, m.occupancy(encode, threads, 0), dev.sm_count);
  const double expected = expected_groups(n, p.options.max_groups, estimate);
  const std::size_t count = encode_distinct_keys(
      fn, n, p.options.max_groups, expected, s, mr,
      [&](unsigned long long* table, unsigned long long mask, unsigned long long* counts) {
        launch(grid, threads, 0, st)
            .doit(encode, key_rows, rows, table, mask, hash, eq, d_reps, counts);
        jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls,
                            call);
      });
  out.take(count);
  *p.groups = count;
  if (count == 0) return;
  // The representatives grouped with the values: the arithmetic routes into the outputs' values
  // and a temporary of the groups' representatives, every group known (max_groups = count).
  temp_storage group_reps(mr, count * r.size, s);
  group_by_params q;
  q.options = p.options;
  q.options.max_groups = count;
  // Without the library's radix sort of the representatives' type, the hash method serves.
  if (!library_types[static_cast<int>(r.kind)]) q.options.method = group_by_method::hash;
  q.out_capacity = count;
  std::size_t found = 0;
  q.groups = &found;
  jit_args b = a;
  b.types[0] = &r;
  b.in[0] = d_reps;
  b.in_iter[0] = nullptr;
  b.out[0] = group_reps.get();
  b.out[1] = out.values;
  b.plan = nullptr;
  b.params = &q;
  call_group_by(b, s, mr, nullptr);
  if (found != count) {
    throw std::logic_error(std::string(fn) +
                           ": the groups of the keys' representatives differ from their count");
  }
  const int gather_threads = 256;
  const int gather_grid =
      static_cast<int>(std::min<std::size_t>((count + gather_threads - 1) / gather_threads, 65536));
  const unsigned long long groups = count;
  std::optional<temp_storage> padded_keys;
  if (pad) padded_keys.emplace(mr, count * k.size, s);
  void* keys_out = pad ? padded_keys->get() : out.keys;
  launch(gather_grid, gather_threads, 0, st)
      .doit(m.kernel(wide ? 13 : 12), key_rows, static_cast<const void*>(group_reps.get()), groups,
            keys_out);
  jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls, call);
  if (pad) restride(keys_out, k.size, out.keys, user_key.size, count, {}, s);
}

void call_group_by(const jit_args& a, stream_ref s, memory_resource& mr,
                   const pending_inputs* pending) {
  const char* fn = a.function;
  const auto* params = static_cast<const group_by_params*>(a.params);
  if (params == nullptr || params->groups == nullptr) throw_invalid_argument(fn, "no parameters");
  const group_by_params& p = *params;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  const bool keyed = p.key_hash != nullptr || p.key_eq != nullptr;
  if (keyed && (p.key_hash == nullptr || p.key_eq == nullptr)) {
    throw_invalid_argument(fn, "keys under a hash and an equality take both");
  }
  if (k.is_struct() && !keyed) {
    throw_invalid_argument(fn, std::string("keys are arithmetic (integers of 1-8 bytes, float, "
                                           "double), or take a hash and an equality; not ") +
                                   k.name);
  }
  if (a.ops[0] == nullptr) throw_invalid_argument(fn, "no operator");
  if (keyed && p.options.sort_by_key) {
    throw_invalid_argument(fn,
                           "keys under a hash and an equality have no order: options.sort_by_key "
                           "is for arithmetic keys (sort the groups by a comparator after)");
  }
  // The sort route (and the hash method's sorted output) radix-sorts the keys by the library.
  if (!keyed && !library_types[static_cast<int>(k.kind)] &&
      (p.options.method != group_by_method::hash || p.options.sort_by_key)) {
    throw_type_not_built(fn, k.kind);
  }
  require_size(fn, a.n, k.size + v.size);
  require_data(fn, "d_keys", a.in[0], a.n);
  // A values expression checks its own arrays (the outputs must not be among them).
  if (a.in_iter[1] == nullptr) require_data(fn, "d_values", a.in[1], a.n);
  if (p.allocate == nullptr && a.n > 0 && p.out_capacity > 0) {
    require_pointer(fn, "d_keys_out", a.out[0]);
    require_pointer(fn, "d_values_out", a.out[1]);
    const std::size_t room = std::min(p.out_capacity, a.n);
    require_disjoint(fn, "d_keys_out", a.out[0], room * k.size, "d_values_out", a.out[1],
                     room * v.size);
    if (keyed) {
      // The groups' keys are read from the rows' keys after the values are written.
      require_disjoint(fn, "d_keys", a.in[0], a.n * k.size, "d_keys_out", a.out[0], room * k.size);
      require_disjoint(fn, "d_keys", a.in[0], a.n * k.size, "d_values_out", a.out[1],
                       room * v.size);
    }
  }
  write_pending(pending, s, mr);
  *p.groups = 0;
  group_outputs out{fn, &p, a.out[0], a.out[1], {}};
  if (a.n == 0) {
    out.take(0);
    return;
  }
  // Values of a record of 4-byte fields whose size has no set: padded to the next 8-byte size
  // (as entry.cpp's run_padded does for the other data-processing families), the groups' values
  // copied back from the padded records the routes write.
  if (pads_values(a)) {
    jit_args c = a;
    c.types[1] = &jit::padded_view(v);
    temp_storage padded(mr, a.n * c.types[1]->size, s);
    restride(a.in[1], v.size, padded.get(), c.types[1]->size, a.n, {}, s);
    c.in[1] = padded.get();
    out.pad.emplace();
    out.pad->user = v.size;
    out.pad->padded = c.types[1]->size;
    out.pad->mr = &mr;
    out.pad->stream = s;
    group_rows(c, p, keyed, out, s, mr);
    out.finish();
    return;
  }
  group_rows(a, p, keyed, out, s, mr);
}

/// Whether group_by's values take the padded route: an array of records that jit::paddable
/// accepts, no set of their own class, one of their padded view's (not for plans and
/// compile-only builds, whose arrays are unknown, nor for an expression's values).
bool pads_values(const jit_args& a) {
  const jit_type& v = *a.types[1];
  if (a.plan != nullptr || a.build_only || a.in_iter[1] != nullptr || !jit::paddable(v)) {
    return false;
  }
  if (jit::precompiled_request(group_by_set(a, nullptr))) return false;
  jit_args c = a;
  c.types[1] = &jit::padded_view(v);
  return jit::precompiled_request(group_by_set(c, nullptr));
}

/// group_by's routes over the rows (keys checked, n > 0): the keyed route, the table method, the
/// hash method or the sort route.
void group_rows(const jit_args& a, const group_by_params& p, bool keyed, group_outputs& out,
                stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const jit_type& k = *a.types[0];
  const jit_type& v = *a.types[1];
  if (keyed) {
    keyed_route(a, p, out, s, mr);
    return;
  }
  const bool floating = k.kind == scalar::f32 || k.kind == scalar::f64;
  // Floating-point keys: their normalised bits (hash and sort route alike).
  temp_storage bits(mr, floating ? a.n * k.size : 0, s);
  const void* keys = a.in[0];
  if (floating) {
    const int threads = 256;
    const int grid = static_cast<int>(std::min<std::size_t>((a.n + threads - 1) / threads, 65536));
    if (k.kind == scalar::f32) {
      normalise_keys_kernel<<<grid, threads, 0, s.get()>>>(
          static_cast<const float*>(a.in[0]), static_cast<std::uint32_t*>(bits.get()), a.n);
    } else {
      normalise_keys_kernel<<<grid, threads, 0, s.get()>>>(
          static_cast<const double*>(a.in[0]), static_cast<std::uint64_t*>(bits.get()), a.n);
    }
    check_cuda(cudaGetLastError(), fn);
    keys = bits.get();
  }
  // automatic's sort route below group_by_sort_below_rows rows, decided before any sketch.
  const group_by_method method = method_for_rows(p.options.method, a.n);
  const std::size_t max_groups = p.options.max_groups;
  double estimate = -1;  // unknown
  if (max_groups == 0 && method != group_by_method::sort)
    estimate = sketch_of_size(fn, keys, k.size, a.n, s, mr);
  const double expected = expected_groups(a.n, max_groups, estimate);
  const std::size_t limit = hash_limit_for(warp_slots_for(slot_bytes(k.size, v.size, v.align)));
  const bool sorting = by_sort(method, expected, limit);
  const bool tables = method != group_by_method::sort && expected > static_cast<double>(limit);
  // A values expression: read by the kernels of the "+index" set where it is precompiled, or
  // where neither set is (both compile from source); else (and with a plan, whose build is the
  // arrays' set) written to a temporary first.
  jit_args rows = a;
  group_values values;
  values.a = &rows;
  values.expression = a.in_iter[1];
  if (values.expression != nullptr) values.moved = jit::sole_array_of(*values.expression);
  if (values.expression != nullptr && (tables || !sorting) && a.plan == nullptr) {
    values.loader.emplace(jit::expression_op(*values.expression, v, a.n, fn));
    if (!jit::precompiled_request(group_by_set(a, &*values.loader)) &&
        jit::precompiled_request(group_by_set(a, nullptr))) {
      values.loader.reset();
    }
  }
  // The sort route alone (no plan) sorts the array of a one-array expression and reads the
  // expression over the sorted copy.
  const bool sort_moves_array = sorting && !tables && a.plan == nullptr &&
                                values.expression != nullptr && values.moved.type != nullptr;
  if (values.expression != nullptr && !values.loader && !sort_moves_array) {
    // No "+index" set serves the call: the values written once, every route reads the array.
    rows.in[1] = values.array(s, mr);
    values.expression = nullptr;
    values.moved = {};
  }
  const placed_state placed(values.loader, s, mr);
  if (tables && table_route(rows, p, keys, values, expected, out, s, mr)) return;
  if (!sorting && values.expression != nullptr && !values.loader) {
    // The table route gave up after taking the arrays' set (an expression of several arrays on
    // partitioned rows): the hash method reads the values written to an array.
    rows.in[1] = values.array(s, mr);
  }
  if (sorting) {
    sort_route(rows, p, keys, values, out, s, mr);
  } else {
    hash_route(rows, p, keys, values, expected, out, s, mr);
  }
}

/// The request of a compile-only build: the values given as an expression (a.in_iter[1]) take
/// the "+index" set.
jit::set_request group_by_request(const jit_args& a, request_scratch& scratch) {
  if (a.types[0] == nullptr || a.types[0]->is_struct()) {
    throw_invalid_argument(a.function, "keys are arithmetic");
  }
  if (a.in_iter[1] != nullptr) {
    scratch.loader.emplace(
        jit::expression_op(*a.in_iter[1], *a.types[1], 0, "cupar::jit::compile"));
  }
  return group_by_set(a, scratch.loader ? &*scratch.loader : nullptr);
}

/// Keys and values in (the values may be an expression the kernels read); the outputs are the
/// caller's arrays (no expressions).
constexpr call_io group_by_io() {
  call_io io{};
  io.output_type[1] = 1;
  io.reads_input[1] = true;
  io.pads_records = false;  // its outputs are sized in the call: it pads its values itself
  return io;
}

}  // namespace

extern const jit_call group_by_jit_call =
    jit_call::make("group_by", jit::family::group_by, call_group_by, group_by_request)
        .with_io(group_by_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
