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
  bad +=
      cupar::select_if_count(in.data(), out.data(), n, cupar::jit::op("x > 0"), s, mr) != positives;
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
  bad += p[0] != static_cast<std::uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), h[0]) -
                                            sorted.begin());
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
  // A plan built with device 0 current runs on a stream of device 1 (same architecture: its
  // build is a context-independent library), and leaves device 0 current.
  cudaDeviceProp p0{}, p1{};
  ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
  auto plan = cupar::jit::reduce_plan<int>(cupar::jit::op("a + b"));
  device_buffer<int> one(std::vector<int>{1, 2, 3}, s1);
  if (p0.major == p1.major && p0.minor == p1.minor) {
    EXPECT_EQ(plan.value(one.data(), 3, 0, s1), 6);
  } else {
    EXPECT_THROW((void)plan.value(one.data(), 3, 0, s1), std::invalid_argument);
  }
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
}

TEST(TwoGpus, DeviceBuffersLiveOnTheirStreamsDeviceWhateverIsCurrent) {
  CUPAR_REQUIRE_TWO_GPUS();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  device_stream s1(1);
  std::vector<double> h(12345);
  for (std::size_t i = 0; i < h.size(); ++i)
    h[i] = 0.5 * static_cast<double>(i);
  {
    device_buffer<double> b(h, s1);
    EXPECT_EQ(device_of(b.data()), 1);
    b.fill_bytes(0);
    b.copy_from_host(h.data(), h.size());
    EXPECT_EQ(b.to_host(), h);
  }
  // Made and destroyed with the other device current.
  ASSERT_EQ(cudaSetDevice(1), cudaSuccess);
  device_stream s0(0);
  {
    device_buffer<double> b(h, s0);
    EXPECT_EQ(device_of(b.data()), 0);
    EXPECT_EQ(b.to_host(), h);
  }
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  int current = -1;
  ASSERT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(TwoGpus, WithTheDeviceCheckMemoryOfAnotherDeviceIsRefusedByName) {
  CUPAR_REQUIRE_TWO_GPUS();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  device_stream s0(0), s1(1);
  device_buffer<int> on0(std::vector<int>(1000, 1), s0), out1(1000, s1);
  ASSERT_EQ(cudaStreamSynchronize(s0.get()), cudaSuccess);
  const bool was = cupar::device_checks();
  cupar::set_device_checks(true);
  auto expect_refused = [&](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << ": not refused";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("device 0"), std::string::npos) << m;
      EXPECT_NE(m.find("device 1"), std::string::npos) << m;
    }
  };
  expect_refused([&] { (void)cupar::reduce_value(on0.data(), 1000, int_plus(), 0, s1); },
                 "reduce_value, C++ operator");
  expect_refused([&] { (void)cupar::reduce_value(on0.data(), 1000, cupar::jit::plus, 0, s1); },
                 "reduce_value, named operator");
  expect_refused(
      [&] { cupar::transform(on0.data(), out1.data(), 1000, cupar::jit::op("x + 1"), s1); },
      "transform, run-time operator");
  expect_refused([&] { cupar::sort_keys(on0.data(), out1.data(), 1000, s1); }, "radix sort");
  // Memory of a pool that grants device 1 access passes (and is read over the link).
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t pool = nullptr;
    ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
    cudaMemAccessDesc desc{};
    desc.location.type = cudaMemLocationTypeDevice;
    desc.location.id = 1;
    desc.flags = cudaMemAccessFlagsProtReadWrite;
    int can = 0;
    ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 1, 0), cudaSuccess);
    if (can != 0) {
      ASSERT_EQ(cudaMemPoolSetAccess(pool, &desc, 1), cudaSuccess);
      int* shared = nullptr;
      ASSERT_EQ(cudaMallocFromPoolAsync(&shared, 1000 * sizeof(int), pool, s0.get()), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(shared, std::vector<int>(1000, 2).data(), 1000 * sizeof(int),
                                cudaMemcpyHostToDevice, s0.get()),
                cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s0.get()), cudaSuccess);
      EXPECT_EQ(cupar::reduce_value(static_cast<const int*>(shared), 1000, cupar::jit::plus, 0, s1),
                2000);
      ASSERT_EQ(cudaFreeAsync(shared, s1.get()), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(s1.get()), cudaSuccess);
    }
    ASSERT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  }
  // The same calls with the stream of the memory's device work, checks on or off.
  EXPECT_EQ(cupar::reduce_value(on0.data(), 1000, cupar::jit::plus, 0, s0), 1000);
  cupar::set_device_checks(was);
  EXPECT_EQ(cupar::reduce_value(on0.data(), 1000, cupar::jit::plus, 0, s0), 1000);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(TwoGpus, JitBuildsAndKeptBlocksArePerDevice) {
  CUPAR_REQUIRE_TWO_GPUS();
  cudaDeviceProp p0{}, p1{};
  ASSERT_EQ(cudaGetDeviceProperties(&p0, 0), cudaSuccess);
  ASSERT_EQ(cudaGetDeviceProperties(&p1, 1), cudaSuccess);
  const bool same_arch = p0.major == p1.major && p0.minor == p1.minor;
  device_stream s0(0), s1(1);
  // Tier 1 only: in tiered mode the background (tier 2) build compiles the operator once more.
  const cupar::jit::mode was = cupar::jit::get_mode();
  cupar::jit::set_mode(cupar::jit::mode::fast);
  const auto before = cupar::jit::get_stats();
  const cupar::jit::op o("a * 2 + b - a + 0 * 11");  // a new operator (a + b): built here
  std::vector<int> h(10000, 1);
  device_buffer<int> in0(h, s0), in1(h, s1);
  EXPECT_EQ(cupar::reduce_value(in0.data(), h.size(), o, 0, s0), 10000);
  EXPECT_EQ(cupar::reduce_value(in1.data(), h.size(), o, 0, s1), 10000);
  const auto after = cupar::jit::get_stats();
  // One build serves every device of an architecture (its module loads into each context).
  EXPECT_EQ(after.operator_compiles - before.operator_compiles, same_arch ? 1u : 2u);
  cupar::jit::set_mode(was);
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
