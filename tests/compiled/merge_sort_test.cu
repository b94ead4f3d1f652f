// cupar tests: comparison sorts with C++ comparators (the conformance suite's untyped tests,
// plus what only callables have). The typed tests are in merge_sort_signed_test.cu,
// merge_sort_unsigned_test.cu and merge_sort_float_test.cu: one CUB merge sort per key type and
// comparator is slow to compile, and split translation units build in parallel.
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPED 0
#include "../conformance/merge_sort_suite.hpp"

#include <cmath>

namespace cupar::testing {
namespace {

// Extended __device__ lambdas without a trailing return type.
template <class T>
void sort_descending_with_plain_lambda(const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  cupar::sort_keys(
      d_in, d_out, n, [] __device__(T a, T b) { return b < a; }, s);
}

template <class T>
void stable_sort_pairs_with_plain_lambda(T* d_keys, std::uint32_t* d_values, std::size_t n,
                                         cudaStream_t s) {
  cupar::stable_sort_pairs(
      d_keys, d_keys, d_values, d_values, n, [] __device__(T a, T b) { return a < b; }, s);
}

// A comparator that orders NaNs explicitly (after every number), as sort.cuh advises: with it
// the keys have a strict weak ordering even with NaNs.
template <class T>
void stable_sort_nan_last(const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  cupar::stable_sort_keys(
      d_in, d_out, n, [] __device__(T a, T b) { return !isnan(a) && (isnan(b) || a < b); }, s);
}

// A capturing comparator: by distance from a captured pivot.
template <class T>
void sort_by_distance_from(const T* d_in, T* d_out, std::uint32_t* d_values_in,
                           std::uint32_t* d_values_out, std::size_t n, T pivot, cudaStream_t s) {
  cupar::stable_sort_pairs(
      d_in, d_out, d_values_in, d_values_out, n,
      [pivot] __device__(T a, T b) {
        const T da = a < pivot ? pivot - a : a - pivot;
        const T db = b < pivot ? pivot - b : b - pivot;
        return da < db;
      },
      s);
}

TEST(MergeSortCompiled, LambdaWithoutTrailingReturnType) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = merge_sort_ref::keys<std::int32_t>(n, 1);
  device_buffer<std::int32_t> in(h, stream), out(n, stream);
  sort_descending_with_plain_lambda(in.data(), out.data(), n, stream.get());
  EXPECT_TRUE(value_equal(
      out.to_host(),
      merge_sort_ref::gather(h, merge_sort_ref::stable_order(h, merge_sort_ref::cpu_greater{}))));
  const auto d = merge_sort_ref::duplicate_keys<double>(n, 2);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  device_buffer<double> keys(d, stream);
  device_buffer<std::uint32_t> values(positions, stream);
  stable_sort_pairs_with_plain_lambda(keys.data(), values.data(), n, stream.get());
  const auto order = merge_sort_ref::stable_order(d, merge_sort_ref::cpu_less{});
  EXPECT_TRUE(bitwise_equal(keys.to_host(), merge_sort_ref::gather(d, order)));
  EXPECT_TRUE(bitwise_equal(values.to_host(), order));
}

TEST(MergeSortCompiled, ComparatorThatOrdersNaNs) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 50001;
  auto h = merge_sort_ref::keys<float>(n, 3);
  for (std::size_t i = 0; i < n; i += 13) {
    h[i] =
        i % 2 ? std::numeric_limits<float>::quiet_NaN() : -std::numeric_limits<float>::quiet_NaN();
  }
  device_buffer<float> in(h, stream), out(n, stream);
  stable_sort_nan_last(in.data(), out.data(), n, stream.get());
  const auto want = merge_sort_ref::gather(h, merge_sort_ref::stable_order(h, [](float a, float b) {
                                             return !std::isnan(a) && (std::isnan(b) || a < b);
                                           }));
  EXPECT_TRUE(bitwise_equal(out.to_host(), want));
}

TEST(MergeSortCompiled, CapturingComparator) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 40000;
  const auto h = random_values<std::int32_t>(n, 4, -1000, 1000);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  const std::int32_t pivot = 123;
  device_buffer<std::int32_t> in(h, stream), out(n, stream);
  device_buffer<std::uint32_t> v_in(positions, stream), v_out(n, stream);
  sort_by_distance_from(in.data(), out.data(), v_in.data(), v_out.data(), n, pivot, stream.get());
  const auto order = merge_sort_ref::stable_order(h, [pivot](std::int32_t a, std::int32_t b) {
    return std::abs(a - pivot) < std::abs(b - pivot);
  });
  EXPECT_TRUE(bitwise_equal(out.to_host(), merge_sort_ref::gather(h, order)));
  EXPECT_TRUE(bitwise_equal(v_out.to_host(), order));
}

}  // namespace
}  // namespace cupar::testing
