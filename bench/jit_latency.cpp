// cupar_jit_latency: how long a call with a run-time (JIT) operator takes to give its first
// result. A small executable of its own (host compiler only) so that every measurement can start
// in a fresh process: cupar_bench's jit_latency rows (jit_latency_rows.cpp) run it with an empty
// or a filled cache directory and report what it prints. It can be run by hand as well:
//
//   cupar_jit_latency --case reduce_f32 --measure first_call,warm,new_operator
//   CUPAR_JIT_MODE=optimized CUPAR_CACHE_DIR=$(mktemp -d) cupar_jit_latency --case reduce_f32
//
// Cases (2^20 elements unless --n says otherwise; data on the device before anything is timed):
//   reduce_f32           reduce of floats with "a + b" (precompiled kernels, operator compiled)
//   merge_sort_keys_f32  merge sort of float keys with the comparator "a < b"
//   reduce_point         reduce of `struct point { float x, y; }` (described with
//                        CUPAR_JIT_TYPE: struct class s8a4, see below) with
//                        "point{a.x + b.x, a.y + b.y}"
//   and one case per data-processing family (select_if_u32, reduce_by_key_u32_f32, ...: --list),
//   and the struct size classes (issue 11): reduce_rec16 and inclusive_scan_rec16 (16-byte
//   records, class s16a4), merge_sort_rec32 (32 bytes, s32a8), reduce_rec36 (36 bytes: no
//   class, kernels compiled from source), reduce_by_key_u32_rec16 (a group-by: u32 keys, rec16
//   values; the data-processing class set reduce_by_key<u32,s16a4>), group_by_u32_rec16 (the same
//   accumulators aggregated by group_by's hash method: group_by<u32,s16a4>), group_by_u32_stats
//   (bench/group_by_jit.cpp's u32_stats rows: statistics from a float column by an expression,
//   1,024 groups: group_by<u32,s16a4>+index),
//   reduce_by_key_u32_acc56 (56-byte accumulators: reduce_by_key<u32,s56a8>),
//   reduce_by_key_u32_rec28 (seven floats, 28 bytes: no class of its size, its arrays padded to
//   the class s32a8, entry.cpp) and lower_bound_event16 (16-byte records searched by a comparator:
//   binary_search<s16a8,u32>). reduce_point's struct is class s8a4: precompiled in the default
//   build (CUPAR_JIT_STRUCT_CLASSES=all), compiled from source in builds without it.
//   sum_of_squares_f32: transform_reduce with a new transform "x * x" and the named plus (issue
//   10's fused sum of squares). count_where_f32: transform_reduce into a u64 count, a new
//   predicate "x > 0.5f ? 1ull : 0ull" each time (transform_reduce<f32,u64>). dot_f32, argmax_f32:
//   reduces over iterator expressions (jit_iterator.hpp), transform<float>(zip(a, b), "x._0 *
//   x._1") with a new transform each, and zip(counting(0ll), x) into a struct with a new reduction
//   each. scan_squares_f32: an inclusive scan of the expression transform(x, "x * x"), a new
//   transform each time (the "+index" scan sets). transform_rec16_f32: a binary transform (rec16,
//   f32) -> f64, a new operator each time (no CUB transform set for the types: the "for_each"
//   kernels). select_expr_f32: select_if of transform(x, "x * 2.0f"), a new transform each time
//   (the "+index" stream compaction sets); sort_computed_u32: a radix sort of the keys
//   transform(v, "(x * 7u) % 1000003u"), a new transform each time (written by the "for_each"
//   kernels, then sorted). select_output_f32: select_if of x by "x > 0.5f" written through
//   transform_output(out, "x * 2.0f"), a new output transform each time (the stream compaction
//   set, then a "for_each" store pass bounded by the device count). reduce_f16: a reduce of __half
//   (the u16 kernel sets) with a new maximum each time; reduce_nested_zip: zip(zip(a, b), c) of
//   floats reduced into a struct with a struct member (class s12a4), a new operator each time.
// Measures, run in the order given:
//   first_call    the first call with the case's operator; then waits for the background
//                 (optimised) build, so that the cache directory holds it when the process ends
//   warm          a repeated call once the optimised build serves: median of --calls calls
//   new_operator  --operators further distinct operators of the same meaning (e.g.
//                 "a + b + 0.0f * 7"), the first call of each: median and max
//   new_operator_quiet  as new_operator, but each operator's call starts once the background
//                 (optimised) builds of the ones before it have finished (not timed): the
//                 difference from new_operator is what those builds cost the next operator
//   switch        what the switch to the optimised build costs the call that makes it (issue 28,
//                 item 4): for each of --operators new operators, a first call (quick build),
//                 wait_for_background_builds, then the call that switches and 9 more; `seconds`
//                 is the median over the operators of the switching call's time minus the median
//                 of the 9 after it (max_seconds: the largest); switch_seconds and steady_seconds
//                 are the medians of those two; loads and upgrades count the switching calls'
//                 loads (0 when the build was loaded in the background) and switches
//   (switch, build and drain run with direct builds off, so that every new operator takes the
//   background path; new_operator counts the direct builds of CUPAR_JIT_DIRECT_MS: direct_builds=)
//   build         the optimised build of a new operator (issue 28, item 2): for each of
//                 --operators new operators, one at a time, the time from its first call to
//                 wait_for_background_builds returning; median, min and max
//   drain         --operators new operators called back to back, then
//                 wait_for_background_builds: the time from the first call until every optimised
//                 build is done (calls_seconds: the calls' own share); CUPAR_JIT_BUILD_THREADS
//                 sets how many build at once
// --distinct: the further operators of reduce_f32, merge_sort_keys_f32 and the data-processing
// cases differ in their code too (an inline-assembly comment that reaches the PTX): without it
// they fold to one operator's code, and a link may then cost what a repeated link costs.
// --salt S: every operator of the cases that take --distinct, the first one included, carries S
// in its code: with S new in each process, no link of an earlier process can serve it from
// nvJitLink's cache, which a CUDA driver keeps across processes. (scripts/gpu-evidence.sh turns
// that cache off instead, CUDA_CACHE_DISABLE=1: the salt's comment lengthens some builds.)
// Each time runs from just before the cupar call to the return of cudaStreamSynchronize on the
// call's stream, with CUDA initialised, the data on the device and cupar's memory pool grown
// beforehand: the JIT's work (compile, link, load, cache lookups) and the kernels.
//
// Output: one line per measure on stdout,
//   result case=reduce_f32 measure=first_call mode=tiered seconds=0.0412 ...
// (key=value fields; `seconds` is the measured value; first_call adds optimized_ready_seconds,
// the time from the call to the optimised build being ready, and stored, the disk cache entries
// written by then; new_operator adds max_seconds; the JIT engine's counters over the measured
// calls follow: operator_compiles, kernel_compiles, links, loads, memory_hits, disk_hits,
// disk_writes, background_builds). Lines starting with '#' describe the run. Exit status 0 on
// success, 1 on an error, 2 without a usable GPU, 64 for bad arguments.
#include "data.hpp"
#include "records_jit.hpp"

#include <cupar/cupar.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct point {
  float x, y;
};
CUPAR_JIT_TYPE(point, "point", "struct point { float x, y; };")
// A 56-byte accumulator (class s56a8) and a 16-byte record (class s16a8).
CUPAR_JIT_STRUCT(acc56, long long count; double sum; double min; double max; double sumsq;
                 long long first; long long last;)
CUPAR_JIT_STRUCT(event16, unsigned day; unsigned id; double amount;)
// COUNT, SUM, MIN, MAX of a group (16 bytes, class s16a4): bench/group_by_runners.hpp's
// bench_stats.
CUPAR_JIT_STRUCT(lat_stats, unsigned count; float sum; float min; float max;)

// Records of the struct size classes (issue 11): rec16 (16 bytes aligned to 4) and rec32 (32
// bytes aligned to 8) of records.hpp, and 36 bytes (no class: compiled from source, the
// "before" of the classes).
using cupar_bench::rec16;
using cupar_bench::rec32;
struct rec36 {
  float v[9];
};
CUPAR_JIT_TYPE(rec36, "rec36", "struct rec36 { float v[9]; };")
// (index, value) of the argmax case.
CUPAR_JIT_STRUCT(lat_arg_f32, long long i; float v;)
// The nested zip case's element: zip(zip(a, b), c) reduced into a struct whose member is a struct
// (12 bytes, class s12a4).
struct lat_pt2 {
  float x, y;
};
struct lat_nested {
  lat_pt2 p;
  float w;
};
CUPAR_JIT_TYPE(lat_nested, "lat_nested",
               "struct lat_pt2 { float x, y; }; struct lat_nested { lat_pt2 p; float w; };")

namespace {

using clock_type = std::chrono::steady_clock;
using cupar::jit::op;

constexpr int exit_error = 1;
constexpr int exit_no_gpu = 2;
constexpr int exit_usage = 64;

void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
  }
}

double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

const char* mode_name(cupar::jit::mode m) {
  switch (m) {
    case cupar::jit::mode::tiered:
      return "tiered";
    case cupar::jit::mode::optimized:
      return "optimized";
    case cupar::jit::mode::fast:
      return "fast";
  }
  return "?";
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Where the quick (tier-1) builds between `a` and `b` spent their time, the mean a build in
/// milliseconds (stats::quick_*): none when there were none.
std::string quick_fields(const cupar::jit::stats& a, const cupar::jit::stats& b) {
  if (b.quick_builds <= a.quick_builds) return std::string();
  const double n = static_cast<double>(b.quick_builds - a.quick_builds);
  return " quick_compile_ms=" + number((b.quick_compile_ms - a.quick_compile_ms) / n) +
         " quick_link_ms=" + number((b.quick_link_ms - a.quick_link_ms) / n) +
         " quick_load_ms=" + number((b.quick_load_ms - a.quick_load_ms) / n) +
         " quick_pool_wait_ms=" + number((b.quick_pool_wait_ms - a.quick_pool_wait_ms) / n) +
         " quick_lto_links=" + std::to_string(b.quick_lto_links - a.quick_lto_links);
}

/// The engine's counters accumulated between two snapshots, as key=value fields.
std::string stats_fields(const cupar::jit::stats& a, const cupar::jit::stats& b) {
  auto field = [](const char* name, std::uint64_t before, std::uint64_t after) {
    return std::string(" ") + name + "=" + std::to_string(after - before);
  };
  return field("operator_compiles", a.operator_compiles, b.operator_compiles) +
         field("kernel_compiles", a.kernel_compiles, b.kernel_compiles) +
         field("links", a.links, b.links) + field("kernel_links", a.kernel_links, b.kernel_links) +
         field("loads", a.loads, b.loads) + field("memory_hits", a.memory_hits, b.memory_hits) +
         field("disk_hits", a.disk_hits, b.disk_hits) +
         field("disk_writes", a.disk_writes, b.disk_writes) +
         field("background_builds", a.background_builds, b.background_builds) +
         field("direct_builds", a.direct_builds, b.direct_builds) +
         (b.optimized_builds > a.optimized_builds
              ? " optimized_build_ms_mean=" +
                    number((b.optimized_build_ms - a.optimized_build_ms) /
                           static_cast<double>(b.optimized_builds - a.optimized_builds))
              : std::string()) +
         quick_fields(a, b);
}

// ---------------------------------------------------------------------------------------------
// The cases: data on the device, the call with operator i (0: the case's operator; i >= 1: a
// distinct operator of the same meaning), and a check of the last call's result.

class workload {
 public:
  explicit workload(cudaStream_t s) : stream_(s) {}
  virtual ~workload() = default;
  virtual op make_op(int i) const = 0;
  /// Queues the call on the stream (does not synchronise).
  virtual void call(const op& o) = 0;
  /// Synchronises and throws unless the last call's result is right.
  virtual void check() = 0;

 protected:
  cudaStream_t stream_;
};

template <class T>
std::vector<T> host_values(std::size_t n, std::uint64_t seed, cupar_bench::value_range r) {
  std::vector<T> v(n);
  const cupar_bench::value_generator<T> gen{seed, r};
  for (std::size_t i = 0; i < n; ++i)
    v[i] = gen(i);
  return v;
}

/// --distinct: operators whose code differs, not only their text (an inline-assembly comment
/// carried into the PTX, which optimisation keeps), so that no build of an earlier operator can
/// serve a later one's link. The snippet becomes a generic lambda over the names it uses.
/// --salt S: every operator, the first included, carries S in that comment, so that no link of
/// an earlier process can serve this one's either (nvJitLink keeps a cache of links across
/// processes wherever a CUDA driver is: a new operator's first call would otherwise be measured
/// as a repeated program's).
bool g_distinct = false;
std::string g_salt;
std::string salted(const std::string& expr, int i) {
  if (g_salt.empty() && (!g_distinct || i == 0)) return expr;
  const bool unary = expr.find('x') != std::string::npos && expr.find('a') == std::string::npos;
  const std::string run = g_salt.empty() ? std::string() : "run " + g_salt + " ";
  return std::string("[](") + (unary ? "auto x" : "auto a, auto b") +
         ") { asm volatile(\"// cupar_jit_latency " + run + "operator " + std::to_string(i) +
         "\"); return " + expr + "; }";
}

class reduce_f32 final : public workload {
 public:
  reduce_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(1, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("a + b") : "a + b + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    cupar::reduce(in_.data(), out_.data(), in_.size(), o, 0.0f, stream_);
  }
  void check() override {
    const float got = out_.to_host()[0];
    double ref = 0, mag = 0;
    for (float x : host_) {
      ref += x;
      mag += std::fabs(x);
    }
    if (!(std::fabs(got - ref) <= 1e-4 * mag + 1e-3)) {
      throw std::runtime_error("reduce_f32: wrong sum " + number(got) + " (expected " +
                               number(ref) + ")");
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_, out_;
};

/// reduce of __half (a word type, served by the u16 kernel sets) with a new maximum each time
/// (cuda.compute compiles a float16 reduction like any other).
class reduce_f16 final : public workload {
 public:
  reduce_f16(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<__half>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(1, s) {}
  op make_op(int i) const override {
    return op(salted(
        i == 0 ? std::string("a < b ? b : a") : "a < b ? b : a /* " + std::to_string(i) + " */",
        i));
  }
  void call(const op& o) override {
    cupar::reduce(in_.data(), out_.data(), in_.size(), o, __half(-65504.0f), stream_);
  }
  void check() override {
    const float got = __half2float(out_.to_host()[0]);
    float want = -65504.0f;
    for (__half x : host_)
      want = std::max(want, __half2float(x));
    if (got != want) {
      throw std::runtime_error("reduce_f16: wrong maximum " + number(got) + " (expected " +
                               number(want) + ")");
    }
  }

 private:
  std::vector<__half> host_;
  cupar::device_buffer<__half> in_, out_;
};

/// reduce of the nested zip zip(zip(a, b), c) into a struct with a struct member, a new operator
/// each time, the expression rebuilt for every call (cuda.compute's nested zip test shape).
class reduce_nested_zip final : public workload {
 public:
  reduce_nested_zip(std::size_t n, cudaStream_t s)
      : workload(s),
        ha_(host_values<float>(n, 1, {-1.0, 1.0})),
        hb_(host_values<float>(n, 2, {-1.0, 1.0})),
        hc_(host_values<float>(n, 3, {-1.0, 1.0})),
        a_(ha_, s),
        b_(hb_, s),
        c_(hc_, s),
        out_(1, s) {}
  op make_op(int i) const override {
    const std::string sum = "lat_nested{{a.p.x + b.p.x, a.p.y + b.p.y}, a.w + b.w";
    return op(salted(i == 0 ? sum + "}" : sum + " + 0.0f * " + std::to_string(i) + "}", i));
  }
  void call(const op& o) override {
    cupar::reduce(cupar::jit::zip(cupar::jit::zip(a_.data(), b_.data()), c_.data()), out_.data(),
                  ha_.size(), o, lat_nested{{0, 0}, 0}, stream_);
  }
  void check() override {
    const lat_nested got = out_.to_host()[0];
    const float want[3] = {sum(ha_), sum(hb_), sum(hc_)};
    const float have[3] = {got.p.x, got.p.y, got.w};
    for (int k = 0; k < 3; ++k) {
      if (!(std::fabs(have[k] - want[k]) <= 1e-4f * static_cast<float>(ha_.size()) + 1e-3f)) {
        throw std::runtime_error("reduce_nested_zip: wrong sum " + number(have[k]) + " (expected " +
                                 number(want[k]) + ")");
      }
    }
  }

 private:
  static float sum(const std::vector<float>& v) {
    double s = 0;
    for (float x : v)
      s += x;
    return static_cast<float>(s);
  }
  std::vector<float> ha_, hb_, hc_;
  cupar::device_buffer<float> a_, b_, c_;
  cupar::device_buffer<lat_nested> out_;
};

/// transform_reduce: the sum of squares, a new transform each time (the named plus as the
/// reduction): cuda.compute's reduce over a TransformIterator (x * x) took 2.5 s per build.
class sum_of_squares_f32 final : public workload {
 public:
  sum_of_squares_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(1, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("x * x") : "x * x + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    cupar::transform_reduce(in_.data(), out_.data(), in_.size(), o, cupar::jit::plus, 0.0f,
                            stream_);
  }
  void check() override {
    const float got = out_.to_host()[0];
    double ref = 0;
    for (float x : host_)
      ref += double(x) * x;
    if (!(std::fabs(got - ref) <= 1e-4 * ref + 1e-3)) {
      throw std::runtime_error("sum_of_squares_f32: wrong sum " + number(got) + " (expected " +
                               number(ref) + ")");
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_, out_;
};

/// transform_reduce into a wider accumulator: how many elements exceed 0.5 (f32 -> u64, the
/// transform_reduce<f32,u64> set), a new predicate each time, the named plus.
class count_where_f32 final : public workload {
 public:
  count_where_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(1, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("x > 0.5f ? 1ull : 0ull")
                            : "x > 0.5f + 0.0f * " + std::to_string(i) + " ? 1ull : 0ull",
                     i));
  }
  void call(const op& o) override {
    cupar::transform_reduce(in_.data(), out_.data(), in_.size(), o, cupar::jit::plus, 0ull,
                            stream_);
  }
  void check() override {
    const unsigned long long got = out_.to_host()[0];
    unsigned long long ref = 0;
    for (float x : host_)
      ref += x > 0.5f ? 1 : 0;
    if (got != ref) {
      throw std::runtime_error("count_where_f32: wrong count " + std::to_string(got) +
                               " (expected " + std::to_string(ref) + ")");
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_;
  cupar::device_buffer<unsigned long long> out_;
};

/// Iterator expressions (jit_iterator.hpp): the dot product, a new transform of zip(a, b) each
/// time (cuda.compute: 2.8 s per build), built for every call as a user would.
class dot_f32 final : public workload {
 public:
  dot_f32(std::size_t n, cudaStream_t s)
      : workload(s),
        a_host_(host_values<float>(n, 1, {-1.0, 1.0})),
        b_host_(host_values<float>(n, 2, {-1.0, 1.0})),
        a_(a_host_, s),
        b_(b_host_, s),
        out_(1, s) {}
  op make_op(int i) const override {
    return op(salted(
        i == 0 ? std::string("x._0 * x._1") : "x._0 * x._1 + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    cupar::reduce(cupar::jit::transform<float>(cupar::jit::zip(a_.data(), b_.data()), o),
                  out_.data(), a_.size(), cupar::jit::plus, 0.0f, stream_);
  }
  void check() override {
    const float got = out_.to_host()[0];
    double ref = 0;
    for (std::size_t i = 0; i < a_host_.size(); ++i)
      ref += double(a_host_[i]) * b_host_[i];
    if (!(std::fabs(got - ref) <= 1e-3 * std::fabs(ref) + 1e-2)) {
      throw std::runtime_error("dot_f32: wrong sum " + number(got) + " (expected " + number(ref) +
                               ")");
    }
  }

 private:
  std::vector<float> a_host_, b_host_;
  cupar::device_buffer<float> a_, b_, out_;
};

/// argmax over zip(counting(0ll), x) into a struct (cuda.compute: 5.8 s per build): a new
/// reduction operator each time, the expression rebuilt for every call.
class argmax_f32 final : public workload {
 public:
  argmax_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(1, s) {}
  op make_op(int i) const override {
    return op("b.v > a.v || (b.v == a.v && b.i < a.i) ? b : a" +
              (i == 0 ? std::string() : " /* " + std::to_string(i) + " */"));
  }
  void call(const op& o) override {
    cupar::reduce(cupar::jit::zip({{"i", cupar::jit::counting(0ll)}, {"v", in_.data()}}),
                  out_.data(), in_.size(), o, lat_arg_f32{-1, -1e30f}, stream_);
  }
  void check() override {
    const lat_arg_f32 got = out_.to_host()[0];
    const auto best = std::max_element(host_.begin(), host_.end()) - host_.begin();
    if (got.i != best) {
      throw std::runtime_error("argmax_f32: index " + std::to_string(got.i) + " (expected " +
                               std::to_string(best) + ")");
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_;
  cupar::device_buffer<lat_arg_f32> out_;
};

/// A scan of an iterator expression: the running sum of squares, a new transform each time, the
/// expression rebuilt for every call (the "+index" scan sets).
class scan_squares_f32 final : public workload {
 public:
  scan_squares_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 1, {-1.0, 1.0})), in_(host_, s), out_(n, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("x * x") : "x * x + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    cupar::inclusive_scan(cupar::jit::transform(in_.data(), o), out_.data(), in_.size(),
                          cupar::jit::plus, stream_);
  }
  void check() override {
    const std::vector<float> got = out_.to_host();
    double ref = 0;
    for (std::size_t i = 0; i < host_.size(); ++i) {
      ref += double(host_[i]) * host_[i];
      if (!(std::fabs(got[i] - ref) <= 1e-4 * ref + 1e-3)) {
        throw std::runtime_error("scan_squares_f32: wrong prefix at " + std::to_string(i) + ": " +
                                 number(got[i]) + " (expected " + number(ref) + ")");
      }
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_, out_;
};

/// select_if of an iterator expression (the "+index" stream compaction sets): the values
/// transform(x, "x * 2.0f") with a new transform each time, kept where "x > 1.0f".
class select_expr_f32 final : public workload {
 public:
  select_expr_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 5, {-1.0, 1.0})), in_(host_, s), out_(n, s) {}
  op make_op(int i) const override {
    return op(
        salted(i == 0 ? std::string("x * 2.0f") : "x * 2.0f + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    count_ = cupar::select_if_count(cupar::jit::transform(in_.data(), o), out_.data(), in_.size(),
                                    pred_, stream_);
  }
  void check() override {
    std::size_t want = 0;
    for (float x : host_)
      want += x * 2.0f > 1.0f;
    if (count_ != want) {
      throw std::runtime_error("select_expr_f32: wrong count " + std::to_string(count_) +
                               " (expected " + std::to_string(want) + ")");
    }
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_, out_;
  op pred_{"x > 1.0f"};
  std::size_t count_ = 0;
};

/// A sort of computed keys: transform(v, "(x * 7u) % 1000003u"), a new transform each time,
/// sorted by the library's radix sort (jit::less): the expression is written to the output in
/// one pass of the "for_each" set, then sorted there.
class sort_computed_u32 final : public workload {
 public:
  sort_computed_u32(std::size_t n, cudaStream_t s)
      : workload(s),
        host_(host_values<std::uint32_t>(n, 6, {0.0, 4294967295.0})),
        in_(host_, s),
        out_(n, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("(x * 7u) % 1000003u")
                            : "(x * 7u) % 1000003u + 0u * " + std::to_string(i) + "u",
                     i));
  }
  void call(const op& o) override {
    cupar::sort_keys(cupar::jit::transform(in_.data(), o), out_.data(), in_.size(),
                     cupar::jit::less, stream_);
  }
  void check() override {
    std::vector<std::uint32_t> want(host_.size());
    for (std::size_t i = 0; i < host_.size(); ++i)
      want[i] = (host_[i] * 7u) % 1000003u;
    std::sort(want.begin(), want.end());
    if (out_.to_host() != want) throw std::runtime_error("sort_computed_u32: wrong order");
  }

 private:
  std::vector<std::uint32_t> host_;
  cupar::device_buffer<std::uint32_t> in_, out_;
};

/// select_if into an output expression: x where "x > 0.5f", stored through
/// transform_output(out, "x * 2.0f") with a new output transform each time.
class select_output_f32 final : public workload {
 public:
  select_output_f32(std::size_t n, cudaStream_t s)
      : workload(s), host_(host_values<float>(n, 7, {-1.0, 1.0})), in_(host_, s), out_(n, s) {}
  op make_op(int i) const override {
    return op(
        salted(i == 0 ? std::string("x * 2.0f") : "x * 2.0f + 0.0f * " + std::to_string(i), i));
  }
  void call(const op& o) override {
    count_ = cupar::select_if_count<float>(in_.data(), cupar::jit::transform_output(out_.data(), o),
                                           in_.size(), pred_, stream_);
  }
  void check() override {
    std::vector<float> want;
    for (float x : host_) {
      if (x > 0.5f) want.push_back(x * 2.0f);
    }
    std::vector<float> got = out_.to_host();
    got.resize(count_);
    if (got != want) throw std::runtime_error("select_output_f32: wrong values or count");
  }

 private:
  std::vector<float> host_;
  cupar::device_buffer<float> in_, out_;
  op pred_{"x > 0.5f"};
  std::size_t count_ = 0;
};

class merge_sort_keys_f32 final : public workload {
 public:
  merge_sort_keys_f32(std::size_t n, cudaStream_t s)
      : workload(s), in_(host_values<float>(n, 1, {-1.0e6, 1.0e6}), s), out_(n, s) {}
  op make_op(int i) const override {
    return op(salted(i == 0 ? std::string("a < b") : "a < b && " + std::to_string(i) + " > 0", i));
  }
  void call(const op& o) override {
    cupar::sort_keys(in_.data(), out_.data(), in_.size(), o, stream_);
  }
  void check() override {
    const std::vector<float> got = out_.to_host();
    if (!std::is_sorted(got.begin(), got.end())) {
      throw std::runtime_error("merge_sort_keys_f32: the output is not sorted");
    }
  }

 private:
  cupar::device_buffer<float> in_, out_;
};

class reduce_point final : public workload {
 public:
  reduce_point(std::size_t n, cudaStream_t s) : workload(s), host_(n), out_(1, s) {
    const cupar_bench::value_generator<float> gx{1, {-1.0, 1.0}}, gy{2, {-1.0, 1.0}};
    for (std::size_t i = 0; i < n; ++i)
      host_[i] = point{gx(i), gy(i)};
    in_ = cupar::device_buffer<point>(host_, s);
  }
  op make_op(int i) const override {
    return op(i == 0 ? std::string("point{a.x + b.x, a.y + b.y}")
                     : "point{a.x + b.x + 0.0f * " + std::to_string(i) + ", a.y + b.y}");
  }
  void call(const op& o) override {
    cupar::reduce(in_.data(), out_.data(), in_.size(), o, point{0.0f, 0.0f}, stream_);
  }
  void check() override {
    const point got = out_.to_host()[0];
    double rx = 0, ry = 0, mag = 0;
    for (const point& p : host_) {
      rx += p.x;
      ry += p.y;
      mag += std::fabs(p.x) + std::fabs(p.y);
    }
    if (!(std::fabs(got.x - rx) <= 1e-4 * mag + 1e-3 &&
          std::fabs(got.y - ry) <= 1e-4 * mag + 1e-3)) {
      throw std::runtime_error("reduce_point: wrong sum (" + number(got.x) + ", " + number(got.y) +
                               "), expected (" + number(rx) + ", " + number(ry) + ")");
    }
  }

 private:
  std::vector<point> host_;
  cupar::device_buffer<point> in_, out_;
};

/// A binary transform of a struct and a float into a double, (rec16, f32) -> f64: no CUB transform
/// set for the combination, so the "for_each" kernels serve it (before: CUB's transform kernels
/// compiled from source, about 2.5 s per operator); a new operator each time.
class transform_rec16_f32 final : public workload {
 public:
  transform_rec16_f32(std::size_t n, cudaStream_t s) : workload(s), host_(n), w_(n), out_(n, s) {
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(static_cast<int>(i % 17) - 8);
      host_[i] = rec16{static_cast<float>(i % 4 + 1), v * 4.0f, v, v};
      w_[i] = static_cast<float>(i % 5);
    }
    in_ = cupar::device_buffer<rec16>(host_, s);
    win_ = cupar::device_buffer<float>(w_, s);
  }
  op make_op(int i) const override {
    return op(i == 0 ? std::string("a.sum / a.count + b")
                     : "a.sum / a.count + b + 0.0f * " + std::to_string(i));
  }
  void call(const op& o) override {
    cupar::transform(in_.data(), win_.data(), out_.data(), host_.size(), o, stream_);
  }
  void check() override {
    const std::vector<double> got = out_.to_host();
    for (std::size_t i = 0; i < host_.size(); ++i) {
      const double want = double(host_[i].sum / host_[i].count + w_[i]);
      if (got[i] != want) {
        throw std::runtime_error("transform_rec16_f32: wrong value at " + std::to_string(i) + ": " +
                                 number(got[i]) + " (expected " + number(want) + ")");
      }
    }
  }

 private:
  std::vector<rec16> host_;
  std::vector<float> w_;
  cupar::device_buffer<rec16> in_;
  cupar::device_buffer<float> win_;
  cupar::device_buffer<double> out_;
};

/// Reduce (or inclusive scan) of rec16 records: count, sum, min, max merged. Small integers in
/// floats, so counts and sums are exact while they stay below 2^24 (n <= 2^20; beyond that they
/// are checked to a relative 1e-5: the first version's values up to 999 summed past 2^24 at the
/// default n and failed its exact check on the H100, 2026-11-23).
class rec16_case final : public workload {
 public:
  rec16_case(std::size_t n, cudaStream_t s, bool scan)
      : workload(s), scan_(scan), host_(n), out_(scan ? n : 1, s) {
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>((i * 7919) % 16);
      host_[i] = rec16{1.0f, v, v, v};
    }
    in_ = cupar::device_buffer<rec16>(host_, s);
  }
  op make_op(int i) const override {
    return op(
        cupar_bench::rec16_merge_source(i == 0 ? std::string() : " + 0.0f * " + std::to_string(i)));
  }
  void call(const op& o) override {
    if (scan_) {
      cupar::inclusive_scan(in_.data(), out_.data(), in_.size(), o, stream_);
    } else {
      cupar::reduce(in_.data(), out_.data(), in_.size(), o, rec16{0.0f, 0.0f, 1e30f, -1e30f},
                    stream_);
    }
  }
  void check() override {
    const std::vector<rec16> got = out_.to_host();
    const rec16 last = got.back();
    double sum = 0;
    float lo = 1e30f, hi = -1e30f;
    for (const rec16& r : host_) {
      sum += r.sum;
      lo = std::min(lo, r.min);
      hi = std::max(hi, r.max);
    }
    const auto close = [](double got, double want) {
      return std::abs(got - want) <= (want < 16777216.0 ? 0.0 : 1e-5 * want);
    };
    if (!close(last.count, static_cast<double>(host_.size())) || !close(last.sum, sum) ||
        last.min != lo || last.max != hi) {
      throw std::runtime_error("rec16: wrong count/sum/min/max (" + number(last.count) + ", " +
                               number(last.sum) + ", " + number(last.min) + ", " +
                               number(last.max) + ")");
    }
  }

 private:
  bool scan_;
  std::vector<rec16> host_;
  cupar::device_buffer<rec16> in_, out_;
};

/// Merge sort of rec32 records by their key.
class sort_rec32 final : public workload {
 public:
  sort_rec32(std::size_t n, cudaStream_t s) : workload(s), out_(n, s) {
    std::vector<rec32> h(n);
    const cupar_bench::value_generator<double> g{3, {-1.0e6, 1.0e6}};
    for (std::size_t i = 0; i < n; ++i)
      h[i] = rec32{g(i), static_cast<long long>(i), 1.0, 2.0};
    in_ = cupar::device_buffer<rec32>(h, s);
  }
  op make_op(int i) const override {
    return op(i == 0 ? std::string("a.key < b.key")
                     : "a.key < b.key && " + std::to_string(i) + " > 0");
  }
  void call(const op& o) override {
    cupar::sort_keys(in_.data(), out_.data(), in_.size(), o, stream_);
  }
  void check() override {
    const std::vector<rec32> got = out_.to_host();
    for (std::size_t i = 1; i < got.size(); ++i) {
      if (got[i].key < got[i - 1].key) throw std::runtime_error("sort_rec32: not sorted");
    }
  }

 private:
  cupar::device_buffer<rec32> in_, out_;
};

/// Reduce of rec36 (no size class: CUB's kernels compiled from source).
class reduce_rec36 final : public workload {
 public:
  reduce_rec36(std::size_t n, cudaStream_t s) : workload(s), out_(1, s) {
    std::vector<rec36> h(n);
    for (auto& r : h)
      for (float& v : r.v)
        v = 1.0f;
    in_ = cupar::device_buffer<rec36>(h, s);
    n_ = n;
  }
  op make_op(int i) const override {
    std::string text =
        "[](rec36 a, rec36 b) { rec36 r; for (int k = 0; k < 9; ++k) r.v[k] = "
        "a.v[k] + b.v[k]";
    if (i != 0) text += " + 0.0f * " + std::to_string(i);
    return op(text + "; return r; }");
  }
  void call(const op& o) override {
    cupar::reduce(in_.data(), out_.data(), in_.size(), o, rec36{}, stream_);
  }
  void check() override {
    const rec36 got = out_.to_host()[0];
    for (float v : got.v) {
      if (v != static_cast<float>(n_)) throw std::runtime_error("reduce_rec36: wrong sum");
    }
  }

 private:
  std::size_t n_ = 0;
  cupar::device_buffer<rec36> in_, out_;
};

// The data-processing families (issue 9): one case per family, the operator a snippet (the
// equality of the by-key cases is the named jit::equal_to, precompiled: only the operator is
// compiled). Keys come in runs of 4; selection by x < 2^31 over every bit pattern.

/// `i`-th distinct operator of the same meaning: the text, and for i >= 1 a term that is true.
/// These fold to the same code after optimisation (as an engine's operators that differ only in
/// literals would); with --distinct (salted) each one's code differs as well.
std::string variant(const std::string& text, int i) {
  return salted(i == 0 ? text : "(" + text + ") && " + std::to_string(i) + " > 0", i);
}
std::string variant_sum(const std::string& text, int i) {
  return salted(i == 0 ? text : text + " + 0.0f * " + std::to_string(i), i);
}

std::vector<std::uint32_t> runs_of_4(std::size_t n) {
  std::vector<std::uint32_t> k(n);
  for (std::size_t i = 0; i < n; ++i)
    k[i] = static_cast<std::uint32_t>(i / 4);
  return k;
}

class select_if_u32 final : public workload {
 public:
  select_if_u32(std::size_t n, cudaStream_t s, int kind)
      : workload(s),
        host_(host_values<std::uint32_t>(n, 3, {0.0, 4294967295.0})),
        in_(host_, s),
        out_(n, s),
        second_(n, s),
        unselected_(n, s),
        count_(2, s),
        kind_(kind) {}
  op make_op(int i) const override { return op(variant("x < 2147483648u", i)); }
  void call(const op& o) override {
    if (kind_ == 0) {
      cupar::select_if(in_.data(), out_.data(), count_.data(), in_.size(), o, stream_);
    } else if (kind_ == 1) {
      cupar::partition(in_.data(), out_.data(), count_.data(), in_.size(), o, stream_);
    } else {
      cupar::three_way_partition(in_.data(), out_.data(), second_.data(), unselected_.data(),
                                 count_.data(), in_.size(), op("x < 1073741824u"), o, stream_);
    }
  }
  void check() override {
    const std::vector<std::size_t> got = count_.to_host();
    std::size_t below30 = 0, below31 = 0;
    for (std::uint32_t x : host_) {
      below30 += x < (1u << 30);
      below31 += x < (1u << 31);
    }
    const bool ok =
        kind_ == 2 ? (got[0] == below30 && got[1] == below31 - below30) : got[0] == below31;
    if (!ok) throw std::runtime_error("select/partition: wrong count " + std::to_string(got[0]));
  }

 private:
  std::vector<std::uint32_t> host_;
  cupar::device_buffer<std::uint32_t> in_, out_, second_, unselected_;
  cupar::device_buffer<std::size_t> count_;
  int kind_;
};

class unique_u32 final : public workload {
 public:
  unique_u32(std::size_t n, cudaStream_t s)
      : workload(s), in_(runs_of_4(n), s), out_(n, s), count_(1, s), n_(n) {}
  op make_op(int i) const override { return op(variant("a == b", i)); }
  void call(const op& o) override {
    cupar::unique(in_.data(), out_.data(), count_.data(), in_.size(), o, stream_);
  }
  void check() override {
    if (count_.to_host()[0] != (n_ + 3) / 4) throw std::runtime_error("unique: wrong count");
  }

 private:
  cupar::device_buffer<std::uint32_t> in_, out_;
  cupar::device_buffer<std::size_t> count_;
  std::size_t n_;
};

class by_key_u32_f32 final : public workload {
 public:
  by_key_u32_f32(std::size_t n, cudaStream_t s, bool scan)
      : workload(s),
        keys_(runs_of_4(n), s),
        values_(std::vector<float>(n, 1.0f), s),
        keys_out_(n, s),
        out_(n, s),
        count_(1, s),
        n_(n),
        scan_(scan) {}
  op make_op(int i) const override { return op(variant_sum("a + b", i)); }
  void call(const op& o) override {
    if (scan_) {
      cupar::inclusive_scan_by_key(keys_.data(), values_.data(), out_.data(), n_, o,
                                   cupar::jit::equal_to, stream_);
    } else {
      cupar::reduce_by_key(keys_.data(), values_.data(), keys_out_.data(), out_.data(),
                           count_.data(), n_, o, cupar::jit::equal_to, stream_);
    }
  }
  void check() override {
    const std::vector<float> got = out_.to_host();
    if (scan_) {
      for (std::size_t i = 0; i < n_; ++i) {
        if (got[i] != static_cast<float>(i % 4 + 1)) {
          throw std::runtime_error("inclusive_scan_by_key: wrong value at " + std::to_string(i));
        }
      }
      return;
    }
    const std::size_t runs = count_.to_host()[0];
    if (runs != (n_ + 3) / 4) throw std::runtime_error("reduce_by_key: wrong run count");
    for (std::size_t r = 0; r < runs; ++r) {
      const float want = static_cast<float>(std::min<std::size_t>(4, n_ - 4 * r));
      if (got[r] != want)
        throw std::runtime_error("reduce_by_key: wrong sum of run " + std::to_string(r));
    }
  }

 private:
  cupar::device_buffer<std::uint32_t> keys_;
  cupar::device_buffer<float> values_;
  cupar::device_buffer<std::uint32_t> keys_out_;
  cupar::device_buffer<float> out_;
  cupar::device_buffer<std::size_t> count_;
  std::size_t n_;
  bool scan_;
};

/// Segments of 1,000 items (the last one shorter).
class segmented_f32 final : public workload {
 public:
  segmented_f32(std::size_t n, cudaStream_t s, bool scan)
      : workload(s),
        in_(std::vector<float>(n, 1.0f), s),
        out_(n, s),
        n_(n),
        segments_((n + 999) / 1000),
        scan_(scan) {
    std::vector<std::int64_t> b(segments_), e(segments_);
    for (std::size_t i = 0; i < segments_; ++i) {
      b[i] = static_cast<std::int64_t>(1000 * i);
      e[i] = static_cast<std::int64_t>(std::min(n, 1000 * (i + 1)));
    }
    begin_ = cupar::device_buffer<std::int64_t>(b, s);
    end_ = cupar::device_buffer<std::int64_t>(e, s);
  }
  op make_op(int i) const override { return op(variant_sum("a + b", i)); }
  void call(const op& o) override {
    if (scan_) {
      cupar::segmented_inclusive_scan(in_.data(), out_.data(), n_, segments_, begin_.data(),
                                      end_.data(), o, stream_);
    } else {
      cupar::segmented_reduce(in_.data(), out_.data(), n_, segments_, begin_.data(), end_.data(), o,
                              0.0f, stream_);
    }
  }
  void check() override {
    const std::vector<float> got = out_.to_host();
    const std::size_t count = scan_ ? n_ : segments_;
    for (std::size_t i = 0; i < count; ++i) {
      const float want = scan_ ? static_cast<float>(i % 1000 + 1)
                               : static_cast<float>(std::min<std::size_t>(1000, n_ - 1000 * i));
      if (got[i] != want)
        throw std::runtime_error("segmented: wrong value at " + std::to_string(i));
    }
  }

 private:
  cupar::device_buffer<float> in_, out_;
  cupar::device_buffer<std::int64_t> begin_, end_;
  std::size_t n_, segments_;
  bool scan_;
};

class lower_bound_u32 final : public workload {
 public:
  lower_bound_u32(std::size_t n, cudaStream_t s)
      : workload(s),
        needles_host_(host_values<std::uint32_t>(n, 5, {0.0, 4294967295.0})),
        out_(n, s) {
    sorted_host_ = host_values<std::uint32_t>(n, 6, {0.0, 4294967295.0});
    std::sort(sorted_host_.begin(), sorted_host_.end());
    sorted_ = cupar::device_buffer<std::uint32_t>(sorted_host_, s);
    needles_ = cupar::device_buffer<std::uint32_t>(needles_host_, s);
  }
  op make_op(int i) const override { return op(variant("a < b", i)); }
  void call(const op& o) override {
    cupar::lower_bound(sorted_.data(), sorted_.size(), needles_.data(), needles_.size(),
                       out_.data(), o, stream_);
  }
  void check() override {
    const std::vector<std::uint32_t> got = out_.to_host();
    for (std::size_t i = 0; i < got.size(); i += 997) {
      const auto want =
          std::lower_bound(sorted_host_.begin(), sorted_host_.end(), needles_host_[i]) -
          sorted_host_.begin();
      if (got[i] != static_cast<std::uint32_t>(want)) {
        throw std::runtime_error("lower_bound: wrong position at " + std::to_string(i));
      }
    }
  }

 private:
  std::vector<std::uint32_t> sorted_host_, needles_host_;
  cupar::device_buffer<std::uint32_t> sorted_, needles_, out_;
};

/// reduce_by_key by u32 keys in runs of 4 of V records: a new merge operator each time; check()
/// tests each run's record with `right(record, run, rows)`.
template <class V>
class reduce_by_key_runs : public workload {
 public:
  reduce_by_key_runs(std::size_t n, cudaStream_t s, const std::vector<V>& values, const char* name)
      : workload(s),
        keys_(runs_of_4(n), s),
        values_(values, s),
        keys_out_(n, s),
        out_(n, s),
        count_(1, s),
        n_(n),
        name_(name) {}
  void call(const op& o) override {
    cupar::reduce_by_key(keys_.data(), values_.data(), keys_out_.data(), out_.data(), count_.data(),
                         n_, o, cupar::jit::equal_to, stream_);
  }
  void check() override {
    const std::size_t runs = count_.to_host()[0];
    if (runs != (n_ + 3) / 4) throw std::runtime_error(name_ + ": wrong run count");
    const std::vector<V> got = out_.to_host(runs);
    for (std::size_t r = 0; r < runs; ++r) {
      if (!right(got[r], r, std::min<std::size_t>(4, n_ - 4 * r))) {
        throw std::runtime_error(name_ + ": wrong record of run " + std::to_string(r));
      }
    }
  }

 protected:
  virtual bool right(const V& record, std::size_t run, std::size_t rows) const = 0;

 private:
  cupar::device_buffer<std::uint32_t> keys_;
  cupar::device_buffer<V> values_;
  cupar::device_buffer<std::uint32_t> keys_out_;
  cupar::device_buffer<V> out_;
  cupar::device_buffer<std::size_t> count_;
  std::size_t n_;
  std::string name_;
};

/// Group-by on records (issue 11, data-processing struct classes): reduce_by_key of u32 keys in
/// runs of 4 with rec16 values (count, sum, min, max: class s16a4) merged per run.
class reduce_by_key_rec16 final : public reduce_by_key_runs<rec16> {
 public:
  reduce_by_key_rec16(std::size_t n, cudaStream_t s)
      : reduce_by_key_runs(n, s, std::vector<rec16>(n, rec16{1.0f, 2.0f, 2.0f, 2.0f}),
                           "reduce_by_key_rec16") {}
  op make_op(int i) const override {
    return op(
        cupar_bench::rec16_merge_source(i == 0 ? std::string() : " + 0.0f * " + std::to_string(i)));
  }

 private:
  bool right(const rec16& got, std::size_t, std::size_t rows) const override {
    const auto want = static_cast<float>(rows);
    return got.count == want && got.sum == 2.0f * want && got.min == 2.0f && got.max == 2.0f;
  }
};

/// group_by with a run-time operator (rec16 accumulators, u32 keys from 100 groups: the hash
/// method, its kernels precompiled for the class; only the operator compiles).
class group_by_rec16 final : public workload {
 public:
  group_by_rec16(std::size_t n, cudaStream_t s)
      : workload(s),
        keys_(keys_mod_100(n), s),
        values_(std::vector<rec16>(n, rec16{1.0f, 2.0f, 2.0f, 2.0f}), s),
        n_(n) {}
  op make_op(int i) const override {
    return op(
        cupar_bench::rec16_merge_source(i == 0 ? std::string() : " + 0.0f * " + std::to_string(i)));
  }
  void call(const op& o) override {
    groups_ = cupar::group_by(keys_.data(), values_.data(), n_, o, stream_);
  }
  void check() override {
    const std::size_t groups = std::min<std::size_t>(n_, 100);
    if (groups_.size() != groups) throw std::runtime_error("group_by_rec16: wrong group count");
    const std::vector<std::uint32_t> keys = groups_.keys.to_host();
    const std::vector<rec16> got = groups_.values.to_host();
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t k = keys[g];
      const float want = static_cast<float>(n_ / 100 + (k < n_ % 100 ? 1 : 0));
      if (k >= 100 || got[g].count != want || got[g].sum != 2.0f * want || got[g].min != 2.0f ||
          got[g].max != 2.0f) {
        throw std::runtime_error("group_by_rec16: wrong group " + std::to_string(k));
      }
    }
  }

 private:
  static std::vector<std::uint32_t> keys_mod_100(std::size_t n) {
    std::vector<std::uint32_t> k(n);
    for (std::size_t i = 0; i < n; ++i)
      k[i] = static_cast<std::uint32_t>(i % 100);
    return k;
  }
  cupar::device_buffer<std::uint32_t> keys_;
  cupar::device_buffer<rec16> values_;
  cupar::groups<std::uint32_t, rec16> groups_;
  std::size_t n_;
};

/// group_by as bench/group_by_jit.cpp's u32_stats rows run it (a query engine's shape): u32 keys
/// from 1,024 groups, the 16-byte statistics computed from a float column by an iterator
/// expression (`lat_stats{1u, x, x, x}`) and combined by a snippet, whose distinct variants are
/// the case's operators: the group_by<u32,s16a4>+index set; the expression and the operator
/// compile.
class group_by_u32_stats final : public workload {
 public:
  group_by_u32_stats(std::size_t n, cudaStream_t s)
      : workload(s),
        host_keys_(keys_of(n)),
        host_values_(host_values<float>(n, 3, {-1.0, 1.0})),
        keys_(host_keys_, s),
        values_(host_values_, s),
        to_stats_("lat_stats{1u, x, x, x}") {}
  op make_op(int i) const override {
    const std::string merge =
        "lat_stats{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)";
    return op(salted(i == 0 ? merge + "}" : merge + " + 0.0f * " + std::to_string(i) + "}", i));
  }
  void call(const op& o) override {
    groups_ = cupar::group_by<std::uint32_t, lat_stats>(
        keys_.data(),
        cupar::jit::transform<lat_stats>(cupar::jit::iterator(values_.data()), to_stats_),
        host_keys_.size(), o, stream_);
  }
  void check() override {
    const std::size_t n = host_keys_.size();
    std::vector<lat_stats> want(groups);
    std::vector<double> sums(groups, 0.0);
    std::vector<bool> seen(groups, false);
    for (std::size_t i = 0; i < n; ++i) {
      lat_stats& w = want[host_keys_[i]];
      const float v = host_values_[i];
      if (!seen[host_keys_[i]]) {
        w = lat_stats{0u, 0.0f, v, v};
        seen[host_keys_[i]] = true;
      }
      ++w.count;
      sums[host_keys_[i]] += v;
      w.min = std::min(w.min, v);
      w.max = std::max(w.max, v);
    }
    const std::size_t expected =
        static_cast<std::size_t>(std::count(seen.begin(), seen.end(), true));
    if (groups_.size() != expected)
      throw std::runtime_error("group_by_u32_stats: wrong group count");
    const std::vector<std::uint32_t> keys = groups_.keys.to_host();
    const std::vector<lat_stats> got = groups_.values.to_host();
    for (std::size_t g = 0; g < got.size(); ++g) {
      const std::uint32_t k = keys[g];
      if (k >= groups || !seen[k] || got[g].count != want[k].count || got[g].min != want[k].min ||
          got[g].max != want[k].max ||
          !(std::fabs(got[g].sum - sums[k]) <= 1e-3 * want[k].count + 1e-3)) {
        throw std::runtime_error("group_by_u32_stats: wrong group " + std::to_string(k) + ": sum " +
                                 number(got[g].sum) + " (expected " + number(sums[k]) + ")");
      }
    }
  }

 private:
  static constexpr std::size_t groups = 1024;
  static std::vector<std::uint32_t> keys_of(std::size_t n) {
    std::vector<std::uint32_t> k(n);
    for (std::size_t i = 0; i < n; ++i)
      k[i] = static_cast<std::uint32_t>((i * 2654435761u) % groups);
    return k;
  }
  std::vector<std::uint32_t> host_keys_;
  std::vector<float> host_values_;
  cupar::device_buffer<std::uint32_t> keys_;
  cupar::device_buffer<float> values_;
  op to_stats_;
  cupar::groups<std::uint32_t, lat_stats> groups_;
};

/// reduce_by_key of 56-byte accumulators (seven 8-byte fields: a count, sums, a range and the
/// first and last rows) by u32 keys in runs of 4: the data-processing class set
/// reduce_by_key<u32,s56a8>; only the operator compiles.
class reduce_by_key_acc56 final : public reduce_by_key_runs<acc56> {
 public:
  reduce_by_key_acc56(std::size_t n, cudaStream_t s)
      : reduce_by_key_runs(n, s, values_of(n), "reduce_by_key_acc56") {}
  op make_op(int i) const override {
    const std::string tail = i == 0 ? std::string() : " + 0.0 * " + std::to_string(i);
    return op(salted("acc56{a.count + b.count, a.sum + b.sum" + tail +
                         ", fmin(a.min, b.min), fmax(a.max, b.max), a.sumsq + b.sumsq, "
                         "a.first < b.first ? a.first : b.first, "
                         "a.last > b.last ? a.last : b.last}",
                     i));
  }

 private:
  static std::vector<acc56> values_of(std::size_t n) {
    std::vector<acc56> v(n);
    for (std::size_t i = 0; i < n; ++i) {
      const auto row = static_cast<long long>(i);
      v[i] = acc56{1, 2.0, 2.0, 2.0, 4.0, row, row};
    }
    return v;
  }
  bool right(const acc56& got, std::size_t run, std::size_t rows) const override {
    const auto first = static_cast<long long>(4 * run);
    const auto count = static_cast<long long>(rows);
    return got.count == count && got.sum == 2.0 * count && got.first == first &&
           got.last == first + count - 1;
  }
};

/// reduce_by_key of 28-byte records (seven floats) by u32 keys in runs of 4: no class of their
/// size; the arrays are copied to 32-byte strides and back (entry.cpp's padded route), the class
/// set reduce_by_key<u32,s32a8> serves, only the operator compiles.
class reduce_by_key_rec28 final : public reduce_by_key_runs<cupar_bench::rec28> {
 public:
  reduce_by_key_rec28(std::size_t n, cudaStream_t s)
      : reduce_by_key_runs(
            n, s, std::vector<cupar_bench::rec28>(n, cupar_bench::rec28{1, 2, 2, 2, 1, 1, 1}),
            "reduce_by_key_rec28") {}
  op make_op(int i) const override {
    return op(salted(
        cupar_bench::rec28_merge_source(i == 0 ? std::string() : " + 0.0f * " + std::to_string(i)),
        i));
  }

 private:
  bool right(const cupar_bench::rec28& got, std::size_t, std::size_t rows) const override {
    const auto count = static_cast<float>(rows);
    return got.count == count && got.sum == 2.0f * count && got.min == 2.0f && got.max == 2.0f &&
           got.c == count;
  }
};

/// lower_bound of 16-byte records (day, id, amount) by a comparator on (day, id): the class set
/// binary_search<s16a8,u32>; only the comparator compiles. n / 4 needles.
class lower_bound_event16 final : public workload {
 public:
  lower_bound_event16(std::size_t n, cudaStream_t s)
      : workload(s),
        sorted_(sorted_of(n), s),
        needles_(needles_of(n), s),
        out_(n / 4 + 1, s),
        n_(n) {}
  op make_op(int i) const override {
    return op(salted("a.day < b.day || (a.day == b.day && a.id < b.id)" +
                         (i == 0 ? std::string() : " || 0 > " + std::to_string(i)),
                     i));
  }
  void call(const op& o) override {
    cupar::lower_bound(sorted_.data(), n_, needles_.data(), n_ / 4 + 1, out_.data(), o, stream_);
  }
  void check() override {
    const std::vector<std::uint32_t> got = out_.to_host();
    for (std::size_t j = 0; j < got.size(); ++j) {
      if (got[j] != std::min<std::size_t>(n_, 4 * j)) {
        throw std::runtime_error("lower_bound_event16: wrong position of needle " +
                                 std::to_string(j));
      }
    }
  }

 private:
  // Record i is (i / 8, i % 8); needle j is record 4j's (day, id).
  static std::vector<event16> sorted_of(std::size_t n) {
    std::vector<event16> v(n);
    for (std::size_t i = 0; i < n; ++i)
      v[i] = event16{static_cast<unsigned>(i / 8), static_cast<unsigned>(i % 8), 1.0};
    return v;
  }
  static std::vector<event16> needles_of(std::size_t n) {
    std::vector<event16> v(n / 4 + 1);
    for (std::size_t j = 0; j < v.size(); ++j)
      v[j] = event16{static_cast<unsigned>(4 * j / 8), static_cast<unsigned>(4 * j % 8), 0.0};
    return v;
  }
  cupar::device_buffer<event16> sorted_;
  cupar::device_buffer<event16> needles_;
  cupar::device_buffer<std::uint32_t> out_;
  std::size_t n_;
};

const char* const case_names[] = {"reduce_f32",
                                  "merge_sort_keys_f32",
                                  "reduce_point",
                                  "select_if_u32",
                                  "partition_u32",
                                  "three_way_partition_u32",
                                  "unique_u32",
                                  "reduce_by_key_u32_f32",
                                  "inclusive_scan_by_key_u32_f32",
                                  "segmented_reduce_f32",
                                  "segmented_inclusive_scan_f32",
                                  "lower_bound_u32",
                                  "reduce_rec16",
                                  "inclusive_scan_rec16",
                                  "merge_sort_rec32",
                                  "reduce_rec36",
                                  "reduce_by_key_u32_rec16",
                                  "group_by_u32_rec16",
                                  "group_by_u32_stats",
                                  "reduce_by_key_u32_acc56",
                                  "reduce_by_key_u32_rec28",
                                  "lower_bound_event16",
                                  "sum_of_squares_f32",
                                  "count_where_f32",
                                  "dot_f32",
                                  "argmax_f32",
                                  "scan_squares_f32",
                                  "transform_rec16_f32",
                                  "select_expr_f32",
                                  "sort_computed_u32",
                                  "select_output_f32",
                                  "reduce_f16",
                                  "reduce_nested_zip"};

std::unique_ptr<workload> make_workload(const std::string& name, std::size_t n, cudaStream_t s) {
  if (name == "reduce_f32") return std::make_unique<reduce_f32>(n, s);
  if (name == "merge_sort_keys_f32") return std::make_unique<merge_sort_keys_f32>(n, s);
  if (name == "reduce_point") return std::make_unique<reduce_point>(n, s);
  if (name == "select_if_u32") return std::make_unique<select_if_u32>(n, s, 0);
  if (name == "partition_u32") return std::make_unique<select_if_u32>(n, s, 1);
  if (name == "three_way_partition_u32") return std::make_unique<select_if_u32>(n, s, 2);
  if (name == "unique_u32") return std::make_unique<unique_u32>(n, s);
  if (name == "reduce_by_key_u32_f32") return std::make_unique<by_key_u32_f32>(n, s, false);
  if (name == "inclusive_scan_by_key_u32_f32") return std::make_unique<by_key_u32_f32>(n, s, true);
  if (name == "segmented_reduce_f32") return std::make_unique<segmented_f32>(n, s, false);
  if (name == "segmented_inclusive_scan_f32") return std::make_unique<segmented_f32>(n, s, true);
  if (name == "lower_bound_u32") return std::make_unique<lower_bound_u32>(n, s);
  if (name == "reduce_rec16") return std::make_unique<rec16_case>(n, s, false);
  if (name == "inclusive_scan_rec16") return std::make_unique<rec16_case>(n, s, true);
  if (name == "merge_sort_rec32") return std::make_unique<sort_rec32>(n, s);
  if (name == "reduce_rec36") return std::make_unique<reduce_rec36>(n, s);
  if (name == "reduce_by_key_u32_rec16") return std::make_unique<reduce_by_key_rec16>(n, s);
  if (name == "group_by_u32_rec16") return std::make_unique<group_by_rec16>(n, s);
  if (name == "group_by_u32_stats") return std::make_unique<group_by_u32_stats>(n, s);
  if (name == "reduce_by_key_u32_acc56") return std::make_unique<reduce_by_key_acc56>(n, s);
  if (name == "reduce_by_key_u32_rec28") return std::make_unique<reduce_by_key_rec28>(n, s);
  if (name == "lower_bound_event16") return std::make_unique<lower_bound_event16>(n, s);
  if (name == "sum_of_squares_f32") return std::make_unique<sum_of_squares_f32>(n, s);
  if (name == "count_where_f32") return std::make_unique<count_where_f32>(n, s);
  if (name == "dot_f32") return std::make_unique<dot_f32>(n, s);
  if (name == "argmax_f32") return std::make_unique<argmax_f32>(n, s);
  if (name == "scan_squares_f32") return std::make_unique<scan_squares_f32>(n, s);
  if (name == "transform_rec16_f32") return std::make_unique<transform_rec16_f32>(n, s);
  if (name == "select_expr_f32") return std::make_unique<select_expr_f32>(n, s);
  if (name == "sort_computed_u32") return std::make_unique<sort_computed_u32>(n, s);
  if (name == "select_output_f32") return std::make_unique<select_output_f32>(n, s);
  if (name == "reduce_f16") return std::make_unique<reduce_f16>(n, s);
  if (name == "reduce_nested_zip") return std::make_unique<reduce_nested_zip>(n, s);
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// The measures.

struct options {
  std::string case_name;
  std::vector<std::string> measures;
  int operators = 20;
  int calls = 1000;
  std::size_t n = std::size_t{1} << 20;
};

/// For the measures of the background path (switch, build, drain): direct builds off for the
/// scope (cupar::jit::set_direct_build_budget(0)), so that every new operator gets the quick
/// build and a background one.
class background_path {
 public:
  background_path() : old_(cupar::jit::get_direct_build_budget()) {
    cupar::jit::set_direct_build_budget(0);
  }
  ~background_path() { cupar::jit::set_direct_build_budget(old_); }
  background_path(const background_path&) = delete;
  background_path& operator=(const background_path&) = delete;

 private:
  double old_;
};

class session {
 public:
  session(const options& o, workload& w, cudaStream_t s)
      : opt_(o), w_(w), stream_(s), first_op_(w.make_op(0)) {}

  void run(const std::string& measure) {
    if (measure == "first_call") {
      first_call();
    } else if (measure == "warm") {
      warm();
    } else if (measure == "new_operator") {
      new_operator(false);
    } else if (measure == "new_operator_quiet") {
      new_operator(true);
    } else if (measure == "switch") {
      switch_cost();
    } else if (measure == "build") {
      build_time();
    } else if (measure == "drain") {
      drain();
    }
  }

 private:
  /// One call with `o` and the synchronisation of its stream, timed.
  double timed_call(const op& o) {
    const auto t0 = clock_type::now();
    w_.call(o);
    check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    return seconds_since(t0);
  }

  /// The largest and smallest of a measure's per-operator times, and how many operators.
  std::string spread_fields(const std::vector<double>& t) const {
    return " max_seconds=" + number(*std::max_element(t.begin(), t.end())) +
           " min_seconds=" + number(*std::min_element(t.begin(), t.end())) +
           " operators=" + std::to_string(opt_.operators);
  }

  void print(const char* measure, double seconds, const std::string& fields) {
    std::printf("result case=%s measure=%s mode=%s seconds=%s%s\n", opt_.case_name.c_str(), measure,
                mode_name(cupar::jit::get_mode()), number(seconds).c_str(), fields.c_str());
    std::fflush(stdout);
  }

  /// The case's operator, once: timed when `measured`. Then waits for the optimised build (the
  /// disk cache holds it when this returns) and calls once more, which picks it up.
  void ensure_first_operator(bool measured) {
    if (first_done_) return;
    const cupar::jit::stats s0 = cupar::jit::get_stats();
    const auto t0 = clock_type::now();
    const double seconds = timed_call(first_op_);
    const cupar::jit::stats s1 = cupar::jit::get_stats();
    cupar::jit::wait_for_background_builds();
    const double ready = seconds_since(t0);
    const cupar::jit::stats s2 = cupar::jit::get_stats();
    w_.check();
    first_done_ = true;
    timed_call(first_op_);
    if (measured) {
      print("first_call", seconds,
            " optimized_ready_seconds=" + number(ready) + " stored=" +
                std::to_string(s2.disk_writes - s0.disk_writes) + stats_fields(s0, s1));
    }
  }

  void first_call() { ensure_first_operator(true); }

  void warm() {
    ensure_first_operator(false);
    const cupar::jit::stats s0 = cupar::jit::get_stats();
    std::vector<double> t;
    t.reserve(static_cast<std::size_t>(opt_.calls));
    for (int i = 0; i < opt_.calls; ++i)
      t.push_back(timed_call(first_op_));
    const cupar::jit::stats s1 = cupar::jit::get_stats();
    w_.check();
    print("warm", median(t),
          " min_seconds=" + number(*std::min_element(t.begin(), t.end())) +
              " calls=" + std::to_string(opt_.calls) + stats_fields(s0, s1));
  }

  void new_operator(bool quiet) {
    ensure_first_operator(false);
    const cupar::jit::stats s0 = cupar::jit::get_stats();
    std::vector<double> t;
    for (int i = 1; i <= opt_.operators; ++i) {
      const op o = w_.make_op(next_op_++);
      if (quiet) cupar::jit::wait_for_background_builds();
      t.push_back(timed_call(o));
    }
    const cupar::jit::stats s1 = cupar::jit::get_stats();
    w_.check();
    // Left to the background thread: the optimised builds of the new operators (not waited for;
    // the ones still queued are dropped at exit).
    print(quiet ? "new_operator_quiet" : "new_operator", median(t),
          spread_fields(t) + stats_fields(s0, s1));
  }

  void switch_cost() {
    ensure_first_operator(false);
    const background_path only_background;
    std::vector<double> extra, switching, steady;
    std::uint64_t loads = 0, upgrades = 0;
    for (int i = 1; i <= opt_.operators; ++i) {
      const op o = w_.make_op(next_op_++);
      timed_call(o);  // the quick build
      cupar::jit::wait_for_background_builds();
      const cupar::jit::stats s0 = cupar::jit::get_stats();
      const double t = timed_call(o);
      const cupar::jit::stats s1 = cupar::jit::get_stats();
      loads += s1.loads - s0.loads;
      upgrades += s1.upgrades - s0.upgrades;
      std::vector<double> after;
      for (int k = 0; k < 9; ++k)
        after.push_back(timed_call(o));
      const double m = median(after);
      switching.push_back(t);
      steady.push_back(m);
      extra.push_back(t - m);
    }
    w_.check();
    print("switch", median(extra),
          " max_seconds=" + number(*std::max_element(extra.begin(), extra.end())) +
              " switch_seconds=" + number(median(switching)) + " steady_seconds=" +
              number(median(steady)) + " operators=" + std::to_string(opt_.operators) +
              " loads=" + std::to_string(loads) + " upgrades=" + std::to_string(upgrades));
  }

  /// The optimised build of one new operator at a time (issue 28, item 2): for each of
  /// --operators new operators, from its first call to wait_for_background_builds returning.
  void build_time() {
    ensure_first_operator(false);
    const background_path only_background;
    cupar::jit::wait_for_background_builds();
    std::vector<double> t;
    const cupar::jit::stats s0 = cupar::jit::get_stats();
    for (int i = 1; i <= opt_.operators; ++i) {
      const op o = w_.make_op(next_op_++);
      const auto t0 = clock_type::now();
      timed_call(o);
      cupar::jit::wait_for_background_builds();
      t.push_back(seconds_since(t0));
    }
    const cupar::jit::stats s1 = cupar::jit::get_stats();
    w_.check();
    print("build", median(t), spread_fields(t) + stats_fields(s0, s1));
  }

  /// --operators new operators called one after the other (each call waits only for its quick
  /// build), then wait_for_background_builds: `seconds` is the time from the first call to the
  /// queue drained (every optimised build done, on CUPAR_JIT_BUILD_THREADS threads).
  void drain() {
    ensure_first_operator(false);
    const background_path only_background;
    cupar::jit::wait_for_background_builds();
    const cupar::jit::stats s0 = cupar::jit::get_stats();
    const auto t0 = clock_type::now();
    double calls = 0;
    for (int i = 1; i <= opt_.operators; ++i)
      calls += timed_call(w_.make_op(next_op_++));
    cupar::jit::wait_for_background_builds();
    const double total = seconds_since(t0);
    const cupar::jit::stats s1 = cupar::jit::get_stats();
    w_.check();
    print("drain", total,
          " calls_seconds=" + number(calls) + " operators=" + std::to_string(opt_.operators) +
              stats_fields(s0, s1));
  }

  const options& opt_;
  workload& w_;
  cudaStream_t stream_;
  op first_op_;
  bool first_done_ = false;
  int next_op_ = 1;
};

void usage(std::FILE* f) {
  std::fprintf(
      f,
      "usage: cupar_jit_latency --case CASE [--measure first_call,warm,new_operator,"
      "new_operator_quiet,switch,build,drain]\n"
      "                         [--operators N] [--calls N] [--n N] [--distinct] [--salt S]\n"
      "       cupar_jit_latency --list\n"
      "CASE: see --list. Default measure: "
      "first_call; --operators 20, --calls 1000, --n 1048576.\n"
      "Environment: CUPAR_CACHE_DIR, CUPAR_DISABLE_DISK_CACHE, CUPAR_JIT_MODE (as for "
      "any cupar program), CUDA_CACHE_DISABLE.\n");
}

bool parse_positive(const char* text, long long& out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0) return false;
  out = v;
  return true;
}

/// Parses the arguments; returns an exit status, or -1 to go on.
int parse(int argc, char** argv, options& o) {
  std::string measures = "first_call";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "cupar_jit_latency: %s needs a value\n", a.c_str());
        return nullptr;
      }
      return argv[++i];
    };
    long long v = 0;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--distinct") {
      g_distinct = true;
    } else if (a == "--salt") {
      const char* t = value();
      if (t == nullptr) return exit_usage;
      g_salt = t;
      if (g_salt.empty() || g_salt.find_first_of("\"\\\n") != std::string::npos) {
        std::fprintf(stderr, "cupar_jit_latency: --salt wants a word, not '%s'\n", t);
        return exit_usage;
      }
    } else if (a == "--list") {
      for (const char* c : case_names)
        std::printf("%s\n", c);
      return 0;
    } else if (a == "--case") {
      const char* c = value();
      if (c == nullptr) return exit_usage;
      o.case_name = c;
    } else if (a == "--measure") {
      const char* m = value();
      if (m == nullptr) return exit_usage;
      measures = m;
    } else if (a == "--operators" || a == "--calls" || a == "--n") {
      const char* t = value();
      if (t == nullptr) return exit_usage;
      if (!parse_positive(t, v)) {
        std::fprintf(stderr, "cupar_jit_latency: %s wants a positive integer, not '%s'\n",
                     a.c_str(), t);
        return exit_usage;
      }
      if (a == "--operators") o.operators = static_cast<int>(std::min(v, 100000LL));
      if (a == "--calls") o.calls = static_cast<int>(std::min(v, 100000000LL));
      if (a == "--n") o.n = static_cast<std::size_t>(v);
    } else {
      std::fprintf(stderr, "cupar_jit_latency: unknown argument '%s'\n", a.c_str());
      usage(stderr);
      return exit_usage;
    }
  }
  bool known_case = false;
  for (const char* c : case_names)
    known_case = known_case || o.case_name == c;
  if (!known_case) {
    std::fprintf(stderr, "cupar_jit_latency: %s\n",
                 o.case_name.empty() ? "--case is required"
                                     : ("unknown case '" + o.case_name + "'").c_str());
    usage(stderr);
    return exit_usage;
  }
  std::size_t start = 0;
  while (start <= measures.size()) {
    const std::size_t comma = std::min(measures.find(',', start), measures.size());
    const std::string m = measures.substr(start, comma - start);
    if (m != "first_call" && m != "warm" && m != "new_operator" && m != "new_operator_quiet" &&
        m != "switch" && m != "build" && m != "drain") {
      std::fprintf(stderr,
                   "cupar_jit_latency: unknown measure '%s' (first_call, warm, new_operator, "
                   "new_operator_quiet, switch, build, drain)\n",
                   m.c_str());
      return exit_usage;
    }
    o.measures.push_back(m);
    start = comma + 1;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  options opt;
  if (const int status = parse(argc, argv, opt); status >= 0) return status;

  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    const std::string why = e != cudaSuccess
                                ? std::string("no usable CUDA device (") + cudaGetErrorName(e) + ")"
                                : std::string("no CUDA device");
    std::fprintf(stderr, "cupar_jit_latency: needs a GPU: %s; nothing measured\n", why.c_str());
    return exit_no_gpu;
  }
  try {
    // CUDA initialised, the stream made, the data on the device and cupar's memory pool grown
    // before anything is timed.
    check_cuda(cudaFree(nullptr), "cudaFree");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
               "cudaStreamCreateWithFlags");
    {
      std::unique_ptr<workload> w = make_workload(opt.case_name, opt.n, stream);
      const std::size_t pool_bytes = std::size_t{256} << 20;
      void* p = cupar::default_resource().allocate(pool_bytes, stream);
      cupar::default_resource().deallocate(p, pool_bytes, stream);
      check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
      std::printf(
          "# cupar_jit_latency: case %s, n %zu, mode %s, disk cache %s\n", opt.case_name.c_str(),
          opt.n, mode_name(cupar::jit::get_mode()),
          cupar::jit::cache_directory().empty() ? "off" : cupar::jit::cache_directory().c_str());
      std::fflush(stdout);
      session run(opt, *w, stream);
      for (const std::string& m : opt.measures)
        run.run(m);
    }
    check_cuda(cudaStreamDestroy(stream), "cudaStreamDestroy");
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "cupar_jit_latency: error (case %s): %s\n", opt.case_name.c_str(),
                 ex.what());
    return exit_error;
  }
  return 0;
}
