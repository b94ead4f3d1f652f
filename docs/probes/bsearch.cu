// Probe: what closes the gap of cupar's vectorised lower_bound to Thrust's at 2^28 (the
// benchmark's lower_bound rows when it was written: 1.06x Thrust at 2^24, 0.954 at 2^28, u32,
// m = n needles uniform over the sorted range's values)? A search is ~log2(n) dependent loads;
// at 2^28 the haystack is 1 GiB and the needles and positions stream another 2 GiB through L2,
// so the question is what the L2 keeps and how many requests a search makes. Variants, each
// checked against the first:
//   cupar      the library's kernel today (one needle per thread, restrict pointers)
//   stream     the same, needles read and positions written with evict-first hints (__ldcs,
//              __stcs), so the streams do not push the haystack's upper levels out of L2
//   sample     a persistent grid; each block first copies an evenly spaced sample of the haystack
//              (2,047 keys, 8 KiB) into shared memory, resolves the first 11 levels of every search
//              there, and finishes in global memory (n / 2,048 keys: 17 loads at 2^28, not 28)
//   sample_str both
//   thrust     thrust::lower_bound (vectorised form)
// GPU time only: 10 searches back to back between two events, 7 rounds with the variants
// interleaved, median of the rounds, per search.
//
// Build: nvcc -std=c++17 -O3 -arch=sm_90 bsearch.cu -o bsearch
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

using u32 = std::uint32_t;
using u64 = unsigned long long;
static cudaStream_t st;

__device__ u64 mix(u64 z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__global__ void fill_sorted(u32* d, u64 n) {
  for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
    d[i] = static_cast<u32>(8 * i + mix(i + 1) % 8);
}
__global__ void fill_needles(u32* d, u64 m, u64 range) {
  for (u64 i = blockIdx.x * u64(blockDim.x) + threadIdx.x; i < m; i += u64(gridDim.x) * blockDim.x)
    d[i] = static_cast<u32>(mix(i + 12345) % range);
}

__device__ __forceinline__ u64 search(const u32* __restrict__ s, u64 first, u64 count, u32 x) {
  while (count > 0) {
    const u64 half = count >> 1;
    if (s[first + half] < x) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first;
}

template <bool Stream>
__global__ __launch_bounds__(256) void plain(const u32* __restrict__ s, u64 n,
                                             const u32* __restrict__ needles, u64 m,
                                             u32* __restrict__ out) {
  const u64 stride = u64(gridDim.x) * blockDim.x;
  for (u64 j = blockIdx.x * u64(blockDim.x) + threadIdx.x; j < m; j += stride) {
    const u32 x = Stream ? __ldcs(needles + j) : needles[j];
    const u32 p = static_cast<u32>(search(s, 0, n, x));
    if (Stream)
      __stcs(out + j, p);
    else
      out[j] = p;
  }
}

constexpr int sample_keys = 2047;  // 2^11 - 1 splitters: 11 levels in shared memory

template <bool Stream>
__global__ __launch_bounds__(256) void sampled(const u32* __restrict__ s, u64 n,
                                               const u32* __restrict__ needles, u64 m,
                                               u32* __restrict__ out) {
  __shared__ u32 sample[sample_keys];
  // splitter i sits at position pos(i) = (i + 1) * n / 2048 - 1 (n >= 2048 here)
  for (int i = threadIdx.x; i < sample_keys; i += blockDim.x)
    sample[i] = s[(u64(i) + 1) * n / (sample_keys + 1) - 1];
  __syncthreads();
  const u64 stride = u64(gridDim.x) * blockDim.x;
  for (u64 j = blockIdx.x * u64(blockDim.x) + threadIdx.x; j < m; j += stride) {
    const u32 x = Stream ? __ldcs(needles + j) : needles[j];
    // c = number of splitters < x (the sample is sorted): 11 steps in shared memory
    int c = 0;
#pragma unroll
    for (int step = (sample_keys + 1) / 2; step >= 1; step >>= 1)
      if (sample[c + step - 1] < x) c += step;
    // the answer lies in (pos(c - 1), pos(c)]
    const u64 lo = c == 0 ? 0 : (u64(c) * n / (sample_keys + 1) - 1) + 1;
    const u64 hi = c == sample_keys ? n : (u64(c) + 1) * n / (sample_keys + 1) - 1;
    const u32 p = static_cast<u32>(search(s, lo, hi - lo, x));
    if (Stream)
      __stcs(out + j, p);
    else
      out[j] = p;
  }
}

int main() {
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int occ_s = 0, occ_ss = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_s, sampled<false>, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_ss, sampled<true>, 256, 0));
  printf("SMs %d, sampled blocks/SM %d / %d\n", sms, occ_s, occ_ss);
  for (int lg : {20, 24, 28}) {
    const u64 n = u64(1) << lg, m = n;
    u32 *s, *nd, *ref, *out;
    CK(cudaMalloc(&s, n * 4));
    CK(cudaMalloc(&nd, m * 4));
    CK(cudaMalloc(&ref, m * 4));
    CK(cudaMalloc(&out, m * 4));
    fill_sorted<<<4096, 256, 0, st>>>(s, n);
    fill_needles<<<4096, 256, 0, st>>>(nd, m, 8 * n);
    const unsigned blocks = static_cast<unsigned>((m + 255) / 256);
    const char* names[] = {"cupar", "stream", "sample", "sample_str", "thrust"};
    auto run = [&](int v, u32* o) {
      switch (v) {
        case 0:
          plain<false><<<blocks, 256, 0, st>>>(s, n, nd, m, o);
          break;
        case 1:
          plain<true><<<blocks, 256, 0, st>>>(s, n, nd, m, o);
          break;
        case 2:
          sampled<false><<<sms * occ_s, 256, 0, st>>>(s, n, nd, m, o);
          break;
        case 3:
          sampled<true><<<sms * occ_ss, 256, 0, st>>>(s, n, nd, m, o);
          break;
        case 4:
          thrust::lower_bound(thrust::cuda::par.on(st), s, s + n, nd, nd + m, o);
          break;
      }
    };
    run(0, ref);
    CK(cudaStreamSynchronize(st));
    std::vector<u32> hr(m), ho(m);
    CK(cudaMemcpy(hr.data(), ref, m * 4, cudaMemcpyDeviceToHost));
    for (int v = 1; v < 5; ++v) {
      CK(cudaMemset(out, 0xff, m * 4));
      run(v, out);
      CK(cudaStreamSynchronize(st));  // st does not synchronise with the legacy default stream
      CK(cudaMemcpy(ho.data(), out, m * 4, cudaMemcpyDeviceToHost));
      if (ho != hr) printf("2^%d %s: WRONG\n", lg, names[v]);
    }
    const int reps = lg >= 28 ? 5 : 20, rounds = 7;
    std::vector<double> t[5];
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int r = 0; r < rounds; ++r)
      for (int v = 0; v < 5; ++v) {
        run(v, out);
        CK(cudaEventRecord(a, st));
        for (int k = 0; k < reps; ++k)
          run(v, out);
        CK(cudaEventRecord(b, st));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t[v].push_back(1000.0 * ms / reps);
      }
    double thr = 0;
    for (int v = 4; v >= 0; --v) {
      std::sort(t[v].begin(), t[v].end());
      const double med = t[v][rounds / 2];
      if (v == 4) thr = med;
      printf("2^%d %-10s %10.1f us  thrust/this %.3f\n", lg, names[v], med, thr / med);
    }
    CK(cudaFree(s));
    CK(cudaFree(nd));
    CK(cudaFree(ref));
    CK(cudaFree(out));
  }
  return 0;
}
