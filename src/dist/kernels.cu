// cupar::dist: the kernels of the distributed algorithms that involve no user operator: where
// each element goes (splitters, hashes), the stable partition by destination, gathers, and the
// local step of a join. The user's operators run in the single-GPU cupar calls the algorithm
// templates make.
#include <cupar/buffer.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device/radix_order.cuh>
#include <cupar/detail/device_guard.hpp>
#include <cupar/dist/detail/runtime.hpp>
#include <cupar/search.hpp>
#include <cupar/sort.hpp>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cupar::dist::detail {
namespace {

using ::cupar::detail::check_cuda;
using ::cupar::detail::ordered_bits;
using ::cupar::detail::scalar;
using ::cupar::detail::uint_of_t;

constexpr int block = 256;

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(std::max<std::size_t>(
      1, std::min<std::size_t>((n + block - 1) / block, std::size_t(65535) * 16)));
}

void check_launch(const char* what) {
  check_cuda(cudaGetLastError(), what);
}

/// Bits of a key for hashing: equal keys (-0.0 and +0.0 included) hash alike.
template <class K>
__device__ std::uint64_t hash_bits(K key, bool& nan) {
  nan = false;
  if constexpr (std::is_floating_point_v<K>) {
    nan = key != key;
    if (key == K(0)) key = K(0);
  }
  uint_of_t<K> bits;
  memcpy(&bits, &key, sizeof(K));
  return static_cast<std::uint64_t>(bits);
}

__device__ std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Per-block counts of bucket ids: in registers for up to 8 buckets (one compare per bucket and
/// element, reduced over the warp, then the block, at the end), else in shared memory with the
/// lanes of a warp that share a bucket adding once. Few blocks (a resident grid): each adds its
/// counts to the global ones once.
constexpr int register_buckets = 8;
constexpr int shared_buckets = 4096;

struct block_counts {
  unsigned reg[register_buckets];
  unsigned* shared;
  int buckets;
  unsigned long long* global;

  __device__ block_counts(unsigned* s, int b, unsigned long long* g)
      : shared(s), buckets(b), global(g) {
#pragma unroll
    for (int j = 0; j < register_buckets; ++j)
      reg[j] = 0;
    for (int j = threadIdx.x; j < (b < shared_buckets ? b : shared_buckets); j += blockDim.x)
      shared[j] = 0;
    __syncthreads();
  }
  __device__ void add(std::uint32_t b) {
    if (buckets <= register_buckets) {
#pragma unroll
      for (int j = 0; j < register_buckets; ++j)
        reg[j] += b == static_cast<std::uint32_t>(j) ? 1u : 0u;
      return;
    }
    const unsigned peers = __match_any_sync(__activemask(), b);
    if ((threadIdx.x & 31) != static_cast<unsigned>(__ffs(peers) - 1)) return;
    if (b >= static_cast<std::uint32_t>(buckets)) return;
    if (buckets > shared_buckets) {
      atomicAdd(global + b, static_cast<unsigned long long>(__popc(peers)));
    } else {
      atomicAdd(shared + b, static_cast<unsigned>(__popc(peers)));
    }
  }
  __device__ void flush() {
    if (buckets <= register_buckets) {
#pragma unroll
      for (int j = 0; j < register_buckets; ++j) {
        unsigned v = reg[j];
        for (int d = 16; d > 0; d /= 2)
          v += __shfl_down_sync(0xffffffffu, v, d);
        if ((threadIdx.x & 31) == 0 && j < buckets && v != 0) atomicAdd(shared + j, v);
      }
    }
    __syncthreads();
    if (buckets > shared_buckets) return;  // counted in global memory directly
    for (int j = threadIdx.x; j < buckets; j += blockDim.x) {
      if (shared[j] != 0) atomicAdd(global + j, static_cast<unsigned long long>(shared[j]));
    }
  }
};

template <class K, class B>
__global__ void radix_bucket_kernel(const K* keys, std::size_t n, const K* split_keys,
                                    const std::uint64_t* split_tags, int splitters,
                                    std::uint64_t tag_base, bool descending, B* buckets,
                                    unsigned long long* counts) {
  __shared__ unsigned shared[shared_buckets];
  block_counts c(shared, splitters + 1, counts);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const auto k = ordered_bits(keys[i], descending);
    const std::uint64_t t = tag_base + i;
    // The number of splitters (sk, st) < (k, t), by binary search.
    int lo = 0, hi = splitters;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      const auto sk = ordered_bits(split_keys[mid], descending);
      const bool before = sk < k || (sk == k && split_tags[mid] < t);
      if (before) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    buckets[i] = static_cast<B>(lo);
    c.add(static_cast<std::uint32_t>(lo));
  }
  c.flush();
}

template <class B>
__global__ void tie_bucket_kernel(const std::uint64_t* lb, const std::uint64_t* ub, std::size_t n,
                                  const std::uint64_t* split_tags, int splitters,
                                  std::uint64_t tag_base, B* buckets, unsigned long long* counts) {
  __shared__ unsigned shared[shared_buckets];
  block_counts c(shared, splitters + 1, counts);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    // Splitters [lb, ub) have this key; among them (tags ascending), those with a smaller tag
    // come before it.
    std::uint64_t lo = lb[i], hi = ub[i];
    const std::uint64_t t = tag_base + i;
    while (lo < hi) {
      const std::uint64_t mid = (lo + hi) / 2;
      if (split_tags[mid] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    buckets[i] = static_cast<B>(lo);
    c.add(static_cast<std::uint32_t>(lo));
  }
  c.flush();
}

template <class K, class B>
__global__ void hash_bucket_kernel(const K* keys, std::size_t n, int ranks, bool drop_nan,
                                   B* buckets, unsigned long long* counts) {
  __shared__ unsigned shared[shared_buckets];
  block_counts c(shared, ranks, counts);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool nan = false;
    const std::uint64_t h = mix64(hash_bits(keys[i], nan));
    const auto b = drop_nan && nan ? static_cast<std::uint32_t>(ranks)
                                   : static_cast<std::uint32_t>(h % static_cast<unsigned>(ranks));
    buckets[i] = static_cast<B>(b);
    c.add(b);
  }
  c.flush();
}

template <class Word>
__global__ void gather_kernel(const Word* src, std::size_t words, const std::uint64_t* idx,
                              std::size_t count, Word* dst) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const Word* from = src + idx[i] * words;
    Word* to = dst + i * words;
    for (std::size_t w = 0; w < words; ++w)
      to[w] = from[w];
  }
}

template <class Word>
__global__ void sample_kernel(const Word* keys, std::size_t words, std::size_t n, std::size_t m,
                              std::uint64_t seed, std::uint64_t tag_base, Word* out,
                              std::uint64_t* tags) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < m; i += stride) {
    // Stratum i of m: [i n / m, (i + 1) n / m) (n < 2^40 and m < 2^24: no overflow).
    const std::uint64_t lo = static_cast<std::uint64_t>(i) * n / m;
    const std::uint64_t hi = static_cast<std::uint64_t>(i + 1) * n / m;
    const std::uint64_t pos =
        hi > lo + 1 ? lo + mix64(seed ^ (i * 0x9e3779b97f4a7c15ull)) % (hi - lo) : lo;
    for (std::size_t w = 0; w < words; ++w)
      out[i * words + w] = keys[pos * words + w];
    tags[i] = tag_base + pos;
  }
}

__global__ void iota_kernel(std::uint64_t* out, std::size_t n) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = i;
}

void gather_any(const void* src, std::size_t size, const std::uint64_t* idx, std::size_t count,
                void* dst, cudaStream_t s) {
  if (count == 0 || size == 0) return;
  const auto a = reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst) |
                 static_cast<std::uintptr_t>(size);
  if (a % 16 == 0) {
    gather_kernel<<<grid_for(count), block, 0, s>>>(static_cast<const uint4*>(src), size / 16, idx,
                                                    count, static_cast<uint4*>(dst));
  } else if (a % 8 == 0) {
    gather_kernel<<<grid_for(count), block, 0, s>>>(static_cast<const std::uint64_t*>(src),
                                                    size / 8, idx, count,
                                                    static_cast<std::uint64_t*>(dst));
  } else if (a % 4 == 0) {
    gather_kernel<<<grid_for(count), block, 0, s>>>(static_cast<const std::uint32_t*>(src),
                                                    size / 4, idx, count,
                                                    static_cast<std::uint32_t*>(dst));
  } else if (a % 2 == 0) {
    gather_kernel<<<grid_for(count), block, 0, s>>>(static_cast<const std::uint16_t*>(src),
                                                    size / 2, idx, count,
                                                    static_cast<std::uint16_t*>(dst));
  } else {
    gather_kernel<<<grid_for(count), block, 0, s>>>(static_cast<const std::uint8_t*>(src), size,
                                                    idx, count, static_cast<std::uint8_t*>(dst));
  }
  check_launch("cupar::dist gather kernel launch");
}

int bits_for(int max_value) {
  int b = 1;
  while ((1ll << b) <= max_value)
    ++b;
  return b;
}

/// CUB's two-phase call with its temporary storage from `mr`.
template <class F>
void with_temp(memory_resource& mr, cudaStream_t s, const char* what, F&& f) {
  std::size_t bytes = 0;
  check_cuda(f(nullptr, bytes), what);
  device_buffer<unsigned char> temp(std::max<std::size_t>(bytes, 1), s, mr);
  check_cuda(f(temp.data(), bytes), what);
}

}  // namespace

void gather_bytes(const void* src, std::size_t elem_size, const std::uint64_t* d_idx,
                  std::size_t count, void* dst, stream_ref stream) {
  gather_any(src, elem_size, d_idx, count, dst, stream.get());
}

void sample_keys(const void* d_keys, std::size_t key_size, std::size_t n, std::size_t m,
                 std::uint64_t seed, std::uint64_t tag_base, void* d_sample_keys,
                 std::uint64_t* d_tags, stream_ref stream) {
  if (m == 0) return;
  const cudaStream_t s = stream.get();
  const auto a = reinterpret_cast<std::uintptr_t>(d_keys) |
                 reinterpret_cast<std::uintptr_t>(d_sample_keys) |
                 static_cast<std::uintptr_t>(key_size);
  auto run = [&](auto word) {
    using W = decltype(word);
    sample_kernel<<<grid_for(m), block, 0, s>>>(static_cast<const W*>(d_keys), key_size / sizeof(W),
                                                n, m, seed, tag_base,
                                                static_cast<W*>(d_sample_keys), d_tags);
  };
  if (a % 8 == 0) {
    run(std::uint64_t{});
  } else if (a % 4 == 0) {
    run(std::uint32_t{});
  } else if (a % 2 == 0) {
    run(std::uint16_t{});
  } else {
    run(std::uint8_t{});
  }
  check_launch("cupar::dist sample kernel launch");
}

/// A resident grid for the counting kernels: enough blocks to fill the GPU, few enough that
/// each block's one addition per bucket to the global counts costs nothing.
unsigned counting_grid(std::size_t n) {
  int count = ::cupar::detail::current_multiprocessor_count();
  if (count == 0) count = 132;
  return static_cast<unsigned>(std::max<std::size_t>(
      1, std::min<std::size_t>((n + block - 1) / block, static_cast<std::size_t>(count) * 8)));
}

/// Calls f(B{}) with the unsigned type of a bucket id of `bytes` bytes.
template <class F>
void with_bucket_type(int bytes, F&& f) {
  if (bytes == 1) {
    f(std::uint8_t{});
  } else if (bytes == 2) {
    f(std::uint16_t{});
  } else {
    f(std::uint32_t{});
  }
}

void radix_buckets(scalar key, bool descending, const void* d_keys, std::size_t n,
                   const void* d_split_keys, const std::uint64_t* d_split_tags, int splitters,
                   std::uint64_t tag_base, void* d_buckets, unsigned long long* d_counts,
                   stream_ref stream) {
  const cudaStream_t s = stream.get();
  check_cuda(cudaMemsetAsync(d_counts, 0, sizeof(unsigned long long) * (splitters + 1), s),
             "cudaMemsetAsync");
  ::cupar::detail::visit_scalar(key, [&](auto k) {
    using K = decltype(k);
    with_bucket_type(bucket_bytes(splitters + 1), [&](auto b) {
      using B = decltype(b);
      if (n == 0) return;
      radix_bucket_kernel<K, B><<<counting_grid(n), block, 0, s>>>(
          static_cast<const K*>(d_keys), n, static_cast<const K*>(d_split_keys), d_split_tags,
          splitters, tag_base, descending, static_cast<B*>(d_buckets), d_counts);
      check_launch("cupar::dist bucket kernel launch");
    });
  });
}

void tie_buckets(const std::uint64_t* d_lb, const std::uint64_t* d_ub, std::size_t n,
                 const std::uint64_t* d_split_tags, int splitters, std::uint64_t tag_base,
                 void* d_buckets, unsigned long long* d_counts, stream_ref stream) {
  const cudaStream_t s = stream.get();
  check_cuda(cudaMemsetAsync(d_counts, 0, sizeof(unsigned long long) * (splitters + 1), s),
             "cudaMemsetAsync");
  with_bucket_type(bucket_bytes(splitters + 1), [&](auto b) {
    using B = decltype(b);
    if (n == 0) return;
    tie_bucket_kernel<B><<<counting_grid(n), block, 0, s>>>(
        d_lb, d_ub, n, d_split_tags, splitters, tag_base, static_cast<B*>(d_buckets), d_counts);
    check_launch("cupar::dist bucket kernel launch");
  });
}

void hash_buckets(scalar key, const void* d_keys, std::size_t n, int ranks, bool drop_nan,
                  void* d_buckets, unsigned long long* d_counts, stream_ref stream) {
  const cudaStream_t s = stream.get();
  check_cuda(cudaMemsetAsync(d_counts, 0, sizeof(unsigned long long) * (ranks), s),
             "cudaMemsetAsync");
  ::cupar::detail::visit_scalar(key, [&](auto k) {
    using K = decltype(k);
    with_bucket_type(bucket_bytes(ranks), [&](auto b) {
      using B = decltype(b);
      if (n == 0) return;
      hash_bucket_kernel<K, B><<<counting_grid(n), block, 0, s>>>(
          static_cast<const K*>(d_keys), n, ranks, drop_nan, static_cast<B*>(d_buckets), d_counts);
      check_launch("cupar::dist hash kernel launch");
    });
  });
}

void partition_by_bucket(const void* d_buckets, std::size_t n, int buckets, const void* d_keys,
                         std::size_t key_size, const void* d_values, std::size_t value_size,
                         void* d_keys_out, void* d_values_out, memory_resource& mr,
                         stream_ref stream) {
  if (n == 0) return;
  const cudaStream_t s = stream.get();
  const int end_bit = bits_for(buckets);  // bucket ids 0 .. buckets (the last: dropped)
  const auto count = static_cast<std::int64_t>(n);
  with_bucket_type(bucket_bytes(buckets), [&](auto bucket) {
    using B = decltype(bucket);
    const B* in_buckets = static_cast<const B*>(d_buckets);
    device_buffer<B> sorted_buckets(n, s, mr);
    // Keys alone of a word size move with the sort itself (one pass); otherwise an index does,
    // and keys and values are gathered by it.
    const bool direct =
        value_size == 0 && (key_size == 1 || key_size == 2 || key_size == 4 || key_size == 8);
    if (direct) {
      auto run = [&](auto word) {
        using W = decltype(word);
        with_temp(mr, s, "cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
          return cub::DeviceRadixSort::SortPairs(t, b, in_buckets, sorted_buckets.data(),
                                                 static_cast<const W*>(d_keys),
                                                 static_cast<W*>(d_keys_out), count, 0, end_bit, s);
        });
      };
      if (key_size == 1) run(std::uint8_t{});
      if (key_size == 2) run(std::uint16_t{});
      if (key_size == 4) run(std::uint32_t{});
      if (key_size == 8) run(std::uint64_t{});
      return;
    }
    device_buffer<std::uint64_t> idx(n, s, mr), sorted_idx(n, s, mr);
    iota_kernel<<<grid_for(n), block, 0, s>>>(idx.data(), n);
    check_launch("cupar::dist iota kernel launch");
    with_temp(mr, s, "cub::DeviceRadixSort::SortPairs", [&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, in_buckets, sorted_buckets.data(), idx.data(),
                                             sorted_idx.data(), count, 0, end_bit, s);
    });
    gather_any(d_keys, key_size, sorted_idx.data(), n, d_keys_out, s);
    if (value_size != 0) gather_any(d_values, value_size, sorted_idx.data(), n, d_values_out, s);
  });
}

// ---- the local step of a join
// ---------------------------------------------------------------------

namespace {

__global__ void count_kernel(const std::uint64_t* lb, const std::uint64_t* ub, std::size_t n,
                             std::uint64_t* counts) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    counts[i] = ub[i] - lb[i];
}

/// Output j: the left row i whose range of outputs [offsets[i], offsets[i] + counts[i]) holds j
/// (the last i with offsets[i] <= j), and its (j - offsets[i])-th match.
__global__ void expand_kernel(const std::uint64_t* offsets, std::size_t n_left, std::uint64_t total,
                              const std::uint64_t* lb, std::uint64_t* left_rows,
                              std::uint64_t* right_rows) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < total;
       j += stride) {
    std::size_t lo = 0, hi = n_left;  // first i with offsets[i] > j
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (offsets[mid] <= j) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    const std::size_t i = lo - 1;
    left_rows[j] = i;
    right_rows[j] = lb[i] + (j - offsets[i]);
  }
}

__global__ void compose_kernel(const std::uint64_t* rows, const std::uint64_t* perm,
                               std::uint64_t total, std::uint64_t* out) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < total;
       j += stride)
    out[j] = perm[rows[j]];
}

}  // namespace

struct local_join::impl {
  memory_resource* mr = nullptr;
  scalar key;
  std::size_t key_size = 0;
  std::size_t n_left = 0;
  std::uint64_t total = 0;
  device_buffer<unsigned char> left_keys;   // sorted
  device_buffer<std::uint64_t> left_perm;   // received row of each sorted left key
  device_buffer<std::uint64_t> right_perm;  // received row of each sorted right key
  device_buffer<std::uint64_t> lb, offsets;
};

local_join::local_join(scalar key, const void* d_left_keys, std::size_t n_left,
                       const void* d_right_keys, std::size_t n_right, memory_resource& mr,
                       stream_ref stream)
    : impl_(new impl) {
  try {
    const cudaStream_t s = stream.get();
    impl& j = *impl_;
    j.mr = &mr;
    j.key = key;
    j.key_size = static_cast<std::size_t>(::cupar::detail::scalar_size(key));
    j.n_left = n_left;
    if (n_left == 0 || n_right == 0) return;
    j.left_keys = device_buffer<unsigned char>(n_left * j.key_size, s, mr);
    j.left_perm = device_buffer<std::uint64_t>(n_left, s, mr);
    j.right_perm = device_buffer<std::uint64_t>(n_right, s, mr);
    j.lb = device_buffer<std::uint64_t>(n_left, s, mr);
    j.offsets = device_buffer<std::uint64_t>(n_left, s, mr);
    device_buffer<std::uint64_t> iota(std::max(n_left, n_right), s, mr);
    iota_kernel<<<grid_for(iota.size()), block, 0, s>>>(iota.data(), iota.size());
    check_launch("cupar::dist iota kernel launch");
    ::cupar::detail::visit_scalar(key, [&](auto k) {
      using K = decltype(k);
      device_buffer<K> right_keys(n_right, s, mr);
      // Stable radix sorts: equal keys keep the order received (rank, then position).
      ::cupar::sort_pairs(
          static_cast<const K*>(d_left_keys), reinterpret_cast<K*>(j.left_keys.data()),
          static_cast<const std::uint64_t*>(iota.data()), j.left_perm.data(), n_left, stream, mr);
      ::cupar::sort_pairs(static_cast<const K*>(d_right_keys), right_keys.data(),
                          static_cast<const std::uint64_t*>(iota.data()), j.right_perm.data(),
                          n_right, stream, mr);
      device_buffer<std::uint64_t> ub(n_left, s, mr);
      const K* sorted_left = reinterpret_cast<const K*>(j.left_keys.data());
      ::cupar::lower_bound(static_cast<const K*>(right_keys.data()), n_right, sorted_left, n_left,
                           j.lb.data(), stream);
      ::cupar::upper_bound(static_cast<const K*>(right_keys.data()), n_right, sorted_left, n_left,
                           ub.data(), stream);
      device_buffer<std::uint64_t> counts(n_left, s, mr);
      count_kernel<<<grid_for(n_left), block, 0, s>>>(j.lb.data(), ub.data(), n_left,
                                                      counts.data());
      check_launch("cupar::dist join count kernel launch");
      with_temp(mr, s, "cub::DeviceScan::ExclusiveSum", [&](void* t, std::size_t& b) {
        return cub::DeviceScan::ExclusiveSum(t, b, counts.data(), j.offsets.data(),
                                             static_cast<std::int64_t>(n_left), s);
      });
      std::uint64_t last[2] = {0, 0};
      check_cuda(
          cudaMemcpyAsync(&last[0], j.offsets.data() + (n_left - 1), 8, cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync");
      check_cuda(
          cudaMemcpyAsync(&last[1], counts.data() + (n_left - 1), 8, cudaMemcpyDeviceToHost, s),
          "cudaMemcpyAsync");
      check_cuda(cudaStreamSynchronize(s), "cupar::dist::inner_join");
      j.total = last[0] + last[1];
    });
  } catch (...) {
    delete impl_;
    impl_ = nullptr;
    throw;
  }
}

local_join::~local_join() {
  delete impl_;
}

std::size_t local_join::count() const noexcept {
  return static_cast<std::size_t>(impl_->total);
}

void local_join::write(void* d_keys_out, const void* d_left_values, std::size_t left_size,
                       void* d_left_out, const void* d_right_values, std::size_t right_size,
                       void* d_right_out, stream_ref stream) const {
  const impl& j = *impl_;
  if (j.total == 0) return;
  const cudaStream_t s = stream.get();
  memory_resource& mr = *j.mr;
  device_buffer<std::uint64_t> left_rows(j.total, s, mr), right_rows(j.total, s, mr),
      rows(j.total, s, mr);
  expand_kernel<<<grid_for(j.total), block, 0, s>>>(
      j.offsets.data(), j.n_left, j.total, j.lb.data(), left_rows.data(), right_rows.data());
  check_launch("cupar::dist join expand kernel launch");
  gather_any(j.left_keys.data(), j.key_size, left_rows.data(), j.total, d_keys_out, s);
  compose_kernel<<<grid_for(j.total), block, 0, s>>>(left_rows.data(), j.left_perm.data(), j.total,
                                                     rows.data());
  check_launch("cupar::dist join kernel launch");
  gather_any(d_left_values, left_size, rows.data(), j.total, d_left_out, s);
  compose_kernel<<<grid_for(j.total), block, 0, s>>>(right_rows.data(), j.right_perm.data(),
                                                     j.total, rows.data());
  check_launch("cupar::dist join kernel launch");
  gather_any(d_right_values, right_size, rows.data(), j.total, d_right_out, s);
}

}  // namespace cupar::dist::detail
