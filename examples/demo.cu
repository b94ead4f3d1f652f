// cupar demo: every algorithm family, with a C++ lambda and with a run-time (JIT) snippet, on
// generated data, each result checked against the CPU's std:: algorithm, printed as a table.
//
//   cupar_demo [n]        n: number of elements (default 2^26)
//
// Without a GPU it shows that the run-time compiler works (it needs none) and exits with status 1.
#include <cupar/cupar.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct row {
  std::string family, op;
  double gpu_ms, cpu_ms;
  bool ok;
  std::string note;
};

class event_timer {
 public:
  explicit event_timer(cudaStream_t s) : s_(s) {
    cudaEventCreate(&a_);
    cudaEventCreate(&b_);
  }
  ~event_timer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  /// Median GPU time of `reps` runs of f (after one untimed run), in milliseconds.
  template <class F>
  double time(F&& f, int reps = 5) {
    f();
    std::vector<float> t;
    for (int i = 0; i < reps; ++i) {
      cudaEventRecord(a_, s_);
      f();
      cudaEventRecord(b_, s_);
      cudaEventSynchronize(b_);
      float ms = 0;
      cudaEventElapsedTime(&ms, a_, b_);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

 private:
  cudaStream_t s_;
  cudaEvent_t a_{}, b_{};
};

template <class F>
double cpu_ms(F&& f) {
  const auto t0 = clock_type::now();
  f();
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// The lambdas live in named functions (nvcc's rule for extended __device__ lambdas).
void reduce_lambda(const float* in, float* out, std::size_t n, cudaStream_t s) {
  cupar::reduce(
      in, out, n, [] __device__(float a, float b) { return a + b; }, 0.0f, s);
}
void scan_lambda(const int* in, int* out, std::size_t n, cudaStream_t s) {
  cupar::inclusive_scan(
      in, out, n, [] __device__(int a, int b) { return a + b; }, s);
}
void sort_lambda(const float* in, float* out, std::size_t n, cudaStream_t s) {
  cupar::sort_keys(
      in, out, n, [] __device__(float a, float b) { return a > b; }, s);
}
void transform_lambda(const float* in, float* out, std::size_t n, cudaStream_t s) {
  cupar::transform(
      in, out, n, [] __device__(float x) { return x * 2.0f + 1.0f; }, s);
}
void histogram_lambda(const float* in, unsigned* hist, std::size_t n, cudaStream_t s) {
  cupar::histogram_even(
      in, hist, 257, 1.0f, 2.0f, n, [] __device__(float x) { return x * 0.5f + 1.0f; }, s);
}

void print(const std::vector<row>& rows, std::size_t n) {
  std::printf("\ncupar demo, n = %zu elements\n\n", n);
  std::printf("%-22s %-28s %10s %10s %9s  %s\n", "algorithm", "operator", "GPU ms", "CPU ms",
              "speed-up", "matches CPU");
  std::printf("%s\n", std::string(98, '-').c_str());
  for (const auto& r : rows) {
    std::printf("%-22s %-28s %10.3f %10.1f %8.0fx  %s%s\n", r.family.c_str(), r.op.c_str(),
                r.gpu_ms, r.cpu_ms, r.cpu_ms / r.gpu_ms, r.ok ? "yes" : "NO",
                r.note.empty() ? "" : ("  (" + r.note + ")").c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : (std::size_t(1) << 26);
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    const auto t0 = clock_type::now();
    const auto report = cupar::jit::compile_reduce<float>(cupar::jit::op("a + b"), 90, false);
    const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
    std::printf(
        "No CUDA GPU is available (%s), so the demo cannot run the algorithms; the run-time "
        "compiler itself works: it built the operator \"a + b\" into CUB's reduce kernels "
        "for sm_90 (%zu bytes) in %.0f ms.\n",
        probe != cudaSuccess ? cudaGetErrorString(probe) : "no device", report.cubin_bytes, ms);
    return 1;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("GPU: %s (%d SMs); cupar %s\n", prop.name, prop.multiProcessorCount,
              cupar::version());

  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  bool all = false;
  {  // device buffers give their memory back on the stream: destroy them before it
    event_timer timer(stream);
    std::vector<row> rows;
    std::mt19937 rng(2026);

    // Data.
    std::vector<float> hf(n);
    std::vector<int> hi(n);
    std::vector<unsigned> hu(n);
    {
      std::uniform_real_distribution<float> df(0.0f, 2.0f);
      std::uniform_int_distribution<int> di(-5, 5);
      for (std::size_t i = 0; i < n; ++i) {
        hf[i] = df(rng);
        hi[i] = di(rng);
        hu[i] = static_cast<unsigned>(rng());
      }
    }
    cupar::device_buffer<float> df(hf, stream), fout(n, stream);
    cupar::device_buffer<int> di(hi, stream), iout(n, stream);
    cupar::device_buffer<unsigned> du(hu, stream), uout(n, stream);
    cupar::device_buffer<float> one(1, stream);
    cupar::device_buffer<unsigned> hist(256, stream);

    // Run-time operators: the first call builds them (reported), the timed calls use the
    // optimised build.
    auto first_call_ms = [&](auto&& f) {
      const auto t0 = clock_type::now();
      f();
      cudaStreamSynchronize(stream);
      const double ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
      cupar::jit::wait_for_background_builds();
      return ms;
    };
    char note[64];

    // reduce
    double sum_ref = 0;
    const double reduce_cpu = cpu_ms([&] { sum_ref = std::reduce(hf.begin(), hf.end(), 0.0); });
    auto check_sum = [&] {
      const float got = one.to_host()[0];
      return std::fabs(got - sum_ref) <= 1e-5 * sum_ref;
    };
    rows.push_back({"reduce (sum, f32)", "lambda a + b",
                    timer.time([&] { reduce_lambda(df.data(), one.data(), n, stream); }),
                    reduce_cpu, check_sum(), ""});
    const cupar::jit::op add("a + b");
    double build =
        first_call_ms([&] { cupar::reduce(df.data(), one.data(), n, add, 0.0f, stream); });
    std::snprintf(note, sizeof note, "first call %.0f ms", build);
    rows.push_back({"reduce (sum, f32)", "JIT \"a + b\"",
                    timer.time([&] { cupar::reduce(df.data(), one.data(), n, add, 0.0f, stream); }),
                    reduce_cpu, check_sum(), note});

    // inclusive scan
    std::vector<int> scan_ref(n);
    const double scan_cpu =
        cpu_ms([&] { std::inclusive_scan(hi.begin(), hi.end(), scan_ref.begin()); });
    auto check_scan = [&] { return iout.to_host() == scan_ref; };
    rows.push_back({"inclusive scan (i32)", "lambda a + b",
                    timer.time([&] { scan_lambda(di.data(), iout.data(), n, stream); }), scan_cpu,
                    check_scan(), ""});
    const cupar::jit::op iadd("a + b");
    build = first_call_ms([&] { cupar::inclusive_scan(di.data(), iout.data(), n, iadd, stream); });
    std::snprintf(note, sizeof note, "first call %.0f ms", build);
    rows.push_back({"inclusive scan (i32)", "JIT \"a + b\"", timer.time([&] {
                      cupar::inclusive_scan(di.data(), iout.data(), n, iadd, stream);
                    }),
                    scan_cpu, check_scan(), note});

    // radix sort (no operator: precompiled in the library)
    std::vector<unsigned> sorted_u = hu;
    const double radix_cpu = cpu_ms([&] { std::sort(sorted_u.begin(), sorted_u.end()); });
    rows.push_back({"radix sort (u32 keys)", "none (ascending)",
                    timer.time([&] { cupar::sort_keys(du.data(), uout.data(), n, stream); }),
                    radix_cpu, uout.to_host() == sorted_u, ""});

    // comparison sort
    std::vector<float> sorted_f = hf;
    const double merge_cpu =
        cpu_ms([&] { std::sort(sorted_f.begin(), sorted_f.end(), std::greater<float>()); });
    rows.push_back({"merge sort (f32 keys)", "lambda a > b",
                    timer.time([&] { sort_lambda(df.data(), fout.data(), n, stream); }, 3),
                    merge_cpu, fout.to_host() == sorted_f, ""});
    const cupar::jit::op greater("a > b");
    build = first_call_ms([&] { cupar::sort_keys(df.data(), fout.data(), n, greater, stream); });
    std::snprintf(note, sizeof note, "first call %.0f ms", build);
    rows.push_back(
        {"merge sort (f32 keys)", "JIT \"a > b\"",
         timer.time([&] { cupar::sort_keys(df.data(), fout.data(), n, greater, stream); }, 3),
         merge_cpu, fout.to_host() == sorted_f, note});

    // transform
    std::vector<float> tf(n);
    const double transform_cpu = cpu_ms([&] {
      std::transform(hf.begin(), hf.end(), tf.begin(), [](float x) { return x * 2.0f + 1.0f; });
    });
    rows.push_back({"transform (f32)", "lambda x * 2 + 1",
                    timer.time([&] { transform_lambda(df.data(), fout.data(), n, stream); }),
                    transform_cpu, fout.to_host() == tf, ""});
    cupar::jit::op affine("x * s + t");
    affine.param("s", 2.0f).param("t", 1.0f);
    build = first_call_ms([&] { cupar::transform(df.data(), fout.data(), n, affine, stream); });
    std::snprintf(note, sizeof note, "first call %.0f ms", build);
    rows.push_back({"transform (f32)", "JIT \"x * s + t\", s=2, t=1", timer.time([&] {
                      cupar::transform(df.data(), fout.data(), n, affine, stream);
                    }),
                    transform_cpu, fout.to_host() == tf, note});

    // histogram of op(sample), 256 even bins over [1, 2)
    std::vector<unsigned> hist_ref(256, 0);
    const double hist_cpu = cpu_ms([&] {
      for (float x : hf) {
        const float v = x * 0.5f + 1.0f;
        if (v >= 1.0f && v < 2.0f) hist_ref[static_cast<int>((v - 1.0f) * (256.0f / 1.0f))]++;
      }
    });
    auto check_hist = [&] { return hist.to_host() == hist_ref; };
    rows.push_back({"histogram (256 bins)", "lambda x * 0.5 + 1",
                    timer.time([&] { histogram_lambda(df.data(), hist.data(), n, stream); }),
                    hist_cpu, check_hist(), ""});
    const cupar::jit::op halve("x * 0.5f + 1.0f");
    build = first_call_ms(
        [&] { cupar::histogram_even(df.data(), hist.data(), 257, 1.0f, 2.0f, n, halve, stream); });
    std::snprintf(note, sizeof note, "first call %.0f ms", build);
    rows.push_back({"histogram (256 bins)", "JIT \"x * 0.5f + 1.0f\"", timer.time([&] {
                      cupar::histogram_even(df.data(), hist.data(), 257, 1.0f, 2.0f, n, halve,
                                            stream);
                    }),
                    hist_cpu, check_hist(), note});

    print(rows, n);
    all = std::all_of(rows.begin(), rows.end(), [](const row& r) { return r.ok; });
  }
  cudaStreamDestroy(stream);
  std::printf("\n%s\n", all ? "All results match the CPU." : "SOME RESULTS DO NOT MATCH THE CPU.");
  return all ? 0 : 2;
}
