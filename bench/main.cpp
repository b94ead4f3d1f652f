// cupar benchmarks: the driver. Registers every row of rows.hpp, prints a one-line header with
// the GPU (name, SMs, clocks, driver) and adds the same facts to the JSON context, then runs
// Google Benchmark. Output is line-buffered so a long run shows each row as it finishes, also
// when piped through tee.
#include "common.hpp"
#include "rows.hpp"

#include <cupar/config.hpp>
#include <cupar/jit.hpp>

#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace {

using namespace cupar_bench;

enum class size_set { gpu, cpu_seq, cpu_omp, host_overhead, once };

struct row {
  const char* family;
  const char* impl;
  const char* type;
  void (*fn)(benchmark::State&);
  size_set sizes;
};

#define CUPAR_BENCH_ROW_ENTRY(family, impl, type, sizes) \
  row{#family, #impl, #type, &cupar_bench::family##_##impl##_##type, size_set::sizes},
const row all_rows[] = {CUPAR_BENCH_ROWS(CUPAR_BENCH_ROW_ENTRY)};
#undef CUPAR_BENCH_ROW_ENTRY

std::vector<std::int64_t> sizes_of(size_set s) {
  switch (s) {
    case size_set::gpu:
      return gpu_sizes();
    case size_set::cpu_seq:
      return cpu_seq_sizes();
    case size_set::cpu_omp:
      return cpu_omp_sizes();
    case size_set::host_overhead:
      return host_overhead_sizes();
    case size_set::once:
      return {};
  }
  return {};
}

/// GPU rows at n <= small_rows_max_n run for small_min_time seconds of GPU time instead of
/// --benchmark_min_time (a tenth of it unless --cupar_small_min_time says otherwise): one call
/// there takes 5-20 us of GPU time and 30-60 us of the host's (the hold, the events, the wait), so
/// Google Benchmark's rule ran 8,000-11,000 calls a row for 0.05 s, most of the suite's time, where
/// the median of about a thousand calls is the same figure.
constexpr std::int64_t small_rows_max_n = std::int64_t{1} << 20;

void register_rows(double small_min_time) {
  for (const row& r : all_rows) {
    const std::string name = std::string(r.family) + "/" + r.impl + "/" + r.type;
    // Thrust synchronises inside some calls (a reduce returns its value to the host), and so
    // does CUB's DeviceSegmentedSort (it reads the number of large segments back to the host),
    // which a held stream would turn into a wait for the hold's timeout: their rows run on an
    // idle stream.
    // So do the group-by and join rows (every route returns its number of groups or pairs), and
    // top_k with a run-time comparator (the number of candidates sizes their sort): its rows,
    // and the full sort they are compared with, run on an idle stream.
    const bool jit_top_k = std::string(r.family).rfind("top_k", 0) == 0 &&
                           std::string(r.impl).rfind("cupar_jit", 0) == 0;
    const bool hold = std::string(r.impl) != "thrust" &&
                      std::string(r.family) != "segmented_sort_keys" &&
                      std::string(r.family).rfind("group_by", 0) != 0 &&
                      std::string(r.family) != "join" && !jit_top_k;
    void (*fn)(benchmark::State&) = r.fn;
    auto add = [&] {
      benchmark::internal::Benchmark* b =
          benchmark::RegisterBenchmark(name.c_str(), [fn, hold](benchmark::State& state) {
            set_hold_stream(hold);
            fn(state);
          });
      b->Unit(benchmark::kMicrosecond);
      if (r.sizes == size_set::host_overhead) {
        b->UseRealTime();
      } else if (r.sizes == size_set::once) {
        // A measurement made outside the benchmark loop (jit_latency: fresh processes): one
        // iteration, its time set by the row.
        b->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
      } else {
        b->UseManualTime();
      }
      return b;
    };
    if (r.sizes != size_set::gpu) {
      benchmark::internal::Benchmark* b = add();
      for (const std::int64_t n : sizes_of(r.sizes))
        b->Arg(n);
      continue;
    }
    // One registration per size (Google Benchmark's minimum time is a registration's), in the
    // same order, under the same names.
    for (const std::int64_t n : sizes_of(r.sizes)) {
      benchmark::internal::Benchmark* b = add()->Arg(n);
      if (n <= small_rows_max_n) b->MinTime(small_min_time);
    }
  }
}

/// The value of `--flag=S` (seconds) in argv, or `fallback`; with `remove`, the argument is taken
/// out of argv (cupar_bench's own flags, which Google Benchmark would report as unrecognised).
double seconds_flag(int& argc, char** argv, const char* flag, double fallback, bool remove) {
  const std::size_t len = std::strlen(flag);
  double value = fallback;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, len) != 0 || argv[i][len] != '=') continue;
    char* end = nullptr;
    const double v = std::strtod(argv[i] + len + 1, &end);
    if (end == argv[i] + len + 1 || *end != '\0' || !(v > 0)) {
      throw std::invalid_argument(std::string(flag) + ": a positive number of seconds, not '" +
                                  (argv[i] + len + 1) + "'");
    }
    value = v;
    if (remove) {
      for (int j = i; j + 1 < argc; ++j)
        argv[j] = argv[j + 1];
      --argc;
      --i;
    }
  }
  return value;
}

// ---- the machine ------------------------------------------------------------------------------

/// What NVML says (loaded with dlopen: the benchmark runs, without these facts, where the
/// driver's libnvidia-ml is missing).
struct nvml_facts {
  std::string driver;
  unsigned sm_clock_now = 0, sm_clock_max = 0, mem_clock_now = 0;
};

nvml_facts query_nvml(const char* pci_bus_id) {
  nvml_facts f;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return f;
  using init_fn = int (*)();
  using shutdown_fn = int (*)();
  using driver_fn = int (*)(char*, unsigned);
  using handle_fn = int (*)(const char*, void**);
  using clock_fn = int (*)(void*, int, unsigned*);
  auto init = reinterpret_cast<init_fn>(dlsym(lib, "nvmlInit_v2"));
  auto shutdown = reinterpret_cast<shutdown_fn>(dlsym(lib, "nvmlShutdown"));
  auto driver = reinterpret_cast<driver_fn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto handle = reinterpret_cast<handle_fn>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock = reinterpret_cast<clock_fn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  auto max_clock = reinterpret_cast<clock_fn>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  if (init != nullptr && shutdown != nullptr && init() == 0) {
    char version[96] = {};
    if (driver != nullptr && driver(version, sizeof(version)) == 0) f.driver = version;
    void* dev = nullptr;
    if (handle != nullptr && handle(pci_bus_id, &dev) == 0) {
      constexpr int nvml_clock_sm = 1, nvml_clock_mem = 2;
      if (clock != nullptr) {
        (void)clock(dev, nvml_clock_sm, &f.sm_clock_now);
        (void)clock(dev, nvml_clock_mem, &f.mem_clock_now);
      }
      if (max_clock != nullptr) (void)max_clock(dev, nvml_clock_sm, &f.sm_clock_max);
    }
    (void)shutdown();
  }
  dlclose(lib);
  return f;
}

std::string cuda_version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

int cpu_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

void context(const char* key, const std::string& value) {
  benchmark::AddCustomContext(key, value);
}

/// Prints the header line and records the same facts in the JSON context.
void describe_machine(bool print) {
  context("cupar_version", cupar::version());
  // The JIT mode the cupar_jit rows ran in (CUPAR_JIT_MODE=fast: the out-of-line tier-1 build).
  const cupar::jit::mode mode = cupar::jit::get_mode();
  context("cupar_jit_mode", mode == cupar::jit::mode::fast        ? "fast"
                            : mode == cupar::jit::mode::optimized ? "optimized"
                                                                  : "tiered");
  context("cccl_version", cccl_version());
  context("cpu_model", cpu_model());
  context("cpu_threads", std::to_string(cpu_threads()));
  if (!gpu_available()) {
    context("gpu", "none: " + gpu_unavailable_reason());
    if (print) {
      std::printf(
          "cupar_bench: no GPU (%s): GPU rows are reported as errors | cupar %s, CCCL %s | "
          "CPU: %s, %d OpenMP threads\n",
          gpu_unavailable_reason().c_str(), cupar::version(), cccl_version().c_str(),
          cpu_model().c_str(), cpu_threads());
    }
    return;
  }
  int device = 0;
  CUPAR_BENCH_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CUPAR_BENCH_CUDA(cudaGetDeviceProperties(&prop, device));
  auto attr = [&](cudaDeviceAttr a) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, device) != cudaSuccess) (void)cudaGetLastError();
    return v;
  };
  const int sm_clock_khz = attr(cudaDevAttrClockRate);
  const int mem_clock_khz = attr(cudaDevAttrMemoryClockRate);
  const int bus_bits = attr(cudaDevAttrGlobalMemoryBusWidth);
  int driver = 0, runtime = 0;
  (void)cudaDriverGetVersion(&driver);
  (void)cudaRuntimeGetVersion(&runtime);
  char bus_id[32] = {};
  (void)cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), device);
  const nvml_facts nvml = query_nvml(bus_id);

  const std::string arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  context("gpu", prop.name);
  context("gpu_arch", arch);
  context("gpu_sms", std::to_string(prop.multiProcessorCount));
  context("gpu_sm_clock_max_mhz", std::to_string(sm_clock_khz / 1000));
  context("gpu_sm_clock_now_mhz", std::to_string(nvml.sm_clock_now));
  context("gpu_mem_clock_mhz", std::to_string(mem_clock_khz / 1000));
  context("gpu_mem_bus_bits", std::to_string(bus_bits));
  context("gpu_l2_bytes", std::to_string(l2_cache_bytes()));
  context("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
  context("nvidia_driver", nvml.driver.empty() ? "unknown" : nvml.driver);
  context("cuda_driver", cuda_version_string(driver));
  context("cuda_runtime", cuda_version_string(runtime));
  if (print) {
    std::printf(
        "cupar_bench: GPU %d %s (%s, %d SMs, SM clock %d MHz max, %u MHz now, memory %d MHz x "
        "%d bit, L2 %zu MiB, %.1f GiB) | driver %s (CUDA %s), runtime %s | cupar %s, CCCL %s | "
        "CPU: %s, %d OpenMP threads\n",
        device, prop.name, arch.c_str(), prop.multiProcessorCount, sm_clock_khz / 1000,
        nvml.sm_clock_now, mem_clock_khz / 1000, bus_bits, l2_cache_bytes() >> 20,
        static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0),
        nvml.driver.empty() ? "?" : nvml.driver.c_str(), cuda_version_string(driver).c_str(),
        cuda_version_string(runtime).c_str(), cupar::version(), cccl_version().c_str(),
        cpu_model().c_str(), cpu_threads());
  }
}

/// Creates the context and the stream before the first row, and raises the release threshold of
/// the device's default memory pool as cupar's default resource does on its first allocation,
/// so that rows allocating with cudaMallocAsync (cub_malloc_async, and cupar itself) find the same
/// pool behaviour whichever row runs first.
void prepare_gpu() {
  if (!gpu_available()) return;
  int device = 0;
  CUPAR_BENCH_CUDA(cudaGetDevice(&device));
  CUPAR_BENCH_CUDA(cudaFree(nullptr));
  cudaMemPool_t pool = nullptr;
  CUPAR_BENCH_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t threshold = UINT64_MAX;
  CUPAR_BENCH_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  (void)bench_stream();
}

bool has_flag(int argc, char** argv, const char* flag) {
  const std::size_t len = std::strlen(flag);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, len) == 0) {
      const char* rest = argv[i] + len;
      if (*rest == '\0') return true;
      if (*rest == '=') {
        return std::strcmp(rest + 1, "false") != 0 && std::strcmp(rest + 1, "0") != 0;
      }
    }
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Line-buffered stdout: each result row appears when it is done, also through a pipe.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const auto start = std::chrono::steady_clock::now();
  std::string command = argv[0];
  for (int i = 1; i < argc; ++i)
    command += std::string(" ") + argv[i];
  const bool listing = has_flag(argc, argv, "--benchmark_list_tests");

  try {
    prepare_gpu();
    describe_machine(!listing);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cupar_bench: %s\n", e.what());
    return 1;
  }
  context("bench_command", command);
  if (const char* invocation = std::getenv("CUPAR_BENCH_INVOCATION")) {
    context("invocation", invocation);  // set by scripts/run-benchmarks.sh
  }

  double small_min_time = 0;
  try {
    // Google Benchmark's default minimum time is 0.5 s.
    const double min_time = seconds_flag(argc, argv, "--benchmark_min_time", 0.5, false);
    small_min_time = seconds_flag(argc, argv, "--cupar_small_min_time", min_time / 10, true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cupar_bench: %s\n", e.what());
    return 2;
  }
  context("small_min_time", std::to_string(small_min_time));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_rows(small_min_time);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!listing) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("cupar_bench: done in %.1f s\n", seconds);
  }
  return 0;
}
