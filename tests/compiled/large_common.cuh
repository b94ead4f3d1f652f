// cupar tests: what the tests above 2^31 items share (label `large`): data generated on the GPU
// by a hash of the position, small kernels that count mismatches against an expected function of
// the position, parallel CPU references, and a fixture that gives GPU memory back between tests
// and skips a test, with the amount, when the GPU has too little free memory.
#pragma once

#include "../common/gpu.hpp"
#include "../common/streams.hpp"

#include <cupar/buffer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace cupar::testing {

inline constexpr std::size_t two31 = std::size_t(1) << 31;
inline constexpr std::size_t two32 = std::size_t(1) << 32;
inline constexpr double gib = 1024.0 * 1024.0 * 1024.0;

__host__ __device__ inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Element i of a generated array.
template <class T>
struct hashed {
  std::uint64_t seed;
  __host__ __device__ T operator()(std::size_t i) const {
    return static_cast<T>(mix(static_cast<std::uint64_t>(i) * 0x100000001B3ull + seed));
  }
};

/// 42 everywhere but at the positions 5 (mod 2^30), which hold 7.
struct mostly_42 {
  __host__ __device__ std::uint8_t operator()(std::size_t i) const {
    return (i & ((std::size_t(1) << 30) - 1)) == 5 ? 7 : 42;
  }
};

inline unsigned grid_size() {
  int device = 0, sms = 0;
  (void)cudaGetDevice(&device);
  (void)cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return static_cast<unsigned>(std::max(1, sms) * 16);
}

template <class T, class F>
__global__ void fill_kernel(T* out, std::size_t n, F f) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = f(i);
  }
}

template <class T, class F>
void fill(T* out, std::size_t n, F f, cudaStream_t s) {
  fill_kernel<<<grid_size(), 256, 0, s>>>(out, n, f);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
}

/// Counts the i with got[i] != expected(i); records the first.
template <class T, class F>
__global__ void mismatch_kernel(const T* got, std::size_t n, F expected,
                                unsigned long long* report) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (got[i] != expected(i)) {
      atomicAdd(report, 1ull);
      atomicMin(report + 1, static_cast<unsigned long long>(i));
    }
  }
}

struct mismatches {
  unsigned long long count, first;
};

template <class T, class F>
mismatches count_mismatches(const T* got, std::size_t n, F expected, cupar::stream_ref s) {
  device_buffer<unsigned long long> report(std::vector<unsigned long long>{0, ULLONG_MAX}, s);
  mismatch_kernel<<<grid_size(), 256, 0, s.get()>>>(got, n, expected, report.data());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const auto r = report.to_host();
  return {r[0], r[1]};
}

#define CUPAR_EXPECT_NO_MISMATCH(m) EXPECT_EQ((m).count, 0u) << "first mismatch at " << (m).first

// --- CPU side -------------------------------------------------------------------------------

inline unsigned cpu_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Calls f(begin, end, part) for `parts` consecutive parts of [0, n), in parallel.
template <class F>
void parallel_parts(std::size_t n, unsigned parts, F f) {
  std::vector<std::thread> threads;
  for (unsigned p = 0; p < parts; ++p) {
    threads.emplace_back(f, n * p / parts, n * (p + 1) / parts, p);
  }
  for (auto& t : threads)
    t.join();
}

/// Wrapping sum of gen(i) over [begin, end).
template <class T, class G>
T parallel_sum(std::size_t begin, std::size_t end, G gen) {
  const unsigned parts = cpu_threads();
  std::vector<T> partial(parts, T(0));
  parallel_parts(end - begin, parts, [&](std::size_t b, std::size_t e, unsigned p) {
    T s = 0;
    for (std::size_t i = begin + b; i < begin + e; ++i)
      s = static_cast<T>(s + gen(i));
    partial[p] = s;
  });
  T total = 0;
  for (T s : partial)
    total = static_cast<T>(total + s);
  return total;
}

/// How often each byte value occurs among gen(i), i in [0, n).
template <class G>
std::array<std::uint64_t, 256> parallel_byte_counts(std::size_t n, G gen) {
  const unsigned parts = cpu_threads();
  std::vector<std::array<std::uint64_t, 256>> partial(parts);
  parallel_parts(n, parts, [&](std::size_t b, std::size_t e, unsigned p) {
    std::array<std::uint64_t, 256> c{};
    for (std::size_t i = b; i < e; ++i)
      ++c[static_cast<std::uint8_t>(gen(i))];
    partial[p] = c;
  });
  std::array<std::uint64_t, 256> total{};
  for (const auto& c : partial) {
    for (int v = 0; v < 256; ++v)
      total[v] += c[v];
  }
  return total;
}

class Large : public ::testing::Test {
 protected:
  void SetUp() override {
    CUPAR_REQUIRE_GPU();
    release_pool();
  }
  void TearDown() override {
    if (gpu_available()) release_pool();
  }
  static void release_pool() {
    (void)cudaDeviceSynchronize();
    int device = 0;
    cudaMemPool_t pool = nullptr;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      (void)cudaMemPoolTrimTo(pool, 0);
    }
    (void)cudaGetLastError();
  }
  /// Free GPU memory now, in bytes.
  static std::size_t free_bytes() {
    std::size_t free = 0, total = 0;
    (void)cudaMemGetInfo(&free, &total);
    return free;
  }
};

#define CUPAR_REQUIRE_GPU_BYTES(bytes)                                                             \
  do {                                                                                             \
    const std::size_t need_ = (bytes);                                                             \
    if (free_bytes() < need_) {                                                                    \
      GTEST_SKIP() << "needs " << need_ / gib << " GiB of free GPU memory, " << free_bytes() / gib \
                   << " GiB free";                                                                 \
    }                                                                                              \
  } while (0)

}  // namespace cupar::testing
