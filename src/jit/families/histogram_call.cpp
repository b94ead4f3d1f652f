// cupar: the library entry of the histograms with run-time operators.
#include "../core/calls.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"
#include "histogram.hpp"

#include "compiled/index_gather.hpp"
#include "compiled/named_ops.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/histogram_binning.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/histogram.hpp>
#include <cupar/jit_compile.hpp>
#include <cupar/sort.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <tuple>

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

void jit_histogram(const jit_histogram_args& a, stream_ref s, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(s);
  const jit_type& t = *a.sample_type;
  require_size(fn, a.n, t.size);
  require_data(fn, "d_samples", a.samples, a.n);
  require_pointer(fn, "d_histogram", a.histogram);
  const bool even = a.levels == nullptr;
  // The adjustments of histogram_binning (docs/NOTES.md): int8 results are binned as unsigned
  // with levels shifted by 128; even floating-point bins clamp values just below upper. Planned
  // before anything is queued (it can reject the arguments).
  int shifted_lower = 0, shifted_upper = 0;
  std::vector<int> shifted_levels;
  const void* lower = a.lower;
  const void* upper = a.upper;
  const void* host_levels = a.levels;
  bool clamp = false;
  double clamp_max = 0, clamp_upper = 0;
  visit_scalar(a.level, [&](auto v) {
    using L = decltype(v);
    using C = canonical_level_t<L>;
    const C lo = even ? *static_cast<const C*>(a.lower) : C{};
    const C hi = even ? *static_cast<const C*>(a.upper) : C{};
    const auto b = plan_histogram_binning<L>(fn, a.num_levels, even, lo, hi);
    if constexpr (histogram_binning<L>::xor_sign) {
      if (even) {
        shifted_lower = shifted_level<L>(lo);
        shifted_upper = shifted_level<L>(hi);
        lower = &shifted_lower;
        upper = &shifted_upper;
      } else {
        const auto* l = static_cast<const C*>(a.levels);
        shifted_levels.assign(l, l + a.num_levels);
        for (auto& x : shifted_levels)
          x = shifted_level<L>(x);
        host_levels = shifted_levels.data();
      }
    }
    if constexpr (std::is_floating_point_v<L>) {
      clamp = b.clamp;
      clamp_max = static_cast<double>(b.clamp_max);
      clamp_upper = static_cast<double>(b.upper);
    }
  });
  if (a.n == 0) {
    check_cuda(
        cudaMemsetAsync(a.histogram, 0, a.counter_size * std::size_t(a.num_levels - 1), s.get()),
        "cudaMemsetAsync");
    return;
  }
  const family f = even ? family::histogram_even : family::histogram_range;
  set_request req{f, {&t}};
  req.level = a.level;
  req.counter = a.counter_size == 4 ? scalar::u32 : scalar::u64;
  req.ops[0] = a.op;
  if (t.is_struct() && a.plan == nullptr && !precompiled_request(req)) {
    // Struct samples whose class has no histogram set for these levels and counters (the class
    // sets cover even bins with f32 levels and u32 counters): the operator maps the samples to
    // Level in one pass of the type-free "for_each" set, into temporary storage, and the
    // library's precompiled histogram of Level samples bins them. Not fused (one more read and
    // write of n levels), but only the operator compiles, not CUB's kernels from source.
    visit_scalar(a.level, [&](auto v) {
      using L = decltype(v);
      temp_storage levels_of(mr, a.n * sizeof(L), s);
      const cupar::jit::iterator in(cupar::jit::detail::iterator_pointer(t, a.samples));
      const cupar::jit::output out(
          cupar::jit::detail::output_pointer(jit_type_of<L>(), levels_of.get()));
      const cupar::jit::iterator* ins[1] = {&in};
      run_apply(fn, 1, ins, out, a.n, *a.op, s);
      histogram({fn, a.level, levels_of.get(), a.n, a.histogram, a.counter_size, a.num_levels,
                 a.lower, a.upper, a.levels},
                s, mr);
    });
    return;
  }
  const auto [devp, module] = resolve(req, a.plan, fn);
  const jit::device_info& dev = *devp;
  const std::size_t level_size = static_cast<std::size_t>(
      scalar_is_float(a.level) ? scalar_size(a.level) : (scalar_size(a.level) <= 2 ? 4 : 8));
  jit::histogram_launch h{a.samples, a.n,       a.histogram, a.counter_size, a.num_levels,
                          even,      a.level,   lower,       upper,          nullptr,
                          clamp,     clamp_max, clamp_upper};
  jit::launch_status st;
  auto sizing = [&](void* temp, std::size_t& b) {
    jit::check_dispatch(jit::run_histogram(*module, dev, st, temp, b, h, a.op->state(), s.get()),
                        st, "cupar histogram (run-time operator)");
    return cudaSuccess;
  };
  const std::size_t bytes = required_temp_bytes(
      "cupar histogram (run-time operator)",
      {a.n, module->serial(), static_cast<std::uint64_t>(a.num_levels)}, sizing);
  const std::size_t levels_bytes = even ? 0 : align_up(level_size * std::size_t(a.num_levels), 256);
  temp_storage temp(mr, levels_bytes + bytes, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  if (!even) {
    check_cuda(cudaMemcpyAsync(base, host_levels, level_size * std::size_t(a.num_levels),
                               cudaMemcpyHostToDevice, s.get()),
               "cudaMemcpyAsync");
    h.d_levels = base;
  }
  std::size_t b = bytes;
  jit::check_dispatch(
      jit::run_histogram(*module, dev, st, base + levels_bytes, b, h, a.op->state(), s.get()), st,
      "cupar histogram (run-time operator)");
}

}  // namespace cupar::detail
