// cupar JIT: CUB's unique-by-key kernels (DeviceSelect::UniqueByKey) with a run-time equality.
// Expects the size classes cupar_K (keys) and cupar_V (values) and the slot function
//   cupar_jit_eq(const unsigned char* state, cupar_K a, cupar_K b) -> bool.
//
// CUB 3.0.1 defines both kernels in NVRTC-safe headers (kernels/scan.cuh, kernels/
// unique_by_key.cuh), so the set instantiates CUB's own kernels; the host side
// (src/jit/families/by_key.cu) runs CUB's own DispatchUniqueByKey through its KernelSource
// seam.
#pragma once

#include <cub/device/dispatch/kernels/scan.cuh>
#include <cub/device/dispatch/kernels/unique_by_key.cuh>
#include <cub/device/dispatch/tuning/tuning_unique_by_key.cuh>

struct cupar_unique_by_key_eq {
  cupar_functor_state state;
  __device__ __forceinline__ bool operator()(const cupar_K& a, const cupar_K& b) const {
    return cupar_jit_eq(state.bytes, a, b);
  }
};

/// The offsets CUB chooses for the count's width (choose_offset_t): 32 bits for an int count (the
/// default set; cupar uses it up to 2^31 - 1 items), 64 bits with CUPAR_BY_KEY_WIDE (the "wide"
/// variant). 64-bit offsets double the tile state's words and the block scan's pairs: with them
/// unique_by_key ran at 0.56 of CUB's int-count path on 2^28 u32/f32 pairs (H100).
#if defined(CUPAR_BY_KEY_WIDE)
typedef unsigned long long cupar_offset;
#else
typedef unsigned int cupar_offset;
#endif
typedef cub::ScanTileState<cupar_offset> cupar_tile_state;
typedef unsigned long long* cupar_num_selected_out;
/// CUB tunes unique-by-key on the sizes and primitive-ness of the key and value types, which the
/// size classes keep (no operator enters the choice).
typedef cub::detail::unique_by_key::policy_hub<cupar_K, cupar_V>::MaxPolicy cupar_policy;

typedef cub::detail::unique_by_key::VSMemHelper::VSMemHelperDefaultFallbackPolicyT<
    cupar_policy::ActivePolicy::UniqueByKeyPolicyT, const cupar_K*, const cupar_V*, cupar_K*,
    cupar_V*, cupar_unique_by_key_eq, cupar_offset>
    cupar_unique_by_key_vsmem;

#if defined(CUPAR_OUT_OF_LINE)
// The out-of-line (tier-1) sweep flags a thread's keys from the equality's head flags
// (cupar_prelude.cuh, CUPAR_BATCHED_FLAG_HEADS).
CUPAR_EQUALITY_HEADS(cupar_K)
CUPAR_BATCHED_FLAG_HEADS(cupar_K, cupar_unique_by_key_vsmem::agent_policy_t::BLOCK_THREADS,
                         cupar_unique_by_key_vsmem::agent_policy_t::ITEMS_PER_THREAD, cupar_offset,
                         cupar_unique_by_key_eq)
#endif

static constexpr long long cupar_m0 = cupar_unique_by_key_vsmem::agent_policy_t::BLOCK_THREADS;
static constexpr long long cupar_m1 = cupar_unique_by_key_vsmem::agent_policy_t::ITEMS_PER_THREAD;
static constexpr long long cupar_m2 = cupar_unique_by_key_vsmem::vsmem_per_block;
static constexpr long long cupar_m3 = sizeof(cupar_offset);
