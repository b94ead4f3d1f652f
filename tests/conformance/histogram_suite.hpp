// cupar tests: histograms whose samples go through a sample operator (include after
// `using Ops = ...;`).
//
// The operator's result is converted to the level type and binned by the rules of histogram.hpp;
// the reference (tests/common/histogram_ref.hpp) applies the operator's expression on the CPU and
// then those rules. Ops::halve<T, L>() is x / 2 computed as L; Ops::record_key() is a record's key.
//
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp.
#pragma once

#include "../common/histogram_ref.hpp"
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace cupar::testing {

#if defined(CUPAR_SUITE_TYPES)
using histogram_types = CUPAR_SUITE_TYPES;
#else
using histogram_types = arithmetic_types;
#endif

namespace histogram_ref {

template <class T, class L>
L halve(T x) {
  return static_cast<L>(static_cast<L>(x) / static_cast<L>(2));
}

template <class T, class L>
std::vector<L> halved(const std::vector<T>& h) {
  std::vector<L> v(h.size());
  for (std::size_t i = 0; i < h.size(); ++i)
    v[i] = halve<T, L>(h[i]);
  return v;
}

/// Samples over the whole range of integer types (their halves then cover half of it, so some
/// fall outside the bounds below); floating point over [-10, 20) with NaN, infinities and -0.0.
template <class T>
std::vector<T> samples(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    auto v = random_values<T>(n, seed, -10.0, 20.0);
    using lim = std::numeric_limits<T>;
    const T specials[] = {lim::quiet_NaN(), -lim::quiet_NaN(), lim::infinity(), -lim::infinity(),
                          T(-0.0)};
    for (std::size_t i = 3; i < n; i += 13)
      v[i] = specials[(i / 13) % std::size(specials)];
    return v;
  } else {
    return full_range_values<T>(n, seed);
  }
}

/// Bounds for the halves of samples() as the level type L = T: a quarter of the type's range
/// below zero (signed) or above its first eighth (unsigned), to a quarter above; floating point
/// [-3.5, 7.75).
template <class T>
std::pair<T, T> halved_bounds() {
  if constexpr (std::is_floating_point_v<T>) {
    return {T(-3.5), T(7.75)};
  } else if constexpr (std::is_signed_v<T>) {
    return {static_cast<T>(std::numeric_limits<T>::lowest() / 4),
            static_cast<T>(std::numeric_limits<T>::max() / 4)};
  } else {
    return {static_cast<T>(std::numeric_limits<T>::max() / 8),
            static_cast<T>(std::numeric_limits<T>::max() / 8 * 3)};
  }
}

/// Strictly increasing levels in [lo, hi] (at most `count`, at least 2).
template <class L>
std::vector<L> levels_between(int count, L lo, L hi, std::uint64_t seed) {
  auto v = random_values<L>(static_cast<std::size_t>(count), seed, static_cast<double>(lo),
                            static_cast<double>(hi));
  v.push_back(lo);
  v.push_back(hi);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// Largest bin count whose integer bin arithmetic cannot overflow for a range of `range`.
template <class L>
int bins_for(int wanted, long double range) {
  if constexpr (std::is_integral_v<L>) {
    const long double limit = 1.8e19L / (range + 1);
    return static_cast<int>(std::min<long double>(wanted, std::max<long double>(1, limit)));
  } else {
    return wanted;
  }
}

template <class Counter, class T, class L, class Op>
void check_even(const device_buffer<T>& d, const std::vector<T>& h, Op op, L lower, L upper,
                int bins, stream_ref stream) {
  SCOPED_TRACE(std::to_string(8 * sizeof(Counter)) + "-bit counters, " + std::to_string(bins) +
               " bins");
  device_buffer<Counter> hist(static_cast<std::size_t>(bins), stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), bins + 1, lower, upper, h.size(), op, stream);
  EXPECT_TRUE(
      bitwise_equal(widen(hist.to_host()), even_histogram<L>(halved<T, L>(h), lower, upper, bins)));
}

template <class Counter, class T, class L, class Op>
void check_range(const device_buffer<T>& d, const std::vector<T>& h, Op op,
                 const std::vector<L>& levels, stream_ref stream) {
  SCOPED_TRACE(std::to_string(8 * sizeof(Counter)) + "-bit counters, " +
               std::to_string(levels.size()) + " levels");
  device_buffer<Counter> hist(levels.size() - 1, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), static_cast<int>(levels.size()), levels.data(),
                         h.size(), op, stream);
  EXPECT_TRUE(
      bitwise_equal(widen(hist.to_host()),
                    range_histogram<L>(halved<T, L>(h),
                                       std::vector<level_of_t<L>>(levels.begin(), levels.end()))));
}

/// Samples whose halves hit the float edge of the even formula are replaced (the edge has its
/// own test).
template <class T, class L>
std::vector<T> without_edge(std::vector<T> h, L lower, L upper, int bins) {
  if constexpr (std::is_floating_point_v<L>) {
    for (T& x : h) {
      if (even_bin_rounds_past_last<L>(halve<T, L>(x), lower, upper, bins)) x = T(0);
    }
  }
  return h;
}

}  // namespace histogram_ref

template <class T>
class HistogramWithOperator : public ::testing::Test {};
TYPED_TEST_SUITE(HistogramWithOperator, histogram_types, type_names);

TYPED_TEST(HistogramWithOperator, EvenBinsOfTheHalves) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T lower = histogram_ref::halved_bounds<T>().first;
  const T upper = histogram_ref::halved_bounds<T>().second;
  const auto op = Ops::template halve<T, T>();
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for (int wanted : {1, 9, 1000}) {
      const int bins = histogram_ref::bins_for<T>(
          wanted, static_cast<long double>(upper) - static_cast<long double>(lower));
      const auto h =
          histogram_ref::without_edge(histogram_ref::samples<T>(n, 10 + n), lower, upper, bins);
      device_buffer<T> d(h, stream);
      histogram_ref::check_even<std::uint32_t>(d, h, op, lower, upper, bins, stream);
      histogram_ref::check_even<std::uint64_t>(d, h, op, lower, upper, bins, stream);
    }
  }
}

TYPED_TEST(HistogramWithOperator, CustomBinsOfTheHalves) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T lower = histogram_ref::halved_bounds<T>().first;
  const T upper = histogram_ref::halved_bounds<T>().second;
  const auto op = Ops::template halve<T, T>();
  for (int count : {2, 10, 3000}) {
    const auto levels = histogram_ref::levels_between<T>(count, lower, upper, 20 + count);
    for (std::size_t n : standard_sizes()) {
      SCOPED_TRACE("n = " + std::to_string(n));
      const auto h = histogram_ref::samples<T>(n, 30 + n);
      device_buffer<T> d(h, stream);
      histogram_ref::check_range<std::uint32_t>(d, h, op, levels, stream);
      histogram_ref::check_range<std::uint64_t>(d, h, op, levels, stream);
    }
  }
}

TYPED_TEST(HistogramWithOperator, OperatorResultOfAnotherType) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  // Halves as double, binned as double samples: odd integers land on .5 values.
  const auto op = Ops::template halve<T, double>();
  const double lower = std::is_signed_v<T> ? -40.25 : 3.5, upper = lower + 97.0;
  std::vector<T> h;
  for (std::size_t n : {std::size_t(1), std::size_t(6145), scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    // Samples near the bounds' doubles, so most land in the bins.
    h = random_values<T>(n, 40 + n, std::is_signed_v<T> ? -100.0 : 0.0, 250.0);
    for (int bins : {7, 200}) {
      const auto hc = histogram_ref::without_edge(h, lower, upper, bins);
      device_buffer<T> d(hc, stream);
      histogram_ref::check_even<std::uint64_t>(d, hc, op, lower, upper, bins, stream);
    }
    device_buffer<T> d(h, stream);
    const std::vector<double> levels = {lower,        lower + 0.5, lower + 1.0,
                                        lower + 10.0, 0.0 + 60.0,  upper};
    std::vector<double> sorted = levels;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    histogram_ref::check_range<std::uint32_t>(d, h, op, sorted, stream);
  }
}

TYPED_TEST(HistogramWithOperator, EmptyInputZeroesTheHistogram) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const T lower = histogram_ref::halved_bounds<T>().first;
  const T upper = histogram_ref::halved_bounds<T>().second;
  const std::vector<T> levels = {lower, upper};
  device_buffer<std::uint32_t> h32(4, stream);
  device_buffer<std::uint64_t> h64(4, stream);
  h32.fill_bytes(0xAB);
  h64.fill_bytes(0xAB);
  cupar::histogram_even(static_cast<const T*>(nullptr), h32.data(), 5, lower, upper, 0,
                        Ops::template halve<T, T>(), stream);
  cupar::histogram_range(static_cast<const T*>(nullptr), h64.data(), 2, levels.data(), 0,
                         Ops::template halve<T, T>(), stream);
  EXPECT_EQ(h32.to_host(), std::vector<std::uint32_t>(4, 0));
  const auto g64 = h64.to_host();
  EXPECT_EQ(g64[0], 0u);
  EXPECT_EQ(g64[1], 0xABABABABABABABABull) << "only num_levels - 1 counters are written";
}

TYPED_TEST(HistogramWithOperator, BadLevelsAndPointersThrowBeforeAnyWork) {
  using T = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  const auto op = Ops::template halve<T, T>();
  T samples[4] = {};
  std::uint32_t hist[8] = {};
  const T lower = histogram_ref::halved_bounds<T>().first;
  const T upper = histogram_ref::halved_bounds<T>().second;
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 1, lower, upper, 4, op, s),
                          std::invalid_argument, "cupar::histogram_even: num_levels = 1");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, upper, lower, 4, op, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, lower, lower, 4, op, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(static_cast<const T*>(nullptr), hist, 3, lower, upper, 4, op, s),
      std::invalid_argument, "d_samples is null but n = 4");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, static_cast<std::uint32_t*>(nullptr), 3,
                                                lower, upper, 4, op, s),
                          std::invalid_argument, "d_histogram is null");
  const T flat[] = {T(1), T(2), T(2)};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, flat, 4, op, s),
                          std::invalid_argument,
                          "cupar::histogram_range: h_levels must be strictly increasing");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 0, flat, 4, op, s),
                          std::invalid_argument, "num_levels = 0");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(samples, hist, 3, static_cast<const T*>(nullptr), 4, op, s),
      std::invalid_argument, "h_levels is null");
  if constexpr (std::is_floating_point_v<T>) {
    const T nan = std::numeric_limits<T>::quiet_NaN();
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, nan, upper, 4, op, s),
                            std::invalid_argument, "lower is NaN");
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, lower, nan, 4, op, s),
                            std::invalid_argument, "upper is NaN");
    const T with_nan[] = {T(1), nan, T(3)};
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, with_nan, 4, op, s),
                            std::invalid_argument, "h_levels[1] is NaN");
  }
}

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED

TEST(HistogramWithOperatorStruct, RecordsByKey) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    if (n > (std::size_t(1) << 22)) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto keys = histogram_ref::samples<float>(n, 50 + n);
    std::vector<record> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {keys[i], static_cast<std::uint32_t>(i)};
    const float lower = -2.0f, upper = 13.0f;
    const int bins = 30;
    std::vector<float> k(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (even_bin_rounds_past_last<float>(h[i].key, lower, upper, bins)) h[i].key = 0.0f;
      k[i] = h[i].key;
    }
    device_buffer<record> d(h, stream);
    device_buffer<std::uint64_t> hist(bins, stream);
    hist.fill_bytes(0xAB);
    cupar::histogram_even(d.data(), hist.data(), bins + 1, lower, upper, n, Ops::record_key(),
                          stream);
    EXPECT_TRUE(bitwise_equal(hist.to_host(), even_histogram<float>(k, lower, upper, bins)));
    const std::vector<float> levels = {-5.0f, -0.0f, 0.5f, 1.0f, 2.0f, 3.0f, 19.5f};
    hist.fill_bytes(0xAB);
    cupar::histogram_range(d.data(), hist.data(), static_cast<int>(levels.size()), levels.data(), n,
                           Ops::record_key(), stream);
    const auto got = hist.to_host();
    EXPECT_TRUE(bitwise_equal(std::vector<std::uint64_t>(got.begin(), got.begin() + 6),
                              range_histogram<float>(k, levels)));
  }
}

// Negative 8-bit operator results are counted like any other (NVIDIA/cccl#10977 drops them).
TEST(HistogramWithOperatorSignedBytes, NegativeResultsAreCounted) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::vector<std::int8_t> h = {-120, -2, 20, 126};  // halves: -60, -1, 10, 63
  device_buffer<std::int8_t> d(h, stream);
  device_buffer<std::uint32_t> hist(4, stream);
  const auto op = Ops::template halve<std::int8_t, std::int8_t>();
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), 5, std::int8_t(-60), std::int8_t(64), h.size(), op,
                        stream);
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint32_t>{1, 1, 1, 1})) << "even";
  const std::int8_t levels[] = {-60, -29, 2, 33, 64};
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), 5, levels, h.size(), op, stream);
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint32_t>{1, 1, 1, 1})) << "custom";
}

// A sample whose operator result is one of the last floating-point values below `upper` can
// make the documented formula give `bins`; it is inside [lower, upper), so it must be counted
// (in the last bin). See also tests/library/histogram_test.cpp.
TEST(HistogramWithOperatorEdge, ResultsJustBelowUpperAreCounted) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  std::mt19937_64 rng(80);
  int found = 0;
  for (int attempt = 0; attempt < 200000 && found < 3; ++attempt) {
    const float lower = std::uniform_real_distribution<float>(-100, 100)(rng);
    const float upper = lower + std::uniform_real_distribution<float>(0.001f, 100)(rng);
    const int bins = std::uniform_int_distribution<int>(2, 5000)(rng);
    const float edge = std::nextafter(upper, lower);
    if (!even_bin_rounds_past_last<float>(edge, lower, upper, bins)) continue;
    if (histogram_ref::halve<float, float>(edge * 2.0f) != edge) continue;
    ++found;
    SCOPED_TRACE("lower " + printable(lower) + ", upper " + printable(upper) + ", bins " +
                 std::to_string(bins));
    std::vector<float> h(3000, edge * 2.0f);
    for (std::size_t i = 0; i < h.size(); i += 3)
      h[i] = 2.0f * (lower + (upper - lower) / 3.0f);
    std::size_t past = 0;
    auto want =
        even_histogram<float>(histogram_ref::halved<float, float>(h), lower, upper, bins, &past);
    want[static_cast<std::size_t>(bins - 1)] += past;
    device_buffer<float> d(h, stream);
    device_buffer<std::uint32_t> hist(static_cast<std::size_t>(bins), stream);
    hist.fill_bytes(0xAB);
    cupar::histogram_even(d.data(), hist.data(), bins + 1, lower, upper, h.size(),
                          Ops::template halve<float, float>(), stream);
    const auto got = hist.to_host();
    std::uint64_t total = 0;
    for (auto c : got)
      total += c;
    EXPECT_EQ(total, h.size()) << "samples inside [lower, upper) were dropped or miscounted";
    EXPECT_TRUE(bitwise_equal(widen(got), want));
  }
  EXPECT_GT(found, 0);
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
