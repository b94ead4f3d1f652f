// cupar JIT: CUB's transform kernel with a run-time operator. Unary: cupar_In and
// cupar_jit_op(state, cupar_In x) -> cupar_Out; with CUPAR_TRANSFORM_BINARY: cupar_A, cupar_B and
// cupar_jit_op(state, cupar_A a, cupar_B b) -> cupar_Out.
#pragma once

#include <cub/device/dispatch/kernels/transform.cuh>
#include <cub/device/dispatch/tuning/tuning_transform.cuh>

#include <cuda/std/tuple>

// The state stays bytes in both builds (not cupar_functor_state): as 16-byte words the
// out-of-line transforms ran 1.2-1.3x slower on an H200 (unary f32 and binary i32 at 2^24 and
// 2^28), while the families that copy the functor in their reductions gained.
#if defined(CUPAR_TRANSFORM_BINARY)
struct cupar_transform_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_Out operator()(cupar_A a, cupar_B b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};
typedef cub::detail::transform::policy_hub<false,
                                           ::cuda::std::tuple<const cupar_A*, const cupar_B*>>
    cupar_hub;
#define CUPAR_TRANSFORM_INPUTS const cupar_A*, const cupar_B*
#else
struct cupar_transform_op {
  cupar_op_state state;
  __device__ __forceinline__ cupar_Out operator()(cupar_In x) const {
    return cupar_jit_op(state.bytes, x);
  }
};
typedef cub::detail::transform::policy_hub<false, ::cuda::std::tuple<const cupar_In*>> cupar_hub;
#define CUPAR_TRANSFORM_INPUTS const cupar_In*
#endif

typedef long long cupar_offset;
typedef cupar_hub::max_policy cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;

#if defined(CUPAR_OUT_OF_LINE) && defined(_CUB_HAS_TRANSFORM_UBLKCP)
// The out-of-line (tier-1) kernel. CUB's bulk-copy transform (sm_90's algorithm) copies a tile's
// inputs to shared memory, then calls the operator once per item, which out of line is one call an
// element. Here the copy is CUB's and each thread then transforms its items of the tile in one call
// of the operator's batched form (eight shared-memory loads, the operator inlined eight times,
// eight global stores): CUB's tile, items and order.
CUB_NAMESPACE_BEGIN
namespace detail {
namespace transform {
/// The number of items of the thread `tid` in a tile of `tile_size` items, element k of them at
/// tid + k * block_dim (CUB's loop: j * block_dim + tid < tile_size).
__device__ __forceinline__ int cupar_thread_items(int tile_size, int tid, int block_dim) {
  return tile_size > tid ? (tile_size - tid + block_dim - 1) / block_dim : 0;
}
/// The operator's state copied from the kernel's parameters by 16-byte words (the callee takes it
/// by address; as bytes the copy took 64 one-byte loads and the shifts that pack them).
__device__ __forceinline__ cupar_op_words cupar_state_words(const cupar_op_state& state) {
  cupar_op_words w;
  const uint4* from = reinterpret_cast<const uint4*>(state.bytes);
#pragma unroll
  for (int i = 0; i < CUPAR_STATE_BYTES / 16; ++i)
    w.words[i] = from[i];
  return w;
}
/// The first half of CUB's transform_kernel_ublkcp (CCCL 3.0.1, kernels/transform.cuh), unchanged:
/// the block's tile of every input into `smem`, operand after operand, each at its head padding
/// and `sizeof(T) * tile_stride + bulk_copy_alignment` bytes after the one before. Inner blocks
/// use one bulk copy an operand (the TMA unit) and an mbarrier; the first and the last two blocks
/// (whose tiles may reach past the arrays' aligned ends) copy with cooperative_groups.
template <class Offset, class... InTs>
__device__ __forceinline__ void cupar_tile_to_shared(Offset offset, int tile_stride, int tile_size,
                                                     char* smem, uint64_t* bar,
                                                     aligned_base_ptr<InTs>... aligned_ptrs) {
  const bool inner_blocks = 0 < blockIdx.x && blockIdx.x + 2 < gridDim.x;
  if (inner_blocks) {
    if (elect_one()) {
      ::cuda::ptx::mbarrier_init(bar, 1);
      ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
      int smem_offset = 0;
      ::cuda::std::uint32_t total_copied = 0;
      auto bulk_copy_tile = [&](auto aligned_ptr) {
        using T = typename decltype(aligned_ptr)::value_type;
        static_assert(alignof(T) <= bulk_copy_alignment, "");
        const char* src = aligned_ptr.ptr + offset * sizeof(T);
        char* dst = smem + smem_offset;
        const int bytes_to_copy = round_up_to_po2_multiple(
            aligned_ptr.head_padding + static_cast<int>(sizeof(T)) * tile_stride,
            bulk_copy_size_multiple);
        ::cuda::ptx::cp_async_bulk(::cuda::ptx::space_cluster, ::cuda::ptx::space_global, dst, src,
                                   bytes_to_copy, bar);
        total_copied += bytes_to_copy;
        smem_offset += static_cast<int>(sizeof(T)) * tile_stride + bulk_copy_alignment;
      };
      (..., bulk_copy_tile(aligned_ptrs));
      ::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta,
                                             ::cuda::ptx::space_shared, bar, total_copied);
    }
    __syncthreads();
    while (!::cuda::ptx::mbarrier_try_wait_parity(bar, 0))
      ;
  } else {
    int smem_offset = 0;
    auto copy_tile = [&](auto aligned_ptr) {
      using T = typename decltype(aligned_ptr)::value_type;
      const T* src = aligned_ptr.ptr_to_elements() + offset;
      T* dst = reinterpret_cast<T*>(smem + smem_offset + aligned_ptr.head_padding);
      cooperative_groups::memcpy_async(cooperative_groups::this_thread_block(), dst, src,
                                       static_cast<int>(sizeof(T)) * tile_size);
      smem_offset += static_cast<int>(sizeof(T)) * tile_stride + bulk_copy_alignment;
    };
    (..., copy_tile(aligned_ptrs));
    cooperative_groups::wait(cooperative_groups::this_thread_block());
  }
}
/// A block's tile, copied to shared memory (cupar_tile_to_shared), and the calling thread's share.
struct cupar_tile {
  const char* smem;     ///< the operands' copies, the first at smem + its head padding
  cupar_offset offset;  ///< the tile's first item
  int tile_stride;      ///< items a full tile holds
  int n;                ///< the thread's items: threadIdx.x + k * block_dim for k < n
};
/// CUB's tile of this block (transform_kernel_ublkcp's geometry) copied to shared memory.
template <class... InTs>
__device__ __forceinline__ cupar_tile cupar_load_tile(cupar_offset num_items,
                                                      int num_elem_per_thread,
                                                      aligned_base_ptr<InTs>... aligned_ptrs) {
  __shared__ uint64_t bar;
  extern __shared__ char __align__(bulk_copy_alignment) smem[];
  constexpr int block_dim = cupar_active::algo_policy::block_threads;
  const int tile_stride = block_dim * num_elem_per_thread;
  const cupar_offset offset = static_cast<cupar_offset>(blockIdx.x) * tile_stride;
  const int tile_size =
      static_cast<int>((::cuda::std::min)(num_items - offset, cupar_offset{tile_stride}));
  cupar_tile_to_shared(offset, tile_stride, tile_size, smem, &bar, aligned_ptrs...);
  return {smem, offset, tile_stride,
          cupar_thread_items(tile_size, static_cast<int>(threadIdx.x), block_dim)};
}
#if defined(CUPAR_TRANSFORM_BINARY)
extern "C" __device__ void cupar_jit_op_transform(const unsigned char* state, const cupar_A* in0,
                                                  const cupar_B* in1, cupar_Out* out, int stride,
                                                  int n);
template <>
__device__ __forceinline__ void transform_kernel_ublkcp<
    cupar_active::algo_policy, cupar_offset, cupar_transform_op, cupar_Out*, cupar_A, cupar_B>(
    cupar_offset num_items, int num_elem_per_thread, cupar_transform_op f, cupar_Out* out,
    aligned_base_ptr<cupar_A> a, aligned_base_ptr<cupar_B> b) {
  const cupar_tile t = cupar_load_tile(num_items, num_elem_per_thread, a, b);
  if (t.n > 0) {
    const int tid = static_cast<int>(threadIdx.x);
    const cupar_A* in0 = reinterpret_cast<const cupar_A*>(t.smem + a.head_padding);
    const cupar_B* in1 = reinterpret_cast<const cupar_B*>(
        t.smem + static_cast<int>(sizeof(cupar_A)) * t.tile_stride + bulk_copy_alignment +
        b.head_padding);
    const cupar_op_words state = cupar_state_words(f.state);
    cupar_jit_op_transform(state.bytes, in0 + tid, in1 + tid, out + t.offset + tid,
                           cupar_active::algo_policy::block_threads, t.n);
  }
}
#else
extern "C" __device__ void cupar_jit_op_transform(const unsigned char* state, const cupar_In* in0,
                                                  cupar_Out* out, int stride, int n);
template <>
__device__ __forceinline__ void transform_kernel_ublkcp<cupar_active::algo_policy, cupar_offset,
                                                        cupar_transform_op, cupar_Out*, cupar_In>(
    cupar_offset num_items, int num_elem_per_thread, cupar_transform_op f, cupar_Out* out,
    aligned_base_ptr<cupar_In> in) {
  const cupar_tile t = cupar_load_tile(num_items, num_elem_per_thread, in);
  if (t.n > 0) {
    const int tid = static_cast<int>(threadIdx.x);
    const cupar_In* in0 = reinterpret_cast<const cupar_In*>(t.smem + in.head_padding);
    const cupar_op_words state = cupar_state_words(f.state);
    cupar_jit_op_transform(state.bytes, in0 + tid, out + t.offset + tid,
                           cupar_active::algo_policy::block_threads, t.n);
  }
}
#endif
}  // namespace transform
}  // namespace detail
CUB_NAMESPACE_END
#endif
