// cupar: histograms with evenly spaced or custom bins, precompiled in the library.
//
// Semantics (shared by every overload, with or without a sample operator):
// - `num_levels` boundaries define num_levels - 1 bins; bin i counts samples s with
//   level[i] <= s < level[i + 1]. Samples outside [first level, last level) and NaN samples are
//   dropped. The histogram is overwritten (bins are zeroed first, also when n == 0).
// - Even bins: level[i] = lower + i * (upper - lower) / bins. The bin of a sample is computed as
//   CUB does: for floating-point samples (int)((s - lower) * (bins / (upper - lower))) in the
//   sample's type; for integer samples exactly, ((s - lower) * bins) / (upper - lower) in 32- or
//   64-bit integer arithmetic. Integer samples use a wider level type internally, so full-range
//   levels of 8- and 16-bit samples (e.g. [0, 256) for uint8, [-128, 128) for int8) work.
// - Levels given as another arithmetic type are converted to the samples' level type; for integer
//   samples they must be integral values that fit it.
// - Counters are 32- or 64-bit integers (signed or unsigned, counts are never negative). Use
//   64-bit counters when one bin may receive more than 2^32 - 1 samples.
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/jit_entry.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace cupar::detail {
// The library operations this header calls (jit_entry.hpp).
CUPAR_JIT_CALL(histogram_even)
CUPAR_JIT_CALL(histogram_range)
CUPAR_JIT_CALL(materialize)
}  // namespace cupar::detail

namespace cupar {
namespace detail {
/// Type the boundaries of a histogram of `Sample`s are held in: the sample type for floating
/// point, a wider signed integer for integers of 1-4 bytes, the type itself for 8-byte integers.
template <class Sample>
struct canonical_level {
  static_assert(is_scalar_v<Sample>, "cupar histogram: samples must be arithmetic");
  using type = std::conditional_t<
      std::is_floating_point_v<Sample>, Sample,
      std::conditional_t<(sizeof(Sample) <= 2), int,
                         std::conditional_t<(sizeof(Sample) == 4), long long,
                                            std::conditional_t<std::is_signed_v<Sample>, long long,
                                                               unsigned long long>>>>;
};
template <class Sample>
using canonical_level_t = typename canonical_level<Sample>::type;

template <class To, class From>
To convert_level(const char* function, const char* name, From value) {
  static_assert(std::is_arithmetic_v<From>, "cupar histogram: levels must be arithmetic");
  if constexpr (std::is_floating_point_v<From>) {
    if (std::isnan(value)) throw_invalid_argument(function, std::string(name) + " is NaN");
  }
  if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(value);
  } else if constexpr (std::is_floating_point_v<From>) {
    // Exactly representable integers only: a fractional or out-of-range boundary would silently
    // move bins.
    const long double v = value;
    if (v != std::trunc(v) || v < static_cast<long double>(std::numeric_limits<To>::min()) ||
        v > static_cast<long double>(std::numeric_limits<To>::max())) {
      throw_invalid_argument(function, std::string(name) + " = " + std::to_string(value) +
                                           " is not an integer the samples' level type holds");
    }
    return static_cast<To>(value);
  } else {
    const bool fits =
        std::is_signed_v<From>
            ? (value < 0 ? (std::is_signed_v<To> &&
                            static_cast<long long>(value) >=
                                static_cast<long long>(std::numeric_limits<To>::min()))
                         : static_cast<unsigned long long>(value) <=
                               static_cast<unsigned long long>(std::numeric_limits<To>::max()))
            : static_cast<unsigned long long>(value) <=
                  static_cast<unsigned long long>(std::numeric_limits<To>::max());
    if (!fits) {
      throw_invalid_argument(function, std::string(name) + " = " + std::to_string(value) +
                                           " does not fit the samples' level type");
    }
    return static_cast<To>(value);
  }
}

/// Checks num_levels and lower < upper and converts the boundaries.
template <class Sample, class Level>
void prepare_even_levels(const char* function, int num_levels, Level lower, Level upper,
                         canonical_level_t<Sample>& lo, canonical_level_t<Sample>& hi) {
  if (num_levels < 2) {
    throw_invalid_argument(function, "num_levels = " + std::to_string(num_levels) +
                                         " (at least 2 levels, i.e. one bin, are needed)");
  }
  lo = convert_level<canonical_level_t<Sample>>(function, "lower", lower);
  hi = convert_level<canonical_level_t<Sample>>(function, "upper", upper);
  if (!(lo < hi)) throw_invalid_argument(function, "lower must be less than upper");
  if constexpr (std::is_integral_v<canonical_level_t<Sample>>) {
    // CUB bins integers as ((s - lower) * bins) / (upper - lower): the product must fit.
    const auto range = static_cast<unsigned long long>(hi) - static_cast<unsigned long long>(lo);
    const auto bins = static_cast<unsigned long long>(num_levels - 1);
    const unsigned long long limit = (sizeof(Sample) + sizeof(canonical_level_t<Sample>) <= 4)
                                         ? std::numeric_limits<std::uint32_t>::max()
                                         : std::numeric_limits<std::uint64_t>::max();
    if (range > limit / bins) {
      throw_invalid_argument(function,
                             "(upper - lower) * (num_levels - 1) overflows the integer "
                             "arithmetic even bins are computed in; use fewer bins or "
                             "a narrower range");
    }
  }
}

/// Checks and converts custom boundaries: at least 2, strictly increasing, no NaN.
template <class Sample, class Level>
std::vector<canonical_level_t<Sample>> prepare_range_levels(const char* function,
                                                            const Level* h_levels, int num_levels) {
  if (num_levels < 2) {
    throw_invalid_argument(function, "num_levels = " + std::to_string(num_levels) +
                                         " (at least 2 levels, i.e. one bin, are needed)");
  }
  require_pointer(function, "h_levels", h_levels);
  std::vector<canonical_level_t<Sample>> levels(static_cast<std::size_t>(num_levels));
  for (int i = 0; i < num_levels; ++i) {
    levels[static_cast<std::size_t>(i)] = convert_level<canonical_level_t<Sample>>(
        function, ("h_levels[" + std::to_string(i) + "]").c_str(), h_levels[i]);
    if (i > 0 && !(levels[static_cast<std::size_t>(i - 1)] < levels[static_cast<std::size_t>(i)])) {
      throw_invalid_argument(function, "h_levels must be strictly increasing (h_levels[" +
                                           std::to_string(i - 1) + "] >= h_levels[" +
                                           std::to_string(i) + "])");
    }
  }
  return levels;
}

template <class Counter>
constexpr void check_counter() {
  static_assert(std::is_integral_v<Counter> && !std::is_same_v<Counter, bool> &&
                    (sizeof(Counter) == 4 || sizeof(Counter) == 8),
                "cupar histogram: counters must be 32- or 64-bit integers");
}

struct histogram_args {
  const char* function;
  scalar sample;
  const void* samples;
  std::size_t n;
  void* histogram;
  std::size_t counter_size;  // 4 or 8
  int num_levels;
  const void* lower;  // even: canonical level values
  const void* upper;
  const void* levels;  // range: host array of canonical levels (else null)
};

CUPAR_EXPORT void histogram(const histogram_args& args, stream_ref stream, memory_resource& mr);

/// The run-time histograms' own parameters (jit_args::params).
struct histogram_params {
  scalar level;              // the operator's result type (arithmetic)
  std::size_t counter_size;  // 4 or 8
  int num_levels;
  const void* lower;  // even: canonical level values
  const void* upper;
  const void* levels;  // range: host array of canonical levels
};

/// The run-time histograms' call: samples (an array) binned by op(sample) into d_histogram.
template <class Sample>
void jit_histogram_call(const jit_call& call, const char* fn, const Sample* samples, std::size_t n,
                        void* d_histogram, const histogram_params& params,
                        const ::cupar::jit::op& op, stream_ref stream, memory_resource& mr) {
  jit_args a{fn, &call, {&jit_type_of<Sample>()}, {samples}};
  a.out[0] = d_histogram;
  a.n = n;
  a.ops[0] = &op;
  a.params = &params;
  jit_run(a, stream, mr);
}

/// Samples as the histograms bin them: the caller's array, or an iterator expression written to
/// a temporary array of n samples (from `mr`) by one pass when this is made (after the caller's
/// argument checks), freed in stream order.
template <class Sample>
struct sample_array {
  temp_storage temp;
  const Sample* data;
  sample_array(const ::cupar::jit::input<Sample>& in, std::size_t n, stream_ref stream,
               memory_resource& mr, const char* fn)
      : temp(mr, in.expression() != nullptr ? n * sizeof(Sample) : 0, stream), data(in.array()) {
    if (in.expression() != nullptr) {
      jit_args a{fn, &materialize_call(), {&jit_type_of<Sample>()}};
      a.in_iter[0] = in.expression();
      a.out[0] = temp.get();
      a.n = n;
      jit_run(a, stream, mr);
      data = static_cast<const Sample*>(temp.get());
    }
  }
};

}  // namespace detail

/// Counts `n` samples into num_levels - 1 evenly spaced bins over [lower, upper).
///
/// @param d_samples   device samples (may be null when n == 0)
/// @param d_histogram device output, num_levels - 1 counters (always written)
/// @param num_levels  number of bin boundaries, at least 2
/// @param lower,upper bounds of the first and past the last bin; lower < upper
/// @param n           number of samples (64-bit)
/// @throws std::invalid_argument for null pointers, num_levels < 2, lower >= upper, NaN or
///         unrepresentable bounds, an integer range too wide for the bin arithmetic, or a sample
///         type the library was built without (CUPAR_LIBRARY_TYPES; every type by default)
/// @throws cupar::out_of_memory, cupar::cuda_error
/// Asynchronous. See the top of this header for the exact binning rule.
template <class Sample, class Counter, class Level>
void histogram_even(const Sample* d_samples, Counter* d_histogram, int num_levels, Level lower,
                    Level upper, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  histogram_even<Sample>(jit::input<Sample>(d_samples), d_histogram, num_levels, lower, upper, n,
                         stream, mr);
}
/// histogram_even of samples given as an iterator expression (jit_iterator.hpp; an array too),
/// Sample named: cupar::histogram_even<float>(jit::transform(d_x, jit::op("x * x")), ...). The
/// samples are written to a temporary array of n first (one pass, only the expression's code
/// compiled; the histogram's own kernels take arrays), after the argument checks.
template <class Sample, class Counter, class Level>
void histogram_even(jit::input_t<Sample> samples, Counter* d_histogram, int num_levels, Level lower,
                    Level upper, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_even";
  const detail::device_guard on_device(stream);  // the checks below are the stream\'s device\'s
  detail::check_counter<Counter>();
  detail::canonical_level_t<Sample> lo{}, hi{};
  detail::prepare_even_levels<Sample>(fn, num_levels, lower, upper, lo, hi);
  if (samples.expression() == nullptr) detail::require_data(fn, "d_samples", samples.array(), n);
  detail::require_pointer(fn, "d_histogram", d_histogram);
  const detail::sample_array<Sample> in(samples, n, stream, mr, fn);
  detail::histogram({fn, detail::scalar_of<Sample>(), in.data, n, d_histogram, sizeof(Counter),
                     num_levels, &lo, &hi, nullptr},
                    stream, mr);
}

/// Counts `n` samples into the num_levels - 1 bins [h_levels[i], h_levels[i + 1]).
///
/// @param h_levels    host array of num_levels strictly increasing boundaries (copied to the
///                    device in stream order; the array may be reused when the call returns)
/// Other parameters as histogram_even.
/// @throws std::invalid_argument for null pointers, num_levels < 2, NaN or unrepresentable
///         levels, levels not strictly increasing, or a sample type the library was built
///         without (CUPAR_LIBRARY_TYPES)
template <class Sample, class Counter, class Level>
void histogram_range(const Sample* d_samples, Counter* d_histogram, int num_levels,
                     const Level* h_levels, std::size_t n, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  histogram_range<Sample>(jit::input<Sample>(d_samples), d_histogram, num_levels, h_levels, n,
                          stream, mr);
}
/// histogram_range of samples given as an iterator expression, Sample named (see histogram_even).
template <class Sample, class Counter, class Level>
void histogram_range(jit::input_t<Sample> samples, Counter* d_histogram, int num_levels,
                     const Level* h_levels, std::size_t n, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_range";
  const detail::device_guard on_device(stream);  // the checks below are the stream\'s device\'s
  detail::check_counter<Counter>();
  const auto levels = detail::prepare_range_levels<Sample>(fn, h_levels, num_levels);
  if (samples.expression() == nullptr) detail::require_data(fn, "d_samples", samples.array(), n);
  detail::require_pointer(fn, "d_histogram", d_histogram);
  const detail::sample_array<Sample> in(samples, n, stream, mr, fn);
  detail::histogram({fn, detail::scalar_of<Sample>(), in.data, n, d_histogram, sizeof(Counter),
                     num_levels, nullptr, nullptr, levels.data()},
                    stream, mr);
}

/// Counts op(d_samples[i]) into num_levels - 1 evenly spaced bins over [lower, upper), with a
/// run-time sample operator of argument `x` (e.g. "x.price", "log2f(x)"). The operator's result is
/// converted to `Level` (arithmetic) and binned like samples of type Level. Samples may be a
/// struct described with CUPAR_JIT_TYPE. Struct samples run fused kernels precompiled for their
/// size class with f32 levels and 32-bit counters; with other levels or counters the operator
/// first writes the n levels to temporary storage (one more pass), then they are binned as
/// Level samples. Other parameters, exceptions and synchronisation as histogram_even without an
/// operator; plus cupar::jit_error for an operator that does not build.
template <class Sample, class Counter, class Level>
void histogram_even(const Sample* d_samples, Counter* d_histogram, int num_levels, Level lower,
                    Level upper, std::size_t n, const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  histogram_even<Sample>(jit::input<Sample>(d_samples), d_histogram, num_levels, lower, upper, n,
                         op, stream, mr);
}
/// histogram_even with a sample operator over samples given as an iterator expression, Sample
/// named (written to a temporary array of n samples first, as without an operator).
template <class Sample, class Counter, class Level>
void histogram_even(jit::input_t<Sample> samples, Counter* d_histogram, int num_levels, Level lower,
                    Level upper, std::size_t n, const jit::op& op, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_even";
  const detail::device_guard on_device(stream);  // the checks below are the stream\'s device\'s
  static_assert(detail::is_scalar_v<Level>, "cupar::histogram_even: Level must be arithmetic");
  detail::check_counter<Counter>();
  detail::canonical_level_t<Level> lo{}, hi{};
  detail::prepare_even_levels<Level>(fn, num_levels, lower, upper, lo, hi);
  // Arrays are checked by the library; an expression's output must be checked before it is
  // written to the temporary.
  if (samples.expression() != nullptr) detail::require_pointer(fn, "d_histogram", d_histogram);
  const detail::sample_array<Sample> in(samples, n, stream, mr, fn);
  const detail::histogram_params params{
      detail::scalar_of<Level>(), sizeof(Counter), num_levels, &lo, &hi, nullptr};
  detail::jit_histogram_call(detail::histogram_even_call(), fn, in.data, n, d_histogram, params, op,
                             stream, mr);
}

/// Counts op(d_samples[i]) into the bins [h_levels[i], h_levels[i + 1]) with a run-time sample
/// operator (struct samples: the levels are written to temporary storage first, as for
/// histogram_even with levels other than f32). As histogram_range without an operator otherwise.
template <class Sample, class Counter, class Level>
void histogram_range(const Sample* d_samples, Counter* d_histogram, int num_levels,
                     const Level* h_levels, std::size_t n, const jit::op& op, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  histogram_range<Sample>(jit::input<Sample>(d_samples), d_histogram, num_levels, h_levels, n, op,
                          stream, mr);
}
/// histogram_range with a sample operator over samples given as an iterator expression, Sample
/// named.
template <class Sample, class Counter, class Level>
void histogram_range(jit::input_t<Sample> samples, Counter* d_histogram, int num_levels,
                     const Level* h_levels, std::size_t n, const jit::op& op, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  constexpr const char* fn = "cupar::histogram_range";
  const detail::device_guard on_device(stream);  // the checks below are the stream\'s device\'s
  static_assert(detail::is_scalar_v<Level>, "cupar::histogram_range: Level must be arithmetic");
  detail::check_counter<Counter>();
  const auto levels = detail::prepare_range_levels<Level>(fn, h_levels, num_levels);
  if (samples.expression() != nullptr) detail::require_pointer(fn, "d_histogram", d_histogram);
  const detail::sample_array<Sample> in(samples, n, stream, mr, fn);
  const detail::histogram_params params{
      detail::scalar_of<Level>(), sizeof(Counter), num_levels, nullptr, nullptr, levels.data()};
  detail::jit_histogram_call(detail::histogram_range_call(), fn, in.data, n, d_histogram, params,
                             op, stream, mr);
}

namespace jit {

// Compile-only builds (jit_compile.hpp says what they are for).

/// As compile_reduce (reduce.hpp), for a histogram's sample operator Sample -> Level with
/// Counter counters.
template <class Sample, class Level, class Counter = unsigned int>
build_report compile_histogram(const op& o, bool even, int arch = 90, bool optimized = true) {
  static_assert(::cupar::detail::is_scalar_v<Level>, "histogram levels are arithmetic");
  const ::cupar::detail::histogram_params params{
      ::cupar::detail::scalar_of<Level>(), sizeof(Counter), 0, nullptr, nullptr, nullptr};
  ::cupar::detail::jit_args a{
      "cupar::jit::compile",
      even ? &::cupar::detail::histogram_even_call() : &::cupar::detail::histogram_range_call(),
      {&::cupar::detail::jit_type_of<Sample>()}};
  a.ops[0] = &o;
  a.params = &params;
  return ::cupar::detail::jit_compile(a, arch, optimized);
}

}  // namespace jit

}  // namespace cupar
