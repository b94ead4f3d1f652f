// cupar internal: the JIT engine. Finds or builds the binary serving (kernel set, operator,
// architecture): per-operator and process-wide caches, the disk cache, precompiled kernel sets,
// and the tiered build (out-of-line operator first, link-time-optimised build in the background).
#pragma once

#include "driver.hpp"
#include "kernel_set.hpp"

#include <cupar/jit.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cupar::detail::jit {

/// The current device as the JIT needs it.
struct device_info {
  int ordinal = 0;
  CUdevice device = 0;
  int arch = 0;  // e.g. 90
  int sm_count = 0;
  int max_grid_dim_x = 0;
  int max_smem_per_block = 0;
};
/// Info of the calling thread's current device; makes its primary context current if no context
/// is. Cached per device.
const device_info& current_device();

/// What a build produces: linked cubins, its entry points (role order) and the set's metadata.
struct built_binary {
  /// One cubin holding every kernel, or (an optimised build linked kernel by kernel: engine.cpp)
  /// one per kernel, `module_of` naming each role's (empty: every role in modules[0]).
  std::vector<std::vector<char>> modules;
  std::vector<int> module_of;
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& m : modules)
      n += m.size();
    return n;
  }
  std::vector<std::string> kernels;
  std::vector<long long> meta;
  int tier = 0;  // 1: operator called out of line; 2: operator inlined (LTO or whole program)
  bool precompiled = false;
  bool register_capped = false;  // linked with an occupancy target (scans, reduce: engine.cpp)
  /// Its kernels take the operators' parameters by reference (family_def::states_by_reference:
  /// a tier-1 build of such a family).
  bool states_by_reference = false;
  double compile_ms = 0, link_ms = 0;
};

/// A built binary loaded into the driver. Never unloaded: kernels from it may still be queued
/// on some stream when a newer build replaces it.
class loaded_module {
 public:
  loaded_module(const built_binary& binary);
  CUkernel kernel(int role) const { return kernels_[static_cast<std::size_t>(role)]; }
  long long meta(int i) const { return meta_[static_cast<std::size_t>(i)]; }
  const std::vector<long long>& meta() const { return meta_; }
  int tier() const { return tier_; }
  /// Whether its kernels take the operators' parameters by reference (kernel_states, calls.hpp).
  bool states_by_reference() const { return states_by_reference_; }
  /// Unique for the life of the process (unlike the object's address): keys the remembered
  /// temporary-storage sizes of calls with this module.
  std::uint64_t serial() const { return serial_; }
  /// Blocks per multiprocessor for `kernel` at (block, dynamic shared memory), cached. Dynamic
  /// shared memory above the default 48 KB is allowed for the kernel in the current context
  /// first (asking is how a caller prepares a launch with that much).
  int occupancy(CUkernel kernel, int block, std::size_t smem) const;
  /// The function of `kernel` in the current context.
  CUfunction function(CUkernel kernel) const;
  /// Does ahead of time what the first call on this module would do in the current context:
  /// loads every kernel into it and answers the occupancy queries `previous` (the build this one
  /// replaces, its kernels in the same roles; may be null) has answered there. Throws
  /// cupar::cuda_error.
  void prepare(const loaded_module* previous) const;

 private:
  std::vector<CUlibrary> libraries_;
  std::vector<CUkernel> kernels_;
  std::vector<long long> meta_;
  int tier_ = 0;
  bool states_by_reference_ = false;
  std::uint64_t serial_ = 0;
  struct occ_entry {
    CUkernel kernel;
    int block;
    std::size_t smem;
    int ctx_device;
    int blocks;
  };
  mutable std::mutex occ_mutex_;
  mutable std::vector<occ_entry> occ_;
};

/// Cheap identity of a build for the per-call lookup (no strings): the kernel set, the user's
/// types, and the definitions of the operators in the slots after the first (the first slot's
/// operator holds the lookup table this key is searched in).
struct fast_key {
  family fam;
  const void* t0 = nullptr;
  const void* t1 = nullptr;
  const void* t2 = nullptr;
  std::uint64_t extra = 0;
  int arch = 0;
  const void* d1 = nullptr;
  const void* d2 = nullptr;
  bool operator==(const fast_key& o) const {
    return fam == o.fam && t0 == o.t0 && t1 == o.t1 && t2 == o.t2 && extra == o.extra &&
           arch == o.arch && d1 == o.d1 && d2 == o.d2;
  }
};
/// Encodes an arithmetic type that has no jit_type instance (counters, level types) as a key part.
inline const void* scalar_key(scalar s) {
  return reinterpret_cast<const void*>(static_cast<std::uintptr_t>(s));
}

struct program_entry;

/// The cache entry serving the build `make_spec()` for `device`. `anchor` is the operator whose
/// own small cache the entry is remembered in (the first slot's, or a per-family constant for
/// sets without operators); `key` must identify the build within it. Builds on first use (once,
/// also when several threads ask at once). Throws cupar::jit_error for a malformed operator,
/// cupar::cuda_error for driver failures. `for_plan`: the caller is a plan, which holds the entry
/// from then on (counted before the entry's background build can begin; given back with
/// hold_for_plan).
std::shared_ptr<program_entry> obtain_entry(const fast_key& key,
                                            const std::function<build_spec()>& make_spec,
                                            const cupar::jit::op& anchor, const device_info& device,
                                            bool for_plan = false);
/// Counts a plan holding `entry` (hold) or letting it go: a background build of an entry that
/// clear_memory_cache retired is only made while a plan holds it.
void hold_for_plan(program_entry& entry, bool hold) noexcept;
/// The entry's current module, after picking up a finished background (tier-2) build.
std::shared_ptr<const loaded_module> current_module(const std::shared_ptr<program_entry>& entry);
/// obtain_entry, then current_module.
std::shared_ptr<const loaded_module> obtain(const fast_key& key,
                                            const std::function<build_spec()>& make_spec,
                                            const cupar::jit::op& op, const device_info& device);

/// Compile and link without loading (no GPU needed).
built_binary build_only(const build_spec& spec, int arch, int tier);

/// Engine counters (cupar::jit::get_stats reads them).
struct counters {
  std::atomic<std::uint64_t> operator_compiles{0}, kernel_compiles{0}, links{0}, loads{0},
      memory_hits{0}, disk_hits{0}, disk_writes{0}, disk_rejects{0}, background_builds{0},
      background_failures{0}, background_skipped{0}, expression_code_reuses{0}, upgrades{0},
      direct_builds{0}, optimized_builds{0}, optimized_build_us{0}, kernel_links{0},
      quick_builds{0}, quick_compile_us{0}, quick_link_us{0}, quick_load_us{0},
      quick_pool_wait_us{0}, quick_lto_links{0};
};
counters& engine_counters();

}  // namespace cupar::detail::jit
