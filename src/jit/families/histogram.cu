// cupar family: histograms with a sample operator (evenly spaced levels, or level arrays).
// Device code: jit_ops/cupar_histogram.cuh. Types {Sample, Level (the operator's result),
// Counter (u32 or u64)}.
//
// One file holds the family: its record (what the core and the precompile tool read), then,
// outside the record-only build of the precompile tool, its host dispatch (launches the
// module's kernels through CUB's dispatch or a mirror of it) and its library entries (the
// operations of jit_call_named: argument checks, request, temporaries, launch).
#include "../core/family.hpp"

namespace cupar::detail::jit {
namespace {

std::string typedefs(const set_spec& s) {
  return std::string(s.fam == family::histogram_even ? "#define CUPAR_HISTOGRAM_EVEN 1\n" : "") +
         "typedef " + s.types[0].name + " cupar_S;\ntypedef " + s.types[1].name +
         " cupar_L;\ntypedef " + s.types[2].name + " cupar_C;\n";
}

std::vector<slot_spec> slots(const set_spec& s) {
  return {op_slot({s.types[0]}, s.types[1], {"x"}, "sample operator")};
}

std::vector<std::string> names(const set_spec&) {
  return {"cupar_histogram_init<cupar_C>", "cupar_histogram_sweep<256>", "cupar_histogram_sweep<0>",
          "cupar_meta<(long long)cupar_histogram_agent_policy::BLOCK_THREADS, "
          "(long long)cupar_histogram_agent_policy::PIXELS_PER_THREAD, "
          "(long long)sizeof(cupar_privatized_decode), "
          "(long long)sizeof(cupar_output_decode), (long long)sizeof(cupar_B), "
          "(long long)sizeof(cupar_sample_iterator)>"};
}

/// The samples.
bool struct_position(std::size_t i) {
  return i == 0;
}

const char* const even_rules[] = {
    "precompile t=types c=u32|u64: histogram_even<$t,$t,$c>",
    // Records binned by an f32 the sample operator computes, 32-bit counters.
    "precompile s=structs: histogram_even<$s,f32,u32>",
};

const char* const range_rules[] = {
    "precompile t=types c=u32|u64: histogram_range<$t,$t,$c>",
};

}  // namespace

extern const family_def histogram_even_family =
    family_def::make(family::histogram_even, "histogram_even", "cupar_histogram.cuh", 3, typedefs,
                     slots, names)
        .with_struct_classes(struct_position)
        .precompiling(even_rules);

extern const family_def histogram_range_family =
    family_def::make(family::histogram_range, "histogram_range", "cupar_histogram.cuh", 3, typedefs,
                     slots, names)
        .with_struct_classes(struct_position)
        .precompiling(range_rules);

}  // namespace cupar::detail::jit

#ifndef CUPAR_FAMILY_RECORD_ONLY

#include "../core/call.hpp"
#include "../core/engine.hpp"
#include "../core/iterator_expr.hpp"
#include "../core/launch.hpp"
#include "../core/precompiled.hpp"
#include "../core/request.hpp"

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/histogram_binning.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/histogram.hpp>

#include <cub/grid/grid_queue.cuh>
#include <cub/util_temporary_storage.cuh>
#include <cuda/std/array>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

// ---- host dispatch: launch arguments --------------------------------------------------

namespace cupar::detail::jit {

/// Histogram (module meta: block threads, pixels per thread, sizes of the privatized and output
/// bin-selection operators). Mirrors CUB's DispatchHistogram for one channel.
struct histogram_launch {
  const void* samples;
  std::size_t n;
  void* histogram;
  std::size_t counter_size;
  int num_levels;
  bool even;
  scalar level;       // the operator's result type
  const void* lower;  // even: canonical level values (shifted for int8 results)
  const void* upper;
  const void* d_levels;  // range: device array of canonical levels
  bool clamp;            // even floating-point bins: values in [clamp_max, clamp_upper) are
  double clamp_max;      //   binned as clamp_max (see histogram_binning)
  double clamp_upper;
};
cudaError_t run_histogram(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const histogram_launch& h,
                          const void* op_state, cudaStream_t stream);

}  // namespace cupar::detail::jit

// ---- host dispatch ----------------------------------------------------------------------

namespace cupar::detail::jit {
namespace {

/// Bytes of a bin-selection operator, laid out as the device struct.
struct alignas(16) decode_bytes {
  unsigned char bytes[48] = {};
  std::size_t size = 0;
};

/// CUB's ScaleTransform::Init for levels of canonical type C (== CommonT).
template <class C>
decode_bytes scale_transform(int num_levels, const void* lower, const void* upper) {
  struct layout {
    C max, min;
    union {
      struct {
        C bins, range;
      } fraction;
      C reciprocal;
    } scale;
  } s{};
  std::memcpy(&s.min, lower, sizeof(C));
  std::memcpy(&s.max, upper, sizeof(C));
  if constexpr (std::is_floating_point_v<C>) {
    s.scale.reciprocal =
        static_cast<C>(static_cast<C>(num_levels - 1) / static_cast<C>(s.max - s.min));
  } else {
    s.scale.fraction.bins = static_cast<C>(num_levels - 1);
    s.scale.fraction.range = static_cast<C>(s.max - s.min);
  }
  decode_bytes d;
  static_assert(sizeof(layout) <= sizeof(d.bytes));
  std::memcpy(d.bytes, &s, sizeof(layout));
  d.size = sizeof(layout);
  return d;
}

decode_bytes scale_transform_for(scalar level, int num_levels, const void* lower,
                                 const void* upper) {
  switch (level) {
    case scalar::f32:
      return scale_transform<float>(num_levels, lower, upper);
    case scalar::f64:
      return scale_transform<double>(num_levels, lower, upper);
    case scalar::i8:
    case scalar::u8:
    case scalar::i16:
    case scalar::u16:
      return scale_transform<int>(num_levels, lower, upper);
    case scalar::u64:
      return scale_transform<unsigned long long>(num_levels, lower, upper);
    default:
      return scale_transform<long long>(num_levels, lower, upper);
  }
}

decode_bytes search_transform(const void* d_levels, int num_levels) {
  struct layout {
    const void* levels;
    int num_output_levels;
  } s{d_levels, num_levels};
  decode_bytes d;
  std::memcpy(d.bytes, &s, sizeof(layout));
  d.size = sizeof(layout);
  return d;
}

decode_bytes pass_thru() {
  decode_bytes d;
  d.size = 1;  // an empty struct
  return d;
}

/// The device's cupar_sample_iterator: the sample pointer, the operator's state, the clamp.
struct alignas(16) sample_iterator_bytes {
  const void* ptr;
  unsigned char pad[8];
  unsigned char state[64];
  double clamp_max;
  double upper;
  int clamp;
};

}  // namespace

cudaError_t run_histogram(const loaded_module& m, const device_info& dev, launch_status& st,
                          void* temp, std::size_t& temp_bytes, const histogram_launch& h,
                          const void* op_state, cudaStream_t stream) {
  using offset_t = long long;
  if (m.meta(5) != static_cast<long long>(sizeof(sample_iterator_bytes))) {
    return cudaErrorInvalidValue;  // host and device disagree on the iterator layout
  }
  const bool byte_samples = m.meta(4) == 1;  // the binned sample type is one byte
  const int num_output_levels = h.num_levels;
  int num_privatized_levels = num_output_levels;
  decode_bytes privatized, output;
  if (byte_samples) {
    // All 256 sample values are privatized; bins are chosen when the histogram is written out.
    num_privatized_levels = 257;
    privatized = pass_thru();
    output = h.even ? scale_transform_for(h.level, h.num_levels, h.lower, h.upper)
                    : search_transform(h.d_levels, h.num_levels);
  } else {
    privatized = h.even ? scale_transform_for(h.level, h.num_levels, h.lower, h.upper)
                        : search_transform(h.d_levels, h.num_levels);
    output = pass_thru();
  }
  if (static_cast<long long>(privatized.size) != m.meta(2) ||
      static_cast<long long>(output.size) != m.meta(3)) {
    return cudaErrorInvalidValue;  // host and device disagree on the operator layout
  }
  const int max_num_output_bins = num_output_levels - 1;
  // CUB's MAX_PRIVATIZED_SMEM_BINS: wider samples with more bins privatize in global memory.
  const int role = (byte_samples || max_num_output_bins <= 256) ? 1 : 2;
  const CUkernel sweep = m.kernel(role);

  const int block_threads = static_cast<int>(m.meta(0));
  const int pixels_per_thread = static_cast<int>(m.meta(1));
  const int occupancy = m.occupancy(sweep, block_threads, 0) * dev.sm_count;
  const offset_t num_row_pixels = static_cast<offset_t>(h.n), num_rows = 1,
                 row_stride_samples = num_row_pixels;
  const int pixels_per_tile = block_threads * pixels_per_thread;
  const int tiles_per_row = static_cast<int>(ceil_div(num_row_pixels, pixels_per_tile));
  const int blocks_per_row = std::min(occupancy, tiles_per_row);
  const int blocks_per_col =
      blocks_per_row > 0
          ? static_cast<int>(std::min<offset_t>(occupancy / blocks_per_row, num_rows))
          : 0;
  const int num_thread_blocks = blocks_per_row * blocks_per_col;

  std::size_t sizes[2] = {static_cast<std::size_t>(num_thread_blocks) *
                              static_cast<std::size_t>(num_privatized_levels - 1) * h.counter_size,
                          cub::GridQueue<int>::AllocationSize()};
  void* allocations[2] = {};
  cudaError_t error = cub::detail::AliasTemporaries(temp, temp_bytes, allocations, sizes);
  if (error != cudaSuccess || temp == nullptr) return error;

  const cub::GridQueue<int> tile_queue(allocations[1]);
  const ::cuda::std::array<int, 1> privatized_bins{num_privatized_levels - 1};
  const ::cuda::std::array<int, 1> output_bins{num_output_levels - 1};
  const ::cuda::std::array<void*, 1> d_output{h.histogram};
  const ::cuda::std::array<void*, 1> d_privatized{allocations[0]};
  jit_launcher_factory launch{&dev, &m, &st};
  constexpr int init_threads = 256;
  launch(static_cast<unsigned>(ceil_div(max_num_output_bins, init_threads)), init_threads, 0,
         stream)
      .doit(m.kernel(0), output_bins, d_output, tile_queue);
  if (blocks_per_row == 0 || blocks_per_col == 0) {
    return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
  }
  sample_iterator_bytes samples{};
  samples.ptr = h.samples;
  std::memcpy(samples.state, op_state, sizeof samples.state);
  samples.clamp = h.clamp ? 1 : 0;
  samples.clamp_max = h.clamp_max;
  samples.upper = h.clamp_upper;
  const dim3 grid(static_cast<unsigned>(blocks_per_row), static_cast<unsigned>(blocks_per_col), 1);
  launch(grid, block_threads, 0, stream)
      .doit(sweep, samples, output_bins, privatized_bins, d_output, d_privatized,
            erased_arg{output.bytes}, erased_arg{privatized.bytes}, num_row_pixels, num_rows,
            row_stride_samples, tiles_per_row, tile_queue);
  return st.first == CUDA_SUCCESS ? cudaSuccess : cudaErrorLaunchFailure;
}

}  // namespace cupar::detail::jit

// ---- library entries --------------------------------------------------------------------

namespace cupar::detail {

using jit::family;
using jit::resolve;
using jit::set_request;

namespace {

/// The request of a histogram: samples {Sample}, the operator's result type, the counters'.
set_request histogram_request(const jit_args& a, const histogram_params& p) {
  set_request req{a.call->fam,
                  {a.types[0], &jit::scalar_type(p.level),
                   &jit::scalar_type(p.counter_size == 4 ? scalar::u32 : scalar::u64)}};
  req.ops[0] = a.ops[0];
  return req;
}

/// histogram_even and histogram_range (types {Sample}; in[0] the samples, out[0] the counters;
/// ops {the sample operator}; params: histogram_params, histogram.hpp).
void run_histogram_call(const jit_args& a, stream_ref s, memory_resource& mr,
                        const pending_inputs*) {
  const char* fn = a.function;
  if (a.params == nullptr) throw_invalid_argument(fn, "no histogram parameters");
  const histogram_params& p = *static_cast<const histogram_params*>(a.params);
  const bool even = a.call->fam == family::histogram_even;
  if (!even && p.levels == nullptr) throw_invalid_argument(fn, "h_levels is null");
  const jit_type& t = *a.types[0];
  require_size(fn, a.n, t.size);
  require_data(fn, "d_samples", a.in[0], a.n);
  require_pointer(fn, "d_histogram", a.out[0]);
  // The adjustments of histogram_binning (docs/CUB_NOTES.md, "Histogram bugs"): int8 results are
  // binned as unsigned with levels shifted by 128; even floating-point bins clamp values just below
  // upper. Planned before anything is queued (it can reject the arguments).
  int shifted_lower = 0, shifted_upper = 0;
  std::vector<int> shifted_levels;
  const void* lower = p.lower;
  const void* upper = p.upper;
  const void* host_levels = p.levels;
  bool clamp = false;
  double clamp_max = 0, clamp_upper = 0;
  visit_scalar(p.level, [&](auto v) {
    using L = decltype(v);
    using C = canonical_level_t<L>;
    const C lo = even ? *static_cast<const C*>(p.lower) : C{};
    const C hi = even ? *static_cast<const C*>(p.upper) : C{};
    const auto b = plan_histogram_binning<L>(fn, p.num_levels, even, lo, hi);
    if constexpr (histogram_binning<L>::xor_sign) {
      if (even) {
        shifted_lower = shifted_level<L>(lo);
        shifted_upper = shifted_level<L>(hi);
        lower = &shifted_lower;
        upper = &shifted_upper;
      } else {
        const auto* l = static_cast<const C*>(p.levels);
        shifted_levels.assign(l, l + p.num_levels);
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
        cudaMemsetAsync(a.out[0], 0, p.counter_size * std::size_t(p.num_levels - 1), s.get()),
        "cudaMemsetAsync");
    return;
  }
  set_request req = histogram_request(a, p);
  if (t.is_struct() && a.plan == nullptr && !precompiled_request(req)) {
    // Struct samples whose class has no histogram set for these levels and counters (the class
    // sets cover even bins with f32 levels and u32 counters): the operator maps the samples to
    // Level in one pass of the type-free "for_each" set, into temporary storage, and the
    // library's precompiled histogram of Level samples bins them. Not fused (one more read and
    // write of n levels), but only the operator compiles, not CUB's kernels from source.
    visit_scalar(p.level, [&](auto v) {
      using L = decltype(v);
      temp_storage levels_of(mr, a.n * sizeof(L), s);
      const cupar::jit::iterator in(cupar::jit::detail::iterator_pointer(t, a.in[0]));
      const cupar::jit::output out(
          cupar::jit::detail::output_pointer(jit_type_of<L>(), levels_of.get()));
      const cupar::jit::iterator* ins[1] = {&in};
      run_apply(fn, 1, ins, out, a.n, *a.ops[0], s, mr);
      histogram({fn, p.level, levels_of.get(), a.n, a.out[0], p.counter_size, p.num_levels, p.lower,
                 p.upper, p.levels},
                s, mr);
    });
    return;
  }
  const jit::resolved resolved = resolve(req, a.plan, fn);
  const jit::device_info* const devp = resolved.dev;
  const std::shared_ptr<const jit::loaded_module>& module = resolved.module;
  const jit::device_info& dev = *devp;
  const std::size_t level_size = static_cast<std::size_t>(
      scalar_is_float(p.level) ? scalar_size(p.level) : (scalar_size(p.level) <= 2 ? 4 : 8));
  jit::histogram_launch h{a.in[0], a.n,       a.out[0],   p.counter_size, p.num_levels,
                          even,    p.level,   lower,      upper,          nullptr,
                          clamp,   clamp_max, clamp_upper};
  jit::launch_status st;
  auto sizing = [&](void* temp, std::size_t& b) {
    jit::check_dispatch(
        jit::run_histogram(*module, dev, st, temp, b, h, a.ops[0]->state(), s.get()), st,
        "cupar histogram (run-time operator)");
    return cudaSuccess;
  };
  const std::size_t bytes = required_temp_bytes(
      "cupar histogram (run-time operator)",
      {a.n, module->serial(), static_cast<std::uint64_t>(p.num_levels)}, sizing);
  const std::size_t levels_bytes = even ? 0 : align_up(level_size * std::size_t(p.num_levels), 256);
  temp_storage temp(mr, levels_bytes + bytes, s);
  auto* base = static_cast<unsigned char*>(temp.get());
  if (!even) {
    check_cuda(cudaMemcpyAsync(base, host_levels, level_size * std::size_t(p.num_levels),
                               cudaMemcpyHostToDevice, s.get()),
               "cudaMemcpyAsync");
    h.d_levels = base;
  }
  std::size_t b = bytes;
  jit::check_dispatch(
      jit::run_histogram(*module, dev, st, base + levels_bytes, b, h, a.ops[0]->state(), s.get()),
      st, "cupar histogram (run-time operator)");
}

/// The request of a compile-only build or a plan.
set_request histogram_compile_request(const jit_args& a, request_scratch&) {
  if (a.params == nullptr) throw_invalid_argument("cupar::jit", "no histogram parameters");
  return histogram_request(a, *static_cast<const histogram_params*>(a.params));
}

}  // namespace

extern const jit_call histogram_even_jit_call = jit_call::make(
    "histogram_even", jit::family::histogram_even, run_histogram_call, histogram_compile_request);
extern const jit_call histogram_range_jit_call = jit_call::make(
    "histogram_range", jit::family::histogram_range, run_histogram_call, histogram_compile_request);

}  // namespace cupar::detail

#endif  // CUPAR_FAMILY_RECORD_ONLY
