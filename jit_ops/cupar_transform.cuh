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
// The out-of-line (tier-1) kernel. CUB's bulk-copy transform (sm_90's algorithm) copies a block's
// tile of the inputs to shared memory, waits, then calls the operator once per item, which out of
// line is one call an element; its bytes in flight come from the blocks an SM runs at once. Here
// each thread transforms its items of a tile in one call of the operator's batched form (eight
// shared-memory loads, the operator inlined eight times, eight global stores), and since that
// call's registers leave the kernel 3-4 blocks an SM where CUB's runs 8, a block does not wait
// for its tile alone: it walks the tiles blockIdx.x, blockIdx.x + gridDim.x, ... with two
// buffers, the copy of its next tile in flight while it transforms the current one. With the
// grid of CUB's geometry (a tile a block) it is CUB's kernel; the run code launches the tier-1
// build with as many blocks as fit at once (families/transform.cu). CUB's tiles, items and order.
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
/// Bytes of one buffer: every operand's tile, each at its head padding and
/// `sizeof(T) * tile_stride + bulk_copy_alignment` bytes after the one before (CUB's layout).
template <class... InTs>
__device__ __forceinline__ int cupar_buffer_bytes(int tile_stride) {
  return (0 + ... + (static_cast<int>(sizeof(InTs)) * tile_stride + bulk_copy_alignment));
}
/// Whether tile `tile` of `tiles` is copied by the bulk-copy (TMA) unit: CUB's inner blocks. The
/// first and the last two tiles (whose copies may reach past the arrays' aligned ends) are
/// copied with cooperative_groups.
__device__ __forceinline__ bool cupar_inner_tile(long long tile, long long tiles) {
  return 0 < tile && tile + 2 < tiles;
}
/// Starts the bulk copy of inner tile `tile` into `buffer` (one elected thread; `bar` completes
/// when every byte has landed): CUB's transform_kernel_ublkcp (CCCL 3.0.1), one copy an operand.
template <class... InTs>
__device__ __forceinline__ void cupar_start_copy(cupar_offset offset, int tile_stride, char* buffer,
                                                 uint64_t* bar,
                                                 aligned_base_ptr<InTs>... aligned_ptrs) {
  if (!elect_one()) return;
  // The buffer was last read through the generic proxy (the previous tile's transform).
  ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
  int smem_offset = 0;
  ::cuda::std::uint32_t total_copied = 0;
  auto bulk_copy_tile = [&](auto aligned_ptr) {
    using T = typename decltype(aligned_ptr)::value_type;
    static_assert(alignof(T) <= bulk_copy_alignment, "");
    const char* src = aligned_ptr.ptr + offset * static_cast<cupar_offset>(sizeof(T));
    const int bytes_to_copy = round_up_to_po2_multiple(
        aligned_ptr.head_padding + static_cast<int>(sizeof(T)) * tile_stride,
        bulk_copy_size_multiple);
    ::cuda::ptx::cp_async_bulk(::cuda::ptx::space_cluster, ::cuda::ptx::space_global,
                               buffer + smem_offset, src, bytes_to_copy, bar);
    total_copied += bytes_to_copy;
    smem_offset += static_cast<int>(sizeof(T)) * tile_stride + bulk_copy_alignment;
  };
  (..., bulk_copy_tile(aligned_ptrs));
  ::cuda::ptx::mbarrier_arrive_expect_tx(::cuda::ptx::sem_release, ::cuda::ptx::scope_cta,
                                         ::cuda::ptx::space_shared, bar, total_copied);
}
/// Copies an edge tile (`tile_size` items at `offset`) into `buffer` with the whole block and
/// waits for it: CUB's fallback for its first and last two blocks.
template <class... InTs>
__device__ __forceinline__ void cupar_copy_edge_tile(cupar_offset offset, int tile_stride,
                                                     int tile_size, char* buffer,
                                                     aligned_base_ptr<InTs>... aligned_ptrs) {
  int smem_offset = 0;
  auto copy_tile = [&](auto aligned_ptr) {
    using T = typename decltype(aligned_ptr)::value_type;
    const T* src = aligned_ptr.ptr_to_elements() + offset;
    T* dst = reinterpret_cast<T*>(buffer + smem_offset + aligned_ptr.head_padding);
    cooperative_groups::memcpy_async(cooperative_groups::this_thread_block(), dst, src,
                                     static_cast<int>(sizeof(T)) * tile_size);
    smem_offset += static_cast<int>(sizeof(T)) * tile_stride + bulk_copy_alignment;
  };
  (..., copy_tile(aligned_ptrs));
  cooperative_groups::wait(cooperative_groups::this_thread_block());
}
/// The block's tiles through two shared-memory buffers; `body(buffer, offset, items)` transforms
/// the calling thread's `items` of the tile at `offset` (its element k at threadIdx.x + k *
/// block_dim of each operand's copy in `buffer`).
template <class Body, class... InTs>
__device__ __forceinline__ void cupar_pipelined_tiles(cupar_offset num_items,
                                                      int num_elem_per_thread, Body body,
                                                      aligned_base_ptr<InTs>... aligned_ptrs) {
  __shared__ uint64_t bars[2];
  extern __shared__ char __align__(bulk_copy_alignment) smem[];
  constexpr int block_dim = cupar_active::algo_policy::block_threads;
  const int tile_stride = block_dim * num_elem_per_thread;
  const int buffer_bytes = cupar_buffer_bytes<InTs...>(tile_stride);
  const long long tiles = (num_items + tile_stride - 1) / tile_stride;
  const long long step = gridDim.x;
  if (elect_one()) {
    ::cuda::ptx::mbarrier_init(&bars[0], 1);
    ::cuda::ptx::mbarrier_init(&bars[1], 1);
    ::cuda::ptx::fence_proxy_async(::cuda::ptx::space_shared);
  }
  __syncthreads();
  long long tile = blockIdx.x;
  if (tile < tiles && cupar_inner_tile(tile, tiles)) {
    cupar_start_copy(static_cast<cupar_offset>(tile) * tile_stride, tile_stride, smem, &bars[0],
                     aligned_ptrs...);
  }
  unsigned parity = 0u;  // bit b: the phase of bars[b] the next wait on it waits for
  for (int b = 0; tile < tiles; tile += step, b ^= 1) {
    const long long next = tile + step;
    if (next < tiles && cupar_inner_tile(next, tiles)) {
      cupar_start_copy(static_cast<cupar_offset>(next) * tile_stride, tile_stride,
                       smem + (b ^ 1) * buffer_bytes, &bars[b ^ 1], aligned_ptrs...);
    }
    char* buffer = smem + b * buffer_bytes;
    const cupar_offset offset = static_cast<cupar_offset>(tile) * tile_stride;
    const int tile_size =
        static_cast<int>((::cuda::std::min)(num_items - offset, cupar_offset{tile_stride}));
    if (cupar_inner_tile(tile, tiles)) {
      while (!::cuda::ptx::mbarrier_try_wait_parity(&bars[b], (parity >> b) & 1u))
        ;
      parity ^= 1u << b;
    } else {
      cupar_copy_edge_tile(offset, tile_stride, tile_size, buffer, aligned_ptrs...);
    }
    const int n = cupar_thread_items(tile_size, static_cast<int>(threadIdx.x), block_dim);
    if (n > 0) body(static_cast<const char*>(buffer), offset, n);
    // Every thread is done with `buffer` before the copy of the tile after next lands in it.
    __syncthreads();
  }
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
  constexpr int block_dim = cupar_active::algo_policy::block_threads;
  const cupar_op_words state = cupar_state_words(f.state);
  const int tile_stride = block_dim * num_elem_per_thread;
  const int tid = static_cast<int>(threadIdx.x);
  cupar_pipelined_tiles(
      num_items, num_elem_per_thread,
      [&](const char* buffer, cupar_offset offset, int n) {
        const cupar_A* in0 = reinterpret_cast<const cupar_A*>(buffer + a.head_padding);
        const cupar_B* in1 = reinterpret_cast<const cupar_B*>(
            buffer + static_cast<int>(sizeof(cupar_A)) * tile_stride + bulk_copy_alignment +
            b.head_padding);
        cupar_jit_op_transform(state.bytes, in0 + tid, in1 + tid, out + offset + tid, block_dim, n);
      },
      a, b);
}
#else
extern "C" __device__ void cupar_jit_op_transform(const unsigned char* state, const cupar_In* in0,
                                                  cupar_Out* out, int stride, int n);
template <>
__device__ __forceinline__ void transform_kernel_ublkcp<cupar_active::algo_policy, cupar_offset,
                                                        cupar_transform_op, cupar_Out*, cupar_In>(
    cupar_offset num_items, int num_elem_per_thread, cupar_transform_op f, cupar_Out* out,
    aligned_base_ptr<cupar_In> in) {
  constexpr int block_dim = cupar_active::algo_policy::block_threads;
  const cupar_op_words state = cupar_state_words(f.state);
  const int tid = static_cast<int>(threadIdx.x);
  cupar_pipelined_tiles(
      num_items, num_elem_per_thread,
      [&](const char* buffer, cupar_offset offset, int n) {
        const cupar_In* in0 = reinterpret_cast<const cupar_In*>(buffer + in.head_padding);
        cupar_jit_op_transform(state.bytes, in0 + tid, out + offset + tid, block_dim, n);
      },
      in);
}
#endif
}  // namespace transform
}  // namespace detail
CUB_NAMESPACE_END
#endif
