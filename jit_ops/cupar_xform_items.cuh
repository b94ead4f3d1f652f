// cupar JIT: the out-of-line (tier-1) kernels' transform of a thread's items by value, shared by
// transform_reduce's array sets (jit_ops/cupar_reduce.cuh) and the scans' "+xform" sets
// (jit_ops/cupar_scan.cuh). Expects cupar_In, cupar_T, cupar_items (cupar_prelude.cuh) and the
// transform slot cupar_jit_xform(const unsigned char* state, cupar_In x) -> cupar_T, whose
// by-value batches `_items8` / `_items4` the operator's build generates (codegen.cpp,
// batch::items). Through local memory (a `_map` of the items' addresses) such a batch ran at half
// the speed of the calls per item (docs/PERFORMANCE_NOTES.md).
#pragma once

/// Items a call of the transform's by-value batch: eight, or four, where that many items and
/// results fit in eight words each (cupar_items: registers under the call ABI); 0: none fits.
constexpr int cupar_xform_width(unsigned long long bytes) {
  return 8 * bytes <= 32 ? 8 : 4 * bytes <= 32 ? 4 : 0;
}
extern "C" __device__ cupar_items<cupar_T, 8> cupar_jit_xform_items8(const unsigned char* state,
                                                                     cupar_In x0, cupar_In x1,
                                                                     cupar_In x2, cupar_In x3,
                                                                     cupar_In x4, cupar_In x5,
                                                                     cupar_In x6, cupar_In x7);
extern "C" __device__ cupar_items<cupar_T, 4> cupar_jit_xform_items4(const unsigned char* state,
                                                                     cupar_In x0, cupar_In x1,
                                                                     cupar_In x2, cupar_In x3);
/// out[k] = transform(in[k]) for k from I on, in calls of cupar_xform_width items (of the wider
/// of cupar_In and cupar_T) by value, the rest a call each; `in` and `out` may be the same array
/// (a chunk's items are passed before its results are stored). The indices are constants once
/// unrolled, so the items stay in registers.
template <int I, int N>
__device__ __forceinline__ void cupar_transform_items(const unsigned char* state,
                                                      const cupar_In (&in)[N], cupar_T (&out)[N]) {
  constexpr int width =
      cupar_xform_width(sizeof(cupar_In) > sizeof(cupar_T) ? sizeof(cupar_In) : sizeof(cupar_T));
  if constexpr (width == 8 && I + 8 <= N) {
    const cupar_items<cupar_T, 8> r = cupar_jit_xform_items8(
        state, in[I], in[I + 1], in[I + 2], in[I + 3], in[I + 4], in[I + 5], in[I + 6], in[I + 7]);
#pragma unroll
    for (int k = 0; k < 8; ++k)
      out[I + k] = r.v[k];
    cupar_transform_items<I + 8, N>(state, in, out);
  } else if constexpr (width >= 4 && I + 4 <= N) {
    const cupar_items<cupar_T, 4> r =
        cupar_jit_xform_items4(state, in[I], in[I + 1], in[I + 2], in[I + 3]);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      out[I + k] = r.v[k];
    cupar_transform_items<I + 4, N>(state, in, out);
  } else if constexpr (I < N) {
    out[I] = cupar_jit_xform(state, in[I]);
    cupar_transform_items<I + 1, N>(state, in, out);
  }
}
