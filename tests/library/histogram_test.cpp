// cupar tests: the library's precompiled histograms (no sample operator), built by the host
// compiler from <cupar/cupar.hpp> alone: this is the path of a g++ program without nvcc.
//
// References: tests/common/histogram_ref.hpp, written from the rules in histogram.hpp.
#include "../common/histogram_ref.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace cupar::testing {
namespace {

/// Bounds of the even histograms of one sample type: integers of 1-2 bytes nearly their whole
/// range; wider integers a range well inside theirs (so (upper - lower) * bins fits the bin
/// arithmetic with 70000 bins); floating point an arbitrary range of non-power-of-two width.
template <class S>
std::pair<S, S> even_bounds() {
  if constexpr (std::is_floating_point_v<S>) {
    return {S(-2.5), S(7.25)};
  } else if constexpr (sizeof(S) <= 2) {
    return {static_cast<S>(std::is_signed_v<S> ? std::numeric_limits<S>::lowest() + 20 : 3),
            static_cast<S>(std::numeric_limits<S>::max() - 20)};
  } else {
    const double w = sizeof(S) == 4 ? 2147483648.0 : 1099511627776.0;
    const double lo = std::is_signed_v<S> ? -w / 3 : w / 5;
    return {static_cast<S>(lo), static_cast<S>(lo + w)};
  }
}

/// Samples around the bounds: some below, most inside, some above. Floating point also gets NaN
/// (both signs), infinities, -0.0, the bounds themselves and the values next to them.
template <class S>
std::vector<S> samples_for(std::size_t n, std::uint64_t seed) {
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  if constexpr (std::is_floating_point_v<S>) {
    auto v = random_values<S>(n, seed, -4.0, 9.0);
    using lim = std::numeric_limits<S>;
    const S specials[] = {lim::quiet_NaN(),
                          -lim::quiet_NaN(),
                          lim::infinity(),
                          -lim::infinity(),
                          S(-0.0),
                          lower,
                          upper,
                          std::nextafter(lower, S(-10)),
                          std::nextafter(upper, S(-10)),
                          lim::denorm_min(),
                          std::nextafter(lower, S(10))};
    for (std::size_t i = 5; i < n; i += 11)
      v[i] = specials[(i / 11) % std::size(specials)];
    return v;
  } else if constexpr (sizeof(S) <= 2) {
    return full_range_values<S>(n, seed);
  } else {
    const double w = static_cast<double>(upper) - static_cast<double>(lower);
    return random_values<S>(n, seed, static_cast<double>(lower) - w / 8,
                            static_cast<double>(upper) + w / 8);
  }
}

/// `count` strictly increasing boundaries drawn from [lo, hi] (fewer when the type has fewer
/// values there; always at least 2).
template <class S>
std::vector<S> random_levels(int count, S lo, S hi, std::uint64_t seed) {
  auto v = random_values<S>(static_cast<std::size_t>(count) * 2, seed, static_cast<double>(lo),
                            static_cast<double>(hi));
  v.push_back(lo);
  v.push_back(hi);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() > static_cast<std::size_t>(count)) {
    // Keep the extremes and an even spread between them.
    std::vector<S> kept;
    for (int i = 0; i < count; ++i) {
      kept.push_back(
          v[static_cast<std::size_t>(i) * (v.size() - 1) / static_cast<std::size_t>(count - 1)]);
    }
    v = kept;
  }
  return v;
}

template <class S>
std::vector<level_of_t<S>> as_levels(const std::vector<S>& v) {
  return std::vector<level_of_t<S>>(v.begin(), v.end());
}

template <class Counter, class S>
void check_even(const device_buffer<S>& d_samples, const std::vector<S>& h, S lower, S upper,
                int bins, stream_ref stream) {
  SCOPED_TRACE(std::to_string(8 * sizeof(Counter)) + "-bit counters");
  device_buffer<Counter> hist(static_cast<std::size_t>(bins), stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d_samples.data(), hist.data(), bins + 1, lower, upper, h.size(), stream);
  EXPECT_TRUE(bitwise_equal(widen(hist.to_host()), even_histogram<S>(h, lower, upper, bins)));
}

template <class Counter, class S>
void check_range(const device_buffer<S>& d_samples, const std::vector<S>& h,
                 const std::vector<S>& levels, stream_ref stream) {
  SCOPED_TRACE(std::to_string(8 * sizeof(Counter)) + "-bit counters");
  const int num_levels = static_cast<int>(levels.size());
  device_buffer<Counter> hist(levels.size() - 1, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d_samples.data(), hist.data(), num_levels, levels.data(), h.size(),
                         stream);
  EXPECT_TRUE(bitwise_equal(widen(hist.to_host()), range_histogram<S>(h, as_levels(levels))));
}

template <class S>
class LibraryHistogram : public ::testing::Test {};
TYPED_TEST_SUITE(LibraryHistogram, arithmetic_types, type_names);

TYPED_TEST(LibraryHistogram, EvenBinsMatchTheDocumentedRule) {
  CUPAR_REQUIRE_GPU();
  using S = TypeParam;
  owned_stream stream;
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  auto run = [&](std::size_t n, int bins) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", bins = " + std::to_string(bins));
    auto h = samples_for<S>(n, 10 + n);
    avoid_past_last<S>(h, lower, upper, bins);
    device_buffer<S> d(h, stream);
    check_even<std::uint32_t>(d, h, lower, upper, bins, stream);
    check_even<std::uint64_t>(d, h, lower, upper, bins, stream);
  };
  for (std::size_t n : standard_sizes()) {
    for (int bins : {7, 1000})
      run(n, bins);
  }
  for (std::size_t n :
       {std::size_t(0), std::size_t(1), std::size_t(6145), scaled(std::size_t(1) << 20)}) {
    for (int bins : {1, 70000})
      run(n, bins);
  }
}

TYPED_TEST(LibraryHistogram, CustomBinsMatchTheDocumentedRule) {
  CUPAR_REQUIRE_GPU();
  using S = TypeParam;
  owned_stream stream;
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  for (int count : {2, 8, 1001, 20000}) {
    const auto levels = random_levels<S>(count, lower, upper, 20 + count);
    SCOPED_TRACE(std::to_string(levels.size()) + " levels");
    for (std::size_t n : standard_sizes()) {
      if (count > 1001 && n > (std::size_t(1) << 20)) continue;
      SCOPED_TRACE("n = " + std::to_string(n));
      const auto h = samples_for<S>(n, 30 + n);
      device_buffer<S> d(h, stream);
      check_range<std::uint32_t>(d, h, levels, stream);
      check_range<std::uint64_t>(d, h, levels, stream);
    }
  }
}

TYPED_TEST(LibraryHistogram, EmptyInputZeroesTheHistogram) {
  CUPAR_REQUIRE_GPU();
  using S = TypeParam;
  owned_stream stream;
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  const std::vector<S> levels = {lower, static_cast<S>(lower + (upper - lower) / 2), upper};
  device_buffer<std::uint32_t> h32(5, stream);
  device_buffer<std::uint64_t> h64(5, stream);
  device_buffer<S> samples(3, stream);
  h32.fill_bytes(0xAB);
  h64.fill_bytes(0xAB);
  cupar::histogram_even(static_cast<const S*>(nullptr), h32.data(), 6, lower, upper, 0, stream);
  cupar::histogram_even(samples.data(), h64.data(), 6, lower, upper, 0, stream);
  EXPECT_EQ(h32.to_host(), std::vector<std::uint32_t>(5, 0));
  EXPECT_EQ(h64.to_host(), std::vector<std::uint64_t>(5, 0));
  h32.fill_bytes(0xAB);
  h64.fill_bytes(0xAB);
  cupar::histogram_range(samples.data(), h32.data(), 3, levels.data(), 0, stream);
  cupar::histogram_range(static_cast<const S*>(nullptr), h64.data(), 3, levels.data(), 0, stream);
  const auto g32 = h32.to_host();
  const auto g64 = h64.to_host();
  EXPECT_EQ(std::vector<std::uint32_t>(g32.begin(), g32.begin() + 2),
            std::vector<std::uint32_t>(2, 0));
  EXPECT_EQ(std::vector<std::uint64_t>(g64.begin(), g64.begin() + 2),
            std::vector<std::uint64_t>(2, 0));
  // Only num_levels - 1 counters are written.
  EXPECT_EQ(g32[2], 0xABABABABu);
  EXPECT_EQ(g64[4], 0xABABABABABABABABull);
}

TYPED_TEST(LibraryHistogram, BadLevelsAndPointersThrowBeforeAnyWork) {
  using S = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  S samples[4] = {};
  std::uint32_t hist[8] = {};
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 1, lower, upper, 4, s),
                          std::invalid_argument, "cupar::histogram_even: num_levels = 1");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 0, lower, upper, 4, s),
                          std::invalid_argument, "num_levels = 0");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, -3, lower, upper, 4, s),
                          std::invalid_argument, "num_levels = -3");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, lower, lower, 4, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, upper, lower, 4, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, std::nan(""), 1.0, 4, s),
                          std::invalid_argument, "lower is NaN");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, 0.0, std::nan(""), 4, s),
                          std::invalid_argument, "upper is NaN");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(static_cast<const S*>(nullptr), hist, 3, lower, upper, 4, s),
      std::invalid_argument, "cupar::histogram_even: d_samples is null but n = 4");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(samples, static_cast<std::uint64_t*>(nullptr), 3, lower, upper, 0, s),
      std::invalid_argument, "cupar::histogram_even: d_histogram is null");

  const S flat[] = {S(1), S(3), S(3), S(5)};
  const S down[] = {S(5), S(3)};
  const S good[] = {S(1), S(3), S(5)};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 4, flat, 4, s),
                          std::invalid_argument,
                          "cupar::histogram_range: h_levels must be strictly increasing "
                          "(h_levels[1] >= h_levels[2])");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 2, down, 4, s),
                          std::invalid_argument, "strictly increasing");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 1, good, 4, s),
                          std::invalid_argument, "cupar::histogram_range: num_levels = 1");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(samples, hist, 3, static_cast<const S*>(nullptr), 4, s),
      std::invalid_argument, "h_levels is null");
  const double with_nan[] = {0.0, 1.0, std::nan(""), 3.0};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 4, with_nan, 4, s),
                          std::invalid_argument, "h_levels[2] is NaN");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(static_cast<const S*>(nullptr), hist, 3, good, 4, s),
      std::invalid_argument, "cupar::histogram_range: d_samples is null but n = 4");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(samples, static_cast<std::int32_t*>(nullptr), 3, good, 4, s),
      std::invalid_argument, "cupar::histogram_range: d_histogram is null");

  if constexpr (std::is_integral_v<S>) {
    // Integer samples: boundaries must be integers their level type holds.
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, 0.0, 10.5, 4, s),
                            std::invalid_argument, "upper = 10.5");
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, -1e30, 10.0, 4, s),
                            std::invalid_argument, "lower");
    const double fractional[] = {0.0, 2.25, 4.0};
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, fractional, 4, s),
                            std::invalid_argument, "h_levels[1]");
  }
  if constexpr (std::is_same_v<S, std::uint64_t>) {
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, -1, 10, 4, s),
                            std::invalid_argument, "lower = -1 does not fit");
  }
  if constexpr (std::is_integral_v<S> && sizeof(S) == 8) {
    // (upper - lower) * bins must fit the 64-bit bin arithmetic.
    CUPAR_EXPECT_THROW_WITH(
        cupar::histogram_even(samples, hist, 4, std::numeric_limits<S>::lowest(),
                              std::numeric_limits<S>::max(), 4, s),
        std::invalid_argument, "overflows");
  }
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<S> h = {S(1), S(2), S(4), S(4)};
  device_buffer<S> d(h, stream);
  device_buffer<std::uint32_t> out(2, stream);
  cupar::histogram_range(d.data(), out.data(), 3, good, 4, stream);
  EXPECT_EQ(out.to_host(), (std::vector<std::uint32_t>{2, 2}));
}

TYPED_TEST(LibraryHistogram, LevelsOfAnotherTypeAreConverted) {
  CUPAR_REQUIRE_GPU();
  using S = TypeParam;
  owned_stream stream;
  const std::size_t n = 100003;
  const auto h = samples_for<S>(n, 40);
  const S lower = even_bounds<S>().first, upper = even_bounds<S>().second;
  device_buffer<S> d(h, stream);
  device_buffer<std::uint64_t> hist(50, stream);
  // The same bounds given as double (for floats: a double that is not a float, rounded).
  const double lo = static_cast<double>(lower) + (std::is_floating_point_v<S> ? 0.1 : 0.0);
  const double hi = static_cast<double>(upper);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), 51, lo, hi, n, stream);
  const auto lo_s = static_cast<level_of_t<S>>(lo), hi_s = static_cast<level_of_t<S>>(hi);
  auto h_clean = h;
  avoid_past_last<S>(h_clean, lo_s, hi_s, 50);
  if (h_clean != h) {
    d.copy_from_host(h_clean.data(), n);
    hist.fill_bytes(0xAB);
    cupar::histogram_even(d.data(), hist.data(), 51, lo, hi, n, stream);
  }
  EXPECT_TRUE(bitwise_equal(hist.to_host(), even_histogram<S>(h_clean, lo_s, hi_s, 50)));
  // Custom boundaries given as long long (integers) or double (floating point).
  using Wide = std::conditional_t<std::is_floating_point_v<S>, double, long long>;
  std::vector<Wide> wide;
  for (S v : random_levels<S>(30, lower, upper, 41))
    wide.push_back(static_cast<Wide>(v));
  if constexpr (std::is_same_v<S, std::uint64_t>) {
    wide.clear();  // long long cannot hold every uint64 boundary: use ones it can.
    for (long long v : {3LL, 1000LL, 1LL << 40, 1LL << 41})
      wide.push_back(v);
  }
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), static_cast<int>(wide.size()), wide.data(), n,
                         stream);
  std::vector<level_of_t<S>> converted(wide.begin(), wide.end());
  const auto got = hist.to_host();
  EXPECT_TRUE(
      bitwise_equal(std::vector<std::uint64_t>(got.begin(), got.begin() + (wide.size() - 1)),
                    range_histogram<S>(h_clean, converted)));
}

// 8- and 16-bit samples with boundaries that only their wider level type holds: every sample
// falls in a bin (NVIDIA/cccl#10975 put all of them in bin 0).
template <class S, class Level>
void check_full_range(Level lower, Level upper, int bins, std::size_t n) {
  SCOPED_TRACE(type_label<S>() + " over [" + std::to_string(lower) + ", " + std::to_string(upper) +
               ") in " + std::to_string(bins) + " bins");
  owned_stream stream;
  const auto h = full_range_values<S>(n, 50 + bins);
  device_buffer<S> d(h, stream);
  device_buffer<std::uint32_t> hist(static_cast<std::size_t>(bins), stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), bins + 1, lower, upper, n, stream);
  const auto got = hist.to_host();
  const auto want = even_histogram<S>(h, lower, upper, bins);
  EXPECT_TRUE(bitwise_equal(widen(got), want));
  std::uint64_t total = 0;
  for (auto c : got)
    total += c;
  EXPECT_EQ(total, n) << "every sample is inside the levels";
  // The same boundaries as custom levels.
  std::vector<Level> levels;
  for (int i = 0; i <= bins; ++i) {
    levels.push_back(
        static_cast<Level>(lower + (static_cast<long long>(upper) - lower) * i / bins));
  }
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), bins + 1, levels.data(), n, stream);
  EXPECT_TRUE(bitwise_equal(
      widen(hist.to_host()),
      range_histogram<S>(h, std::vector<level_of_t<S>>(levels.begin(), levels.end()))));
}

TEST(LibraryHistogramFullRange, EightAndSixteenBitSamples) {
  CUPAR_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(1000), scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    check_full_range<std::int8_t>(-128, 128, 256, n);
    check_full_range<std::int8_t>(-128, 128, 3, n);
    check_full_range<std::uint8_t>(0, 256, 256, n);
    check_full_range<std::uint8_t>(0, 256, 5, n);
    check_full_range<std::int16_t>(-32768, 32768, 65536, n);
    check_full_range<std::int16_t>(-32768, 32768, 7, n);
    check_full_range<std::uint16_t>(0, 65536, 65536, n);
    check_full_range<std::uint16_t>(0, 65536, 1, n);
  }
}

// Negative 8-bit samples are samples like any other (CUB's 8-bit path bins a sample by its value
// as an int, so negative ones get negative bins and vanish: NVIDIA/cccl#10977).
TEST(LibraryHistogramSignedBytes, NegativeSamplesAreCounted) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::vector<std::int8_t> h = {-60, -1, 10, 63};
  device_buffer<std::int8_t> d(h, stream);
  device_buffer<std::uint32_t> hist(4, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), 5, -60, 64, h.size(), stream);  // bins of 31
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint32_t>{1, 1, 1, 1})) << "even";
  const std::int8_t levels[] = {-60, -29, 2, 33, 64};
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), 5, levels, h.size(), stream);
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint32_t>{1, 1, 1, 1})) << "custom";
}

// 16-bit samples with more bins than the sample type's largest value (CUB hands privatized bin
// indices through the sample type, so those bins are lost or wrapped: NVIDIA/cccl#10976).
TEST(LibraryHistogramManyBins, SixteenBitSamplesWithMoreBinsThanTheirLargestValue) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  std::vector<std::int16_t> h16(65536);
  for (int v = 0; v < 65536; ++v)
    h16[static_cast<std::size_t>(v)] = static_cast<std::int16_t>(v - 32768);
  device_buffer<std::int16_t> d16(h16, stream);
  device_buffer<std::uint32_t> hist(131072, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d16.data(), hist.data(), 65537, -32768, 32768, h16.size(), stream);
  auto got = hist.to_host();
  EXPECT_TRUE(bitwise_equal(std::vector<std::uint32_t>(got.begin(), got.begin() + 65536),
                            std::vector<std::uint32_t>(65536, 1)))
      << "int16, one sample per bin";
  std::vector<std::uint16_t> hu(65536);
  for (int v = 0; v < 65536; ++v)
    hu[static_cast<std::size_t>(v)] = static_cast<std::uint16_t>(v);
  device_buffer<std::uint16_t> du(hu, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(du.data(), hist.data(), 131073, 0, 65536, hu.size(), stream);
  got = hist.to_host();
  std::vector<std::uint32_t> want(131072, 0);
  for (std::size_t b = 0; b < want.size(); b += 2)
    want[b] = 1;
  EXPECT_TRUE(bitwise_equal(got, want)) << "uint16, half-width bins";
}

TEST(LibraryHistogramCounters, SignedAndUnsignedCountersOfBothSizes) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 300007;
  const auto h = full_range_values<std::uint8_t>(n, 60);
  device_buffer<std::uint8_t> d(h, stream);
  const auto want = even_histogram<std::uint8_t>(h, 0, 256, 16);
  auto check = [&](auto counter) {
    using C = decltype(counter);
    SCOPED_TRACE(std::string(std::is_signed_v<C> ? "signed " : "unsigned ") +
                 std::to_string(8 * sizeof(C)) + "-bit counters");
    device_buffer<C> hist(16, stream);
    hist.fill_bytes(0xFF);
    cupar::histogram_even(d.data(), hist.data(), 17, 0, 256, n, stream);
    EXPECT_TRUE(bitwise_equal(widen(hist.to_host()), want));
  };
  check(int{});
  check(unsigned{});
  check(long{});
  check(static_cast<long long>(0));
  check(static_cast<unsigned long long>(0));
}

// The documented even-bin formula can round up to `bins` for the last floating-point samples
// below `upper` (e.g. lower = -1, upper = 1, 4 bins: (1 - 2^-24) - (-1) rounds to 2, times 2 is
// 4). Such a sample is inside [lower, upper), so by the documented contract it is counted (in the
// last bin), never dropped nor counted elsewhere.
template <class T>
void check_edge_case(T lower, T upper, int bins, stream_ref stream) {
  const T edge = std::nextafter(upper, lower);
  SCOPED_TRACE(type_label<T>() + ": lower " + printable(lower) + ", upper " + printable(upper) +
               ", bins " + std::to_string(bins) + ", sample " + printable(edge));
  ASSERT_TRUE(even_bin_rounds_past_last<T>(edge, lower, upper, bins));
  std::vector<T> h(5000, edge);
  for (std::size_t i = 0; i < h.size(); i += 2) {
    h[i] = lower + (upper - lower) * T(i) / T(h.size());
  }
  std::size_t past = 0;
  auto want = even_histogram<T>(h, lower, upper, bins, &past);
  want[static_cast<std::size_t>(bins - 1)] += past;
  device_buffer<T> d(h, stream);
  device_buffer<std::uint32_t> hist(static_cast<std::size_t>(bins), stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), bins + 1, lower, upper, h.size(), stream);
  const auto got = hist.to_host();
  std::uint64_t total = 0;
  for (auto c : got)
    total += c;
  EXPECT_EQ(total, h.size()) << "samples inside [lower, upper) were dropped or miscounted";
  EXPECT_TRUE(bitwise_equal(widen(got), want));
}

/// Up to 3 random cases of the edge with a bin count in [min_bins, max_bins].
template <class T>
void check_random_edge_cases(int min_bins, int max_bins, stream_ref stream) {
  std::mt19937_64 rng(70 + min_bins);
  int found = 0;
  for (int attempt = 0; attempt < 200000 && found < 3; ++attempt) {
    const T lower = std::uniform_real_distribution<T>(-100, 100)(rng);
    const T upper = lower + std::uniform_real_distribution<T>(T(0.001), 100)(rng);
    const int bins = std::uniform_int_distribution<int>(min_bins, max_bins)(rng);
    if (!even_bin_rounds_past_last<T>(std::nextafter(upper, lower), lower, upper, bins)) continue;
    ++found;
    check_edge_case<T>(lower, upper, bins, stream);
  }
  EXPECT_GT(found, 0) << "no parameters with the edge found";
}

TEST(LibraryHistogramEdge, FloatSamplesJustBelowUpperAreCounted) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  check_edge_case<float>(-1.0f, 1.0f, 4, stream);
  check_edge_case<double>(-1.0, 1.0, 4, stream);
  check_random_edge_cases<float>(2, 200, stream);
  check_random_edge_cases<float>(5000, 100000, stream);  // bins privatized in global memory
  check_random_edge_cases<double>(2, 200, stream);
}

TEST(LibraryHistogramSpecials, NaNInfinitiesAndBoundsExactly) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  using lim = std::numeric_limits<float>;
  // Bins of [0, 1), [1, 2), [2, 3), [3, 4).
  const std::vector<float> h = {lim::quiet_NaN(),
                                -lim::quiet_NaN(),
                                lim::infinity(),
                                -lim::infinity(),
                                0.0f,
                                -0.0f,
                                4.0f,
                                std::nextafter(0.0f, -1.0f),
                                1.0f,
                                2.5f,
                                3.999f,
                                lim::denorm_min()};
  device_buffer<float> d(h, stream);
  device_buffer<std::uint64_t> hist(4, stream);
  hist.fill_bytes(0xAB);
  cupar::histogram_even(d.data(), hist.data(), 5, 0.0f, 4.0f, h.size(), stream);
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint64_t>{3, 1, 1, 1}));
  const float levels[] = {0.0f, 1.0f, 2.0f, 3.0f, 4.0f};
  hist.fill_bytes(0xAB);
  cupar::histogram_range(d.data(), hist.data(), 5, levels, h.size(), stream);
  EXPECT_EQ(hist.to_host(), (std::vector<std::uint64_t>{3, 1, 1, 1}));
}

}  // namespace
}  // namespace cupar::testing
