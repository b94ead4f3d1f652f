// cupar tests: the library's precompiled radix sorts, built by the host compiler from
// <cupar/cupar.hpp> alone: this is the path of a g++ program without nvcc.
//
// Reference: a stable sort (std::sort of (digit, input position) pairs) by the digit the
// documentation defines: the key's order-preserving radix representation (sign bit flipped for
// signed integers; for floating point all bits flipped for negative values and the sign bit
// flipped for the others), bits [begin_bit, end_bit) of it. So NaNs sort by bit pattern: -NaNs
// before -inf, +NaNs after +inf. -0.0 and +0.0 are one key; which zero's bits they take under a
// partial bit range is unspecified (sort.hpp, docs/CUB_NOTES.md): tests accept either.
// Descending is the reverse order of the digits, equal digits still in input order.
#include "../common/radix_ref.hpp"
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cupar::testing {
namespace {

std::vector<std::uint32_t> iota_values(std::size_t n) {
  std::vector<std::uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::uint32_t>(i);
  return v;
}

std::string describe(radix_options o) {
  return std::string(o.order == sort_order::ascending ? "ascending" : "descending") + " [" +
         std::to_string(o.begin_bit) + ", " + std::to_string(o.end_bit) + ")";
}

template <class K>
class LibraryRadixSort : public ::testing::Test {};
TYPED_TEST_SUITE(LibraryRadixSort, arithmetic_types, type_names);

TYPED_TEST(LibraryRadixSort, KeysAtEverySize) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = radix_keys<K>(n, 10 + n);
    const auto ascending = gather(h, radix_order(h, cupar::ascending));
    const auto descending = gather(h, radix_order(h, cupar::descending));
    device_buffer<K> in(h, stream), out(n, stream);
    out.fill_bytes(0xAB);
    cupar::sort_keys(in.data(), out.data(), n, cupar::ascending, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), ascending)) << "ascending";
    out.fill_bytes(0xAB);
    cupar::sort_keys(in.data(), out.data(), n, cupar::descending, stream);
    EXPECT_TRUE(bitwise_equal(out.to_host(), descending)) << "descending";
    out.fill_bytes(0xAB);
    cupar::sort_keys(in.data(), out.data(), n, stream);  // ascending, all bits by default
    EXPECT_TRUE(bitwise_equal(out.to_host(), ascending)) << "default options";
    EXPECT_TRUE(bitwise_equal(in.to_host(), h)) << "the input was modified";
  }
}

TYPED_TEST(LibraryRadixSort, KeysInPlace) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65537),
                        scaled((std::size_t(1) << 22) + 5)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = radix_keys<K>(n, 20 + n);
    device_buffer<K> io(h, stream);
    for (radix_options o : {cupar::ascending, cupar::descending}) {
      SCOPED_TRACE(describe(o));
      io.copy_from_host(h.data(), n);
      cupar::sort_keys(io.data(), io.data(), n, o, stream);
      EXPECT_TRUE(bitwise_equal(io.to_host(), gather(h, radix_order(h, o))));
    }
  }
}

TYPED_TEST(LibraryRadixSort, PairsAtEverySizeAreStable) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = duplicate_keys<K>(n, 30 + n);
    const auto positions = iota_values(n);
    device_buffer<K> keys_in(h, stream), keys_out(n, stream);
    device_buffer<std::uint32_t> values_in(positions, stream), values_out(n, stream);
    for (radix_options o : {cupar::ascending, cupar::descending}) {
      SCOPED_TRACE(describe(o));
      const auto order = radix_order(h, o);
      keys_out.fill_bytes(0xAB);
      values_out.fill_bytes(0xAB);
      cupar::sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, o,
                        stream);
      EXPECT_TRUE(bitwise_equal(keys_out.to_host(), gather(h, order)));
      EXPECT_TRUE(bitwise_equal(values_out.to_host(), order));
    }
    EXPECT_TRUE(bitwise_equal(keys_in.to_host(), h)) << "the input keys were modified";
    EXPECT_TRUE(bitwise_equal(values_in.to_host(), positions)) << "the input values were modified";
  }
}

TYPED_TEST(LibraryRadixSort, BitRanges) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  constexpr int bits = 8 * sizeof(K);
  const std::vector<std::pair<int, int>> ranges =
      bits == 8 ? std::vector<std::pair<int, int>>{{2, 6}, {0, 1}, {7, 8}, {0, 8}}
                : std::vector<std::pair<int, int>>{
                      {4, 12}, {0, 1}, {bits - 1, bits}, {bits - 8, bits}, {0, -1}};
  for (std::size_t n :
       {std::size_t(1), std::size_t(4097), std::size_t(65537), scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto h = radix_keys<K>(n, 40 + n);
    if constexpr (std::is_floating_point_v<K>) {
      // Zeros under a partial bit range have their own test (SignedZerosUnderAPartialBitRange).
      for (K& k : h)
        k = k == K(0) ? K(1) : k;
    }
    const auto positions = iota_values(n);
    device_buffer<K> keys_in(h, stream), keys_out(n, stream);
    device_buffer<std::uint32_t> values_in(positions, stream), values_out(n, stream);
    for (auto [begin, end] : ranges) {
      for (sort_order dir : {sort_order::ascending, sort_order::descending}) {
        const radix_options o{dir, begin, end};
        SCOPED_TRACE(describe(o));
        const auto order = radix_order(h, o);
        keys_out.fill_bytes(0xAB);
        cupar::sort_keys(keys_in.data(), keys_out.data(), n, o, stream);
        EXPECT_TRUE(bitwise_equal(keys_out.to_host(), gather(h, order))) << "keys only";
        keys_out.fill_bytes(0xAB);
        values_out.fill_bytes(0xAB);
        cupar::sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n,
                          o, stream);
        EXPECT_TRUE(bitwise_equal(keys_out.to_host(), gather(h, order))) << "pairs";
        EXPECT_TRUE(bitwise_equal(values_out.to_host(), order)) << "pairs";
        keys_out.copy_from_host(h.data(), n);
        cupar::sort_keys(keys_out.data(), keys_out.data(), n, o, stream);
        EXPECT_TRUE(bitwise_equal(keys_out.to_host(), gather(h, order))) << "in place";
      }
    }
  }
}

// Values of every size class: 1, 2, 4, 8 and 16 bytes (moved by the sort itself when aligned),
// 3 and 12 bytes (moved through an index and a gather), and 4- and 16-byte values at misaligned
// addresses (also the gather). Each value holds bytes derived from its input position.
template <std::size_t N, std::size_t A>
struct alignas(A) value_bytes {
  unsigned char b[N];
  friend bool operator==(const value_bytes& x, const value_bytes& y) {
    return std::memcmp(x.b, y.b, N) == 0;
  }
  friend std::ostream& operator<<(std::ostream& os, const value_bytes& v) {
    os << "{";
    for (std::size_t i = 0; i < N; ++i)
      os << (i ? " " : "") << +v.b[i];
    return os << "}";
  }
};

template <class V>
std::vector<V> position_values(std::size_t n) {
  std::vector<V> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    for (std::size_t j = 0; j < sizeof(V); ++j) {
      reinterpret_cast<unsigned char*>(&v[i])[j] =
          static_cast<unsigned char>(j < 4 ? (i >> (8 * j)) : (x >> (8 * (j % 8))));
    }
  }
  return v;
}

/// Sorts pairs with values of type V placed `offset` bytes into their allocations, in every
/// in-place layout, and checks keys and values against the stable reference.
template <class K, class V>
void check_values(const std::vector<K>& h, std::size_t offset, stream_ref stream) {
  SCOPED_TRACE(std::to_string(sizeof(V)) + "-byte values aligned to " + std::to_string(alignof(V)) +
               " at offset " + std::to_string(offset));
  const std::size_t n = h.size();
  const auto values = position_values<V>(n);
  const auto* value_bytes_in = reinterpret_cast<const unsigned char*>(values.data());
  device_buffer<K> keys_in(h, stream), keys_out(n, stream);
  device_buffer<unsigned char> raw_in(n * sizeof(V) + 64, stream),
      raw_out(n * sizeof(V) + 64, stream);
  auto* v_in = reinterpret_cast<V*>(raw_in.data() + offset);
  auto* v_out_separate = reinterpret_cast<V*>(raw_out.data() + offset);
  for (radix_options o : {cupar::ascending, cupar::descending}) {
    const auto order = radix_order(h, o);
    const auto want_keys = gather(h, order);
    const auto want_values = gather(values, order);
    for (int layout = 0; layout < 4; ++layout) {
      const bool keys_in_place = (layout & 1) != 0, values_in_place = (layout & 2) != 0;
      SCOPED_TRACE(describe(o) + (keys_in_place ? ", keys in place" : ", keys out of place") +
                   (values_in_place ? ", values in place" : ", values out of place"));
      keys_in.copy_from_host(h.data(), n);
      raw_in.copy_from_host(value_bytes_in, n * sizeof(V), offset);
      keys_out.fill_bytes(0xAB);
      raw_out.fill_bytes(0xAB);
      K* k_out = keys_in_place ? keys_in.data() : keys_out.data();
      V* v_out = values_in_place ? v_in : v_out_separate;
      cupar::sort_pairs(keys_in.data(), k_out, v_in, v_out, n, o, stream);
      EXPECT_TRUE(bitwise_equal(keys_in_place ? keys_in.to_host() : keys_out.to_host(), want_keys));
      std::vector<V> got(n);
      (values_in_place ? raw_in : raw_out)
          .copy_to_host(reinterpret_cast<unsigned char*>(got.data()), n * sizeof(V), offset);
      EXPECT_TRUE(value_equal(got, want_values));
      if (!values_in_place) {
        std::vector<V> input_after(n);
        raw_in.copy_to_host(reinterpret_cast<unsigned char*>(input_after.data()), n * sizeof(V),
                            offset);
        EXPECT_TRUE(value_equal(input_after, values)) << "the input values were modified";
      }
    }
  }
}

TYPED_TEST(LibraryRadixSort, ValuesOfEverySizeAndAlignmentInEveryLayout) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(100003)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = duplicate_keys<K>(n, 50 + n);
    check_values<K, value_bytes<1, 1>>(h, 0, stream);
    check_values<K, value_bytes<2, 2>>(h, 0, stream);
    check_values<K, value_bytes<4, 4>>(h, 0, stream);
    check_values<K, value_bytes<8, 8>>(h, 0, stream);
    check_values<K, value_bytes<16, 16>>(h, 0, stream);
    check_values<K, value_bytes<3, 1>>(h, 0, stream);
    check_values<K, value_bytes<12, 4>>(h, 0, stream);
    check_values<K, value_bytes<4, 1>>(h, 1, stream);
    check_values<K, value_bytes<16, 8>>(h, 8, stream);
    check_values<K, value_bytes<8, 1>>(h, 3, stream);
  }
}

TYPED_TEST(LibraryRadixSort, BadArgumentsThrowBeforeAnyWork) {
  using K = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  constexpr int bits = 8 * sizeof(K);
  alignas(16) K keys[32] = {};
  alignas(16) std::uint32_t values[32] = {};
  const K* none = nullptr;
  const std::string range = "invalid bit range [begin_bit, end_bit) = [";
  for (auto [begin, end] : std::vector<std::pair<int, int>>{
           {-1, 8}, {4, 4}, {6, 2}, {0, bits + 1}, {0, 0}, {bits, -1}, {bits + 3, bits + 5}}) {
    const radix_options o{sort_order::ascending, begin, end};
    SCOPED_TRACE(describe(o));
    const std::string msg = range + std::to_string(begin) + ", " + std::to_string(end) + ")";
    CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, keys + 16, 8, o, s), std::invalid_argument,
                            "cupar::sort_keys: " + msg);
    // Checked even when there is nothing to sort.
    CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(none, static_cast<K*>(nullptr), 0, o, s),
                            std::invalid_argument, msg);
    CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 16, values, values + 16, 8, o, s),
                            std::invalid_argument, "cupar::sort_pairs: " + msg);
  }
  CUPAR_EXPECT_THROW_WITH(
      cupar::sort_keys(keys, keys + 16, 8, radix_options{static_cast<sort_order>(7), 0, -1}, s),
      std::invalid_argument, "options.order");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(none, keys, 5, cupar::ascending, s),
                          std::invalid_argument, "cupar::sort_keys: d_keys_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, static_cast<K*>(nullptr), 5, s),
                          std::invalid_argument, "cupar::sort_keys: d_keys_out is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::sort_pairs(keys, keys + 16, static_cast<const std::uint32_t*>(nullptr), values, 5, s),
      std::invalid_argument, "cupar::sort_pairs: d_values_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::sort_pairs(keys, keys + 16, values, static_cast<std::uint32_t*>(nullptr), 5, s),
      std::invalid_argument, "cupar::sort_pairs: d_values_out is null but n = 5");
  // Partial overlaps of keys, of values, and any overlap between keys and values.
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, keys + 1, 8, s), std::invalid_argument,
                          "cupar::sort_keys: d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys + 7, keys, 8, cupar::descending, s),
                          std::invalid_argument, "d_keys_in and d_keys_out partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 16, values, values + 3, 8, s),
                          std::invalid_argument,
                          "cupar::sort_pairs: d_values_in and d_values_out partially overlap");
  auto* values_over_keys = reinterpret_cast<std::uint32_t*>(keys);
  auto* values_over_keys_16 = reinterpret_cast<std::uint32_t*>(keys + 16);
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys, values_over_keys, values_over_keys, 4, s),
                          std::invalid_argument, "d_keys_out and d_values_out overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 16, values_over_keys_16, values, 4, s),
                          std::invalid_argument, "d_keys_out and d_values_in overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys + 16, values, values_over_keys, 4, s),
                          std::invalid_argument, "d_keys_in and d_values_out overlap");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<K> h = {K(3), K(1), K(2)};
  device_buffer<K> in(h, stream), out(3, stream);
  cupar::sort_keys(in.data(), out.data(), 3, cupar::descending, stream);
  EXPECT_EQ(out.to_host(), (std::vector<K>{K(3), K(2), K(1)}));
}

TYPED_TEST(LibraryRadixSort, EmptyInputWritesNothing) {
  CUPAR_REQUIRE_GPU();
  using K = TypeParam;
  owned_stream stream;
  device_buffer<K> keys(4, stream);
  device_buffer<std::uint32_t> values(4, stream);
  keys.fill_bytes(0xAB);
  values.fill_bytes(0xCD);
  const auto poisoned_keys = keys.to_host();
  const auto poisoned_values = values.to_host();
  cupar::sort_keys(static_cast<const K*>(nullptr), keys.data(), 0, stream);
  cupar::sort_keys(keys.data(), keys.data(), 0, cupar::descending, stream);
  cupar::sort_pairs(static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                    static_cast<const std::uint32_t*>(nullptr), values.data(), 0, stream);
  cupar::sort_pairs(keys.data(), keys.data(), values.data(), values.data(), 0,
                    radix_options{sort_order::ascending, 1, 3}, stream);
  EXPECT_TRUE(bitwise_equal(keys.to_host(), poisoned_keys));
  EXPECT_TRUE(bitwise_equal(values.to_host(), poisoned_values));
}

// The documented order of floating-point keys, checked directly on classes of values:
// -NaN < -inf < negative < zeros < positive < +inf < +NaN ascending, the reverse descending,
// -0.0 and +0.0 equal (in input order), and checked bit for bit against the reference.
template <class F>
int value_class(F x) {
  if (std::isnan(x)) return std::signbit(x) ? 0 : 6;
  if (std::isinf(x)) return x < 0 ? 1 : 5;
  if (x == 0) return 3;
  return x < 0 ? 2 : 4;
}

template <class F>
void check_float_order(std::size_t n) {
  SCOPED_TRACE(type_label<F>() + ", n = " + std::to_string(n));
  owned_stream stream;
  const auto specials = float_specials<F>();
  auto h = random_values<F>(n, 60 + n, -1e6, 1e6);
  const auto pick = random_values<std::uint32_t>(n, 61 + n, 0, 3 * specials.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (pick[i] < specials.size()) h[i] = specials[pick[i]];
    if (pick[i] >= 2 * specials.size() && pick[i] % 2 == 0)
      h[i] = std::signbit(h[i]) ? F(0) : F(-0.0);
  }
  const auto positions = iota_values(n);
  device_buffer<F> keys_in(h, stream), keys_out(n, stream);
  device_buffer<std::uint32_t> values_in(positions, stream), values_out(n, stream);
  for (radix_options o : {cupar::ascending, cupar::descending}) {
    SCOPED_TRACE(describe(o));
    cupar::sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, o,
                      stream);
    const auto keys = keys_out.to_host();
    const auto values = values_out.to_host();
    const auto order = radix_order(h, o);
    EXPECT_TRUE(bitwise_equal(keys, gather(h, order)));
    EXPECT_TRUE(bitwise_equal(values, order));
    const bool up = o.order == sort_order::ascending;
    std::size_t bad_class = 0, bad_value = 0, bad_zero = 0;
    for (std::size_t i = 1; i < n; ++i) {
      const int a = value_class(keys[i - 1]), b = value_class(keys[i]);
      if (up ? a > b : a < b) ++bad_class;
      if (a == b && (a == 2 || a == 4) && (up ? keys[i - 1] > keys[i] : keys[i - 1] < keys[i])) {
        ++bad_value;
      }
      if (a == 3 && b == 3 && values[i - 1] > values[i]) ++bad_zero;
    }
    EXPECT_EQ(bad_class, 0u) << "classes of values out of the documented order";
    EXPECT_EQ(bad_value, 0u) << "finite values out of order";
    EXPECT_EQ(bad_zero, 0u) << "-0.0 and +0.0 did not keep their input order";
  }
}

TEST(LibraryRadixSortFloat, NaNInfinitiesAndSignedZerosInTheDocumentedOrder) {
  CUPAR_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(50), std::size_t(20000), scaled(std::size_t(1) << 20)}) {
    check_float_order<float>(n);
    check_float_order<double>(n);
  }
}

// -0.0 and +0.0 are one key; under a partial bit range it matters which one's digits they take,
// and that is unspecified (docs/CUB_NOTES.md; CUB's choice depends on the direction and on whether
// it sorts in one tile, up to 4864 keys, or in passes); everything else is the stable radix order.
template <class F>
void check_zeros_under_bit_range(std::size_t n, radix_options o) {
  SCOPED_TRACE(type_label<F>() + ", n = " + std::to_string(n) + ", " + describe(o));
  owned_stream stream;
  auto h = random_values<F>(n, 90 + n, -4.0, 4.0);
  for (std::size_t i = 0; i < n; i += 3)
    h[i] = (i / 3) % 2 ? F(0.0) : F(-0.0);
  const auto positions = iota_values(n);
  device_buffer<F> keys_in(h, stream), keys_out(n, stream);
  device_buffer<std::uint32_t> values_in(positions, stream), values_out(n, stream);
  cupar::sort_pairs(keys_in.data(), keys_out.data(), values_in.data(), values_out.data(), n, o,
                    stream);
  // Either zero's digits: the whole output must be one of the two stable orders.
  const auto as_positive = radix_order(h, o, false);
  const auto as_negative = radix_order(h, o, true);
  const auto got = values_out.to_host();
  EXPECT_TRUE(got == as_positive || got == as_negative)
      << "not a stable radix order with the zeros taken as either +0.0 or -0.0";
  EXPECT_TRUE(
      bitwise_equal(keys_out.to_host(), gather(h, got == as_negative ? as_negative : as_positive)));
}

TEST(LibraryRadixSortFloat, SignedZerosUnderAPartialBitRange) {
  CUPAR_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(300), std::size_t(4000), std::size_t(100000)}) {
    for (sort_order dir : {sort_order::ascending, sort_order::descending}) {
      check_zeros_under_bit_range<float>(n, radix_options{dir, 20, 28});
      check_zeros_under_bit_range<double>(n, radix_options{dir, 48, 60});
    }
  }
}
}  // namespace
}  // namespace cupar::testing
