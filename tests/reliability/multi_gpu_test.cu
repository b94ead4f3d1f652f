// cupar tests: two GPUs (issue 12). Calls on each device from different threads, a stream of
// device 1 used while device 0 is current, the JIT's caches and the default resource's kept
// blocks per device: results must be right and no memory may cross devices. Skips with fewer
// than two GPUs.
#include "common/gpu.hpp"
#include "common/streams.hpp"

#include <cupar/cupar.cuh>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace cupar::testing {
namespace {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

#define CUPAR_REQUIRE_TWO_GPUS()                                                    \
  do {                                                                              \
    CUPAR_REQUIRE_GPU();                                                            \
    if (device_count() < 2) GTEST_SKIP() << "needs two GPUs, this machine has one"; \
  } while (0)

int device_of(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return a.type == cudaMemoryTypeDevice ? a.device : -1;
}

/// A stream of device `d`, created with `d` current; the current device is restored.
class device_stream {
 public:
  explicit device_stream(int d) : device_(d) {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(d);
    cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking);
    cudaSetDevice(previous);
  }
  ~device_stream() { cudaStreamDestroy(s_); }
  device_stream(const device_stream&) = delete;
  device_stream& operator=(const device_stream&) = delete;
  operator cupar::stream_ref() const { return cupar::stream_ref(s_); }  // NOLINT
  cudaStream_t get() const { return s_; }
  int device() const { return device_; }

 private:
  int device_;
  cudaStream_t s_ = nullptr;
};

/// A memory resource that checks every allocation lands on the stream's device.
class checking_resource final : public cupar::memory_resource {
 public:
  explicit checking_resource(int device) : device_(device) {}
  std::atomic<int> wrong{0}, allocations{0};

 private:
  void* do_allocate(std::size_t bytes, cupar::stream_ref s) override {
    void* p = cupar::default_resource().allocate(bytes, s);
    ++allocations;
    if (device_of(p) != device_) ++wrong;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, cupar::stream_ref s) noexcept override {
    cupar::default_resource().deallocate(p, bytes, s);
  }
  int device_;
};

struct int_plus {
  __device__ int operator()(int a, int b) const { return a + b; }
};
struct int_less {
  __device__ bool operator()(int a, int b) const { return a < b; }
};
struct positive {
  __device__ bool operator()(int x) const { return x > 0; }
};

/// Every family on `s` (a stream of device `s.device()`), with compiled, named and run-time
/// operators; returns the number of wrong results. Buffers and temporaries must all be on the
/// stream's device.
int run_every_family(const device_stream& s, std::size_t n, std::uint64_t seed,
                     const cupar::jit::op& jit_plus, const cupar::jit::op& jit_less) {
  checking_resource mr(s.device());
  std::vector<int> h(n);
  std::mt19937_64 rng(seed);
  for (auto& x : h)
    x = static_cast<int>(rng() % 2001) - 1000;
  std::vector<int> sorted = h, scanned(n);
  std::sort(sorted.begin(), sorted.end());
  std::partial_sum(h.begin(), h.end(), scanned.begin());
  const int sum = std::accumulate(h.begin(), h.end(), 0);
  int bad = 0;
  device_buffer<int> in(h, s, mr), out(n, s, mr);
  device_buffer<unsigned int> hist(4, s, mr);
  bad += device_of(in.data()) != s.device() || device_of(out.data()) != s.device();
  bad += cupar::reduce_value(in.data(), n, int_plus(), 0, s, mr) != sum;
  bad += cupar::reduce_value(in.data(), n, cupar::jit::plus, 0, s, mr) != sum;
  bad += cupar::reduce_value(in.data(), n, jit_plus, 0, s, mr) != sum;
  cupar::inclusive_scan(in.data(), out.data(), n, int_plus(), s, mr);
  bad += out.to_host() != scanned;
  cupar::inclusive_scan(in.data(), out.data(), n, jit_plus, s, mr);
  bad += out.to_host() != scanned;
  cupar::sort_keys(in.data(), out.data(), n, s, mr);
  bad += out.to_host() != sorted;
  cupar::sort_keys(in.data(), out.data(), n, int_less(), s, mr);
  bad += out.to_host() != sorted;
  cupar::sort_keys(in.data(), out.data(), n, jit_less, s, mr);
  bad += out.to_host() != sorted;
  cupar::transform(in.data(), out.data(), n, cupar::jit::op("x + 1"), s);
  bad += out.to_host()[n - 1] != h[n - 1] + 1;
  cupar::histogram_even(in.data(), hist.data(), 5, -1000, 1001, n, s, mr);
  const auto counts = hist.to_host();
  bad += std::accumulate(counts.begin(), counts.end(), 0u) != n;
  // The data-processing families: select_if (compiled and run-time predicate), reduce_by_key
  // over the sorted values (runs of equal keys), segmented_reduce and lower_bound.
  const std::size_t positives =
      static_cast<std::size_t>(std::count_if(h.begin(), h.end(), [](int x) { return x > 0; }));
  bad += cupar::select_if_count(in.data(), out.data(), n, positive(), s, mr) != positives;
  bad += cupar::select_if_count(in.data(), out.data(), n, cupar::jit::op("x > 0"), s, mr) !=
         positives;
  std::vector<int> uniq = sorted;
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  device_buffer<int> keys(sorted, s, mr), ones(std::vector<int>(n, 1), s, mr), keys_out(n, s, mr);
  bad += cupar::reduce_by_key_count(keys.data(), ones.data(), keys_out.data(), out.data(), n,
                                    jit_plus, s, mr) != uniq.size();
  bad += keys_out.to_host()[uniq.size() - 1] != uniq.back();
  device_buffer<std::int64_t> begins(std::vector<std::int64_t>{0, 0, std::int64_t(n / 2)}, s, mr),
      ends(std::vector<std::int64_t>{0, std::int64_t(n / 2), std::int64_t(n)}, s, mr);
  device_buffer<int> seg(3, s, mr);
  cupar::segmented_reduce(in.data(), seg.data(), n, 3, begins.data(), ends.data(), jit_plus, 0, s,
                          mr);
  const auto segs = seg.to_host();
  bad += segs[0] != 0 || segs[1] + segs[2] != sum;
  device_buffer<std::uint32_t> pos(n, s, mr);
  cupar::lower_bound(keys.data(), n, in.data(), n, pos.data(), jit_less, s);
  const auto p = pos.to_host();
  bad += p[0] != static_cast<std::uint32_t>(
                     std::lower_bound(sorted.begin(), sorted.end(), h[0]) - sorted.begin());
  bad += mr.wrong.load();
  if (mr.allocations.load() < 8) ++bad;  // the temporaries went through the checking resource
  return bad;
}

TEST(TwoGpus, CallsOnEachDeviceFromTwoThreads) {
  CUPAR_REQUIRE_TWO_GPUS();
  const cupar::jit::op jit_plus("a + b"), jit_less("a < b");
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int d = 0; d < 2; ++d) {
    threads.emplace_back([&, d] {
      cudaSetDevice(d);
      device_stream s(d);
      for (int round = 0; round < 10; ++round) {
        try {
          bad += run_every_family(s, 50000 + 1000 * round + d, std::uint64_t(round * 2 + d),
                                  jit_plus, jit_less);
        } catch (const std::exception& e) {
          ADD_FAILURE() << "device " << d << ": " << e.what();
          ++bad;
        }
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(TwoGpus, AStreamOfDevice1WorksWhileDevice0IsCurrent) {
  CUPAR_REQUIRE_TWO_GPUS();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  device_stream s1(1);
  const cupar::jit::op jit_plus("a + b + 0 * 7"), jit_less("b > a");
  EXPECT_EQ(run_every_family(s1, 70001, 7, jit_plus, jit_less), 0);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0) << "the calls gave the current device back";
  // Blocks the default resource hands out for the stream are device 1's, also when kept.
  cupar::memory_resource& mr = cupar::default_resource();
  for (int i = 0; i < 10; ++i) {
    void* p = mr.allocate(1000 + 5000 * static_cast<std::size_t>(i), s1);
    EXPECT_EQ(device_of(p), 1);
    mr.deallocate(p, 1000 + 5000 * static_cast<std::size_t>(i), s1);
  }
  ASSERT_EQ(cudaStreamSynchronize(s1.get()), cudaSuccess);
  // A plan built for device 0 refuses a stream of device 1 before queuing anything.
  auto plan = cupar::jit::reduce_plan<int>(cupar::jit::op("a + b"));
  device_buffer<int> one(std::vector<int>{1, 2, 3}, s1);
  EXPECT_THROW((void)plan.value(one.data(), 3, 0, s1), std::invalid_argument);
}

TEST(TwoGpus, JitBuildsAndKeptBlocksArePerDevice) {
  CUPAR_REQUIRE_TWO_GPUS();
  cudaDeviceProp p0{}, p1{};
  ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
  const bool same_arch = p0.major == p1.major && p0.minor == p1.minor;
  device_stream s0(0), s1(1);
  const auto before = cupar::jit::get_stats();
  const cupar::jit::op o("a * 2 + b - a * 2 + 0 * 11");  // a new operator: built here
  std::vector<int> h(10000, 1);
  device_buffer<int> in0(h, s0), in1(h, s1);
  EXPECT_EQ(cupar::reduce_value(in0.data(), h.size(), o, 0, s0), 10000);
  EXPECT_EQ(cupar::reduce_value(in1.data(), h.size(), o, 0, s1), 10000);
  const auto after = cupar::jit::get_stats();
  // One build serves every device of an architecture (its module loads into each context).
  EXPECT_EQ(after.operator_compiles - before.operator_compiles, same_arch ? 1u : 2u);
  // Kept blocks: each stream's blocks are on its own device, and releasing them synchronises
  // and frees on both devices without changing the current one.
  cupar::memory_resource& mr = cupar::default_resource();
  for (int round = 0; round < 3; ++round) {
    for (const device_stream* s : {&s0, &s1}) {
      void* p = mr.allocate(4096, *s);
      EXPECT_EQ(device_of(p), s->device());
      mr.deallocate(p, 4096, *s);
    }
  }
  EXPECT_GT(cupar::cached_memory_bytes(), 0u);
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  cupar::release_cached_memory();
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 1);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

}  // namespace
}  // namespace cupar::testing
