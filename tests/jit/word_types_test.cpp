// cupar tests: bool, __half and __nv_bfloat16 as element types of run-time operators (word
// types: served by the u8 / u16 kernel sets, jit.hpp and half.hpp), on the GPU against CPU
// references: reduce, scans, transforms, compactions, sorts, expressions converting them, and the
// named logical operators. Values are chosen so that every result is exact in the element type.
// Compiled by g++.
#include "../common/gpu.hpp"
#include "../common/streams.hpp"
#include "iterator_helpers.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace jit = cupar::jit;
using cupar::testing::both_tiers;
using cupar::testing::owned_stream;
using jit::op;

namespace {

const std::vector<std::size_t> sizes = {0, 1, 2, 1001, (1u << 20) + 3};

std::vector<bool> random_bools(std::size_t n, unsigned seed, int percent_true) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, 99);
  std::vector<bool> out(n);
  for (std::size_t i = 0; i < n; ++i)
    out[i] = d(rng) < percent_true;
  return out;
}

/// std::vector<bool> is packed: the device gets one byte per value.
std::vector<char> bytes_of(const std::vector<bool>& v) {
  return std::vector<char>(v.begin(), v.end());
}
/// The first n values of a device array of bools (its to_host would be a packed vector<bool>).
std::vector<bool> host_bools(const cupar::device_buffer<bool>& d, std::size_t n) {
  std::unique_ptr<bool[]> host(new bool[n + 1]);
  d.copy_to_host(host.get(), n);
  return std::vector<bool>(host.get(), host.get() + n);
}

/// Small integers in [-8, 8]: exact in half and bfloat16, and so are their doubles and maxima.
template <class H>
std::vector<H> small_halves(std::size_t n, unsigned seed, H (*from_float)(float)) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-8, 8);
  std::vector<H> out(n);
  for (auto& x : out)
    x = from_float(static_cast<float>(d(rng)));
  return out;
}

template <class H>
std::vector<float> floats_of(const std::vector<H>& v, float (*to_float)(H)) {
  std::vector<float> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    out[i] = to_float(v[i]);
  return out;
}

float half_to_float(__half h) {
  return __half2float(h);
}
__half float_to_half(float f) {
  return __float2half(f);
}
float bf16_to_float(__nv_bfloat16 h) {
  return __bfloat162float(h);
}
__nv_bfloat16 float_to_bf16(float f) {
  return __float2bfloat16(f);
}

TEST(JitWordTypes, BoolReduceScanTransformAndCompactions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto hb = random_bools(n, 7 + static_cast<unsigned>(n), 30);
    const auto hc = random_bools(n, 8 + static_cast<unsigned>(n), 50);
    const auto bb = bytes_of(hb), bc = bytes_of(hc);
    cupar::device_buffer<bool> b(reinterpret_cast<const bool*>(bb.data()), n, s),
        c(reinterpret_cast<const bool*>(bc.data()), n, s), out(n, s);
    const bool any = std::find(hb.begin(), hb.end(), true) != hb.end();
    const bool all = std::find(hb.begin(), hb.end(), false) == hb.end();
    std::vector<bool> running_or(n), negated(n), same(n);
    bool acc = false;
    for (std::size_t i = 0; i < n; ++i) {
      acc = acc || hb[i];
      running_or[i] = acc;
      negated[i] = !hb[i];
      same[i] = hb[i] == hc[i];
    }
    const std::size_t trues = static_cast<std::size_t>(std::count(hb.begin(), hb.end(), true));
    both_tiers([&] {
      EXPECT_EQ(cupar::reduce_value(b.data(), n, jit::logical_or, false, s), any);
      EXPECT_EQ(cupar::reduce_value(b.data(), n, jit::logical_and, true, s), all);
      // plus on bools is C++'s: true + true converts back to true (an "any").
      EXPECT_EQ(cupar::reduce_value(b.data(), n, jit::plus, false, s), any);
      cupar::inclusive_scan(b.data(), out.data(), n, jit::maximum, s);
      EXPECT_EQ(host_bools(out, n), running_or);
      cupar::inclusive_scan(b.data(), out.data(), n, op("a || b"), s);
      EXPECT_EQ(host_bools(out, n), running_or);
      cupar::transform(b.data(), out.data(), n, jit::logical_not, s);
      EXPECT_EQ(host_bools(out, n), negated);
      cupar::transform(b.data(), c.data(), out.data(), n, jit::equal_to, s);
      EXPECT_EQ(host_bools(out, n), same);
      // A count of the trues: select_if with the identity predicate, and a reduction of the
      // bools converted to a count (one pass).
      EXPECT_EQ(cupar::select_if_count(b.data(), out.data(), n, jit::identity, s), trues);
      EXPECT_EQ(cupar::reduce_value(jit::transform<unsigned long long>(b.data(), op("x ? 1 : 0")),
                                    n, jit::plus, 0ull, s),
                trues);
      // Sorted: falses first.
      cupar::sort_keys(b.data(), out.data(), n, jit::less, s);
      std::vector<bool> sorted = hb;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(host_bools(out, n), sorted);
    });
  }
}

template <class H>
void half_case(const char* name, H (*from_float)(float), float (*to_float)(H)) {
  SCOPED_TRACE(name);
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_halves<H>(n, 11 + static_cast<unsigned>(n), from_float);
    const auto f = floats_of(h, to_float);
    cupar::device_buffer<H> x(h, s), out(n, s);
    float sum = 0, top = -1000, bottom = 1000;
    std::vector<float> running_max(n), doubled(n), positives;
    for (std::size_t i = 0; i < n; ++i) {
      sum += f[i];
      top = std::max(top, f[i]);
      bottom = std::min(bottom, f[i]);
      running_max[i] = top;
      doubled[i] = 2 * f[i];
      if (f[i] > 0) positives.push_back(f[i]);
    }
    std::vector<float> sorted = f;
    std::stable_sort(sorted.begin(), sorted.end());
    both_tiers([&] {
      // Maxima and minima are exact in the element type.
      EXPECT_EQ(to_float(cupar::reduce_value(x.data(), n, jit::maximum, from_float(-1000.0f), s)),
                top);
      EXPECT_EQ(
          to_float(cupar::reduce_value(x.data(), n, op("a < b ? a : b"), from_float(1000.0f), s)),
          bottom);
      // A sum accumulated in float: the elements converted where they are loaded.
      EXPECT_EQ(
          cupar::reduce_value(jit::transform<float>(x.data(), op("x")), n, jit::plus, 0.0f, s),
          sum);
      EXPECT_EQ(cupar::reduce_value(jit::iterator(x.data()), n, jit::plus, 0.0f, s), sum);
      cupar::inclusive_scan(x.data(), out.data(), n, jit::maximum, s);
      EXPECT_EQ(floats_of(out.to_host(), to_float), running_max);
      cupar::transform(x.data(), out.data(), n, op("x + x"), s);
      EXPECT_EQ(floats_of(out.to_host(), to_float), doubled);
      const std::size_t kept =
          cupar::select_if_count(x.data(), out.data(), n, op("float(x) > 0.0f"), s);
      ASSERT_EQ(kept, positives.size());
      const auto selected = floats_of(out.to_host(), to_float);
      EXPECT_EQ(std::vector<float>(selected.begin(), selected.begin() + kept), positives);
      cupar::sort_keys(x.data(), out.data(), n, jit::less, s);
      EXPECT_EQ(floats_of(out.to_host(), to_float), sorted);
    });
  }
}

TEST(JitWordTypes, HalfReduceScanTransformSelectAndSort) {
  CUPAR_REQUIRE_GPU();
  half_case<__half>("__half", float_to_half, half_to_float);
}

TEST(JitWordTypes, BFloat16ReduceScanTransformSelectAndSort) {
  CUPAR_REQUIRE_GPU();
  half_case<__nv_bfloat16>("__nv_bfloat16", float_to_bf16, bf16_to_float);
}

}  // namespace
