// Probe: for each key type, is CUB's radix sort faster with 32-bit or 64-bit num_items, and from
// which size? CUB's sm_90 onesweep tuning is keyed on sizeof(key) and sizeof(offset) only, yet
// the benchmark of 2026-11-21 had u32 keys 8-16% faster with 64-bit offsets from 2^24 and f32
// keys 1-2% slower. cupar picks the offset width per call (src/compiled/radix_sort_impl.cuh).
//
// One binary per key type (-DPROBE_KEY=...); prints, per size, the GPU time per sort of keys-only
// and of (key, u32) pairs with unsigned 32-bit and with 64-bit offsets: sorts back to back between
// two events (launch latency hidden), rounds with the variants interleaved, median of the rounds.
// Integer keys are random bits; floating keys uniform over [-1e6, 1e6) (the benchmark's data) and,
// as a second line, over [0, 1).
//
// Build and run, all key types:
//   for k in int8_t uint8_t int16_t uint16_t int32_t uint32_t int64_t uint64_t float double; do
//     nvcc -std=c++17 -O3 -arch=sm_90 -DPROBE_KEY=$k radixwidth.cu -o radixwidth_$k; done
//   for k in ...; do ./radixwidth_$k; done
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define STR2(x) #x
#define STR(x) STR2(x)

using K = PROBE_KEY;
using V = std::uint32_t;
static cudaStream_t st;

__device__ std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// lo == hi: random bits; else uniform over [lo, hi).
__global__ void fill(K* k, V* v, std::size_t n, double lo, double hi) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint64_t z = mix((i + 1) * 0x9E3779B97F4A7C15ull);
    if constexpr (std::is_floating_point_v<K>) {
      k[i] = static_cast<K>(lo + (hi - lo) * ((z >> 11) * 0x1.0p-53));
    } else {
      k[i] = static_cast<K>(z);
    }
    v[i] = static_cast<V>(i);
  }
}

template <class Off, bool Pairs>
cudaError_t sort(void* t, std::size_t& b, const K* kin, K* kout, const V* vin, V* vout,
                 std::size_t n) {
  if constexpr (Pairs) {
    return cub::DeviceRadixSort::SortPairs(t, b, kin, kout, vin, vout, static_cast<Off>(n), 0,
                                           8 * sizeof(K), st);
  } else {
    return cub::DeviceRadixSort::SortKeys(t, b, kin, kout, static_cast<Off>(n), 0, 8 * sizeof(K),
                                          st);
  }
}

struct bufs {
  const K* kin;
  K* kout;
  const V* vin;
  V* vout;
  std::size_t n;
};

template <class Off, bool Pairs>
std::size_t bytes_of(std::size_t n) {
  std::size_t b = 0;
  CK((sort<Off, Pairs>(nullptr, b, nullptr, nullptr, nullptr, nullptr, n)));
  return b;
}
template <class Off, bool Pairs>
void run(const bufs& x, void* temp) {
  std::size_t b = bytes_of<Off, Pairs>(x.n);
  CK((sort<Off, Pairs>(temp, b, x.kin, x.kout, x.vin, x.vout, x.n)));
}

struct variant {
  void (*run)(const bufs&, void*);
  std::size_t (*bytes)(std::size_t);
};

void measure(const char* data, double lo, double hi) {
  const variant vs[4] = {{run<std::uint32_t, false>, bytes_of<std::uint32_t, false>},
                         {run<unsigned long long, false>, bytes_of<unsigned long long, false>},
                         {run<std::uint32_t, true>, bytes_of<std::uint32_t, true>},
                         {run<unsigned long long, true>, bytes_of<unsigned long long, true>}};
  printf("%-8s %-9s %5s %10s %10s %7s %10s %10s %7s\n", "key", "data", "n", "keys32 us",
         "keys64 us", "64/32", "pairs32 us", "pairs64 us", "64/32");
  for (int lg = 16; lg <= 28; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    K *kin, *kout;
    V *vin, *vout;
    CK(cudaMalloc(&kin, n * sizeof(K)));
    CK(cudaMalloc(&kout, n * sizeof(K)));
    CK(cudaMalloc(&vin, n * sizeof(V)));
    CK(cudaMalloc(&vout, n * sizeof(V)));
    fill<<<2048, 256, 0, st>>>(kin, vin, n, lo, hi);
    CK(cudaGetLastError());
    const bufs x{kin, kout, vin, vout, n};
    std::vector<void*> temp(4);
    for (int v = 0; v < 4; ++v)
      CK(cudaMalloc(&temp[v], vs[v].bytes(n)));
    const int per = static_cast<int>(std::clamp<std::size_t>((std::size_t(1) << 25) / n, 3, 40));
    constexpr int rounds = 7;
    std::vector<float> t[4];
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r <= rounds; ++r) {
      for (int v = 0; v < 4; ++v) {
        CK(cudaEventRecord(a, st));
        for (int i = 0; i < per; ++i)
          vs[v].run(x, temp[v]);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) t[v].push_back(ms * 1000.0f / per);  // round 0 warms up
      }
    }
    double med[4];
    for (int v = 0; v < 4; ++v) {
      std::sort(t[v].begin(), t[v].end());
      med[v] = t[v][t[v].size() / 2];
    }
    printf("%-8s %-9s 2^%-3d %10.2f %10.2f %7.3f %10.2f %10.2f %7.3f\n", STR(PROBE_KEY), data, lg,
           med[0], med[1], med[1] / med[0], med[2], med[3], med[3] / med[2]);
    for (void* p : temp)
      CK(cudaFree(p));
    CK(cudaFree(kin));
    CK(cudaFree(kout));
    CK(cudaFree(vin));
    CK(cudaFree(vout));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  if constexpr (std::is_floating_point_v<K>) {
    measure("+-1e6", -1.0e6, 1.0e6);
    measure("[0,1)", 0.0, 1.0);
  } else {
    measure("bits", 0, 0);
  }
  return 0;
}
