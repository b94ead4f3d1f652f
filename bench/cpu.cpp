// cupar benchmarks: the CPU baselines. cpu_seq: the sequential C++ standard library (std::reduce,
// std::inclusive_scan, std::sort, std::transform, a plain loop for histograms); cpu_omp: OpenMP
// on all cores (omp_get_max_threads(): OMP_NUM_THREADS or the number of cores), with
// __gnu_parallel::sort for sorts. The data are the same values the GPU rows use (data.hpp),
// generated on the host. Sorts run on a copy of the input restored before each run, untimed.
#include "rows.hpp"
#include "runners.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#include <parallel/algorithm>
#endif

namespace cupar_bench {
namespace {

using index_t = std::int64_t;  // OpenMP loops want a signed index

/// The values of value_generator<T>{seed, range} over [0, n), cached: Google Benchmark calls a
/// benchmark several times while it settles the iteration count, and generating 2^28 values each
/// time would dominate the run. Keeps the three most recent arrays of each type; references stay
/// valid while at most two other arrays of the type are requested.
template <class T>
const std::vector<T>& host_values(std::size_t n, std::uint64_t seed, value_range range) {
  struct entry {
    std::size_t n;
    std::uint64_t seed;
    value_range range;
    std::vector<T> values;
  };
  static std::deque<entry> cache;
  for (const entry& e : cache) {
    if (e.n == n && e.seed == seed && e.range.lo == range.lo && e.range.hi == range.hi &&
        e.range.full_bits == range.full_bits) {
      return e.values;
    }
  }
  std::vector<T> v(n);
  const value_generator<T> gen{seed, range};
  T* p = v.data();
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < static_cast<index_t>(n); ++i)
    p[i] = gen(static_cast<std::uint64_t>(i));
  cache.push_front(entry{n, seed, range, std::move(v)});
  if (cache.size() > 3) cache.pop_back();
  return cache.front().values;
}

bool have_openmp(benchmark::State& state) {
#if defined(_OPENMP)
  state.counters["threads"] = benchmark::Counter(omp_get_max_threads());
  return true;
#else
  state.SkipWithError("built without OpenMP");
  return false;
#endif
}

void nothing() {}

// ---- reduce -----------------------------------------------------------------------------------

template <class T, class Run>  // run(const T* in, std::size_t n) -> T
void cpu_reduce(benchmark::State& state, Run run) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<T>& in = host_values<T>(n, seed_input, arithmetic_range<T>());
    time_cpu(
        state, {n, static_cast<double>(n * sizeof(T) + sizeof(T))},
        [&] {
          T result = run(in.data(), n);
          benchmark::DoNotOptimize(result);
        },
        nothing);
  });
}

template <class T>
T omp_sum(const T* p, std::size_t n) {
  T acc = T(0);
#pragma omp parallel for simd schedule(static) reduction(+ : acc)
  for (index_t i = 0; i < static_cast<index_t>(n); ++i)
    acc += p[i];
  return acc;
}

float omp_max(const float* p, std::size_t n) {
  float acc = std::numeric_limits<float>::lowest();
#pragma omp parallel for simd schedule(static) reduction(max : acc)
  for (index_t i = 0; i < static_cast<index_t>(n); ++i)
    acc = p[i] > acc ? p[i] : acc;
  return acc;
}

// ---- inclusive scan ---------------------------------------------------------------------------

/// Two passes over per-thread blocks: block sums, their exclusive scan, then each block's scan.
template <class T>
void omp_inclusive_scan(const T* in, T* out, std::size_t n) {
#if defined(_OPENMP)
  std::vector<T> partial(static_cast<std::size_t>(omp_get_max_threads()) + 1, T(0));
#pragma omp parallel
  {
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t chunk = (n + threads - 1) / threads;
    const std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    T sum = T(0);
    for (std::size_t i = begin; i < end; ++i)
      sum += in[i];
    partial[t + 1] = sum;
#pragma omp barrier
#pragma omp single
    for (std::size_t k = 1; k <= threads; ++k)
      partial[k] += partial[k - 1];
    T run = partial[t];
    for (std::size_t i = begin; i < end; ++i) {
      run += in[i];
      out[i] = run;
    }
  }
#else
  std::inclusive_scan(in, in + n, out);
#endif
}

template <class T, class Run>  // run(const T* in, T* out, std::size_t n)
void cpu_unary(benchmark::State& state, Run run) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<T>& in = host_values<T>(n, seed_input, arithmetic_range<T>());
    std::vector<T> out(n);
    time_cpu(
        state, {n, 2.0 * n * sizeof(T)}, [&] { run(in.data(), out.data(), n); }, nothing);
  });
}

// ---- sorts ------------------------------------------------------------------------------------

template <class K, class Sort>  // sort(K* begin, K* end)
void cpu_sort_keys(benchmark::State& state, Sort sort) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<K>& pristine = host_values<K>(n, seed_input, key_range<K>());
    std::vector<K> keys(n);
    time_cpu(
        state, {n, 2.0 * n * sizeof(K)}, [&] { sort(keys.data(), keys.data() + n); },
        [&] { std::copy(pristine.begin(), pristine.end(), keys.begin()); });
    if (!std::is_sorted(keys.begin(), keys.end())) {
      throw std::runtime_error("CPU sort left the keys unsorted");
    }
  });
}

/// Pairs are sorted as an array of (key, value) by key; building that array from the separate
/// key and value arrays is not timed.
template <class K, class V, class Sort>  // sort(pair* begin, pair* end, compare)
void cpu_sort_pairs(benchmark::State& state, Sort sort) {
  run_guarded(state, false, [&] {
    using pair = std::pair<K, V>;
    const std::size_t n = size_arg(state);
    const std::vector<K>& keys = host_values<K>(n, seed_input, key_range<K>());
    const std::vector<V>& values = host_values<V>(n, seed_values, full_bits);
    std::vector<pair> pristine(n), pairs(n);
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < static_cast<index_t>(n); ++i) {
      const auto k = static_cast<std::size_t>(i);
      pristine[k] = pair(keys[k], values[k]);
    }
    auto by_key = [](const pair& a, const pair& b) { return a.first < b.first; };
    time_cpu(
        state, {n, 2.0 * n * (sizeof(K) + sizeof(V))},
        [&] { sort(pairs.data(), pairs.data() + n, by_key); },
        [&] { std::copy(pristine.begin(), pristine.end(), pairs.begin()); });
    if (!std::is_sorted(pairs.begin(), pairs.end(), by_key)) {
      throw std::runtime_error("CPU sort left the pairs unsorted");
    }
  });
}

template <class K>
void seq_sort(K* b, K* e) {
  std::sort(b, e);
}
template <class K>
void omp_sort(K* b, K* e) {
#if defined(_OPENMP)
  __gnu_parallel::sort(b, e);
#else
  std::sort(b, e);
#endif
}
template <class K>
void seq_sort_less(K* b, K* e) {
  std::sort(b, e, [](K x, K y) { return x < y; });
}
template <class K>
void omp_sort_less(K* b, K* e) {
#if defined(_OPENMP)
  __gnu_parallel::sort(b, e, [](K x, K y) { return x < y; });
#else
  std::sort(b, e, [](K x, K y) { return x < y; });
#endif
}
struct seq_sort_by {
  template <class P, class C>
  void operator()(P* b, P* e, C c) const {
    std::sort(b, e, c);
  }
};
struct omp_sort_by {
  template <class P, class C>
  void operator()(P* b, P* e, C c) const {
#if defined(_OPENMP)
    __gnu_parallel::sort(b, e, c);
#else
    std::sort(b, e, c);
#endif
  }
};

// ---- transforms -------------------------------------------------------------------------------

void omp_affine(const float* in, float* out, std::size_t n) {
#pragma omp parallel for simd schedule(static)
  for (index_t i = 0; i < static_cast<index_t>(n); ++i)
    out[i] = 2.0f * in[i] + 1.0f;
}

template <class Run>  // run(const int32* a, const int32* b, int32* out, n)
void cpu_binary(benchmark::State& state, Run run) {
  run_guarded(state, false, [&] {
    using T = std::int32_t;
    const std::size_t n = size_arg(state);
    const std::vector<T>& a = host_values<T>(n, seed_input, arithmetic_range<T>());
    const std::vector<T>& b = host_values<T>(n, seed_input2, arithmetic_range<T>());
    std::vector<T> out(n);
    time_cpu(
        state, {n, 3.0 * n * sizeof(T)}, [&] { run(a.data(), b.data(), out.data(), n); }, nothing);
  });
}

void omp_add(const std::int32_t* a, const std::int32_t* b, std::int32_t* out, std::size_t n) {
#pragma omp parallel for simd schedule(static)
  for (index_t i = 0; i < static_cast<index_t>(n); ++i)
    out[i] = a[i] + b[i];
}

// ---- histograms -------------------------------------------------------------------------------

constexpr int bins = 256;

/// The bin of a sample the way CUB computes even bins; -1 when outside [lower, upper).
inline int bin_of(float x) {
  using setup = histogram_setup<float>;
  if (!(x >= setup::lower && x < setup::upper)) return -1;
  return static_cast<int>((x - setup::lower) * (bins / (setup::upper - setup::lower)));
}
inline int bin_of(std::uint8_t x) {
  return static_cast<int>(x);
}  // levels 0, 1, ..., 256

template <class S, class Op>
void seq_histogram(const S* in, std::size_t n, unsigned* hist, Op op) {
  std::fill(hist, hist + bins, 0u);
  for (std::size_t i = 0; i < n; ++i) {
    const int b = bin_of(op(in[i]));
    if (b >= 0) ++hist[b];
  }
}

template <class S, class Op>
void omp_histogram(const S* in, std::size_t n, unsigned* hist, Op op) {
  std::fill(hist, hist + bins, 0u);
#pragma omp parallel
  {
    unsigned local[bins] = {};
#pragma omp for schedule(static) nowait
    for (index_t i = 0; i < static_cast<index_t>(n); ++i) {
      const int b = bin_of(op(in[i]));
      if (b >= 0) ++local[b];
    }
    for (int b = 0; b < bins; ++b) {
#pragma omp atomic
      hist[b] += local[b];
    }
  }
}

struct identity {
  template <class S>
  S operator()(S x) const {
    return x;
  }
};
struct one_minus {
  float operator()(float x) const { return 1.0f - x; }
};

template <class S, class Run>  // run(const S* in, n, unsigned* hist)
void cpu_histogram(benchmark::State& state, Run run) {
  run_guarded(state, false, [&] {
    const std::size_t n = size_arg(state);
    const std::vector<S>& in = host_values<S>(n, seed_input, histogram_setup<S>::range());
    std::vector<unsigned> hist(bins);
    time_cpu(
        state, {n, static_cast<double>(n * sizeof(S) + bins * sizeof(unsigned))},
        [&] { run(in.data(), n, hist.data()); }, nothing);
  });
}

}  // namespace

// ---- rows -------------------------------------------------------------------------------------

void reduce_sum_cpu_seq_f32(benchmark::State& state) {
  cpu_reduce<float>(state,
                    [](const float* p, std::size_t n) { return std::reduce(p, p + n, 0.0f); });
}
void reduce_sum_cpu_seq_i32(benchmark::State& state) {
  cpu_reduce<std::int32_t>(
      state, [](const std::int32_t* p, std::size_t n) { return std::reduce(p, p + n, 0); });
}
void reduce_sum_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_reduce<float>(state, omp_sum<float>);
}
void reduce_sum_cpu_omp_i32(benchmark::State& state) {
  if (have_openmp(state)) cpu_reduce<std::int32_t>(state, omp_sum<std::int32_t>);
}
void reduce_max_cpu_seq_f32(benchmark::State& state) {
  cpu_reduce<float>(state, [](const float* p, std::size_t n) {
    return std::reduce(p, p + n, std::numeric_limits<float>::lowest(),
                       [](float a, float b) { return a < b ? b : a; });
  });
}
void reduce_max_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_reduce<float>(state, omp_max);
}

void inclusive_scan_cpu_seq_f32(benchmark::State& state) {
  cpu_unary<float>(state, [](const float* in, float* out, std::size_t n) {
    std::inclusive_scan(in, in + n, out);
  });
}
void inclusive_scan_cpu_seq_i32(benchmark::State& state) {
  cpu_unary<std::int32_t>(state, [](const std::int32_t* in, std::int32_t* out, std::size_t n) {
    std::inclusive_scan(in, in + n, out);
  });
}
void inclusive_scan_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_unary<float>(state, omp_inclusive_scan<float>);
}
void inclusive_scan_cpu_omp_i32(benchmark::State& state) {
  if (have_openmp(state)) cpu_unary<std::int32_t>(state, omp_inclusive_scan<std::int32_t>);
}

void radix_sort_keys_cpu_seq_u32(benchmark::State& state) {
  cpu_sort_keys<std::uint32_t>(state, seq_sort<std::uint32_t>);
}
void radix_sort_keys_cpu_seq_u64(benchmark::State& state) {
  cpu_sort_keys<std::uint64_t>(state, seq_sort<std::uint64_t>);
}
void radix_sort_keys_cpu_seq_f32(benchmark::State& state) {
  cpu_sort_keys<float>(state, seq_sort<float>);
}
void radix_sort_keys_cpu_omp_u32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_keys<std::uint32_t>(state, omp_sort<std::uint32_t>);
}
void radix_sort_keys_cpu_omp_u64(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_keys<std::uint64_t>(state, omp_sort<std::uint64_t>);
}
void radix_sort_keys_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_keys<float>(state, omp_sort<float>);
}
void radix_sort_pairs_cpu_seq_u32_u32(benchmark::State& state) {
  cpu_sort_pairs<std::uint32_t, std::uint32_t>(state, seq_sort_by{});
}
void radix_sort_pairs_cpu_omp_u32_u32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_pairs<std::uint32_t, std::uint32_t>(state, omp_sort_by{});
}

void merge_sort_keys_cpu_seq_f32(benchmark::State& state) {
  cpu_sort_keys<float>(state, seq_sort_less<float>);
}
void merge_sort_keys_cpu_seq_i32(benchmark::State& state) {
  cpu_sort_keys<std::int32_t>(state, seq_sort_less<std::int32_t>);
}
void merge_sort_keys_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_keys<float>(state, omp_sort_less<float>);
}
void merge_sort_keys_cpu_omp_i32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_keys<std::int32_t>(state, omp_sort_less<std::int32_t>);
}
void merge_sort_pairs_cpu_seq_f32_u32(benchmark::State& state) {
  cpu_sort_pairs<float, std::uint32_t>(state, seq_sort_by{});
}
void merge_sort_pairs_cpu_omp_f32_u32(benchmark::State& state) {
  if (have_openmp(state)) cpu_sort_pairs<float, std::uint32_t>(state, omp_sort_by{});
}

void transform_unary_cpu_seq_f32(benchmark::State& state) {
  cpu_unary<float>(state, [](const float* in, float* out, std::size_t n) {
    std::transform(in, in + n, out, [](float x) { return 2.0f * x + 1.0f; });
  });
}
void transform_unary_cpu_omp_f32(benchmark::State& state) {
  if (have_openmp(state)) cpu_unary<float>(state, omp_affine);
}
void transform_binary_cpu_seq_i32(benchmark::State& state) {
  cpu_binary(state, [](const std::int32_t* a, const std::int32_t* b, std::int32_t* out,
                       std::size_t n) { std::transform(a, a + n, b, out, std::plus<>()); });
}
void transform_binary_cpu_omp_i32(benchmark::State& state) {
  if (have_openmp(state)) cpu_binary(state, omp_add);
}

void histogram_even_cpu_seq_f32(benchmark::State& state) {
  cpu_histogram<float>(state, [](const float* in, std::size_t n, unsigned* h) {
    seq_histogram(in, n, h, identity{});
  });
}
void histogram_even_cpu_seq_u8(benchmark::State& state) {
  cpu_histogram<std::uint8_t>(state, [](const std::uint8_t* in, std::size_t n, unsigned* h) {
    seq_histogram(in, n, h, identity{});
  });
}
void histogram_even_cpu_omp_f32(benchmark::State& state) {
  if (!have_openmp(state)) return;
  cpu_histogram<float>(state, [](const float* in, std::size_t n, unsigned* h) {
    omp_histogram(in, n, h, identity{});
  });
}
void histogram_even_cpu_omp_u8(benchmark::State& state) {
  if (!have_openmp(state)) return;
  cpu_histogram<std::uint8_t>(state, [](const std::uint8_t* in, std::size_t n, unsigned* h) {
    omp_histogram(in, n, h, identity{});
  });
}
void histogram_even_op_cpu_seq_f32(benchmark::State& state) {
  cpu_histogram<float>(state, [](const float* in, std::size_t n, unsigned* h) {
    seq_histogram(in, n, h, one_minus{});
  });
}
void histogram_even_op_cpu_omp_f32(benchmark::State& state) {
  if (!have_openmp(state)) return;
  cpu_histogram<float>(state, [](const float* in, std::size_t n, unsigned* h) {
    omp_histogram(in, n, h, one_minus{});
  });
}

}  // namespace cupar_bench
