// cupar benchmarks: one runner per family. A runner owns the data (sizes, distribution, rotation),
// the timing and the counters; an implementation row only supplies the call. So every
// implementation of a family (cupar, cupar_jit, CUB, Thrust) runs on the same data under the same
// clock, and adding an implementation is one short function, for example
//
//   void reduce_sum_cub_f32(benchmark::State& state) {
//     cub_temp temp;
//     reduce_runner<float>(state, [&](const float* in, float* out, std::size_t n,
//                                     cudaStream_t s) {
//       temp.run([&](void* t, std::size_t& bytes) {
//         return cub::DeviceReduce::Sum(t, bytes, in, out, static_cast<int>(n), s);
//       });
//     });
//   }
//
// plus one line in the table of rows.hpp (run-time operator rows wrap the call with jit_warmed,
// see jit_rows.hpp). Host-only: usable from .cpp files.
#pragma once

#include "common.hpp"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace cupar_bench {

/// Throws unless d[0, n) is in ascending order (checked once, after the timed runs, so a sort
/// row that does not sort is reported as an error instead of as fast).
template <class T>
void require_sorted(const T* d, std::size_t n) {
  const std::size_t bad = count_unsorted(d, n, bench_stream());
  if (bad != 0) {
    throw std::runtime_error("output is not sorted (" + std::to_string(bad) + " descents among " +
                             std::to_string(n) + " keys)");
  }
}

// ---------------------------------------------------------------------------------------------
// Value distributions of the families.

/// Reduce, scan, transform: floats in [-1, 1), integers in [-1000, 1000] (sums of 2^28 of them
/// stay far from overflow, so the CPU baselines are well defined).
template <class T>
value_range arithmetic_range() {
  if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
    return {-1.0, 1.0};
  } else if constexpr (std::is_same_v<T, bool>) {
    return {0.0, 1.0};
  } else {
    return {-1000.0, 1000.0};
  }
}

/// Sort keys: every bit pattern for integers; floats uniform over [-1e6, 1e6).
template <class K>
value_range key_range() {
  if constexpr (std::is_floating_point_v<K>) {
    return {-1.0e6, 1.0e6};
  } else {
    return full_bits;
  }
}

/// Histogram: 256 even bins; float samples uniform over [0, 1) binned over [0, 1), bytes binned
/// over [0, 256) (one bin per value).
template <class S>
struct histogram_setup;
template <>
struct histogram_setup<float> {
  using level = float;
  static constexpr int num_levels = 257;
  static constexpr float lower = 0.0f;
  static constexpr float upper = 1.0f;
  static value_range range() { return {0.0, 1.0}; }
};
template <>
struct histogram_setup<std::uint8_t> {
  using level = int;
  static constexpr int num_levels = 257;
  static constexpr int lower = 0;
  static constexpr int upper = 256;
  static value_range range() { return full_bits; }
};

// ---------------------------------------------------------------------------------------------
// GPU runners. `Call` is invoked as shown; it must only queue work on the given stream (or
// synchronise it, as Thrust calls returning a value do).

/// Device-to-device copy of n 4-byte words: the bandwidth bound of the report.
/// call(const std::uint32_t* src, std::uint32_t* dst, n, stream)
template <class Call>
void copy_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<std::uint32_t>(n));
    rotating<std::uint32_t> src(n, sets), dst(n, sets);
    src.fill(seed_input, full_bits, bench_stream());
    time_gpu(state, {n, 2.0 * n * sizeof(std::uint32_t)}, sets,
             [&](std::size_t s) { call(src[s], dst[s], n, bench_stream()); });
  });
}

/// in[n] -> out[1]. call(const T* in, T* out, n, stream)
template <class T, class Call>
void reduce_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<T>(n) + padded_bytes<T>(1));
    rotating<T> in(n, sets), out(1, sets);
    in.fill(seed_input, arithmetic_range<T>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * sizeof(T) + sizeof(T))}, sets,
             [&](std::size_t s) { call(in[s], out[s], n, bench_stream()); });
  });
}

/// in[n] -> one Out of another type (a sum of halves into a float). call(const In* in, Out* out,
/// n, stream)
template <class In, class Out, class Call>
void widening_reduce_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<In>(n) + padded_bytes<Out>(1));
    rotating<In> in(n, sets);
    rotating<Out> out(1, sets);
    in.fill(seed_input, arithmetic_range<In>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * sizeof(In) + sizeof(Out))}, sets,
             [&](std::size_t s) { call(in[s], out[s], n, bench_stream()); });
  });
}

/// `inputs` x n floats in -> one Out (the fused reductions of fused.cu and jit_kernels.cpp).
/// call(const float* in, Out* out, n, stream)
template <class Out, class Call>
void fused_reduce_runner(benchmark::State& state, Call call, int inputs = 1) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(inputs * padded_bytes<float>(n) + 256);
    rotating<float> in(inputs * n, sets);
    rotating<Out> out(1, sets);
    in.fill(seed_input, arithmetic_range<float>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(inputs * n * sizeof(float) + sizeof(Out))}, sets,
             [&](std::size_t s) { call(in[s], out[s], n, bench_stream()); });
  });
}

/// in[n] -> out[n] (scans and unary transforms). call(const In* in, Out* out, n, stream)
template <class In, class Out, class Call>
void unary_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<In>(n) + padded_bytes<Out>(n));
    rotating<In> in(n, sets);
    rotating<Out> out(n, sets);
    in.fill(seed_input, arithmetic_range<In>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * (sizeof(In) + sizeof(Out)))}, sets,
             [&](std::size_t s) { call(in[s], out[s], n, bench_stream()); });
  });
}

template <class T, class Call>
void scan_runner(benchmark::State& state, Call call) {
  unary_runner<T, T>(state, call);
}

/// a[n], b[n] -> out[n]. call(const A* a, const B* b, Out* out, n, stream)
template <class A, class B, class Out, class Call>
void binary_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets =
        rotation_sets(padded_bytes<A>(n) + padded_bytes<B>(n) + padded_bytes<Out>(n));
    rotating<A> a(n, sets);
    rotating<B> b(n, sets);
    rotating<Out> out(n, sets);
    a.fill(seed_input, arithmetic_range<A>(), bench_stream());
    b.fill(seed_input2, arithmetic_range<B>(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * (sizeof(A) + sizeof(B) + sizeof(Out)))}, sets,
             [&](std::size_t s) { call(a[s], b[s], out[s], n, bench_stream()); });
  });
}

/// Sorts keys out of place: call(const K* in, K* out, n, stream). The call must leave `in` as it
/// is (cupar's and CUB's copying interfaces do), so the input needs no restoring between runs.
template <class K, class Call>
void sort_keys_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<K>(n));
    rotating<K> in(n, sets), out(n, sets);
    in.fill(seed_input, key_range<K>(), bench_stream());
    std::size_t last = 0;
    time_gpu(state, {n, 2.0 * n * sizeof(K)}, sets, [&](std::size_t s) {
      call(in[s], out[s], n, bench_stream());
      last = s;
    });
    require_sorted(out[last], n);
  });
}

/// Sorts keys in place (Thrust): call(K* keys, n, stream). Before each timed run the input is
/// restored by a device copy from a pristine buffer and the L2 is flushed, both queued before the
/// start event, so neither is timed and the sort does not find its input in L2.
template <class K, class Call>
void sort_keys_in_place_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const cudaStream_t st = bench_stream();
    device_array<K> pristine(n), keys(n);
    fill_device(pristine.get(), n, seed_input, key_range<K>(), st);
    auto restore = [&](std::size_t) {
      CUPAR_BENCH_CUDA(
          cudaMemcpyAsync(keys.get(), pristine.get(), n * sizeof(K), cudaMemcpyDeviceToDevice, st));
      flush_l2(st);
    };
    time_gpu(
        state, {n, 2.0 * n * sizeof(K)}, 1, [&](std::size_t) { call(keys.get(), n, st); }, restore);
    require_sorted(keys.get(), n);
  });
}

/// Sorts pairs out of place, leaving the inputs as they are:
/// call(const K* keys_in, K* keys_out, const V* values_in, V* values_out, n, stream)
template <class K, class V, class Call>
void sort_pairs_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * (padded_bytes<K>(n) + padded_bytes<V>(n)));
    rotating<K> kin(n, sets), kout(n, sets);
    rotating<V> vin(n, sets), vout(n, sets);
    kin.fill(seed_input, key_range<K>(), bench_stream());
    vin.fill(seed_values, full_bits, bench_stream());
    std::size_t last = 0;
    time_gpu(state, {n, 2.0 * n * (sizeof(K) + sizeof(V))}, sets, [&](std::size_t s) {
      call(kin[s], kout[s], vin[s], vout[s], n, bench_stream());
      last = s;
    });
    require_sorted(kout[last], n);
  });
}

/// Sorts pairs in place (Thrust): call(K* keys, V* values, n, stream); inputs restored and the L2
/// flushed before each run, untimed, as in sort_keys_in_place_runner.
template <class K, class V, class Call>
void sort_pairs_in_place_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const cudaStream_t st = bench_stream();
    device_array<K> kp(n), keys(n);
    device_array<V> vp(n), values(n);
    fill_device(kp.get(), n, seed_input, key_range<K>(), st);
    fill_device(vp.get(), n, seed_values, full_bits, st);
    auto restore = [&](std::size_t) {
      CUPAR_BENCH_CUDA(
          cudaMemcpyAsync(keys.get(), kp.get(), n * sizeof(K), cudaMemcpyDeviceToDevice, st));
      CUPAR_BENCH_CUDA(
          cudaMemcpyAsync(values.get(), vp.get(), n * sizeof(V), cudaMemcpyDeviceToDevice, st));
      flush_l2(st);
    };
    time_gpu(
        state, {n, 2.0 * n * (sizeof(K) + sizeof(V))}, 1,
        [&](std::size_t) { call(keys.get(), values.get(), n, st); }, restore);
    require_sorted(keys.get(), n);
  });
}

/// 256-bin even histogram: call(const S* samples, unsigned* histogram, n, stream), with the
/// levels of histogram_setup<S>.
template <class S, class Call>
void histogram_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    using setup = histogram_setup<S>;
    constexpr std::size_t bins = setup::num_levels - 1;
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(padded_bytes<S>(n) + padded_bytes<unsigned>(bins));
    rotating<S> samples(n, sets);
    rotating<unsigned> hist(bins, sets);
    samples.fill(seed_input, setup::range(), bench_stream());
    time_gpu(state, {n, static_cast<double>(n * sizeof(S) + bins * sizeof(unsigned))}, sets,
             [&](std::size_t s) { call(samples[s], hist[s], n, bench_stream()); });
  });
}

/// Host overhead of small calls on 1,024 elements: call(const float* in, float* out, n, stream)
/// is queued host_overhead_calls times per iteration (see time_host_overhead).
template <class Call>
void host_overhead_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const cudaStream_t st = bench_stream();
    device_array<float> in(n), out(n);
    fill_device(in.get(), n, seed_input, arithmetic_range<float>(), st);
    time_host_overhead(state, n, [&](int) { call(in.get(), out.get(), n, st); });
  });
}

/// gather / scatter of n items of T by n uniform random 4-byte indices into n items (the
/// indices of a scatter collide, as a hash's would). Bytes: the indices, the items read, the
/// items written. call(const T* values, const std::uint32_t* indices, T* out, n, stream)
template <class T, class Call>
void gather_runner(benchmark::State& state, Call call) {
  run_guarded(state, true, [&] {
    const std::size_t n = size_arg(state);
    const std::size_t sets = rotation_sets(2 * padded_bytes<T>(n) + padded_bytes<std::uint32_t>(n));
    rotating<T> values(n, sets), out(n, sets);
    rotating<std::uint32_t> indices(n, sets);
    values.fill(seed_input, full_bits, bench_stream());
    indices.fill(seed_values, {0.0, static_cast<double>(n) - 1.0}, bench_stream());
    time_gpu(state, {n, static_cast<double>(n * (2 * sizeof(T) + sizeof(std::uint32_t)))}, sets,
             [&](std::size_t k) { call(values[k], indices[k], out[k], n, bench_stream()); });
  });
}

}  // namespace cupar_bench
