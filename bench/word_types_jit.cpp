// cupar benchmarks: the cupar_jit rows of word_types.cu (the same families and data, run-time
// operators from code the host compiler builds), and reduce's not-guaranteed sum with the named
// plus (cupar_jit_named_not_guaranteed). Timed like every cupar_jit row (jit_rows.hpp).
//
//   reduce_max          cupar::jit::maximum on __half / __nv_bfloat16 (the u16 kernel sets)
//   reduce_sum_to_f32   the halves read through jit::iterator and converted to float where they
//                       are loaded, summed with cupar::jit::plus
//   reduce_any          cupar::jit::logical_or on bool (the u8 sets)
//   inclusive_scan_max  cupar::jit::maximum on __half
#include "jit_rows.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <string>

namespace cupar_bench {
namespace {

namespace jit = cupar::jit;

template <class H>
void reduce_max_jit(benchmark::State& state, const char* type) {
  jit_row_guard guard(std::string("reduce_max ") + type + " (named maximum)");
  const H lowest(-65504.0f);
  reduce_runner<H>(state,
                   jit_warmed(guard, [&](const H* in, H* out, std::size_t n, cudaStream_t s) {
                     cupar::reduce(in, out, n, jit::maximum, lowest, s);
                   }));
  guard.check(state);
}

template <class H>
void reduce_sum_to_f32_jit(benchmark::State& state, const char* type) {
  jit_row_guard guard(std::string("reduce_sum_to_f32 ") + type + " (iterator, named plus)");
  widening_reduce_runner<H, float>(
      state, jit_warmed(guard, [&](const H* x, float* o, std::size_t n, cudaStream_t s) {
        cupar::reduce(jit::iterator(x), o, n, jit::plus, 0.0f, s);
      }));
  guard.check(state);
}

template <class T>
void reduce_sum_named_not_guaranteed(benchmark::State& state, const char* type) {
  jit_row_guard guard(std::string("reduce_sum ") + type + " (named plus, not guaranteed)");
  reduce_runner<T>(
      state, jit_warmed(guard, [&](const T* in, T* out, std::size_t n, cudaStream_t s) {
        cupar::reduce(in, out, n, jit::plus, T(0), cupar::determinism::not_guaranteed, s);
      }));
  guard.check(state);
}

}  // namespace

void reduce_max_cupar_jit_f16(benchmark::State& state) {
  reduce_max_jit<__half>(state, "f16");
}
void reduce_max_cupar_jit_bf16(benchmark::State& state) {
  reduce_max_jit<__nv_bfloat16>(state, "bf16");
}
void reduce_sum_to_f32_cupar_jit_f16(benchmark::State& state) {
  reduce_sum_to_f32_jit<__half>(state, "f16");
}
void reduce_sum_to_f32_cupar_jit_bf16(benchmark::State& state) {
  reduce_sum_to_f32_jit<__nv_bfloat16>(state, "bf16");
}

void reduce_any_cupar_jit_bool(benchmark::State& state) {
  jit_row_guard guard("reduce_any bool (named logical_or)");
  reduce_runner<bool>(
      state, jit_warmed(guard, [&](const bool* in, bool* out, std::size_t n, cudaStream_t s) {
        cupar::reduce(in, out, n, jit::logical_or, false, s);
      }));
  guard.check(state);
}

void inclusive_scan_max_cupar_jit_f16(benchmark::State& state) {
  jit_row_guard guard("inclusive_scan_max f16 (named maximum)");
  scan_runner<__half>(
      state, jit_warmed(guard, [&](const __half* in, __half* out, std::size_t n, cudaStream_t s) {
        cupar::inclusive_scan(in, out, n, jit::maximum, s);
      }));
  guard.check(state);
}

void reduce_sum_cupar_jit_named_not_guaranteed_f32(benchmark::State& state) {
  reduce_sum_named_not_guaranteed<float>(state, "f32");
}
void reduce_sum_cupar_jit_named_not_guaranteed_i32(benchmark::State& state) {
  reduce_sum_named_not_guaranteed<std::int32_t>(state, "i32");
}

}  // namespace cupar_bench
