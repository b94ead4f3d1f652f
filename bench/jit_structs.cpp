// cupar benchmarks: the struct rows with run-time operators (cupar_jit), host-compiled. rec16 is
// of class s16a4 and rec32 of s32a8, so each operator below is compiled alone and linked to the
// kernels precompiled for the class (the row fails if a kernel was compiled from source); the
// rows of structs.cu run the same operators compiled by nvcc. reduce_by_key u32_rec16 takes the
// data-processing class set reduce_by_key<u32,s16a4> (CUPAR_JIT_STRUCT_DP_CLASSES).
#include "by_key_runners.hpp"
#include "jit_rows.hpp"
#include "records_jit.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

namespace cupar_bench {
namespace {

using cupar::jit::op;

/// One struct row: `run(guard)` hands the family's runner its call wrapped by
/// jit_warmed(guard, ...). The row fails when the JIT engine compiled kernel source while it
/// ran: these structs are of a precompiled class, so only the operator may be compiled (a build
/// without the class sets, see CUPAR_JIT_STRUCT_CLASSES, would otherwise time kernels compiled
/// from source unnoticed).
template <class Run>
void struct_row(benchmark::State& state, const char* family, const char* type, const op& o,
                Run run) {
  const std::uint64_t kernel_compiles = cupar::jit::get_stats().kernel_compiles;
  jit_row_guard guard(std::string(family) + " " + type + " \"" + o.source() + "\"");
  run(guard);
  guard.check(state);
  if (cupar::jit::get_stats().kernel_compiles != kernel_compiles) {
    state.SkipWithError(
        "kernels were compiled from source: this build lacks the struct's precompiled class");
  }
}

template <class R>
void merge_sort_struct_jit(benchmark::State& state, const char* type, const char* less_source) {
  const op less(less_source);
  struct_row(state, "merge_sort_keys", type, less, [&](jit_row_guard& guard) {
    sort_keys_runner<R>(state,
                        jit_warmed(guard, [&](const R* in, R* out, std::size_t n, cudaStream_t s) {
                          cupar::sort_keys(in, out, n, less, s);
                        }));
  });
}

/// reduce_by_key of R values by u32 keys in runs, merged by the snippet `merge_source`.
template <class R>
void reduce_by_key_records_jit(benchmark::State& state, const char* type,
                               const std::string& merge_source) {
  const op merge(merge_source);
  struct_row(state, "reduce_by_key", type, merge, [&](jit_row_guard& guard) {
    by_key_compact_runner<std::uint32_t, R>(
        state, jit_warmed(guard, [&](const std::uint32_t* k, const R* v, std::uint32_t* ko, R* vo,
                                     std::size_t* count, std::size_t n, cudaStream_t s) {
          cupar::reduce_by_key(k, v, ko, vo, count, n, merge, s);
        }));
  });
}

}  // namespace

void reduce_struct_cupar_jit_rec16(benchmark::State& state) {
  const op merge(rec16_merge_source());
  struct_row(state, "reduce_struct", "rec16", merge, [&](jit_row_guard& guard) {
    reduce_runner<rec16>(
        state, jit_warmed(guard, [&](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
          cupar::reduce(in, out, n, merge, rec16_identity(), s);
        }));
  });
}

void inclusive_scan_struct_cupar_jit_rec16(benchmark::State& state) {
  const op merge(rec16_merge_source());
  struct_row(state, "inclusive_scan_struct", "rec16", merge, [&](jit_row_guard& guard) {
    scan_runner<rec16>(
        state, jit_warmed(guard, [&](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
          cupar::inclusive_scan(in, out, n, merge, s);
        }));
  });
}

void reduce_by_key_cupar_jit_u32_rec16(benchmark::State& state) {
  reduce_by_key_records_jit<rec16>(state, "u32_rec16", rec16_merge_source());
}
// rec28 has no class of its size: the call pads its values to the class s32a8 and back
// (entry.cpp's run_padded), so only the operator compiles here too.
void reduce_by_key_cupar_jit_u32_rec28(benchmark::State& state) {
  reduce_by_key_records_jit<rec28>(state, "u32_rec28", rec28_merge_source());
}

void merge_sort_keys_cupar_jit_rec16(benchmark::State& state) {
  merge_sort_struct_jit<rec16>(state, "rec16", "a.sum < b.sum");
}
void merge_sort_keys_cupar_jit_rec32(benchmark::State& state) {
  merge_sort_struct_jit<rec32>(state, "rec32", "a.key < b.key");
}

}  // namespace cupar_bench
