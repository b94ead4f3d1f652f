// cupar tests: gather and scatter by index arrays (gather.hpp), built by the host compiler from
// <cupar/cupar.hpp> alone. Reference: the loops of gather.hpp's top on the host, every bounds
// policy, for elements of 1 to 300 bytes (each word width of the kernels, the multi-word path and
// the fill item kept in device memory) and the four index types.
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace cupar::testing {
namespace {

struct rgb {  // 3 bytes: moved byte by byte
  std::uint8_t r, g, b;
};
struct vec3 {  // 12 bytes, 4-byte aligned: three 4-byte words
  float x, y, z;
};
struct alignas(16) quad {  // 16 bytes, 16-byte aligned: one 16-byte word
  std::int32_t a, b, c, d;
};
struct wide {  // 300 bytes: the fill item does not fit the kernel's parameters
  std::uint32_t w[75];
};
struct no_default {  // no default constructor: bounds::fill needs the value
  explicit no_default(int v) : v(v) {}
  int v;
};

/// The i-th distinct item of a type, for any of the test's element types.
template <class T>
T item(std::uint64_t i) {
  T t{};
  if constexpr (std::is_arithmetic_v<T>) {
    t = static_cast<T>(i * 2654435761u % 1000003u);
  } else {
    unsigned char bytes[sizeof(T)];
    for (std::size_t b = 0; b < sizeof(T); ++b)
      bytes[b] = static_cast<unsigned char>((i * 131 + b * 7 + (i >> 8)) & 0xff);
    std::memcpy(static_cast<void*>(&t), bytes, sizeof(T));
  }
  return t;
}

template <class T>
bool same(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::vector<T> items(std::size_t n, std::uint64_t offset) {
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    v.push_back(item<T>(i + offset));
  return v;
}

/// n indices into [0, extent), or with `out_of_range` some outside it (negative ones for signed
/// index types, extent and the type's largest value).
template <class Index>
std::vector<Index> random_indices(std::size_t n, std::size_t extent, bool out_of_range,
                                  std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Index> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = extent == 0 ? Index(0) : static_cast<Index>(rng() % extent);
    if (out_of_range && (i % 7 == 3 || extent == 0)) {
      switch ((i / 7) % 3) {
        case 0:
          v[i] = static_cast<Index>(extent);
          break;
        case 1:
          v[i] = std::is_signed_v<Index> ? Index(-1 - static_cast<Index>(i % 5))
                                         : std::numeric_limits<Index>::max();
          break;
        default:
          v[i] = std::numeric_limits<Index>::max();
      }
    }
  }
  return v;
}

template <class Index>
bool in_range(Index i, std::size_t extent) {
  if constexpr (std::is_signed_v<Index>) {
    if (i < 0) return false;
  }
  return static_cast<unsigned long long>(i) < extent;
}

/// What a check is about, for its failure messages.
template <class T, class Index>
std::string case_label(const char* what, std::size_t n, std::size_t extent, bounds policy) {
  return std::string(what) + ", element of " + std::to_string(sizeof(T)) + " bytes, index of " +
         std::to_string(sizeof(Index)) + (std::is_signed_v<Index> ? " signed" : " unsigned") +
         ", n = " + std::to_string(n) + ", extent = " + std::to_string(extent) + ", policy " +
         std::to_string(int(policy));
}

template <class T, class Index>
void check_gather(std::size_t n, std::size_t extent, bounds policy, std::uint64_t seed) {
  SCOPED_TRACE((case_label<T, Index>("gather", n, extent, policy)));
  owned_stream stream;
  const bool out_of_range = policy != bounds::unchecked;
  const auto h_values = items<T>(extent, 0);
  const auto h_indices = random_indices<Index>(n, extent, out_of_range, seed);
  const auto h_before = items<T>(n, 1u << 30);  // the output's items before the call
  const T fill = item<T>(999999999);
  device_buffer<T> values(h_values, stream), out(h_before, stream);
  device_buffer<Index> indices(h_indices, stream);
  if (policy == bounds::fill) {
    cupar::gather(values.data(), extent, indices.data(), n, out.data(), policy, fill, stream);
  } else {
    cupar::gather(values.data(), extent, indices.data(), n, out.data(), policy, stream);
  }
  const auto got = out.to_host();
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n && bad < 5; ++i) {
    const T expected = in_range(h_indices[i], extent) ? h_values[std::size_t(h_indices[i])]
                       : policy == bounds::fill       ? fill
                                                      : h_before[i];
    if (!same(got[i], expected)) {
      ADD_FAILURE() << "d_out[" << i << "] differs; index " << +h_indices[i];
      ++bad;
    }
  }
}

template <class T, class Index>
void check_scatter(std::size_t n, std::size_t extent, bounds policy, std::uint64_t seed) {
  SCOPED_TRACE((case_label<T, Index>("scatter", n, extent, policy)));
  owned_stream stream;
  // Distinct positions (a scatter with duplicates has no single answer): a shuffled prefix of
  // [0, extent), and with `skip` every third index pushed out of range.
  std::vector<Index> h_indices(n);
  {
    std::vector<std::size_t> perm(extent);
    std::iota(perm.begin(), perm.end(), std::size_t(0));
    std::shuffle(perm.begin(), perm.end(), std::mt19937_64(seed));
    for (std::size_t i = 0; i < n; ++i) {
      h_indices[i] = static_cast<Index>(perm[i]);
      if (policy == bounds::skip && i % 3 == 1) {
        h_indices[i] = i % 2 ? static_cast<Index>(extent + i)
                             : (std::is_signed_v<Index> ? Index(-1) : Index(extent));
      }
    }
  }
  const auto h_values = items<T>(n, 7);
  const auto h_before = items<T>(extent, 1u << 29);
  device_buffer<T> values(h_values, stream), out(h_before, stream);
  device_buffer<Index> indices(h_indices, stream);
  cupar::scatter(values.data(), n, indices.data(), out.data(), extent, policy, stream);
  auto expected = h_before;
  for (std::size_t i = 0; i < n; ++i) {
    if (in_range(h_indices[i], extent)) expected[std::size_t(h_indices[i])] = h_values[i];
  }
  const auto got = out.to_host();
  std::size_t bad = 0;
  for (std::size_t j = 0; j < extent && bad < 5; ++j) {
    if (!same(got[j], expected[j])) {
      ADD_FAILURE() << "d_out[" << j << "] differs";
      ++bad;
    }
  }
}

template <class T, class Index>
void check_every_policy(std::uint64_t seed) {
  const std::vector<std::size_t> sizes =
      scaled({0, 1, 2, 31, 1023, 1025, 4097, 65537, (std::size_t(1) << 22) + 3});
  for (std::size_t n : sizes) {
    for (std::size_t extent : {std::size_t(1), n + 5, 3 * n + 1}) {
      for (bounds p : {bounds::unchecked, bounds::skip, bounds::fill, bounds::error}) {
        if (p == bounds::error) {  // in range: as unchecked (the out-of-range case is below)
          check_gather<T, Index>(n, extent, bounds::unchecked, seed);
        } else {
          check_gather<T, Index>(n, extent, p, seed);
        }
      }
      if (extent >= n) {
        check_scatter<T, Index>(n, extent, bounds::unchecked, seed + 1);
        check_scatter<T, Index>(n, extent, bounds::skip, seed + 2);
        check_scatter<T, Index>(n, extent, bounds::error, seed + 3);
      }
    }
    seed += 10;
  }
}

TEST(Gather, EveryWordWidthAndIndexType) {
  CUPAR_REQUIRE_GPU();
  check_every_policy<std::int8_t, std::int32_t>(1);
  check_every_policy<std::uint16_t, std::uint32_t>(2);
  check_every_policy<float, std::int64_t>(3);
  check_every_policy<double, std::uint64_t>(4);
  check_every_policy<rgb, std::int32_t>(5);
  check_every_policy<vec3, std::uint64_t>(6);
  check_every_policy<quad, std::int32_t>(7);
}

TEST(Gather, WideElementsAndTheFillInDeviceMemory) {
  CUPAR_REQUIRE_GPU();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(20001)}) {
    for (bounds p : {bounds::unchecked, bounds::skip, bounds::fill})
      check_gather<wide, std::int64_t>(n, n + 3, p, 11);
    check_scatter<wide, std::uint32_t>(n, n + 3, bounds::skip, 12);
  }
}

TEST(Gather, MisalignedArraysMoveNarrowerWords) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  // 16-byte items at an 8-byte offset: 8-byte words; int32 items at a 4-byte offset of 8.
  const std::size_t n = 10007, extent = 5003;
  const auto h_values = items<std::uint64_t>(2 * extent + 1, 3);
  const auto h_indices = random_indices<std::uint32_t>(n, extent, false, 5);
  device_buffer<std::uint64_t> values(h_values, stream), out(2 * n + 1, stream);
  device_buffer<std::uint32_t> indices(h_indices, stream);
  struct pair64 {
    std::uint64_t a, b;
  };
  cupar::gather(reinterpret_cast<const pair64*>(values.data() + 1), extent, indices.data(), n,
                reinterpret_cast<pair64*>(out.data() + 1), stream);
  const auto got = out.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = h_indices[i];
    ASSERT_EQ(got[1 + 2 * i], h_values[1 + 2 * j]) << i;
    ASSERT_EQ(got[2 + 2 * i], h_values[2 + 2 * j]) << i;
  }
}

TEST(Gather, ErrorPolicyThrowsBeforeWritingAndNamesTheFirstBadIndex) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = 100003, extent = 5000;
  auto h_indices = random_indices<std::int32_t>(n, extent, false, 9);
  h_indices[70001] = -4;
  h_indices[90000] = 5000;
  const auto h_values = items<float>(extent, 1);
  const std::vector<float> h_out(n, 42.0f);
  device_buffer<float> values(h_values, stream), out(h_out, stream);
  device_buffer<std::int32_t> indices(h_indices, stream);
  try {
    cupar::gather(values.data(), extent, indices.data(), n, out.data(), bounds::error, stream);
    FAIL() << "no exception";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(
        std::string(e.what()).find("cupar::gather: d_indices[70001] = -4 is outside [0, 5000)"),
        std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.to_host(), h_out);  // nothing written
  // A scatter of the same indices into 5000 items: nothing written either.
  const std::vector<float> h_target(extent, 7.0f);
  device_buffer<float> target(h_target, stream), from(h_out, stream);
  EXPECT_THROW(
      cupar::scatter(from.data(), n, indices.data(), target.data(), extent, bounds::error, stream),
      std::out_of_range);
  EXPECT_EQ(target.to_host(), h_target);
  // The library keeps working: the same gather with the bad indices skipped.
  cupar::gather(values.data(), extent, indices.data(), n, out.data(), bounds::skip, stream);
  const auto got = out.to_host();
  EXPECT_EQ(got[70001], 42.0f);
  EXPECT_EQ(got[90000], 42.0f);
  EXPECT_EQ(got[0], h_values[std::size_t(h_indices[0])]);
}

TEST(Gather, FillNeedsAValueWhereTheTypeHasNoDefault) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::vector<no_default> h_values = {no_default(1), no_default(2)};
  const std::vector<std::int32_t> h_indices = {1, 5, 0};
  device_buffer<no_default> values(h_values, stream);
  device_buffer<no_default> out(3, stream);
  device_buffer<std::int32_t> indices(h_indices, stream);
  EXPECT_THROW(cupar::gather(values.data(), 2, indices.data(), 3, out.data(), bounds::fill, stream),
               std::invalid_argument);
  cupar::gather(values.data(), 2, indices.data(), 3, out.data(), bounds::fill, no_default(-9),
                stream);
  std::vector<no_default> got(3, no_default(0));
  out.copy_to_host(got.data(), 3);
  EXPECT_EQ(got[0].v, 2);
  EXPECT_EQ(got[1].v, -9);
  EXPECT_EQ(got[2].v, 1);
}

TEST(Gather, BadArgumentsAreRefusedBeforeAnythingRuns) {
  // Checked before any CUDA work: these run without a GPU too.
  float* null = nullptr;
  const std::int32_t* no_indices = nullptr;
  alignas(16) static float host_values[64];
  alignas(16) static std::int32_t host_indices[16];
  const stream_ref s{cudaStream_t{}};
  const auto expect_invalid = [](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << "no exception: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { cupar::gather(null, 10, host_indices, 4, host_values, s); },
                 "d_values is null");
  expect_invalid([&] { cupar::gather(host_values, 10, no_indices, 4, host_values + 32, s); },
                 "d_indices is null");
  expect_invalid([&] { cupar::gather(host_values, 10, host_indices, 4, null, s); },
                 "d_out is null");
  expect_invalid([&] { cupar::gather(host_values, 10, host_indices, 4, host_values + 8, s); },
                 "overlap");
  expect_invalid(
      [&] {
        cupar::gather(host_values, 10, reinterpret_cast<const std::int32_t*>(host_values + 20), 4,
                      host_values + 22, s);
      },
      "overlap");
  expect_invalid([&] { cupar::gather(host_values, 0, host_indices, 4, host_values + 32, s); },
                 "no index can be in range");
  expect_invalid(
      [&] { cupar::scatter(host_values, 4, host_indices, host_values + 32, 10, bounds::fill, s); },
      "bounds::fill has no meaning for a scatter");
  expect_invalid(
      [&] {
        cupar::gather(host_values, 10, host_indices, 4, host_values + 32, static_cast<bounds>(9),
                      s);
      },
      "unknown bounds policy");
  expect_invalid([&] { cupar::scatter(host_values, 4, host_indices, host_values + 2, 10, s); },
                 "overlap");
  // Nothing to do: n == 0 accepts null arrays.
  EXPECT_NO_THROW(cupar::gather(null, 0, no_indices, 0, null, s));
  EXPECT_NO_THROW(cupar::scatter(null, 0, no_indices, null, 0, bounds::error, s));
}

}  // namespace
}  // namespace cupar::testing
