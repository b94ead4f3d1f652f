// cupar benchmarks: what the cupar_jit rows share (host only: their translation units are .cpp
// files compiled by the host compiler, as a JIT user's code is).
//
// A cupar_jit row hands its call to the family's runner exactly like the cupar row of the same
// family, wrapped by jit_warmed(): the first invocation (the first untimed warm-up run) makes the
// call, waits for the background (tier-2, inlined) build with
// cupar::jit::wait_for_background_builds(), and makes the call once more, which picks the
// optimised build up. Every later call, warm-up or timed, runs the optimised kernels. The guard
// checks that this is so: it fails the row when the background build did not finish (so tier 1
// would be timed) or when the JIT engine compiled, linked or loaded anything during the timed
// runs. With CUPAR_JIT_MODE=fast the rows time the out-of-line (tier-1) build instead (issue 28:
// tier 1 beside the optimised build and CUB); the report says so (context cupar_jit_mode).
#pragma once

#include "common.hpp"

#include <cupar/cupar.hpp>

#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace cupar_bench {

/// The JIT engine's build counters (compiles, links, module loads, background builds).
struct jit_build_counts {
  std::uint64_t operator_compiles = 0, kernel_compiles = 0, links = 0, loads = 0,
                background_builds = 0, direct_builds = 0;

  static jit_build_counts now() {
    const cupar::jit::stats s = cupar::jit::get_stats();
    return {s.operator_compiles, s.kernel_compiles, s.links, s.loads,
            s.background_builds, s.direct_builds};
  }
  /// True when nothing was compiled, linked or loaded between `*this` and `later`.
  bool same_builds(const jit_build_counts& later) const {
    return operator_compiles == later.operator_compiles &&
           kernel_compiles == later.kernel_compiles && links == later.links && loads == later.loads;
  }
};

/// Warm-up and checks of one cupar_jit row at one size. `label` names the operator and types
/// (e.g. "reduce_sum f32 \"a + b\""): a failed optimised build is remembered under it, so the
/// row's later sizes (which would find the out-of-line build in the in-process cache) fail too.
class jit_row_guard {
 public:
  explicit jit_row_guard(std::string label) : label_(std::move(label)) {}

  bool warmed() const noexcept { return warmed_; }

  /// call(); wait for the background builds; call() again. Throws when the optimised build
  /// cannot be serving afterwards.
  template <class F>
  void warm_up(F&& call) {
    if (failed(label_)) {
      throw std::runtime_error("the optimised (tier-2) build of " + label_ +
                               " failed earlier in this process; not timing the out-of-line one");
    }
    const cupar::jit::mode mode = cupar::jit::get_mode();
    if (mode == cupar::jit::mode::fast) {
      // The tier-1 build is what serves: made by the first call, timed from the second on.
      call();
      call();
      warmed_ = true;
      baseline_ = jit_build_counts::now();
      return;
    }
    const jit_build_counts before = jit_build_counts::now();
    call();
    cupar::jit::wait_for_background_builds();
    const jit_build_counts after = jit_build_counts::now();
    // In tiered mode a precompiled-kernel build links the operator out of line first (compiled
    // now, or a named operator's precompiled object) and queues the inlined build; that one must
    // have finished. (A disk cache hit, a from-source build, a direct build (stats::direct_builds)
    // and the optimized mode give the inlined build at once; a CUB instantiation of the library and
    // an in-process cache hit link nothing.)
    if (mode == cupar::jit::mode::tiered && after.links > before.links &&
        after.background_builds == before.background_builds &&
        after.direct_builds == before.direct_builds) {
      mark_failed(label_);
      throw std::runtime_error("the optimised (tier-2) build of " + label_ +
                               " did not finish in the background (it failed?); only the "
                               "out-of-line build would be timed");
    }
    call();  // picks the finished optimised build up
    warmed_ = true;
    baseline_ = jit_build_counts::now();
  }

  /// After the runner: fails the row if the JIT built anything after the warm-up.
  void check(benchmark::State& state) const {
    if (!warmed_ || state.error_occurred()) return;
    const jit_build_counts end = jit_build_counts::now();
    if (!baseline_.same_builds(end)) {
      state.SkipWithError(("the JIT engine built code during the timed runs of " + label_ +
                           " (compiles " +
                           std::to_string(end.operator_compiles + end.kernel_compiles -
                                          baseline_.operator_compiles - baseline_.kernel_compiles) +
                           ", links " + std::to_string(end.links - baseline_.links) + ", loads " +
                           std::to_string(end.loads - baseline_.loads) + ")")
                              .c_str());
    }
  }

 private:
  static std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
  }
  static std::set<std::string>& registry() {
    static std::set<std::string> s;
    return s;
  }
  static bool failed(const std::string& label) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    return registry().count(label) != 0;
  }
  static void mark_failed(const std::string& label) {
    std::lock_guard<std::mutex> lock(registry_mutex());
    registry().insert(label);
  }

  std::string label_;
  bool warmed_ = false;
  jit_build_counts baseline_;
};

/// A runner's call wrapped with the guard's warm-up on its first invocation.
template <class Call>
auto jit_warmed(jit_row_guard& guard, Call call) {
  return [&guard, call](auto... args) {
    if (guard.warmed()) {
      call(args...);
    } else {
      guard.warm_up([&] { call(args...); });
    }
  };
}

}  // namespace cupar_bench
