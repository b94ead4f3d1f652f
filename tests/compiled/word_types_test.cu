// cupar tests: bool, __half and __nv_bfloat16 with C++ callables (the compiled path: CUB's own
// support of these types), against CPU references: reduce (with a device initial value too),
// seeded and plain scans, transforms, select. Values are small integers, exact in every type.
#include "../common/gpu.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.cuh>

#include <gtest/gtest.h>
#include <cuda/functional>
#include <cuda/std/functional>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using cupar::testing::owned_stream;

const std::vector<std::size_t> sizes = {0, 1, 2, 1001, (1u << 20) + 3};

struct half_sum {
  __device__ __half operator()(__half a, __half b) const { return a + b; }
};
struct bf16_max {
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const {
    return a < b ? b : a;
  }
};
struct half_doubled {
  __device__ float operator()(__half x) const { return 2.0f * __half2float(x); }
};
struct positive_half {
  __device__ bool operator()(__half x) const { return __half2float(x) > 0.0f; }
};

/// Small integers in [-4, 4]: sums of up to 2^20 of them stay below 2^11 in magnitude only in
/// expectation, so the sums below use n <= 1001 or are checked in float.
std::vector<float> small_floats(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-4, 4);
  std::vector<float> out(n);
  for (auto& x : out)
    x = static_cast<float>(d(rng));
  return out;
}

TEST(CompiledWordTypes, HalfReduceScanTransformAndSelect) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto f = small_floats(n, 3 + static_cast<unsigned>(n));
    std::vector<__half> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = __float2half(f[i]);
    // out holds reduce's result too (written even for n = 0).
    cupar::device_buffer<__half> x(h, s), out(std::max<std::size_t>(n, 1), s),
        init(std::vector<__half>{__float2half(3)}, s);
    cupar::device_buffer<float> doubled(n, s);
    cupar::device_buffer<std::size_t> count(1, s);
    std::vector<float> sums(n), seeded(n), twice(n), positives;
    float acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      acc += f[i];
      sums[i] = acc;
      seeded[i] = acc + 3;
      twice[i] = 2 * f[i];
      if (f[i] > 0) positives.push_back(f[i]);
    }
    auto floats = [&](const cupar::device_buffer<__half>& d, std::size_t m) {
      const auto v = d.to_host();
      std::vector<float> r(m);
      for (std::size_t i = 0; i < m; ++i)
        r[i] = __half2float(v[i]);
      return r;
    };
    if (n <= 1001) {  // the partial sums stay exact in half
      cupar::reduce(x.data(), out.data(), n, half_sum{}, cupar::device_value{init.data()}, s);
      EXPECT_EQ(floats(out, 1)[0], acc + 3);
      cupar::inclusive_scan(x.data(), out.data(), n, half_sum{}, s);
      EXPECT_EQ(floats(out, n), sums);
      cupar::inclusive_scan(x.data(), out.data(), n, half_sum{}, __float2half(3), s);
      EXPECT_EQ(floats(out, n), seeded);
    }
    cupar::transform(x.data(), doubled.data(), n, half_doubled{}, s);
    EXPECT_EQ(doubled.to_host(), twice);
    cupar::select_if(x.data(), out.data(), count.data(), n, positive_half{}, s);
    const std::size_t kept = count.to_host()[0];
    ASSERT_EQ(kept, positives.size());
    EXPECT_EQ(floats(out, kept), positives);
  }
}

TEST(CompiledWordTypes, BFloat16AndBoolReductionsAndScans) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto f = small_floats(n, 5 + static_cast<unsigned>(n));
    std::vector<__nv_bfloat16> h(n);
    std::unique_ptr<bool[]> b(new bool[n + 1]);
    for (std::size_t i = 0; i < n; ++i) {
      h[i] = __float2bfloat16(f[i]);
      b[i] = f[i] > 3;
    }
    cupar::device_buffer<__nv_bfloat16> x(h, s), out(n, s);
    cupar::device_buffer<bool> flags(b.get(), n, s), any(1, s);
    std::vector<float> running_max(n);
    float top = -100;
    bool some = false;
    for (std::size_t i = 0; i < n; ++i) {
      top = std::max(top, f[i]);
      running_max[i] = top;
      some = some || b[i];
    }
    cupar::inclusive_scan(x.data(), out.data(), n, bf16_max{}, s);
    const auto got = out.to_host();
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(__bfloat162float(got[i]), running_max[i]) << "at " << i;
    cupar::reduce(flags.data(), any.data(), n, ::cuda::std::logical_or<bool>{}, false, s);
    bool result = true;
    any.copy_to_host(&result, 1);
    EXPECT_EQ(result, some);
  }
}

}  // namespace
