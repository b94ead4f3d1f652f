// cupar tests: the by-key families above 2^32 items (label `large`, run alone with
// `ctest -L large`): reduce_by_key, the scans by key, unique_by_key, run_length_encode, each with
// a C++ operator and through the library (run-time operators; run_length_encode has only that
// path). 64-bit counts, offsets past 4 GiB and tile counts past 2^20 are where such code breaks
// (PITFALLS.md).
//
// Data: keys of one byte, constant over runs of L = 1000 positions (key(i) = (i / L) mod 251, so
// adjacent runs always differ), values hashed from the position. Every output is then known in
// closed form per run (the run r covers [r L, min(n, (r + 1) L))) and checked on the GPU by small
// kernels; nothing of size n is copied back.
#include "large_common.cuh"
#include "ops.cuh"

#include <cupar/cupar.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cupar::testing {
namespace {

constexpr std::size_t run_length = 1000;

struct run_key {
  __host__ __device__ std::uint8_t operator()(std::size_t i) const {
    return static_cast<std::uint8_t>((i / run_length) % 251);
  }
};
/// The key of run r.
struct key_of_run {
  __device__ std::uint8_t operator()(std::size_t r) const {
    return static_cast<std::uint8_t>(r % 251);
  }
};

std::size_t runs_in(std::size_t n) {
  return (n + run_length - 1) / run_length;
}

/// The wrapping sum of the values of run r.
struct run_sum {
  std::size_t n;
  hashed<std::uint32_t> value;
  __device__ std::uint32_t operator()(std::size_t r) const {
    std::uint32_t s = 0;
    const std::size_t end = (r + 1) * run_length < n ? (r + 1) * run_length : n;
    for (std::size_t i = r * run_length; i < end; ++i)
      s += value(i);
    return s;
  }
};
/// The value at the first position of run r.
template <class T>
struct first_of_run {
  hashed<T> value;
  __device__ T operator()(std::size_t r) const { return value(r * run_length); }
};
/// The length of run r.
template <class C>
struct length_of_run {
  std::size_t n;
  __device__ C operator()(std::size_t r) const {
    const std::size_t left = n - r * run_length;
    return static_cast<C>(left < run_length ? left : run_length);
  }
};
/// Inclusive scan by key: v(i) at a run's start, else out[i - 1] + v(i).
struct inclusive_by_key_expect {
  const std::uint32_t* out;
  hashed<std::uint32_t> value;
  __device__ std::uint32_t operator()(std::size_t i) const {
    return i % run_length == 0 ? value(i) : out[i - 1] + value(i);
  }
};
/// Exclusive scan by key: init at a run's start, else out[i - 1] + v(i - 1).
struct exclusive_by_key_expect {
  const std::uint32_t* out;
  hashed<std::uint32_t> value;
  std::uint32_t init;
  __device__ std::uint32_t operator()(std::size_t i) const {
    return i % run_length == 0 ? init : out[i - 1] + value(i - 1);
  }
};

std::size_t count_on_host(const device_buffer<std::size_t>& count) {
  return count.to_host()[0];
}

class LargeByKey : public Large {};

TEST_F(LargeByKey, ReduceByKeyAboveTwoToThe32) {
  const std::size_t n = two32 + 7, runs = runs_in(n);
  CUPAR_REQUIRE_GPU_BYTES(n * 5 + runs * 5 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint32_t> value{71};
  device_buffer<std::uint8_t> keys(n, stream), keys_out(runs, stream);
  device_buffer<std::uint32_t> values(n, stream), sums(runs, stream);
  device_buffer<std::size_t> count(1, stream);
  fill(keys.data(), n, run_key{}, stream.get());
  fill(values.data(), n, value, stream.get());
  for (bool jit : {false, true}) {
    SCOPED_TRACE(jit ? "run-time operator" : "C++ operator");
    keys_out.fill_bytes(0);
    sums.fill_bytes(0);
    if (jit) {
      cupar::reduce_by_key(keys.data(), values.data(), keys_out.data(), sums.data(), count.data(),
                           n, cupar::jit::plus, stream);
    } else {
      cupar::reduce_by_key(keys.data(), values.data(), keys_out.data(), sums.data(), count.data(),
                           n, compiled_ops::plus<std::uint32_t>(), stream);
    }
    ASSERT_EQ(count_on_host(count), runs);
    CUPAR_EXPECT_NO_MISMATCH(count_mismatches(keys_out.data(), runs, key_of_run{}, stream));
    CUPAR_EXPECT_NO_MISMATCH(count_mismatches(sums.data(), runs, run_sum{n, value}, stream));
  }
}

TEST_F(LargeByKey, ScansByKeyAboveTwoToThe32) {
  const std::size_t n = two32 + 7;
  CUPAR_REQUIRE_GPU_BYTES(n * 9 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint32_t> value{72};
  device_buffer<std::uint8_t> keys(n, stream);
  device_buffer<std::uint32_t> values(n, stream), out(n, stream);
  fill(keys.data(), n, run_key{}, stream.get());
  fill(values.data(), n, value, stream.get());
  cupar::inclusive_scan_by_key(keys.data(), values.data(), out.data(), n,
                               compiled_ops::plus<std::uint32_t>(), stream);
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(out.data(), n, inclusive_by_key_expect{out.data(), value}, stream));
  // Through the library, in place.
  const std::uint32_t init = 9;
  cupar::exclusive_scan_by_key(keys.data(), values.data(), values.data(), n, cupar::jit::plus, init,
                               stream);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(
      values.data(), n, exclusive_by_key_expect{values.data(), value, init}, stream));
}

TEST_F(LargeByKey, UniqueByKeyAboveTwoToThe32) {
  const std::size_t n = two32 + 7, runs = runs_in(n);
  CUPAR_REQUIRE_GPU_BYTES(n * 2 + runs * 2 + (std::size_t(2) << 30));
  owned_stream stream;
  const hashed<std::uint8_t> value{73};
  device_buffer<std::uint8_t> keys(n, stream), values(n, stream), keys_out(runs, stream),
      values_out(runs, stream);
  device_buffer<std::size_t> count(1, stream);
  fill(keys.data(), n, run_key{}, stream.get());
  fill(values.data(), n, value, stream.get());
  for (bool jit : {false, true}) {
    SCOPED_TRACE(jit ? "default equality (library)" : "C++ equality");
    keys_out.fill_bytes(0);
    values_out.fill_bytes(0);
    if (jit) {
      cupar::unique_by_key(keys.data(), values.data(), keys_out.data(), values_out.data(),
                           count.data(), n, stream);
    } else {
      cupar::unique_by_key(keys.data(), values.data(), keys_out.data(), values_out.data(),
                           count.data(), n, compiled_ops::equal_to<std::uint8_t>(), stream);
    }
    ASSERT_EQ(count_on_host(count), runs);
    CUPAR_EXPECT_NO_MISMATCH(count_mismatches(keys_out.data(), runs, key_of_run{}, stream));
    CUPAR_EXPECT_NO_MISMATCH(
        count_mismatches(values_out.data(), runs, first_of_run<std::uint8_t>{value}, stream));
  }
}

TEST_F(LargeByKey, RunLengthEncodeAboveTwoToThe32) {
  const std::size_t n = two32 + 7, runs = runs_in(n);
  CUPAR_REQUIRE_GPU_BYTES(n + runs * 9 + (std::size_t(2) << 30));
  owned_stream stream;
  device_buffer<std::uint8_t> keys(n, stream), unique_out(runs, stream);
  device_buffer<std::uint32_t> counts32(runs, stream);
  device_buffer<std::uint64_t> counts64(runs, stream);
  fill(keys.data(), n, run_key{}, stream.get());
  device_buffer<std::size_t> count(1, stream);
  cupar::run_length_encode(keys.data(), unique_out.data(), counts32.data(), count.data(), n,
                           stream);
  ASSERT_EQ(count_on_host(count), runs);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(unique_out.data(), runs, key_of_run{}, stream));
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(counts32.data(), runs, length_of_run<std::uint32_t>{n}, stream));
  ASSERT_EQ(
      cupar::run_length_encode_count(keys.data(), unique_out.data(), counts64.data(), n, stream),
      runs);
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(counts64.data(), runs, length_of_run<std::uint64_t>{n}, stream));
}

}  // namespace
}  // namespace cupar::testing
