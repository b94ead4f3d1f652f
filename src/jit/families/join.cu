// cupar family: hash joins with a run-time hash and equality (cupar::inner_join, semi_join,
// anti_join taking operators, join.hpp): keys of any type, composite keys included. Device code:
// jit_ops/cupar_join.cuh. Types {K}, the caller's own (a struct served by its struct class). Its
// module also serves group_by on keys under a hash and an equality (the keys' encoding:
// group_by.cu's struct-key route launches kernels 9-13).
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, the library entry: argument checks, the
// table (2 to 4 slots a build row of a position and a hash tag), the module's kernels, CUB's scan
// of the counts and its select of the flagged rows (compiled here by nvcc).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return "typedef " + s.types[0].name + " cupar_K;\n";
}

/// The hash (K -> unsigned long long), then the equality (K x K -> bool).
std::vector<slot_spec> slots(const set_spec& s) {
  return {{"cupar_jit_hash", "hash", {s.types[0]}, type_ref::of(scalar::u64), {"x"}},
          equality_slot(s.types[0])};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_join_build<unsigned int>", "cupar_join_build<unsigned long long>",
          "cupar_join_count<unsigned int>", "cupar_join_count<unsigned long long>",
          "cupar_join_fill<unsigned int, unsigned int>",
          "cupar_join_fill<unsigned int, unsigned long long>",
          "cupar_join_fill<unsigned long long, unsigned long long>",
          "cupar_join_flag<unsigned int>", "cupar_join_flag<unsigned long long>",
          // group_by's keys under the hash and the equality (9-13)
          "cupar::detail::keys::sketch_kernel<const cupar_K*, cupar_join_hash>",
          "cupar::detail::keys::encode_kernel<const cupar_K*, cupar_join_hash, cupar_join_eq, "
          "unsigned int>",
          "cupar::detail::keys::encode_kernel<const cupar_K*, cupar_join_hash, cupar_join_eq, "
          "unsigned long long>",
          "cupar::detail::keys::gather_kernel<const cupar_K*, unsigned int, cupar_K>",
          "cupar::detail::keys::gather_kernel<const cupar_K*, unsigned long long, cupar_K>",
          meta_expression(2)};
}

bool struct_position(std::size_t i) {
  return i == 0;
}

// Composite keys are structs: the struct classes (CUPAR_JIT_STRUCT_CLASSES) are precompiled, so
// only the hash and the equality compile; other structs compile the kernels with them.
const char* const rules[] = {
    "precompile s=structs: join<$s>",
};

}  // namespace

extern const family_def join_family =
    family_def::make(family::join, "join", "cupar_join.cuh", 14, typedefs, slots, names)
        .with_struct_classes(struct_position)
        .precompiling(rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/launch.hpp"
#include "../core/request.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/join.hpp>

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cupar::detail {
namespace {

int join_grid(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(blocks, 1), 65536));
}

void call_join(const jit_args& a, stream_ref s, memory_resource& mr,
               const pending_inputs* pending) {
  const char* fn = a.function;
  const auto* p = static_cast<const join_op_params*>(a.params);
  if (p == nullptr || p->count == nullptr) throw_invalid_argument(fn, "no parameters");
  if (a.ops[0] == nullptr || a.ops[1] == nullptr) {
    throw_invalid_argument(fn, "a join with operators takes a hash and an equality");
  }
  const jit_type& k = *a.types[0];
  const std::size_t nb = a.n, np = a.m;
  require_size(fn, nb, k.size);
  require_size(fn, np, k.size + 16);
  require_data(fn, "d_build_keys", a.in[0], nb);
  require_data(fn, "d_probe_keys", a.in[1], np);
  if (p->kind != 0 && np > 0) require_pointer(fn, "d_probe_rows", p->rows_out);
  if (p->kind == 0 && p->allocate == nullptr) throw_invalid_argument(fn, "no outputs");
  write_pending(pending, s, mr);
  *p->count = 0;
  if (p->kind == 0 && (nb == 0 || np == 0)) {
    void* b = nullptr;
    void* q = nullptr;
    p->allocate(p->context, 0, &b, &q);
    return;
  }
  if (np == 0) return;
  const jit::set_request req = dp_request(a, false);
  const jit::resolved resolved = jit::resolve(req, a.plan, fn);
  const jit::loaded_module& m = *resolved.module;
  const jit::device_info& dev = *resolved.dev;
  const bool wide = nb >= 0xffffffffull;  // 64-bit row words
  const std::size_t slot = static_cast<std::size_t>(m.meta(wide ? 1 : 0));
  std::size_t capacity = next_pow2(2 * nb);
  if (capacity < 1024) capacity = 1024;
  cudaStream_t st = s.get();
  temp_storage table(mr, capacity * slot, s);
  check_cuda(cudaMemsetAsync(table.get(), 0xff, capacity * slot, st), fn);
  const unsigned long long mask = capacity - 1, rows = nb, probes = np;
  const jit::erased_arg hash{a.ops[0]->state()}, eq{a.ops[1]->state()};
  jit::launch_status ls;
  jit::jit_launcher_factory launch{&dev, &m, &ls};
  const char* call = "cupar join (run-time operators)";
  const void* build = a.in[0];
  const void* probe = a.in[1];
  void* slots = table.get();
  if (nb > 0) {
    launch(join_grid(nb), 256, 0, st).doit(m.kernel(wide ? 1 : 0), build, rows, slots, mask, hash);
  }
  if (p->kind != 0) {
    std::size_t select_bytes = 0;
    auto* out = static_cast<unsigned char*>(p->rows_out);
    const auto select = [&](void* temp, const unsigned char* flags, unsigned long long* d_count) {
      if (p->index_size == 4) {
        return cub::DeviceSelect::Flagged(
            temp, select_bytes, thrust::counting_iterator<std::uint32_t>(0), flags,
            reinterpret_cast<std::uint32_t*>(out), d_count, static_cast<std::int64_t>(np), st);
      }
      return cub::DeviceSelect::Flagged(
          temp, select_bytes, thrust::counting_iterator<std::uint64_t>(0), flags,
          reinterpret_cast<std::uint64_t*>(out), d_count, static_cast<std::int64_t>(np), st);
    };
    check_cuda(select(nullptr, nullptr, nullptr), "cub::DeviceSelect::Flagged");
    carve parts;
    const std::size_t at_flags = parts.add(np);
    const std::size_t at_count = parts.add(sizeof(unsigned long long));
    const std::size_t at_select = parts.add(select_bytes);
    temp_storage storage(mr, parts.total, s);
    auto* base = static_cast<unsigned char*>(storage.get());
    auto* flags = base + at_flags;
    auto* d_count = reinterpret_cast<unsigned long long*>(base + at_count);
    const int matched = p->kind == 1 ? 1 : 0;
    launch(join_grid(np), 256, 0, st)
        .doit(m.kernel(wide ? 8 : 7), build, probe, probes, static_cast<const void*>(slots), mask,
              hash, eq, matched, static_cast<void*>(flags));
    jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls, call);
    check_cuda(select(base + at_select, flags, d_count), "cub::DeviceSelect::Flagged");
    unsigned long long h = 0;
    check_cuda(cudaMemcpyAsync(&h, d_count, sizeof(h), cudaMemcpyDeviceToHost, st), fn);
    check_cuda(cudaStreamSynchronize(st), fn);
    *p->count = static_cast<std::size_t>(h);
    return;
  }
  std::size_t scan_bytes = 0;
  check_cuda(cub::DeviceScan::ExclusiveSum(
                 nullptr, scan_bytes, static_cast<unsigned long long*>(nullptr),
                 static_cast<unsigned long long*>(nullptr), static_cast<std::int64_t>(np), st),
             "cub::DeviceScan::ExclusiveSum");
  carve parts;
  const std::size_t at_counts = parts.add(np * sizeof(unsigned long long));
  const std::size_t at_offsets = parts.add(np * sizeof(unsigned long long));
  const std::size_t at_scan = parts.add(scan_bytes);
  temp_storage storage(mr, parts.total, s);
  auto* base = static_cast<unsigned char*>(storage.get());
  auto* counts = reinterpret_cast<unsigned long long*>(base + at_counts);
  auto* offsets = reinterpret_cast<unsigned long long*>(base + at_offsets);
  launch(join_grid(np), 256, 0, st)
      .doit(m.kernel(wide ? 3 : 2), build, probe, probes, static_cast<const void*>(slots), mask,
            hash, eq, counts);
  jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls, call);
  check_cuda(cub::DeviceScan::ExclusiveSum(base + at_scan, scan_bytes, counts, offsets,
                                           static_cast<std::int64_t>(np), st),
             "cub::DeviceScan::ExclusiveSum");
  unsigned long long last[2] = {0, 0};
  check_cuda(cudaMemcpyAsync(&last[0], offsets + (np - 1), sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, st),
             fn);
  check_cuda(cudaMemcpyAsync(&last[1], counts + (np - 1), sizeof(unsigned long long),
                             cudaMemcpyDeviceToHost, st),
             fn);
  // A fault of an operator is reported here, named after the call.
  check_cuda(cudaStreamSynchronize(st), fn);
  const std::size_t total = static_cast<std::size_t>(last[0] + last[1]);
  void* build_out = nullptr;
  void* probe_out = nullptr;
  p->allocate(p->context, total, &build_out, &probe_out);
  *p->count = total;
  if (total == 0) return;
  const int fill = wide ? 6 : (p->index_size == 4 ? 4 : 5);
  launch(join_grid(np), 256, 0, st)
      .doit(m.kernel(fill), build, probe, probes, static_cast<const void*>(slots), mask, hash, eq,
            static_cast<const unsigned long long*>(offsets), build_out, probe_out);
  jit::check_dispatch(ls.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure, ls, call);
}

jit::set_request join_request(const jit_args& a, request_scratch&) {
  return dp_request(a, false);
}

/// Build keys (n of them) and probe keys (m), both of the keys' type.
constexpr call_io join_io() {
  call_io io{};
  io.input_type[1] = 0;
  io.input_m[1] = true;
  return io;
}

}  // namespace

extern const jit_call join_jit_call =
    jit_call::make("join", jit::family::join, call_join, join_request).with_io(join_io());

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
