// cupar tests: transforms with C++ callables (the conformance suite, plus what only callables
// have).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#include "../conformance/transform_suite.hpp"

namespace cupar::testing {
namespace {

// Extended __device__ lambdas without a trailing return type.
template <class T>
void double_plus_one_with_plain_lambda(const T* d_in, T* d_out, std::size_t n, cudaStream_t s) {
  cupar::transform(
      d_in, d_out, n, [] __device__(T x) { return x * 2 + 1; }, s);
}

template <class A, class B, class Out>
void product_with_plain_lambda(const A* d_a, const B* d_b, Out* d_out, std::size_t n,
                               cudaStream_t s) {
  cupar::transform(
      d_a, d_b, d_out, n, [] __device__(A a, B b) { return a * b; }, s);
}

// Capturing lambdas: a captured scalar, and two.
template <class T>
void scale_with_capture(const T* d_in, float* d_out, std::size_t n, float scale, cudaStream_t s) {
  cupar::transform(
      d_in, d_out, n, [scale] __device__(T x) { return static_cast<float>(x) * scale; }, s);
}

template <class T>
void clamp_with_capture(const T* d_a, const T* d_b, T* d_out, std::size_t n, T lo, T hi,
                        cudaStream_t s) {
  cupar::transform(
      d_a, d_b, d_out, n,
      [lo, hi] __device__(T a, T b) {
        const T v = a < b ? a : b;
        return v < lo ? lo : (hi < v ? hi : v);
      },
      s);
}

TEST(TransformCompiled, LambdaWithoutTrailingReturnType) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = random_values<int>(n, 1, -100000, 100000);
  device_buffer<int> in(h, stream), out(n, stream);
  out.fill_bytes(0xAB);
  double_plus_one_with_plain_lambda(in.data(), out.data(), n, stream.get());
  std::vector<int> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = h[i] * 2 + 1;
  EXPECT_TRUE(bitwise_equal(out.to_host(), want));
  // `x * 2 + 1` of an 8-bit value is an int, converted back (wrapping).
  const auto small = full_range_values<std::uint8_t>(5000, 2);
  device_buffer<std::uint8_t> in8(small, stream), out8(small.size(), stream);
  double_plus_one_with_plain_lambda(in8.data(), out8.data(), small.size(), stream.get());
  std::vector<std::uint8_t> want8(small.size());
  for (std::size_t i = 0; i < small.size(); ++i) {
    want8[i] = static_cast<std::uint8_t>(small[i] * 2 + 1);
  }
  EXPECT_TRUE(bitwise_equal(out8.to_host(), want8));
  // Binary, mixed types: int * float is float, stored as double.
  const auto b = random_values<float>(n, 3, -2, 2);
  device_buffer<float> db(b, stream);
  device_buffer<double> outd(n, stream);
  product_with_plain_lambda(in.data(), db.data(), outd.data(), n, stream.get());
  std::vector<double> wantd(n);
  for (std::size_t i = 0; i < n; ++i)
    wantd[i] = static_cast<double>(static_cast<float>(h[i]) * b[i]);
  EXPECT_TRUE(bitwise_equal(outd.to_host(), wantd));
}

TEST(TransformCompiled, CapturingLambdas) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 70001;
  const auto h = random_values<std::int16_t>(n, 4, -30000, 30000);
  device_buffer<std::int16_t> in(h, stream);
  device_buffer<float> out(n, stream);
  const float scale = 0.375f;
  scale_with_capture(in.data(), out.data(), n, scale, stream.get());
  std::vector<float> want(n);
  for (std::size_t i = 0; i < n; ++i)
    want[i] = static_cast<float>(h[i]) * scale;
  EXPECT_TRUE(bitwise_equal(out.to_host(), want));
  const auto a = random_values<double>(n, 5, -10, 10);
  const auto c = random_values<double>(n, 6, -10, 10);
  device_buffer<double> da(a, stream), dc(c, stream), dout(n, stream);
  clamp_with_capture(da.data(), dc.data(), dout.data(), n, -2.5, 4.0, stream.get());
  std::vector<double> wantc(n);
  for (std::size_t i = 0; i < n; ++i)
    wantc[i] = std::clamp(std::min(a[i], c[i]), -2.5, 4.0);
  EXPECT_TRUE(bitwise_equal(dout.to_host(), wantc));
}

}  // namespace
}  // namespace cupar::testing
