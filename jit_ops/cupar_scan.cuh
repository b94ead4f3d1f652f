// cupar JIT: CUB's scan kernels with a run-time operator. Expects cupar_T and
// cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T; with
// CUPAR_INDEX_INPUT ("+index" sets) also the iterator expression
// cupar_jit_xform(const unsigned char* state, unsigned long long i) -> cupar_T, and with
// CUPAR_INDEX_OUTPUT ("+io" sets: both) the output expression's
// cupar_jit_store(const unsigned char* state, unsigned long long i, cupar_T v) -> int; with
// CUPAR_XFORM_INPUT ("+xform" sets) the transform of an array's elements
// cupar_jit_xform(const unsigned char* state, cupar_T x) -> cupar_T.
#pragma once

#include <cub/device/dispatch/kernels/scan.cuh>
#include <cub/device/dispatch/tuning/tuning_scan.cuh>

#if defined(CUPAR_OUT_OF_LINE)
CUPAR_OPERATOR_FOLDS_DECLARE(cupar_T)
#endif

/// A template (of one, unused, parameter) so that the out-of-line kernels' thread-level
/// reductions and scans take the batched forms (cupar_prelude.cuh); the same type in both
/// builds.
template <int Unused>
struct cupar_scan_fn {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
#if defined(CUPAR_OUT_OF_LINE)
  CUPAR_OPERATOR_FOLD_MEMBERS(cupar_T)
#endif
};
typedef cupar_scan_fn<0> cupar_scan_op;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels: a warp's inclusive scan in one call of the operator's
// generated cupar_jit_op_warp_scan (CUB's five shuffle steps in CUB's order, the operator
// inlined there) instead of five calls. The block scans' warps are whole (128 threads).
CUB_NAMESPACE_BEGIN
namespace detail {
template <>
template <>
__device__ __forceinline__ void WarpScanShfl<cupar_T, 32>::InclusiveScan<cupar_T, cupar_scan_op>(
    cupar_T input, cupar_T& inclusive_output, cupar_scan_op scan_op) {
  inclusive_output = cupar_jit_op_warp_scan(scan_op.state.bytes, input);
}
}  // namespace detail
CUB_NAMESPACE_END
#endif

#if defined(CUPAR_INDEX_INPUT)
#include "cupar_expr_input.cuh"  // with CUPAR_INDEX_OUTPUT also the output, cupar_expr_output
#endif

#if defined(CUPAR_OUT_OF_LINE) && defined(CUPAR_INDEX_INPUT)
extern "C" __device__ void cupar_jit_xform_strided(const unsigned char* state,
                                                   unsigned long long first,
                                                   unsigned long long stride, cupar_T* out, int n);
/// The out-of-line (tier-1) kernels' full tiles of an iterator expression: CUB's scan agent loads
/// them warp-striped (BLOCK_LOAD_WARP_TRANSPOSE: CUB 3.0.1's scan policies for sm_80 and later
/// with 4- and 8-byte accumulators) through LoadDirectWarpStriped, which calls the expression once
/// per item; this overload (found by argument-dependent lookup, more specialised than CUB's)
/// computes a thread's N items, element warp * 32 * N + lane + 32 * k of the tile into items[k]
/// as CUB's, in one call of the expression's strided form (its loads in flight together, chunk by
/// chunk: codegen.cpp). Into a local array first, so that the agent's items stay in registers.
/// Partial tiles keep CUB's guarded loads. H100, tier 1 of the scan of transform(x, "x * x"),
/// f32: 139.3 -> 121.2 us at 2^24, 1,998 -> 1,681 at 2^28 (0.45 -> 0.52 of the optimised build).
template <int N>
__device__ __forceinline__ void LoadDirectWarpStriped(int linear_tid, cupar_expr_iterator it,
                                                      cupar_T (&items)[N]) {
  const int lane = linear_tid & 31;
  const int warp = linear_tid >> 5;
  cupar_T loaded[N];
  cupar_jit_xform_strided(it.state.bytes,
                          it.base + static_cast<unsigned long long>(warp) * 32ull * N +
                              static_cast<unsigned long long>(lane),
                          32, loaded, N);
#pragma unroll
  for (int k = 0; k < N; ++k)
    items[k] = loaded[k];
}
#endif

#if defined(CUPAR_XFORM_INPUT)
/// The input of the "+xform" sets: element i is the first slot's transform (cupar_jit_xform) of
/// in[i], an array of cupar_T (jit::transform<T>(array, f) with the array's elements of the
/// scan's type). The host passes it by value in the layout of the "+index" sets' input (80
/// bytes: the transform's state, then the array's address; src/jit/core/launch.hpp,
/// expression_input).
struct cupar_xform_iterator {
  typedef cupar_T value_type;
  typedef long long difference_type;
  typedef const cupar_T* pointer;
  typedef cupar_T reference;
  typedef ::cuda::std::random_access_iterator_tag iterator_category;
  cupar_functor_state state;
  const cupar_T* in;
  __device__ __forceinline__ cupar_T operator*() const { return cupar_jit_xform(state.bytes, *in); }
  __device__ __forceinline__ cupar_T operator[](difference_type i) const {
    return cupar_jit_xform(state.bytes, in[i]);
  }
  __host__ __device__ __forceinline__ cupar_xform_iterator operator+(difference_type i) const {
    cupar_xform_iterator r = *this;
    r.in += i;
    return r;
  }
  __host__ __device__ __forceinline__ cupar_xform_iterator& operator+=(difference_type i) {
    in += i;
    return *this;
  }
  __host__ __device__ __forceinline__ difference_type
  operator-(const cupar_xform_iterator& o) const {
    return static_cast<difference_type>(in - o.in);
  }
};
#if defined(CUPAR_OUT_OF_LINE)
#include "cupar_xform_items.cuh"  // (cupar_In is cupar_T: scan.cu's typedefs)
/// The out-of-line (tier-1) kernels' full tiles of a transformed array: CUB's warp-striped load
/// (BLOCK_LOAD_WARP_TRANSPOSE, as LoadDirectWarpStriped above) of a thread's N elements, all in
/// flight together as the optimised build's, then the transform eight items a call by value (the
/// "+index" sets read the same shape inside one out-of-line call of the expression's strided
/// form, in chunks of 8 loads through the callee's writes to local memory: 0.50-0.55 of the
/// optimised build, docs/PERFORMANCE_NOTES.md). Partial tiles keep CUB's guarded loads.
template <int N>
__device__ __forceinline__ void LoadDirectWarpStriped(int linear_tid, cupar_xform_iterator it,
                                                      cupar_T (&items)[N]) {
  const int lane = linear_tid & 31;
  const int warp = linear_tid >> 5;
  const cupar_T* p = it.in + warp * 32 * N + lane;
#pragma unroll
  for (int k = 0; k < N; ++k)
    items[k] = p[32 * k];
  cupar_transform_items<0>(it.state.bytes, items, items);
}
#endif
#endif

/// The initial value of an exclusive scan, or of an inclusive one's "+init" sets: a host value
/// or one read from device memory when the kernel runs (cupar_init, cupar_prelude.cuh).
typedef cupar_init<cupar_T> cupar_scan_init;

typedef unsigned long long cupar_offset;
typedef cub::ScanTileState<cupar_T> cupar_tile_state;
/// The operator type CUB's tuning sees (only its policy choice; the kernels run cupar_scan_op).
/// CUB uses its tuned scan policies (sm_90: 128 threads x 24 items and a tuned look-back delay)
/// only for operators it knows to be cheap (cuda::std::plus, minimum, maximum, ...); a run-time
/// operator is unknown to it and got the generic policy, which measured 0.82x of the tuned one
/// at 2^26..2^28 (bench/RESULTS.md of 2026-11-21). An operator on an arithmetic type is cheap as
/// a rule, so for those CUB tunes as for plus.
template <class T, bool Arithmetic = ::cuda::std::is_arithmetic<T>::value>
struct cupar_scan_tuning_op {
  typedef cupar_scan_op type;
};
template <class T>
struct cupar_scan_tuning_op<T, true> {
  typedef ::cuda::std::plus<T> type;
};

typedef cub::detail::scan::policy_hub<cupar_T, cupar_T, cupar_T, cupar_offset,
                                      cupar_scan_tuning_op<cupar_T>::type>::MaxPolicy cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) kernels' block scans fold the warps' aggregates in one call
// (cupar_prelude.cuh, CUPAR_BATCHED_WARP_PREFIX).
CUPAR_BATCHED_WARP_PREFIX(cupar_T, cupar_active::ScanPolicyT::BLOCK_THREADS, cupar_scan_op)
// Its decoupled look-back reduces a window in one call (CUPAR_BATCHED_LOOK_BACK).
CUPAR_BATCHED_LOOK_BACK(cupar_T, cupar_scan_op)
#endif
