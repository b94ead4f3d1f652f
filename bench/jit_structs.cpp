// cupar benchmarks: the struct rows with run-time operators (cupar_jit), host-compiled. rec16 is
// of class s16a4 and rec32 of s32a8, so each operator below is compiled alone and linked to the
// kernels precompiled for the class (the row fails if a kernel was compiled from source); the
// rows of structs.cu run the same operators compiled by nvcc. reduce_by_key u32_rec16 takes the
// data-processing class set reduce_by_key<u32,s16a4> (CUPAR_JIT_STRUCT_DP_CLASSES).
#include "by_key_runners.hpp"
#include "jit_rows.hpp"
#include "records.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

CUPAR_JIT_TYPE(cupar_bench::rec16, "rec16", "struct rec16 { float count, sum, min, max; };")
CUPAR_JIT_TYPE(cupar_bench::rec32, "rec32",
               "struct rec32 { double key; long long id; double a, b; };")

namespace cupar_bench {
namespace {

using cupar::jit::op;

const char* const merge_source =
    "rec16{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)}";

std::string label(const char* family, const char* type, const op& o) {
  return std::string(family) + " " + type + " \"" + o.source() + "\"";
}

/// Fails the row when the JIT engine compiled kernel source while it ran: these structs are of a
/// precompiled class, so only the operator may be compiled (a build without the class sets, see
/// CUPAR_JIT_STRUCT_CLASSES, would otherwise time kernels compiled from source unnoticed).
class class_set_check {
 public:
  void check(benchmark::State& state) const {
    if (cupar::jit::get_stats().kernel_compiles != before_) {
      state.SkipWithError(
          "kernels were compiled from source: this build lacks the struct's precompiled class");
    }
  }

 private:
  std::uint64_t before_ = cupar::jit::get_stats().kernel_compiles;
};

template <class R>
void merge_sort_struct_jit(benchmark::State& state, const char* type, const char* less_source) {
  const op less(less_source);
  const class_set_check class_check;
  jit_row_guard guard(label("merge_sort_keys", type, less));
  sort_keys_runner<R>(state, jit_warmed(guard, [&](const R* in, R* out, std::size_t n,
                                                   cudaStream_t s) {
                        cupar::sort_keys(in, out, n, less, s);
                      }));
  guard.check(state);
  class_check.check(state);
}

}  // namespace

void reduce_struct_cupar_jit_rec16(benchmark::State& state) {
  const op merge(merge_source);
  const class_set_check class_check;
  jit_row_guard guard(label("reduce_struct", "rec16", merge));
  reduce_runner<rec16>(state,
                       jit_warmed(guard, [&](const rec16* in, rec16* out, std::size_t n,
                                             cudaStream_t s) {
                         cupar::reduce(in, out, n, merge, rec16_identity(), s);
                       }));
  guard.check(state);
  class_check.check(state);
}

void inclusive_scan_struct_cupar_jit_rec16(benchmark::State& state) {
  const op merge(merge_source);
  const class_set_check class_check;
  jit_row_guard guard(label("inclusive_scan_struct", "rec16", merge));
  scan_runner<rec16>(state, jit_warmed(guard, [&](const rec16* in, rec16* out, std::size_t n,
                                                  cudaStream_t s) {
                       cupar::inclusive_scan(in, out, n, merge, s);
                     }));
  guard.check(state);
  class_check.check(state);
}

void reduce_by_key_cupar_jit_u32_rec16(benchmark::State& state) {
  const op merge(merge_source);
  const class_set_check class_check;
  jit_row_guard guard(label("reduce_by_key", "u32_rec16", merge));
  by_key_compact_runner<std::uint32_t, rec16>(
      state, jit_warmed(guard, [&](const std::uint32_t* k, const rec16* v, std::uint32_t* ko,
                                   rec16* vo, std::size_t* count, std::size_t n, cudaStream_t s) {
        cupar::reduce_by_key(k, v, ko, vo, count, n, merge, s);
      }));
  guard.check(state);
  class_check.check(state);
}

void merge_sort_keys_cupar_jit_rec16(benchmark::State& state) {
  merge_sort_struct_jit<rec16>(state, "rec16", "a.sum < b.sum");
}
void merge_sort_keys_cupar_jit_rec32(benchmark::State& state) {
  merge_sort_struct_jit<rec32>(state, "rec32", "a.key < b.key");
}

}  // namespace cupar_bench
