// Probe (docs/PERFORMANCE_NOTES.md, "Group-by", issue 29 item 1): where the table method's time
// goes on partitioned rows. 2^26 rows (u32 keys from 2^20 groups, f32 values aggregated into
// count, sum, min, max: 16 bytes) are mixed and partitioned into 256 parts as group_by does
// (part_mix, one radix pass of 8 bits), then aggregated a part a block (1,024 threads, a table
// of 8,192 24-byte slots in shared memory: one block an SM, 256 blocks in two waves) by:
//   real      cupar's block_table_kernel (buckets of four 4-byte key words, the 16-byte
//             accumulator combined by a 128-bit CAS loop), its groups appended to a global table
//             and every group checked against the CPU's
// and, as the table was before (linear probes over 8-byte words of state and key):
//   claim     the claims only (the key found or claimed; no accumulator update)
//   native    the claims, then the four fields by native shared-memory atomics (atomicAdd for the
//             count and the sum, integer atomicMin / atomicMax on the floats' bits, exact for the
//             non-negative values used here): what a combine of known fields could cost
//   cas64     the claims, then an 8-byte accumulator (count, sum) by a 64-bit CAS loop
//   load      the rows read and their hashes summed (the floor: no shared memory)
//   claim32   the claims over 4-byte words (the mixed word itself; no gain: 0.63 ms both)
// and the passes before them (the mix, the radix pass, the parts' starts), beside a partition of
// our own with the mix fused in (a count of each block's rows by part, CUB's exclusive sum, then
// the rows staged a 4,096-row tile at a time in shared memory by part and written in runs; rows
// in any order within a part), the table kernel run over its parts and checked the same way.
// GPU time by CUDA events, median of 7 runs after 2 warm-ups. Profile a kernel with
// `ncu --clock-control none -k regex:block_table_kernel -c 1 --section SourceCounters ...`.
//   nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda -lineinfo -I../../include blocktable.cu \
//     -o blocktable
//   ./blocktable [rows_log2 = 26] [groups_log2 = 20] [part_bits = 8]
// (part_bits 9: 512 parts of 4,096-slot tables, two blocks an SM; a part may hold at most half a
// table's groups.) part_bits 0: the rows as given (up to 4,096 groups, one block an SM), each
// block's groups combined into the global table by hash, as group_by does, against each block
// appending its groups as partials and a second pass of 16 blocks combining them.
#include <cupar/detail/device/hash_table.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hash = cupar::detail::hash;

struct stats {
  unsigned count;
  float sum, min, max;
};
struct merge_stats {
  __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)};
  }
};
struct to_stats {
  __device__ stats operator()(float x) const { return {1u, x, x, x}; }
};

/// The partitioned rows as the table kernel reads them: the mixed key word, a float made stats.
struct rows_t {
  const unsigned* mixed;
  const float* values;
  __device__ __forceinline__ void load(unsigned long long i, unsigned& k, unsigned long long& h,
                                       stats& v) const {
    const unsigned w = mixed[i];
    k = hash::part_unmix(w);
    h = w;
    const float x = values[i];
    v = {1u, x, x, x};
  }
};

#define CHECK(x)                                                            \
  do {                                                                      \
    cudaError_t e = (x);                                                    \
    if (e != cudaSuccess) {                                                 \
      std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

constexpr int kThreads = 1024;
constexpr int kUnroll = 4;

enum variant { claim_only, native_fields, cas64_pair, load_only, claim32 };

/// The table kernel's row loop (block_table_kernel's, hash_table.cuh) with the update replaced by
/// `V`'s; no global table.
template <variant V>
__global__ void __launch_bounds__(kThreads)
    variant_kernel(rows_t rows, const unsigned long long* starts, unsigned table_slots, int shift,
                   unsigned long long* sink) {
  extern __shared__ __align__(16) unsigned char bytes[];
  unsigned long long* words = reinterpret_cast<unsigned long long*>(bytes);
  unsigned* counts = reinterpret_cast<unsigned*>(bytes + 8ull * table_slots);
  float* sums = reinterpret_cast<float*>(counts + table_slots);
  int* mins = reinterpret_cast<int*>(sums + table_slots);
  int* maxs = mins + table_slots;
  unsigned long long* pairs = reinterpret_cast<unsigned long long*>(bytes + 8ull * table_slots);
  unsigned* words32 = reinterpret_cast<unsigned*>(bytes);
  const unsigned empty32 = blockIdx.x ^ 1u;  // low bits not the part's: no row's word
  for (unsigned j = threadIdx.x; j < table_slots; j += kThreads) {
    if (V == claim32)
      words32[j] = empty32;
    else
      words[j] = 0;
    if (V == native_fields) {
      counts[j] = 0;
      sums[j] = 0;
      mins[j] = 0x7fffffff;
      maxs[j] = 0;
    }
    if (V == cas64_pair) pairs[j] = 0;
  }
  __syncthreads();
  const unsigned part = blockIdx.x;
  const unsigned long long begin = starts[part], end = starts[part + 1];
  const int lane = static_cast<int>(threadIdx.x % 32);
  constexpr unsigned long long chunk = static_cast<unsigned long long>(kThreads) * kUnroll;
  const unsigned long long warp_rows =
      static_cast<unsigned long long>(threadIdx.x / 32) * 32 * kUnroll;
  unsigned long long checksum = 0;
  const unsigned mask = table_slots - 1;
  for (unsigned long long c = begin; c < end; c += chunk) {
    unsigned ks[kUnroll];
    unsigned long long hs[kUnroll];
    stats vs[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned long long i = c + warp_rows + static_cast<unsigned long long>(u) * 32 + lane;
      if (i < end) rows.load(i, ks[u], hs[u], vs[u]);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned long long i = c + warp_rows + static_cast<unsigned long long>(u) * 32 + lane;
      if (i < end) {
        if (V == load_only) {
          checksum += hs[u] ^ __float_as_uint(vs[u].sum);
        } else if (V == claim32) {
          // The mixed word itself in a 4-byte slot (the part's bits tell it from empty).
          const unsigned w = static_cast<unsigned>(hs[u]);
          unsigned s = (w >> shift) & mask;
          for (;;) {
            unsigned seen = words32[s];
            if (seen == empty32) {
              seen = atomicCAS(&words32[s], empty32, w);
              if (seen == empty32) break;
            }
            if (seen == w) break;
            s = (s + 1) & mask;
          }
          checksum += s;
        } else {
          const unsigned long long bits = ks[u];
          const unsigned long long ready = (2ull << 32) | bits;
          unsigned s = static_cast<unsigned>(hs[u] >> shift) & mask;
          for (;;) {
            unsigned long long seen = words[s];
            if (seen == 0) {
              seen = atomicCAS(&words[s], 0ull, ready);
              if (seen == 0) break;  // claimed (state and key in one word)
            }
            if ((seen & 0xffffffffull) == bits) break;  // the key's slot
            s = (s + 1) & mask;
          }
          if (V == native_fields) {
            atomicAdd(&counts[s], 1u);
            atomicAdd(&sums[s], vs[u].sum);
            atomicMin(&mins[s], __float_as_int(vs[u].min));
            atomicMax(&maxs[s], __float_as_int(vs[u].max));
          } else if (V == cas64_pair) {
            unsigned long long seen = pairs[s];
            for (;;) {
              const unsigned cnt = static_cast<unsigned>(seen) + 1u;
              const float sum = __uint_as_float(static_cast<unsigned>(seen >> 32)) + vs[u].sum;
              const unsigned long long want =
                  (static_cast<unsigned long long>(__float_as_uint(sum)) << 32) | cnt;
              const unsigned long long found = atomicCAS(&pairs[s], seen, want);
              if (found == seen) break;
              seen = found;
            }
          } else {
            checksum += s;
          }
        }
      }
      __syncwarp();
    }
  }
  __syncthreads();
  if (V == native_fields) {
    for (unsigned j = threadIdx.x; j < table_slots; j += kThreads)
      checksum += counts[j] + static_cast<unsigned long long>(maxs[j]);
  }
  if (V == cas64_pair) {
    for (unsigned j = threadIdx.x; j < table_slots; j += kThreads)
      checksum += pairs[j];
  }
  if (checksum == 42) *sink = checksum;  // keeps the work
}

// ---- a partition of our own: the mix fused into it, parts in any order within a part (the table
// does not need the rows' order), two passes: a count of each block's rows by part, then the
// rows staged a tile at a time in shared memory by part and written in runs.
constexpr int kPartThreads = 512;
constexpr int kPartItems = 8;                         // rows a thread a tile
constexpr int kPartTile = kPartThreads * kPartItems;  // 4,096

/// counts[p * gridDim.x + b]: the rows of part p in block b's range [b * per, (b + 1) * per).
__global__ void __launch_bounds__(kPartThreads)
    part_count_kernel(const unsigned* keys, unsigned long long n, unsigned long long per,
                      unsigned parts, unsigned* counts) {
  __shared__ unsigned hist[kPartThreads / 32][256];  // a histogram a warp
  for (int j = threadIdx.x; j < (kPartThreads / 32) * 256; j += kPartThreads)
    (&hist[0][0])[j] = 0;
  __syncthreads();
  const unsigned long long begin = blockIdx.x * per;
  const unsigned long long end = begin + per < n ? begin + per : n;
  unsigned* mine = hist[threadIdx.x / 32];
#pragma unroll 4
  for (unsigned long long i = begin + threadIdx.x; i < end; i += kPartThreads)
    atomicAdd(&mine[hash::part_mix(keys[i]) & (parts - 1)], 1u);
  __syncthreads();
  for (unsigned p = threadIdx.x; p < parts; p += kPartThreads) {
    unsigned c = 0;
    for (int w = 0; w < kPartThreads / 32; ++w)
      c += hist[w][p];
    counts[p * gridDim.x + blockIdx.x] = c;
  }
}

/// starts[p] = offsets[p * blocks] (the first row of part p), starts[parts] = n.
__global__ void part_starts_from_offsets(const unsigned* offsets, unsigned blocks, unsigned parts,
                                         unsigned long long n, unsigned long long* starts) {
  const unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < parts) starts[p] = offsets[p * blocks];
  if (p == parts) starts[p] = n;
}

/// Writes block b's rows, mixed, to their parts from offsets[p * gridDim.x + b] on.
__global__ void __launch_bounds__(kPartThreads)
    part_scatter_kernel(const unsigned* keys, const float* values, unsigned long long n,
                        unsigned long long per, unsigned parts, const unsigned* offsets,
                        unsigned* mixed_out, float* values_out) {
  __shared__ unsigned running[256];  // the block's next row of each part
  __shared__ unsigned tile_count[256];
  __shared__ unsigned tile_start[256];
  __shared__ unsigned staged_w[kPartTile];
  __shared__ float staged_v[kPartTile];
  for (unsigned p = threadIdx.x; p < parts; p += kPartThreads)
    running[p] = offsets[p * gridDim.x + blockIdx.x];
  const unsigned long long begin = blockIdx.x * per;
  const unsigned long long end = begin + per < n ? begin + per : n;
  const unsigned mask = parts - 1;
  for (unsigned long long tile = begin; tile < end; tile += kPartTile) {
    for (unsigned p = threadIdx.x; p < parts; p += kPartThreads)
      tile_count[p] = 0;
    __syncthreads();
    unsigned w[kPartItems], rank[kPartItems];
    float v[kPartItems];
#pragma unroll
    for (int k = 0; k < kPartItems; ++k) {
      const unsigned long long i = tile + k * kPartThreads + threadIdx.x;
      if (i < end) {
        w[k] = hash::part_mix(keys[i]);
        v[k] = values[i];
      }
    }
#pragma unroll
    for (int k = 0; k < kPartItems; ++k) {
      const unsigned long long i = tile + k * kPartThreads + threadIdx.x;
      if (i < end) rank[k] = atomicAdd(&tile_count[w[k] & mask], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) {  // tile_start: the exclusive sum of tile_count, a warp's scan
      const unsigned each = (parts + 31) / 32;
      const unsigned first = threadIdx.x * each;
      unsigned sum = 0;
      for (unsigned j = 0; j < each && first + j < parts; ++j)
        sum += tile_count[first + j];
      unsigned incl = sum;
      for (int d = 1; d < 32; d *= 2) {
        const unsigned up = __shfl_up_sync(0xffffffffu, incl, d);
        if (static_cast<int>(threadIdx.x) >= d) incl += up;
      }
      unsigned at = incl - sum;
      for (unsigned j = 0; j < each && first + j < parts; ++j) {
        tile_start[first + j] = at;
        at += tile_count[first + j];
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kPartItems; ++k) {
      const unsigned long long i = tile + k * kPartThreads + threadIdx.x;
      if (i < end) {
        const unsigned at = tile_start[w[k] & mask] + rank[k];
        staged_w[at] = w[k];
        staged_v[at] = v[k];
      }
    }
    __syncthreads();
    const unsigned rows = static_cast<unsigned>(end - tile < kPartTile ? end - tile : kPartTile);
    for (unsigned j = threadIdx.x; j < rows; j += kPartThreads) {
      const unsigned ww = staged_w[j];
      const unsigned p = ww & mask;
      const unsigned at = running[p] + (j - tile_start[p]);
      mixed_out[at] = ww;
      values_out[at] = staged_v[j];
    }
    __syncthreads();
    for (unsigned p = threadIdx.x; p < parts; p += kPartThreads)
      running[p] += tile_count[p];
    __syncthreads();
  }
}

using slot = hash::slot<unsigned, stats>;

/// The CPU's aggregates of each group (keys < groups).
std::vector<stats> cpu_groups(const std::vector<unsigned>& hk, const std::vector<float>& hv,
                              unsigned groups) {
  std::vector<stats> want(groups, stats{0u, 0.0f, 1e30f, -1e30f});
  for (std::size_t i = 0; i < hk.size(); ++i) {
    stats& w = want[hk[i]];
    w.count += 1;
    w.sum += hv[i];  // integers below 2^24: exact in any order
    w.min = std::min(w.min, hv[i]);
    w.max = std::max(w.max, hv[i]);
  }
  return want;
}

struct checked {
  unsigned flags;
  unsigned long long found, counted, wrong;
};

/// Every group once in the global table, with the CPU's aggregates.
checked check_table(const slot* table, unsigned long long capacity, const unsigned* overflow,
                    const std::vector<stats>& want) {
  checked c{0, 0, 0, 0};
  CHECK(cudaMemcpy(&c.flags, overflow, 4, cudaMemcpyDeviceToHost));
  std::vector<slot> host_table(capacity);
  CHECK(cudaMemcpy(host_table.data(), table, capacity * sizeof(slot), cudaMemcpyDeviceToHost));
  std::vector<char> seen(want.size(), 0);
  for (const slot& s : host_table) {
    if (s.state != hash::slot_ready) continue;
    ++c.found;
    const stats got = hash::from_word<stats>(s.acc);
    c.counted += got.count;
    if (s.key >= want.size() || seen[s.key] != 0) {
      ++c.wrong;
      continue;
    }
    seen[s.key] = 1;
    const stats& w = want[s.key];
    if (got.count != w.count || got.sum != w.sum || got.min != w.min || got.max != w.max) ++c.wrong;
  }
  return c;
}

/// A block table's bytes: (slots + 2) x slot_bytes, group_by's block_table_bytes
/// (cupar/detail/group_by_sizing.hpp, a host header of the library this probe does not link).
std::size_t table_bytes_of(unsigned slots) {
  return (slots + 2ull) * hash::block_table<unsigned, stats>::slot_bytes;
}

/// The current GPU's name.
std::string gpu_name() {
  int dev = 0;
  cudaDeviceProp prop{};
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

template <class F>
float median_ms(F&& launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < 9; ++r) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms);
  }
  CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// The float column read as the statistics (the rows as given, as group_by's direct rows read an
/// iterator).
struct stats_of {
  const float* p;
  __device__ stats operator[](unsigned long long i) const {
    const float x = p[i];
    return {1u, x, x, x};
  }
};
using direct_t = hash::direct_rows<unsigned, stats, const unsigned*, stats_of>;

/// Rows of partial groups: a global table's slots [0, count).
struct partial_rows {
  const slot* p;
  __device__ __forceinline__ void load(unsigned long long i, unsigned& k, unsigned long long& h,
                                       stats& v) const {
    k = p[i].key;
    h = hash::part_mix(k);
    v = hash::from_word<stats>(p[i].acc);
  }
};

/// Up to half a table of groups over the rows as given (part_bits 0): one block an SM, each
/// combining its groups into the global table by hash (group_by's route), against each block
/// appending its groups as partials (its share of the rows given as a part of its own) and a
/// second pass of 16 blocks combining the partials.
int rows_as_given(const unsigned* keys, const float* values, unsigned long long n, unsigned groups,
                  unsigned slots, const std::vector<stats>& want, int sms) {
  const std::size_t table_bytes = table_bytes_of(slots);
  const auto direct =
      hash::block_table_kernel<kThreads, kUnroll, unsigned, stats, direct_t, merge_stats>;
  const auto second =
      hash::block_table_kernel<kThreads, kUnroll, unsigned, stats, partial_rows, merge_stats>;
  CHECK(cudaFuncSetAttribute(direct, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(table_bytes)));
  CHECK(cudaFuncSetAttribute(second, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(table_bytes)));
  const unsigned blocks = static_cast<unsigned>(sms);
  const unsigned long long capacity = 2ull * groups;
  const unsigned long long partial_capacity = 1ull * blocks * slots;
  slot *table, *partials;
  unsigned *overflow, *partial_flags;
  unsigned long long* starts;
  CHECK(cudaMalloc(&table, capacity * sizeof(slot)));
  CHECK(cudaMalloc(&partials, partial_capacity * sizeof(slot)));
  CHECK(cudaMalloc(&overflow, 8));
  CHECK(cudaMalloc(&partial_flags, 8));
  CHECK(cudaMalloc(&starts, (blocks + 1) * 8ull));
  // Each block's share of the rows, whole rounds of rows (kThreads x kUnroll) but the last.
  const unsigned long long round = 1ull * kThreads * kUnroll;
  const unsigned long long per = ((n + blocks - 1) / blocks + round - 1) / round * round;
  std::vector<unsigned long long> host_starts(blocks + 1);
  for (unsigned b = 0; b <= blocks; ++b)
    host_starts[b] = std::min<unsigned long long>(n, b * per);
  CHECK(cudaMemcpy(starts, host_starts.data(), (blocks + 1) * 8ull, cudaMemcpyHostToDevice));
  const direct_t rows{keys, stats_of{values}};
  const auto clear = [&] {
    CHECK(cudaMemsetAsync(table, 0, capacity * sizeof(slot)));
    CHECK(cudaMemsetAsync(overflow, 0, 8));
  };
  const float today_ms = median_ms([&] {
    clear();
    direct<<<blocks, kThreads, table_bytes>>>(rows, n, nullptr, blocks, slots, 0, table,
                                              capacity - 1, merge_stats{}, overflow);
  });
  const checked today = check_table(table, capacity, overflow, want);
  const float clear_ms = median_ms(clear);
  // The partials need no clearing (the second pass reads the appended ones); only the count.
  CHECK(cudaMemset(partials, 0, partial_capacity * sizeof(slot)));
  const float first_ms = median_ms([&] {
    CHECK(cudaMemsetAsync(partial_flags, 0, 8));
    direct<<<blocks, kThreads, table_bytes>>>(rows, n, starts, 1, slots, 0, partials,
                                              partial_capacity - 1, merge_stats{}, partial_flags);
  });
  unsigned flags[2] = {0, 0};
  CHECK(cudaMemcpy(flags, partial_flags, 8, cudaMemcpyDeviceToHost));
  const unsigned second_blocks = 16;
  const float second_ms = median_ms([&] {
    clear();
    second<<<second_blocks, kThreads, table_bytes>>>(partial_rows{partials}, flags[1], nullptr,
                                                     second_blocks, slots, 0, table, capacity - 1,
                                                     merge_stats{}, overflow);
  });
  const checked two = check_table(table, capacity, overflow, want);
  std::printf(
      "%s, %llu rows as given, %u groups, %u blocks of a %u-slot table\n"
      "blocks combining into the global table: %.3f ms (of which the table's clear %.3f; %llu "
      "groups, %llu rows counted, %llu wrong, flags %u)\n"
      "blocks appending partials: %.3f ms (%u partials, flags %u), 16 blocks combining them: "
      "%.3f ms, total %.3f (%llu groups, %llu rows counted, %llu wrong, flags %u)\n",
      gpu_name().c_str(), n, groups, blocks, slots, today_ms, clear_ms, today.found, today.counted,
      today.wrong, today.flags, first_ms, flags[1], flags[0], second_ms, first_ms + second_ms,
      two.found, two.counted, two.wrong, two.flags);
  return 0;
}

int main(int argc, char** argv) {
  const int rows_log2 = argc > 1 ? std::atoi(argv[1]) : 26;
  const int groups_log2 = argc > 2 ? std::atoi(argv[2]) : 20;
  const unsigned long long n = 1ull << rows_log2;
  const unsigned groups = 1u << groups_log2;
  const int part_bits = argc > 3 ? std::atoi(argv[3]) : 8;
  const unsigned parts = 1u << part_bits;
  // Half a table's slots a part's groups, as plan_tables sizes them (1,024 to 8,192 slots).
  const unsigned slots = std::min(8192u, std::max(1024u, 2u * (groups >> part_bits)));
  if (2ull * (groups >> part_bits) > slots) {  // the variants' probes would never end
    std::printf("2^%d groups need more than 2^%d parts of %u slots\n", groups_log2, part_bits,
                slots);
    return 1;
  }
  std::vector<unsigned> hk(n);
  std::vector<float> hv(n);
  unsigned long long x = 88172645463325252ull;
  for (unsigned long long i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    hk[i] = static_cast<unsigned>(x % groups);
    // Non-negative (integer min / max order) and below 256: every part's float sums stay exact
    // (below 2^24) up to 65,536 rows a group, whatever order the GPU adds them in.
    hv[i] = static_cast<float>((x >> 32) % 256);
  }
  unsigned *keys, *mixed, *sorted;
  float *values, *moved;
  unsigned long long *starts, *sink;
  CHECK(cudaMalloc(&keys, n * 4));
  CHECK(cudaMalloc(&mixed, n * 4));
  CHECK(cudaMalloc(&sorted, n * 4));
  CHECK(cudaMalloc(&values, n * 4));
  CHECK(cudaMalloc(&moved, n * 4));
  CHECK(cudaMalloc(&starts, (parts + 1) * 8));
  CHECK(cudaMalloc(&sink, 8));
  CHECK(cudaMemcpy(keys, hk.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(values, hv.data(), n * 4, cudaMemcpyHostToDevice));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (part_bits == 0)
    return rows_as_given(keys, values, n, groups, slots, cpu_groups(hk, hv, groups), sms);
  const int grid = static_cast<int>(std::min<unsigned long long>((n + 255) / 256, 65536));
  const auto identity = [] __device__(unsigned long long) { return 0.0f; };
  const float mix_ms = median_ms([&] {
    hash::mix_inputs_kernel<unsigned>
        <<<grid, 256>>>(keys, identity, n, mixed, static_cast<float*>(nullptr));
  });
  std::size_t temp_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, mixed, sorted, values, moved,
                                        static_cast<unsigned>(n), 0, part_bits));
  void* temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  const float sort_ms = median_ms([&] {
    CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, mixed, sorted, values, moved,
                                          static_cast<unsigned>(n), 0, part_bits));
  });
  const float starts_ms = median_ms([&] {
    hash::part_starts_kernel<<<(parts + 1 + 255) / 256, 256>>>(sorted, n, parts, starts);
  });
  // The global table: 2^21 slots for 2^20 groups.
  const unsigned long long capacity = 2ull * groups;
  slot* table;
  unsigned* overflow;
  CHECK(cudaMalloc(&table, capacity * sizeof(slot)));
  CHECK(cudaMalloc(&overflow, 8));  // the flags, the appended groups
  const std::size_t table_bytes = table_bytes_of(slots);
  const auto real =
      hash::block_table_kernel<kThreads, kUnroll, unsigned, stats, rows_t, merge_stats>;
  CHECK(cudaFuncSetAttribute(real, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(table_bytes)));
  const rows_t rows{sorted, moved};
  const float real_ms = median_ms([&] {
    CHECK(cudaMemsetAsync(table, 0, capacity * sizeof(slot)));
    CHECK(cudaMemsetAsync(overflow, 0, 8));
    real<<<parts, kThreads, table_bytes>>>(rows, n, starts, 1, slots, part_bits, table,
                                           capacity - 1, merge_stats{}, overflow);
  });
  const std::vector<stats> want = cpu_groups(hk, hv, groups);
  const auto check_groups = [&] { return check_table(table, capacity, overflow, want); };
  const checked real_check = check_groups();
  const float clear_ms = median_ms([&] {
    CHECK(cudaMemsetAsync(table, 0, capacity * sizeof(slot)));
    CHECK(cudaMemsetAsync(overflow, 0, 8));
  });
  const auto time_variant = [&](auto kernel, std::size_t bytes) {
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes)));
    return median_ms(
        [&] { kernel<<<parts, kThreads, bytes>>>(rows, starts, slots, part_bits, sink); });
  };
  const float claim_ms = time_variant(variant_kernel<claim_only>, slots * 8ull);
  const float native_ms = time_variant(variant_kernel<native_fields>, slots * 24ull);
  const float cas64_ms = time_variant(variant_kernel<cas64_pair>, slots * 16ull);
  const float load_ms = time_variant(variant_kernel<load_only>, slots * 8ull);
  const float claim32_ms = time_variant(variant_kernel<claim32>, slots * 4ull);
  std::printf(
      "%s, 2^%d rows, 2^%d groups, %u parts of a %u-slot table (overflow flags %u; %llu "
      "groups found, %llu rows counted, %llu groups wrong)\n",
      gpu_name().c_str(), rows_log2, groups_log2, parts, slots, real_check.flags, real_check.found,
      real_check.counted, real_check.wrong);
  std::printf("mix %.3f ms, radix pass %.3f ms, starts %.3f ms\n", mix_ms, sort_ms, starts_ms);
  std::printf(
      "real %.3f ms (of which the table's clear %.3f), claim %.3f, native %.3f, cas64 "
      "%.3f, load %.3f, claim32 %.3f\n",
      real_ms - clear_ms, clear_ms, claim_ms, native_ms, cas64_ms, load_ms, claim32_ms);
  if (parts > 256) {  // the partition's histograms have 256 bins
    std::printf("own partition: up to 256 parts, not run\n");
    return 0;
  }
  // The partition of our own over the same rows, then the same table kernel over its parts.
  const unsigned part_blocks_wanted = 4u * static_cast<unsigned>(sms);
  const unsigned long long per =
      (((n + part_blocks_wanted - 1) / part_blocks_wanted + kPartTile - 1) / kPartTile) * kPartTile;
  const unsigned part_blocks = static_cast<unsigned>((n + per - 1) / per);
  unsigned *counts, *offsets, *own_mixed;
  float* own_values;
  unsigned long long* own_starts;
  CHECK(cudaMalloc(&counts, 4ull * parts * part_blocks));
  CHECK(cudaMalloc(&offsets, 4ull * parts * part_blocks));
  CHECK(cudaMalloc(&own_mixed, n * 4));
  CHECK(cudaMalloc(&own_values, n * 4));
  CHECK(cudaMalloc(&own_starts, (parts + 1) * 8));
  std::size_t scan_bytes = 0;
  CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets,
                                      static_cast<int>(parts * part_blocks)));
  void* scan_temp;
  CHECK(cudaMalloc(&scan_temp, scan_bytes));
  const float count_ms = median_ms(
      [&] { part_count_kernel<<<part_blocks, kPartThreads>>>(keys, n, per, parts, counts); });
  const float scan_ms = median_ms([&] {
    CHECK(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, offsets,
                                        static_cast<int>(parts * part_blocks)));
    part_starts_from_offsets<<<(parts + 1 + 255) / 256, 256>>>(offsets, part_blocks, parts, n,
                                                               own_starts);
  });
  const float scatter_ms = median_ms([&] {
    part_scatter_kernel<<<part_blocks, kPartThreads>>>(keys, values, n, per, parts, offsets,
                                                       own_mixed, own_values);
  });
  CHECK(cudaMemsetAsync(table, 0, capacity * sizeof(slot)));
  CHECK(cudaMemsetAsync(overflow, 0, 8));
  real<<<parts, kThreads, table_bytes>>>(rows_t{own_mixed, own_values}, n, own_starts, 1, slots,
                                         part_bits, table, capacity - 1, merge_stats{}, overflow);
  CHECK(cudaDeviceSynchronize());
  const checked own_check = check_groups();
  std::printf(
      "own partition (mix fused, %u blocks): count %.3f ms, scan %.3f, scatter %.3f, total %.3f "
      "(CUB's route: mix + radix pass + starts %.3f); the table over its parts: %llu groups, "
      "%llu rows counted, %llu groups wrong, flags %u\n",
      part_blocks, count_ms, scan_ms, scatter_ms, count_ms + scan_ms + scatter_ms,
      mix_ms + sort_ms + starts_ms, own_check.found, own_check.counted, own_check.wrong,
      own_check.flags);
  return 0;
}
