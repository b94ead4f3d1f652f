// cupar tests: histograms with a C++ sample operator (the conformance suite for the signed integer
// types and the untyped tests, plus what only callables have). The other types are in
// histogram_unsigned_test.cu and histogram_float_test.cu (split to build in parallel).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#include "../conformance/histogram_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas without a trailing return type; the result is converted to the
// level type (here: `x % 100` of an int is an int, binned as float levels).
template <class T>
void histogram_of_remainders(const T* d_in, std::uint32_t* d_hist, std::size_t n, cudaStream_t s) {
  cupar::histogram_even(
      d_in, d_hist, 11, 0.0f, 100.0f, n, [] __device__(T x) { return x % 100; }, s);
}

// A capturing lambda: distance from a captured centre, with custom levels.
template <class T>
void histogram_of_distances(const T* d_in, std::uint64_t* d_hist, const double* h_levels,
                            int num_levels, std::size_t n, double centre, cudaStream_t s) {
  cupar::histogram_range(
      d_in, d_hist, num_levels, h_levels, n,
      [centre] __device__(T x) {
        const double d = static_cast<double>(x) - centre;
        return d < 0 ? -d : d;
      },
      s);
}

TEST(HistogramCompiled, LambdaWithoutTrailingReturnType) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = random_values<int>(n, 1, -1000, 1000);
  device_buffer<int> in(h, stream);
  device_buffer<std::uint32_t> hist(10, stream);
  hist.fill_bytes(0xAB);
  histogram_of_remainders(in.data(), hist.data(), n, stream.get());
  std::vector<float> rem(n);
  for (std::size_t i = 0; i < n; ++i)
    rem[i] = static_cast<float>(h[i] % 100);
  EXPECT_TRUE(bitwise_equal(widen(hist.to_host()), even_histogram<float>(rem, 0.0f, 100.0f, 10)));
}

TEST(HistogramCompiled, CapturingLambda) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 70001;
  const auto h = random_values<float>(n, 2, -50, 50);
  const double centre = 12.5;
  const std::vector<double> levels = {0.0, 0.5, 2.0, 10.0, 30.0, 40.0};
  device_buffer<float> in(h, stream);
  device_buffer<std::uint64_t> hist(levels.size() - 1, stream);
  hist.fill_bytes(0xAB);
  histogram_of_distances(in.data(), hist.data(), levels.data(), static_cast<int>(levels.size()), n,
                         centre, stream.get());
  std::vector<double> dist(n);
  for (std::size_t i = 0; i < n; ++i)
    dist[i] = std::fabs(static_cast<double>(h[i]) - centre);
  EXPECT_TRUE(bitwise_equal(hist.to_host(), range_histogram<double>(dist, levels)));
}

}  // namespace
}  // namespace cupar::testing
