// cupar: gather and scatter by index arrays (include/cupar/gather.hpp), precompiled for every
// element size (moved as words of 1-16 bytes) and for 4- and 8-byte indices.
//
// The kernels: each thread moves kItems items of a tile (kThreads * kItems items), loading its
// kItems indices first and then their items, so that each thread has kItems independent random
// reads in flight (an element of one word); elements of several words move one item at a time,
// word by word. bounds::error runs a check pass first (the lowest position whose index is out of
// range, by atomicMin) and reads it back, so that nothing is written when it fails.
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/device_guard.hpp>
#include <cupar/detail/temp_storage.hpp>
#include <cupar/gather.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace cupar::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;

struct alignas(16) word16 {
  std::uint64_t a, b;
};

enum move_policy : int { move_unchecked = 0, move_skip = 1, move_fill = 2 };

/// The index as a 64-bit unsigned number: a negative signed index becomes 2^63 or more, which no
/// extent reaches (an extent is at most size_t's largest value over the element's size), so one
/// comparison tells whether it is in range.
template <class Index>
__device__ __forceinline__ unsigned long long as_position(Index i) {
  if constexpr (std::is_signed_v<Index>) {
    return static_cast<unsigned long long>(static_cast<long long>(i));
  } else {
    return static_cast<unsigned long long>(i);
  }
}

/// The fill item, `words` words; a copy in the parameters (up to 256 bytes) or in device memory.
template <class Word>
struct fill_item {
  static constexpr int capacity = 256 / sizeof(Word);
  Word inline_words[capacity];
  const Word* device_words;  // null: inline_words
  __device__ __forceinline__ Word word(std::size_t w) const {
    return device_words != nullptr ? device_words[w] : inline_words[w];
  }
};

// Elements of one word: kItems per thread, indices then items loaded before anything is stored.
template <class Index, class Word, int Policy, bool Scatter>
__global__ void __launch_bounds__(kThreads)
    move_one_word(const Word* __restrict__ src, Word* __restrict__ dst,
                  const Index* __restrict__ indices, std::size_t n, std::size_t extent,
                  fill_item<Word> fill) {
  const std::size_t tile = std::size_t(kThreads) * kItems;
  for (std::size_t base = std::size_t(blockIdx.x) * tile + threadIdx.x; base < n;
       base += std::size_t(gridDim.x) * tile) {
    unsigned long long at[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = base + std::size_t(k) * kThreads;
      at[k] = i < n ? as_position(indices[i]) : 0ull;
    }
    Word v[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = base + std::size_t(k) * kThreads;
      const bool ok = i < n && (Policy == move_unchecked || at[k] < extent);
      if (ok) v[k] = Scatter ? src[i] : src[at[k]];
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const std::size_t i = base + std::size_t(k) * kThreads;
      if (i >= n) continue;
      if (Policy == move_unchecked || at[k] < extent) {
        if (Scatter) {
          dst[at[k]] = v[k];
        } else {
          dst[i] = v[k];
        }
      } else if (Policy == move_fill) {
        dst[i] = fill.word(0);
      }
    }
  }
}

// Elements of several words: one item at a time per thread, word by word.
template <class Index, class Word, int Policy, bool Scatter>
__global__ void __launch_bounds__(kThreads)
    move_words(const Word* __restrict__ src, Word* __restrict__ dst,
               const Index* __restrict__ indices, std::size_t n, std::size_t extent,
               std::size_t words, fill_item<Word> fill) {
  for (std::size_t i = std::size_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * kThreads) {
    const unsigned long long at = as_position(indices[i]);
    const bool ok = Policy == move_unchecked || at < extent;
    if (ok) {
      const Word* from = src + (Scatter ? i : at) * words;
      Word* to = dst + (Scatter ? at : i) * words;
      for (std::size_t w = 0; w < words; ++w)
        to[w] = from[w];
    } else if (Policy == move_fill) {
      Word* to = dst + i * words;
      for (std::size_t w = 0; w < words; ++w)
        to[w] = fill.word(w);
    }
  }
}

// bounds::error: the lowest position whose index is out of range (*first starts at all ones).
template <class Index>
__global__ void __launch_bounds__(kThreads)
    first_out_of_range(const Index* __restrict__ indices, std::size_t n, std::size_t extent,
                       unsigned long long* first) {
  for (std::size_t i = std::size_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * kThreads) {
    if (as_position(indices[i]) >= extent) {
      atomicMin(first, static_cast<unsigned long long>(i));
      return;  // later positions of this thread are higher
    }
  }
}

unsigned grid_for(std::size_t items, std::size_t per_block) {
  return static_cast<unsigned>(
      std::min<std::size_t>((items + per_block - 1) / per_block, 1u << 20));
}

template <class Index, class Word, int Policy, bool Scatter>
void launch_typed(const gather_args& a, const fill_item<Word>& fill, std::size_t words,
                  cudaStream_t s) {
  const auto* src = static_cast<const Word*>(a.values);
  auto* dst = static_cast<Word*>(a.out);
  const auto* idx = static_cast<const Index*>(a.indices);
  if (words == 1) {
    move_one_word<Index, Word, Policy, Scatter>
        <<<grid_for(a.n, std::size_t(kThreads) * kItems), kThreads, 0, s>>>(src, dst, idx, a.n,
                                                                            a.extent, fill);
  } else {
    move_words<Index, Word, Policy, Scatter>
        <<<grid_for(a.n, kThreads), kThreads, 0, s>>>(src, dst, idx, a.n, a.extent, words, fill);
  }
}

template <class Index, class Word>
void launch_word(const gather_args& a, int policy, const void* fill_host, const void* fill_device,
                 cudaStream_t s) {
  const std::size_t words = a.value_size / sizeof(Word);
  fill_item<Word> fill{};
  fill.device_words = static_cast<const Word*>(fill_device);
  if (fill_host != nullptr && fill_device == nullptr) {
    std::memcpy(fill.inline_words, fill_host, a.value_size);
  }
  if (a.scatter) {
    if (policy == move_unchecked) {
      launch_typed<Index, Word, move_unchecked, true>(a, fill, words, s);
    } else {
      launch_typed<Index, Word, move_skip, true>(a, fill, words, s);
    }
  } else if (policy == move_unchecked) {
    launch_typed<Index, Word, move_unchecked, false>(a, fill, words, s);
  } else if (policy == move_skip) {
    launch_typed<Index, Word, move_skip, false>(a, fill, words, s);
  } else {
    launch_typed<Index, Word, move_fill, false>(a, fill, words, s);
  }
}

template <class Index>
void launch_index(const gather_args& a, int policy, const void* fill_host, const void* fill_device,
                  cudaStream_t s) {
  // The widest word that the element's size and both arrays' addresses allow (the fill item is
  // copied into 16-byte aligned storage).
  const auto bits = reinterpret_cast<std::uintptr_t>(a.values) |
                    reinterpret_cast<std::uintptr_t>(a.out) |
                    static_cast<std::uintptr_t>(a.value_size);
  if (bits % 16 == 0) {
    launch_word<Index, word16>(a, policy, fill_host, fill_device, s);
  } else if (bits % 8 == 0) {
    launch_word<Index, std::uint64_t>(a, policy, fill_host, fill_device, s);
  } else if (bits % 4 == 0) {
    launch_word<Index, std::uint32_t>(a, policy, fill_host, fill_device, s);
  } else if (bits % 2 == 0) {
    launch_word<Index, std::uint16_t>(a, policy, fill_host, fill_device, s);
  } else {
    launch_word<Index, std::uint8_t>(a, policy, fill_host, fill_device, s);
  }
}

template <class Index>
void check_indices(const gather_args& a, memory_resource& mr, stream_ref stream) {
  const temp_storage first(mr, sizeof(unsigned long long), stream);
  auto* d_first = static_cast<unsigned long long*>(first.get());
  check_cuda(cudaMemsetAsync(d_first, 0xff, sizeof(unsigned long long), stream.get()),
             "cudaMemsetAsync");
  first_out_of_range<Index><<<grid_for(a.n, kThreads), kThreads, 0, stream.get()>>>(
      static_cast<const Index*>(a.indices), a.n, a.extent, d_first);
  check_cuda(cudaGetLastError(), "cupar gather check kernel launch");
  unsigned long long position = 0;
  check_cuda(
      cudaMemcpyAsync(&position, d_first, sizeof position, cudaMemcpyDeviceToHost, stream.get()),
      "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
  if (position == ~0ull) return;
  Index index{};
  check_cuda(cudaMemcpyAsync(&index, static_cast<const Index*>(a.indices) + position, sizeof index,
                             cudaMemcpyDeviceToHost, stream.get()),
             "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize");
  throw std::out_of_range(std::string(a.function) + ": d_indices[" + std::to_string(position) +
                          "] = " + std::to_string(index) + " is outside [0, " +
                          std::to_string(a.extent) + ") (bounds::error: nothing was written)");
}

}  // namespace

void gather(const gather_args& a, stream_ref stream, memory_resource& mr) {
  const char* fn = a.function;
  const device_guard device(stream);
  if (a.policy != bounds::unchecked && a.policy != bounds::skip && a.policy != bounds::fill &&
      a.policy != bounds::error) {
    throw_invalid_argument(fn, "unknown bounds policy " + std::to_string(int(a.policy)));
  }
  if (a.scatter && a.policy == bounds::fill) {
    throw_invalid_argument(fn, "bounds::fill has no meaning for a scatter (use bounds::skip)");
  }
  if (a.policy == bounds::fill && a.fill == nullptr) {
    throw_invalid_argument(fn, "bounds::fill needs a fill value (the element type has no default)");
  }
  if (a.value_size == 0 || (a.index_size != 4 && a.index_size != 8)) {
    throw_invalid_argument(fn, "element of " + std::to_string(a.value_size) + " bytes, index of " +
                                   std::to_string(a.index_size) + " bytes");
  }
  const std::size_t gathered = a.scatter ? a.n : a.extent;  // items of d_values
  const std::size_t written = a.scatter ? a.extent : a.n;   // items of d_out
  require_size(fn, a.n, a.value_size);
  require_size(fn, a.extent, a.value_size);
  require_size(fn, a.n, a.index_size);
  require_data(fn, "d_indices", a.indices, a.n);
  if (a.n > 0) {
    require_data(fn, "d_values", a.values, gathered);
    require_data(fn, "d_out", a.out, written);
    const std::size_t out_bytes = written * a.value_size;
    require_disjoint(fn, "d_values", a.values, gathered * a.value_size, "d_out", a.out, out_bytes);
    require_disjoint(fn, "d_indices", a.indices, a.n * a.index_size, "d_out", a.out, out_bytes);
  }
  if (a.n > 0 && a.extent == 0 && a.policy == bounds::unchecked) {
    throw_invalid_argument(fn, "extent is 0 but n = " + std::to_string(a.n) +
                                   " with bounds::unchecked: no index can be in range");
  }
  if (a.n == 0) return;
  const cudaStream_t s = stream.get();
  if (a.policy == bounds::error) {
    if (a.index_size == 4) {
      a.index_signed ? check_indices<std::int32_t>(a, mr, stream)
                     : check_indices<std::uint32_t>(a, mr, stream);
    } else {
      a.index_signed ? check_indices<long long>(a, mr, stream)
                     : check_indices<unsigned long long>(a, mr, stream);
    }
  }
  // Every index was checked under bounds::error: the gather itself checks nothing more.
  const int policy = a.policy == bounds::skip   ? move_skip
                     : a.policy == bounds::fill ? move_fill
                                                : move_unchecked;
  // The fill item: in the kernel's parameters up to 256 bytes, else in device memory.
  const bool fill_in_memory = policy == move_fill && a.value_size > 256;
  const temp_storage fill_device(mr, fill_in_memory ? a.value_size : 0, stream);
  if (fill_in_memory) {
    check_cuda(cudaMemcpyAsync(fill_device.get(), a.fill, a.value_size, cudaMemcpyHostToDevice, s),
               "cudaMemcpyAsync");
  }
  const void* fill_host = policy == move_fill ? a.fill : nullptr;
  if (a.index_size == 4) {
    a.index_signed ? launch_index<std::int32_t>(a, policy, fill_host, fill_device.get(), s)
                   : launch_index<std::uint32_t>(a, policy, fill_host, fill_device.get(), s);
  } else {
    a.index_signed ? launch_index<long long>(a, policy, fill_host, fill_device.get(), s)
                   : launch_index<unsigned long long>(a, policy, fill_host, fill_device.get(), s);
  }
  check_cuda(cudaGetLastError(),
             a.scatter ? "cupar scatter kernel launch" : "cupar gather kernel launch");
}

}  // namespace cupar::detail
