// cupar benchmarks: what every benchmark shares. Host-only (any C++17 compiler): a benchmark row
// for a run-time (JIT) operator can be written in a .cpp translation unit.
//
// Method (../shared/guide/PERFORMANCE.md, "How to measure"):
// - GPU rows run on the benchmarks' own non-blocking stream and are timed with CUDA events around
//   the call, one timed run per Google Benchmark iteration, reported as manual time; untimed
//   warm-up runs come first (kernel loading, memory pool growth, clocks).
// - Data is random, generated on the GPU by a hash of (seed, index) (data.hpp), never a constant
//   fill; every row of a family gets the same values, GPU and CPU.
// - Inputs smaller than about twice the L2 cache are rotated (see rotation_sets).
// - Bytes processed count each input element read once and each output element written once;
//   items processed count the n elements (keys for sorts, samples for histograms).
// - Besides Google Benchmark's mean, each row reports the median time of its timed runs as the
//   counter `median_us`; the report uses the median.
#pragma once

#include "data.hpp"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cupar_bench {

// ---------------------------------------------------------------------------------------------
// Errors: every failure becomes an exception, turned into SkipWithError by run_guarded.

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                   int line);

#define CUPAR_BENCH_CUDA(call)                                                         \
  do {                                                                                 \
    const cudaError_t cupar_bench_status_ = (call);                                    \
    if (cupar_bench_status_ != cudaSuccess) {                                          \
      ::cupar_bench::throw_cuda_error(cupar_bench_status_, #call, __FILE__, __LINE__); \
    }                                                                                  \
  } while (0)

// ---------------------------------------------------------------------------------------------
// The GPU and the benchmark stream.

/// Empty when a CUDA device is usable, else why not (GPU rows then skip with this reason).
const std::string& gpu_unavailable_reason();
inline bool gpu_available() {
  return gpu_unavailable_reason().empty();
}

/// The benchmarks' own stream (non-blocking, created once). Every GPU row runs on it.
cudaStream_t bench_stream();

/// L2 cache size of the device (50 MB on the H100).
std::size_t l2_cache_bytes();

/// Overwrites a scratch buffer of twice the L2 size on `stream`, evicting whatever the L2 holds.
/// Used after restoring the input of an in-place sort, outside the timed region.
void flush_l2(cudaStream_t stream);

/// Holds a stream with a spinning kernel while a timed call is enqueued, so the events around the
/// call measure GPU time only, not the host's launch latency or the library's host work between
/// launches (the method of NVIDIA's nvbench, "blocking kernel"). begin() queues the kernel;
/// release() lets it finish; the kernel gives up by itself after `timeout_ms` (a call that
/// synchronises its stream inside would otherwise wait for ever), and timed_out() then says the
/// measurement is void. One per thread of the benchmark process.
class stream_hold {
 public:
  stream_hold();
  ~stream_hold();
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;
  void begin(cudaStream_t stream, double timeout_ms = 200.0);
  void release();
  bool timed_out() const;

 private:
  volatile int* host_ = nullptr;  // [0]: release, [1]: timed out (mapped pinned memory)
  int* device_ = nullptr;
};

/// Whether GPU rows are timed with the stream held (default) or between events on an idle stream
/// (launch latency included). The driver sets it per row: Thrust rows synchronise inside some
/// calls (a reduce returns its value to the host) and are timed on an idle stream.
void set_hold_stream(bool hold);
bool hold_stream();
/// The calling thread's stream_hold.
stream_hold& thread_stream_hold();

/// `count_unsorted(d, n)`: number of i with d[i + 1] < d[i]. Synchronises the stream.
/// Instantiated in common.cu for float and std::int32_t, uint32_t, uint64_t, uint8_t, the
/// records of records.hpp (rec16, rec28, rec32), __half, __nv_bfloat16 and bool.
template <class T>
std::size_t count_unsorted(const T* d, std::size_t n, cudaStream_t stream);

/// Fills d[0, n) with value_generator<T>{seed, range}(i) on `stream` (instantiated for the same
/// types as count_unsorted).
template <class T>
void fill_device(T* d, std::size_t n, std::uint64_t seed, value_range range, cudaStream_t stream);

/// "3.0.1": the CCCL (CUB/Thrust) version the benchmarks were compiled with.
std::string cccl_version();

// Seeds of the arrays: every implementation of a family reads the same values.
inline constexpr std::uint64_t seed_input = 1;   // first (or only) input, sort keys
inline constexpr std::uint64_t seed_input2 = 2;  // second input of binary transforms
inline constexpr std::uint64_t seed_values = 3;  // sort values

// ---------------------------------------------------------------------------------------------
// Sizes. Every GPU row runs at 2^10, 2^12, ..., 2^28; copy/cuda_memcpy runs at the same sizes so
// the report can compare each row with the device's copy bandwidth at the same n.

inline std::vector<std::int64_t> pow4_sizes(int log2_first, int log2_last) {
  std::vector<std::int64_t> v;
  for (int e = log2_first; e <= log2_last; e += 2)
    v.push_back(std::int64_t{1} << e);
  return v;
}
inline std::vector<std::int64_t> gpu_sizes() {
  return pow4_sizes(10, 28);
}
/// The sequential CPU baseline stops at 2^26 to keep runs short (its sorts take seconds there).
inline std::vector<std::int64_t> cpu_seq_sizes() {
  return pow4_sizes(10, 26);
}
inline std::vector<std::int64_t> cpu_omp_sizes() {
  return pow4_sizes(10, 28);
}
/// Host overhead: loops of calls on 1,024 elements.
inline std::vector<std::int64_t> host_overhead_sizes() {
  return {1024};
}

inline std::size_t size_arg(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(0));
}

// ---------------------------------------------------------------------------------------------
// Device memory.

/// cudaMalloc'd storage for n elements (not stream-ordered: allocated and freed outside any
/// timed region). Move-only.
template <class T>
class device_array {
 public:
  device_array() = default;
  explicit device_array(std::size_t n) : n_(n) {
    if (n == 0) return;
    void* p = nullptr;
    const cudaError_t status = cudaMalloc(&p, n * sizeof(T));
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // an out-of-memory error is not sticky: keep later rows working
      throw_cuda_error(status, "cudaMalloc", __FILE__, __LINE__);
    }
    p_ = static_cast<T*>(p);
  }
  device_array(device_array&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  device_array& operator=(device_array&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;
  ~device_array() {
    if (p_ != nullptr) (void)cudaFree(p_);
  }
  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

/// Bytes of n elements rounded up to 256 (the alignment of each rotated copy).
template <class T>
constexpr std::size_t padded_bytes(std::size_t n) {
  return (n * sizeof(T) + 255) / 256 * 256;
}

/// How many copies ("sets") of a benchmark's arrays to rotate through.
///
/// Inputs smaller than the L2 cache (50 MB on the H100) would be served from L2 when the same
/// buffers are timed run after run, overstating the bandwidth a real caller sees. Each GPU row
/// therefore keeps `sets` copies of all its arrays (inputs and outputs), at least twice the L2
/// size in all, and uses the next set for each run: by the time a set comes round again the
/// others have streamed through the L2 and evicted it. Arrays of 2 x L2 and more use one set.
inline std::size_t rotation_sets(std::size_t bytes_per_set) {
  const std::size_t target = 2 * l2_cache_bytes();
  if (bytes_per_set == 0 || bytes_per_set >= target) return 1;
  return (target + bytes_per_set - 1) / bytes_per_set;
}

/// `sets` copies of n elements of T, each starting on a 256-byte boundary, in one allocation
/// (the copies' stride a multiple of the elements that span a whole number of 256-byte blocks:
/// 256 / sizeof(T) where that divides, 64 for a 28-byte record).
template <class T>
class rotating {
  static constexpr std::size_t gcd(std::size_t a, std::size_t b) {
    return b == 0 ? a : gcd(b, a % b);
  }
  static constexpr std::size_t unit = 256 / gcd(256, sizeof(T));

 public:
  rotating(std::size_t n, std::size_t sets)
      : n_(n), stride_((n + unit - 1) / unit * unit), sets_(sets), data_(stride_ * sets) {}
  /// Copy `set` (taken modulo the number of sets).
  T* operator[](std::size_t set) const { return data_.get() + (set % sets_) * stride_; }
  std::size_t sets() const noexcept { return sets_; }
  /// Random values in every copy (each copy gets different values of the same distribution).
  void fill(std::uint64_t seed, value_range range, cudaStream_t stream) {
    fill_device(data_.get(), data_.size(), seed, range, stream);
  }

 private:
  std::size_t n_, stride_, sets_;
  device_array<T> data_;
};

/// Temporary storage for CUB called directly: sized and allocated (cudaMalloc) by the first call,
/// which is a warm-up run, and reused by the timed runs, so no allocation is timed.
class cub_temp {
 public:
  /// f(void* temp, std::size_t& bytes) -> cudaError_t: a CUB two-phase call.
  template <class F>
  void run(F&& f) {
    if (!ready_) {
      std::size_t bytes = 0;
      CUPAR_BENCH_CUDA(f(nullptr, bytes));
      buffer_ = device_array<unsigned char>(bytes == 0 ? 1 : bytes);
      bytes_ = bytes;
      ready_ = true;
    }
    std::size_t bytes = bytes_;
    CUPAR_BENCH_CUDA(f(static_cast<void*>(buffer_.get()), bytes));
  }

 private:
  device_array<unsigned char> buffer_;
  std::size_t bytes_ = 0;
  bool ready_ = false;
};

// ---------------------------------------------------------------------------------------------
// Timing and counters.

/// CUDA events on one stream: start(), record_stop(), then elapsed() waits for the stop event.
class event_timer {
 public:
  event_timer() {
    CUPAR_BENCH_CUDA(cudaEventCreate(&start_));
    CUPAR_BENCH_CUDA(cudaEventCreate(&stop_));
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  ~event_timer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  void start(cudaStream_t s) { CUPAR_BENCH_CUDA(cudaEventRecord(start_, s)); }
  void record_stop(cudaStream_t s) { CUPAR_BENCH_CUDA(cudaEventRecord(stop_, s)); }
  /// Seconds between start() and the stop event recorded before (waits for it).
  double elapsed() {
    CUPAR_BENCH_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    CUPAR_BENCH_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// Times of the timed runs of one benchmark call.
class run_times {
 public:
  void add(double seconds) { t_.push_back(seconds); }
  double median() const {
    if (t_.empty()) return 0;
    std::vector<double> s = t_;
    const std::size_t mid = s.size() / 2;
    std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(mid), s.end());
    double m = s[mid];
    if (s.size() % 2 == 0) {
      m = (m + *std::max_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
    }
    return m;
  }
  double min() const { return t_.empty() ? 0 : *std::min_element(t_.begin(), t_.end()); }

 private:
  std::vector<double> t_;
};

/// What one run processes: n items and the bytes read once plus written once.
struct work {
  std::size_t n;
  double bytes;
};

/// Sets bytes/items processed and the counters the report reads: n, bytes (per run), median_us,
/// min_us and sets (the number of rotated copies).
inline void set_counters(benchmark::State& state, const work& w, const run_times& times,
                         std::size_t sets) {
  const auto iterations = static_cast<std::int64_t>(state.iterations());
  state.SetItemsProcessed(iterations * static_cast<std::int64_t>(w.n));
  state.SetBytesProcessed(iterations * static_cast<std::int64_t>(w.bytes));
  state.counters["n"] = benchmark::Counter(static_cast<double>(w.n));
  state.counters["bytes"] = benchmark::Counter(w.bytes);
  state.counters["median_us"] = benchmark::Counter(times.median() * 1e6);
  state.counters["min_us"] = benchmark::Counter(times.min() * 1e6);
  state.counters["sets"] = benchmark::Counter(static_cast<double>(sets));
}

/// Runs a benchmark body; a GPU row without a GPU, or any exception (CUDA error, cupar error,
/// wrong result), becomes SkipWithError with the reason, so one failing row does not end the run.
template <class Body>
void run_guarded(benchmark::State& state, bool needs_gpu, Body&& body) {
  if (needs_gpu && !gpu_available()) {
    state.SkipWithError(("needs a GPU: " + gpu_unavailable_reason()).c_str());
    return;
  }
  try {
    body();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  } catch (...) {
    state.SkipWithError("unknown exception");
  }
}

struct no_prepare {
  void operator()(std::size_t) const {}
};

inline constexpr std::size_t warmup_runs = 3;

/// Times `run(set)` on the benchmark stream with CUDA events: warmup_runs untimed runs, then one
/// timed run per benchmark iteration, using the rotated sets in turn. `prepare(set)` runs before
/// each run, outside the timed region (it is queued before the start event): restoring the
/// input of an in-place sort, for example. Unless the row opted out (set_hold_stream), the stream
/// is held by a stream_hold while the start event, the call and the stop event are enqueued, so
/// the time is the GPU's alone; the host's share is what the host_overhead rows measure.
template <class Run, class Prepare = no_prepare>
void time_gpu(benchmark::State& state, const work& w, std::size_t sets, Run&& run,
              Prepare&& prepare = Prepare{}) {
  const cudaStream_t s = bench_stream();
  for (std::size_t i = 0; i < warmup_runs; ++i) {
    prepare(i % sets);
    run(i % sets);
  }
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(s));
  CUPAR_BENCH_CUDA(cudaGetLastError());
  event_timer timer;
  run_times times;
  const bool held = hold_stream();
  stream_hold& hold = thread_stream_hold();
  std::size_t set = warmup_runs % sets;
  for (auto _ : state) {
    prepare(set);
    if (held) hold.begin(s);
    timer.start(s);
    run(set);
    timer.record_stop(s);
    if (held) hold.release();
    const double seconds = timer.elapsed();
    if (held && hold.timed_out()) {
      throw std::runtime_error(
          "the call waited for its own stream while it was held (time void); time this row on "
          "an idle stream (set_hold_stream(false))");
    }
    state.SetIterationTime(seconds);
    times.add(seconds);
    set = set + 1 == sets ? 0 : set + 1;
  }
  CUPAR_BENCH_CUDA(cudaGetLastError());
  set_counters(state, w, times, sets);
}

/// Times `run()` on the host with a steady clock, `prepare()` untimed before each run (the CPU
/// rows: restoring a sort's input). One untimed warm-up run when it is cheap (n <= 2^22).
template <class Run, class Prepare>
void time_cpu(benchmark::State& state, const work& w, Run&& run, Prepare&& prepare) {
  using clock = std::chrono::steady_clock;
  if (w.n <= (std::size_t{1} << 22)) {
    prepare();
    run();
  }
  run_times times;
  for (auto _ : state) {
    prepare();
    const auto t0 = clock::now();
    run();
    benchmark::ClobberMemory();
    const double seconds = std::chrono::duration<double>(clock::now() - t0).count();
    state.SetIterationTime(seconds);
    times.add(seconds);
  }
  set_counters(state, w, times, 1);
}

/// Host overhead: each iteration enqueues `calls` calls of `call(i)` on the benchmark stream and
/// synchronises the stream once at the end; the row's time is wall-clock time (UseRealTime).
/// Counters: us_per_call (wall time of the loop including the final synchronisation, per call)
/// and enqueue_us_per_call (the loop alone, before the synchronisation). When the GPU needs
/// longer per call than the host, us_per_call measures the GPU instead; enqueue_us_per_call is
/// then the host's figure.
inline constexpr int host_overhead_calls = 1000;

template <class Call>
void time_host_overhead(benchmark::State& state, std::size_t n, Call&& call) {
  using clock = std::chrono::steady_clock;
  const cudaStream_t s = bench_stream();
  for (int i = 0; i < host_overhead_calls; ++i)
    call(i);  // warm-up: one whole loop
  CUPAR_BENCH_CUDA(cudaStreamSynchronize(s));
  CUPAR_BENCH_CUDA(cudaGetLastError());
  double total = 0, enqueue = 0;
  run_times times;
  for (auto _ : state) {
    const auto t0 = clock::now();
    for (int i = 0; i < host_overhead_calls; ++i)
      call(i);
    const auto t1 = clock::now();
    CUPAR_BENCH_CUDA(cudaStreamSynchronize(s));
    const auto t2 = clock::now();
    total += std::chrono::duration<double>(t2 - t0).count();
    enqueue += std::chrono::duration<double>(t1 - t0).count();
    times.add(std::chrono::duration<double>(t2 - t0).count());
  }
  CUPAR_BENCH_CUDA(cudaGetLastError());
  const double calls = static_cast<double>(state.iterations()) * host_overhead_calls;
  state.counters["n"] = benchmark::Counter(static_cast<double>(n));
  state.counters["calls"] = benchmark::Counter(host_overhead_calls);
  state.counters["us_per_call"] = benchmark::Counter(calls > 0 ? total / calls * 1e6 : 0);
  state.counters["enqueue_us_per_call"] = benchmark::Counter(calls > 0 ? enqueue / calls * 1e6 : 0);
  state.counters["median_us_per_call"] =
      benchmark::Counter(times.median() / host_overhead_calls * 1e6);
}

}  // namespace cupar_bench
