// cupar tests that need no GPU (label cpu): the error classes, the argument checks every call
// makes before it touches the GPU, stream_ref's construction rules, the version. Built with the
// host compiler from <cupar/cupar.hpp>.
#include "../conformance/common.hpp"

#include <cupar/cupar.hpp>
#include <cupar/detail/group_by_sizing.hpp>
#include <cupar/detail/temp_storage.hpp>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace cupar::testing {
namespace {

// --- errors ---------------------------------------------------------------------------------

static_assert(std::is_base_of_v<std::runtime_error, cupar::error>);
static_assert(std::is_base_of_v<cupar::error, cupar::cuda_error>);
static_assert(std::is_base_of_v<cupar::error, cupar::out_of_memory>);
static_assert(std::is_base_of_v<cupar::error, cupar::jit_error>);
static_assert(!std::is_base_of_v<cupar::error, std::invalid_argument>);

TEST(Errors, CudaErrorCarriesTheCodeAndTheCall) {
  const cupar::cuda_error e(cudaErrorInvalidValue, "cudaMemcpyAsync", "it failed");
  EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidValue));
  EXPECT_EQ(e.call(), "cudaMemcpyAsync");
  EXPECT_STREQ(e.what(), "it failed");
  const cupar::error& base = e;
  EXPECT_STREQ(base.what(), "it failed");
}

TEST(Errors, OutOfMemoryCarriesTheBytes) {
  const cupar::out_of_memory e(std::size_t(1) << 40, "no room");
  EXPECT_EQ(e.bytes(), std::size_t(1) << 40);
  EXPECT_STREQ(e.what(), "no room");
}

TEST(Errors, JitErrorCarriesEverythingNeededToFixTheSnippet) {
  const std::vector<std::string> options = {"-arch=sm_90", "-std=c++17"};
  const cupar::jit_error e(cupar::jit_stage::compile, "summary", "the full log", "the source",
                           options, 3, "  return a +* b;");
  EXPECT_EQ(e.stage(), cupar::jit_stage::compile);
  EXPECT_STREQ(e.what(), "summary");
  EXPECT_EQ(e.log(), "the full log");
  EXPECT_EQ(e.source(), "the source");
  EXPECT_EQ(e.options(), options);
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.line_text(), "  return a +* b;");
  const std::string long_log(1 << 20, 'x');  // never truncated
  const cupar::jit_error big(cupar::jit_stage::link, "s", long_log, "", {}, 0, "");
  EXPECT_EQ(big.log().size(), long_log.size());
  EXPECT_EQ(big.line(), 0);
  EXPECT_TRUE(big.line_text().empty());
}

TEST(Errors, JitStageNames) {
  EXPECT_STREQ(cupar::to_string(cupar::jit_stage::compile), "compile");
  EXPECT_STREQ(cupar::to_string(cupar::jit_stage::link), "link");
  EXPECT_STREQ(cupar::to_string(cupar::jit_stage::load), "load");
  EXPECT_STREQ(cupar::to_string(static_cast<cupar::jit_stage>(42)), "?");
}

TEST(Errors, FailedCudaCallsBecomeTheRightException) {
  try {
    cupar::detail::throw_cuda_error(cudaErrorInvalidValue, "cudaMemcpyAsync");
    ADD_FAILURE() << "expected cupar::cuda_error";
  } catch (const cupar::cuda_error& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidValue));
    EXPECT_EQ(e.call(), "cudaMemcpyAsync");
    const std::string what = e.what();
    EXPECT_NE(what.find("cudaMemcpyAsync"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_EQ(what.find("unusable"), std::string::npos) << what;
  }
  // Errors after which the context is lost say so.
  try {
    cupar::detail::throw_cuda_error(cudaErrorIllegalAddress, "cub::DeviceScan::InclusiveScan");
    ADD_FAILURE() << "expected cupar::cuda_error";
  } catch (const cupar::cuda_error& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorIllegalAddress));
    EXPECT_NE(std::string(e.what()).find("unusable"), std::string::npos) << e.what();
  }
  // An allocation failure reported by a CUDA call is an out_of_memory.
  EXPECT_THROW(cupar::detail::throw_cuda_error(cudaErrorMemoryAllocation, "cudaMallocAsync"),
               cupar::out_of_memory);
  try {
    cupar::detail::throw_out_of_memory(4096, "a test");
    ADD_FAILURE() << "expected cupar::out_of_memory";
  } catch (const cupar::out_of_memory& e) {
    EXPECT_EQ(e.bytes(), 4096u);
    const std::string what = e.what();
    EXPECT_NE(what.find("4096 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("a test"), std::string::npos) << what;
  }
  CUPAR_EXPECT_THROW_WITH(cupar::detail::throw_invalid_argument("cupar::f", "x is wrong"),
                          std::invalid_argument, "cupar::f: x is wrong");
}

// --- memory ---------------------------------------------------------------------------------

struct throwing_upstream {  // RMM-shaped; fails like RMM (std::bad_alloc)
  void* allocate(std::size_t, cudaStream_t) { throw std::bad_alloc(); }
  void deallocate(void*, std::size_t, cudaStream_t) {}
};

TEST(ResourceAdaptor, TurnsBadAllocIntoOutOfMemoryWithTheBytesAsked) {
  throwing_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  EXPECT_EQ(&mr.upstream(), &upstream);
  try {
    (void)mr.allocate(12345, cupar::stream_ref::legacy_default());
    ADD_FAILURE() << "expected cupar::out_of_memory";
  } catch (const cupar::out_of_memory& e) {
    EXPECT_EQ(e.bytes(), 12345u);
  }
}

TEST(DeviceBuffer, OverflowingSizesAndEmptyRangesNeedNoGpu) {
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  CUPAR_EXPECT_THROW_WITH((cupar::device_buffer<std::uint64_t>(SIZE_MAX / 2, s)),
                          std::invalid_argument, "elements overflow size_t");
  cupar::device_buffer<float> empty;
  float host[2] = {};
  CUPAR_EXPECT_THROW_WITH(empty.copy_from_host(host, 2), std::invalid_argument,
                          "is outside the buffer of 0");
  EXPECT_EQ(empty.bytes(), 0u);
}

// --- stream_ref -----------------------------------------------------------------------------

template <class S, class = void>
struct from_literal_zero : std::false_type {};
template <class S>
struct from_literal_zero<S, std::void_t<decltype(S(0))>> : std::true_type {};
template <class S, class = void>
struct from_null_macro : std::false_type {};
template <class S>
struct from_null_macro<S, std::void_t<decltype(S(NULL))>> : std::true_type {};
template <class S, class = void>
struct from_nullptr : std::false_type {};
template <class S>
struct from_nullptr<S, std::void_t<decltype(S(nullptr))>> : std::true_type {};
template <class S, class = void>
struct from_stream : std::false_type {};
template <class S>
struct from_stream<S, std::void_t<decltype(S(cudaStream_t{}))>> : std::true_type {};

static_assert(from_stream<cupar::stream_ref>::value);
static_assert(!from_literal_zero<cupar::stream_ref>::value);
static_assert(!from_null_macro<cupar::stream_ref>::value);
static_assert(!std::is_constructible_v<cupar::stream_ref, std::nullptr_t>);
static_assert(!std::is_constructible_v<cupar::stream_ref, int>);
static_assert(!std::is_constructible_v<cupar::stream_ref, bool>);
static_assert(!std::is_convertible_v<std::nullptr_t, cupar::stream_ref>);
static_assert(std::is_convertible_v<cudaStream_t, cupar::stream_ref>);
static_assert(!from_nullptr<cupar::stream_ref>::value, "stream_ref from nullptr");
static_assert(!std::is_constructible_v<cupar::stream_ref, decltype(NULL)>);
static_assert(!std::is_constructible_v<cupar::stream_ref, long>);
static_assert(!std::is_constructible_v<cupar::stream_ref, unsigned long long>);
static_assert(!std::is_convertible_v<int, cupar::stream_ref>);
static_assert(std::is_trivially_copyable_v<cupar::stream_ref>);

TEST(StreamRef, ComparesAndNamesTheDefaultStreams) {
  const auto legacy = cupar::stream_ref::legacy_default();
  EXPECT_EQ(legacy.get(), cudaStreamLegacy);
  EXPECT_EQ(cupar::stream_ref::per_thread_default().get(), cudaStreamPerThread);
  EXPECT_TRUE(legacy == cupar::stream_ref(cudaStreamLegacy));
  EXPECT_TRUE(legacy != cupar::stream_ref::per_thread_default());
  constexpr cupar::stream_ref from_handle(static_cast<cudaStream_t>(nullptr));
  static_assert(from_handle.get() == nullptr);
}

// --- argument checks that need no GPU ---------------------------------------------------------

template <class K>
class RadixArguments : public ::testing::Test {};
TYPED_TEST_SUITE(RadixArguments, arithmetic_types, type_names);

TYPED_TEST(RadixArguments, BitRangesAreCheckedFirst) {
  using K = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  constexpr int bits = 8 * sizeof(K);
  K keys[8] = {};
  std::uint16_t values[8] = {};
  const K* none = nullptr;
  for (auto [begin, end] : std::vector<std::pair<int, int>>{{-1, -1},
                                                            {-5, 3},
                                                            {0, 0},
                                                            {3, 3},
                                                            {5, 4},
                                                            {0, bits + 1},
                                                            {bits, bits + 8},
                                                            {bits, -1},
                                                            {bits - 1, bits - 2},
                                                            {0, -2}}) {
    const cupar::radix_options o{cupar::sort_order::descending, begin, end};
    SCOPED_TRACE("[" + std::to_string(begin) + ", " + std::to_string(end) + ")");
    CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(none, static_cast<K*>(nullptr), 0, o, s),
                            std::invalid_argument, "cupar::sort_keys: invalid bit range");
    CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, keys, 8, o, s), std::invalid_argument,
                            "need 0 <= begin_bit < end_bit <= " + std::to_string(bits));
    CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(none, static_cast<K*>(nullptr),
                                              static_cast<const std::uint16_t*>(nullptr),
                                              static_cast<std::uint16_t*>(nullptr), 0, o, s),
                            std::invalid_argument, "cupar::sort_pairs: invalid bit range");
    CUPAR_EXPECT_THROW_WITH(cupar::sort_pairs(keys, keys, values, values, 8, o, s),
                            std::invalid_argument, "invalid bit range");
  }
  // Valid ranges with nothing to sort do nothing (and touch no GPU).
  for (auto [begin, end] : std::vector<std::pair<int, int>>{
           {0, -1}, {0, bits}, {bits - 1, bits}, {0, 1}, {bits - 1, -1}}) {
    const cupar::radix_options o{cupar::sort_order::ascending, begin, end};
    EXPECT_NO_THROW(cupar::sort_keys(none, static_cast<K*>(nullptr), 0, o, s));
  }
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(none, keys, 1, s), std::invalid_argument,
                          "d_keys_in is null but n = 1");
  CUPAR_EXPECT_THROW_WITH(cupar::sort_keys(keys, keys + 1, 4, s), std::invalid_argument,
                          "partially overlap");
}

template <class S>
class HistogramArguments : public ::testing::Test {};
TYPED_TEST_SUITE(HistogramArguments, arithmetic_types, type_names);

TYPED_TEST(HistogramArguments, LevelsAreCheckedBeforeAnyWork) {
  using S = TypeParam;
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  S samples[4] = {};
  std::uint64_t hist[4] = {};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 1, S(0), S(10), 4, s),
                          std::invalid_argument,
                          "cupar::histogram_even: num_levels = 1 (at least 2 levels");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(samples, hist, std::numeric_limits<int>::min(), S(0), S(10), 4, s),
      std::invalid_argument, "num_levels");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, S(10), S(10), 4, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, S(10), S(1), 0, s),
                          std::invalid_argument, "lower must be less than upper");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(samples, hist, 3, 0.0f, std::numeric_limits<float>::quiet_NaN(), 4, s),
      std::invalid_argument, "upper is NaN");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(samples, hist, 3, -std::numeric_limits<double>::quiet_NaN(), 1.0, 4, s),
      std::invalid_argument, "lower is NaN");
  const S increasing[] = {S(1), S(2), S(3)};
  const S repeated[] = {S(1), S(2), S(2)};
  const S decreasing[] = {S(3), S(2), S(1)};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, repeated, 4, s),
                          std::invalid_argument, "(h_levels[1] >= h_levels[2])");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, decreasing, 4, s),
                          std::invalid_argument, "(h_levels[0] >= h_levels[1])");
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 1, increasing, 4, s),
                          std::invalid_argument, "num_levels = 1");
  const float nan_levels[] = {0.0f, std::numeric_limits<float>::quiet_NaN()};
  CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 2, nan_levels, 4, s),
                          std::invalid_argument, "h_levels[1] is NaN");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(samples, hist, 3, static_cast<const S*>(nullptr), 4, s),
      std::invalid_argument, "h_levels is null");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_even(static_cast<const S*>(nullptr), hist, 3, S(0), S(10), 1, s),
      std::invalid_argument, "d_samples is null but n = 1");
  CUPAR_EXPECT_THROW_WITH(
      cupar::histogram_range(samples, static_cast<std::uint32_t*>(nullptr), 3, increasing, 0, s),
      std::invalid_argument, "d_histogram is null");
  if constexpr (std::is_integral_v<S>) {
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, 0.5, 10.0, 4, s),
                            std::invalid_argument, "lower = 0.5");
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, 0.0, 1e300, 4, s),
                            std::invalid_argument,
                            "is not an integer the samples' level type holds");
    const double levels[] = {0.0, 1.0, 2.0000001};
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_range(samples, hist, 3, levels, 4, s),
                            std::invalid_argument, "h_levels[2]");
    if constexpr (sizeof(S) <= 2) {
      // Full-range boundaries of narrow samples are valid levels (held in int): the check that
      // fails is the next one, of the samples.
      CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(static_cast<const S*>(nullptr), hist, 257,
                                                    std::is_signed_v<S> ? -32768 : 0,
                                                    std::is_signed_v<S> ? 32768 : 65536, 4, s),
                              std::invalid_argument, "d_samples is null but n = 4");
      CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, 0LL, 1LL << 40, 4, s),
                              std::invalid_argument, "upper = 1099511627776 does not fit");
    }
  }
  if constexpr (std::is_unsigned_v<S> && sizeof(S) == 8) {
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(samples, hist, 3, -1LL, 5LL, 4, s),
                            std::invalid_argument, "lower = -1 does not fit");
  }
  if constexpr (std::is_integral_v<S> && sizeof(S) == 8) {
    CUPAR_EXPECT_THROW_WITH(
        cupar::histogram_even(samples, hist, 3, std::numeric_limits<S>::lowest(),
                              std::numeric_limits<S>::max(), 4, s),
        std::invalid_argument, "overflows the integer arithmetic");
    // One bin over the whole range fits (the check that fails is the next one).
    CUPAR_EXPECT_THROW_WITH(cupar::histogram_even(static_cast<const S*>(nullptr), hist, 2,
                                                  std::numeric_limits<S>::lowest(),
                                                  std::numeric_limits<S>::max(), 4, s),
                            std::invalid_argument, "d_samples is null but n = 4");
  }
}

// A build of the compiled library without some element types (CUPAR_LIBRARY_TYPES, the ci preset)
// refuses a call on one of them with std::invalid_argument naming the type and the setting, after
// the call's own argument checks and before any device work (host arrays: nothing is touched).
TEST(LibraryTypes, ACallOnATypeLeftOutOfTheBuildIsRefusedClearly) {
  const std::string types = CUPAR_TEST_LIBRARY_TYPES;
  if (types == "all" || types.find("i8") != std::string::npos) {
    GTEST_SKIP() << "this build's library has i8 (CUPAR_LIBRARY_TYPES=" << types << ")";
  }
  std::int8_t in[4] = {3, 1, 2, 0}, out[4] = {};
  const cupar::stream_ref s{cudaStream_t{}};
  EXPECT_THROW(cupar::sort_keys(static_cast<const std::int8_t*>(nullptr), out, 4, s),
               std::invalid_argument);  // the argument checks come first
  try {
    cupar::sort_keys(static_cast<const std::int8_t*>(in), out, 4, s);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("element type i8 is not in this build"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("CUPAR_LIBRARY_TYPES"), std::string::npos) << e.what();
  }
  EXPECT_EQ(out[0], 0);  // nothing written
}

TEST(CheckHelpers, RangesOverlap) {
  using cupar::detail::ranges_overlap;
  char buf[64] = {};
  EXPECT_TRUE(ranges_overlap(buf, 8, buf + 7, 8));
  EXPECT_TRUE(ranges_overlap(buf + 7, 8, buf, 8));
  EXPECT_FALSE(ranges_overlap(buf, 8, buf + 8, 8));  // adjacent
  EXPECT_FALSE(ranges_overlap(buf + 8, 8, buf, 8));
  EXPECT_FALSE(ranges_overlap(buf, 0, buf, 8));  // empty ranges overlap nothing
  EXPECT_TRUE(ranges_overlap(buf, 64, buf + 10, 1));
  EXPECT_NO_THROW(cupar::detail::require_same_or_disjoint("f", "a", buf, 8, "b", buf, 8));
  CUPAR_EXPECT_THROW_WITH(cupar::detail::require_same_or_disjoint("f", "a", buf, 8, "b", buf, 16),
                          std::invalid_argument, "f: a and b partially overlap");
  CUPAR_EXPECT_THROW_WITH(cupar::detail::require_disjoint("f", "a", buf, 8, "b", buf, 8),
                          std::invalid_argument, "f: a and b overlap (they must not)");
}

// --- wide operator states ---------------------------------------------------------------------

// An iterator expression's operator whose state is wider than the kernels' parameter block keeps
// it whole until a call places its device copy; its parameter bytes are refused before that (a
// family that forgot to place it fails loudly instead of launching with address 0), and hold the
// copy's address after.
TEST(WideState, RefusedUntilPlacedThenTheAddressOfItsCopy) {
  const cupar::jit::op base("x");
  std::vector<unsigned char> bytes(cupar::jit::max_param_bytes + 8);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>(i);
  cupar::jit::op wide(base.definition(), bytes.data(), bytes.size());
  ASSERT_NE(wide.wide_state(), nullptr);
  EXPECT_EQ(*wide.wide_state(), bytes);
  EXPECT_THROW((void)wide.state(), std::logic_error);
  const cupar::jit::op copy = wide;  // copies share the host bytes, and are not placed either
  EXPECT_THROW((void)copy.state(), std::logic_error);
  int device_copy = 0;  // any address: nothing reads it here
  wide.place_wide_state(&device_copy);
  const void* address = nullptr;
  std::memcpy(&address, wide.state(), sizeof(address));
  EXPECT_EQ(address, &device_copy);
  // A state that fits is the parameter bytes themselves.
  const cupar::jit::op narrow(base.definition(), bytes.data(), cupar::jit::max_param_bytes);
  EXPECT_EQ(narrow.wide_state(), nullptr);
  EXPECT_EQ(std::memcmp(narrow.state(), bytes.data(), cupar::jit::max_param_bytes), 0);
}

// --- version --------------------------------------------------------------------------------

TEST(Version, MatchesTheHeader) {
  const std::string expected = std::to_string(CUPAR_VERSION_MAJOR) + "." +
                               std::to_string(CUPAR_VERSION_MINOR) + "." +
                               std::to_string(CUPAR_VERSION_PATCH);
  EXPECT_EQ(std::string(cupar::version()), expected);
  EXPECT_EQ(CUPAR_VERSION,
            CUPAR_VERSION_MAJOR * 10000 + CUPAR_VERSION_MINOR * 100 + CUPAR_VERSION_PATCH);
}

// --- remembered temporary-storage sizes -----------------------------------------------------

TEST(TempSizeCache, FindsWhatWasStoredForTheSameDeviceAndKeyOnly) {
  cupar::detail::temp_size_cache c;
  std::size_t bytes = 0;
  EXPECT_FALSE(c.find(0, {100, 0, 0}, bytes));
  c.store(0, {100, 0, 0}, 4096);
  ASSERT_TRUE(c.find(0, {100, 0, 0}, bytes));
  EXPECT_EQ(bytes, 4096u);
  EXPECT_FALSE(c.find(1, {100, 0, 0}, bytes)) << "another device";
  EXPECT_FALSE(c.find(0, {101, 0, 0}, bytes)) << "another n";
  EXPECT_FALSE(c.find(0, {100, 1, 0}, bytes)) << "another first extra value";
  EXPECT_FALSE(c.find(0, {100, 0, 1}, bytes)) << "another second extra value";
  // Four entries, the oldest replaced first.
  for (std::uint64_t n = 1; n <= 4; ++n)
    c.store(0, {n, 0, 0}, n * 10);
  EXPECT_FALSE(c.find(0, {100, 0, 0}, bytes));
  for (std::uint64_t n = 1; n <= 4; ++n) {
    ASSERT_TRUE(c.find(0, {n, 0, 0}, bytes));
    EXPECT_EQ(bytes, n * 10);
  }
}

TEST(TempSizeCache, AsksTheCallOnceThenRemembers) {
  CUPAR_REQUIRE_GPU();  // cudaGetDevice
  int asked = 0;
  auto call = [&](void* temp, std::size_t& bytes) {
    if (temp == nullptr) {
      ++asked;
      bytes = 777;
    }
    return cudaSuccess;
  };
  EXPECT_EQ(cupar::detail::required_temp_bytes("test", {5, 0, 0}, call), 777u);
  EXPECT_EQ(cupar::detail::required_temp_bytes("test", {5, 0, 0}, call), 777u);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(cupar::detail::required_temp_bytes("test", {6, 0, 0}, call), 777u);
  EXPECT_EQ(asked, 2);
  auto failing = [](void*, std::size_t&) { return cudaErrorInvalidValue; };
  EXPECT_THROW(cupar::detail::required_temp_bytes("test", {5, 0, 0}, failing), cupar::cuda_error);
}

// --- group_by's host-side decisions (detail/group_by_sizing.hpp) -----------------------------

TEST(GroupBySizing, AutomaticTakesTheSortRouteBelowItsRowCount) {
  using cupar::group_by_method;
  using cupar::detail::method_for_rows;
  static_assert(cupar::group_by_sort_below_rows == std::size_t(1) << 21);
  const std::size_t limit = cupar::group_by_sort_below_rows;
  for (std::size_t n : {std::size_t(1), std::size_t(1000), limit - 1}) {
    EXPECT_EQ(method_for_rows(group_by_method::automatic, n), group_by_method::sort) << n;
    EXPECT_EQ(method_for_rows(group_by_method::hash, n), group_by_method::hash) << n;
    EXPECT_EQ(method_for_rows(group_by_method::sort, n), group_by_method::sort) << n;
    // A build without the key's type (CUPAR_LIBRARY_TYPES) keeps automatic's hash routes.
    EXPECT_EQ(method_for_rows(group_by_method::automatic, n, false), group_by_method::automatic)
        << n;
  }
  for (std::size_t n : {limit, limit + 1, std::size_t(1) << 31}) {
    EXPECT_EQ(method_for_rows(group_by_method::automatic, n), group_by_method::automatic) << n;
    EXPECT_EQ(method_for_rows(group_by_method::hash, n), group_by_method::hash) << n;
    EXPECT_EQ(method_for_rows(group_by_method::sort, n), group_by_method::sort) << n;
  }
}

// Blocks of 4 warps (128 threads), 924 of them resident: each warp reads at least 16 rows a group.
TEST(GroupBySizing, TheTwoPassGridGivesEachWarpSixteenRowsAGroup) {
  using cupar::detail::hash_pass_grid;
  const std::size_t mi = std::size_t(1) << 20;
  EXPECT_EQ(hash_pass_grid(mi, 100, 4, 924, 1), 163);  // 2^20 / 6,400 = 163.84
  EXPECT_EQ(hash_pass_grid(mi, 100.5, 4, 924, 1), 163);
  EXPECT_EQ(hash_pass_grid(mi, 128, 4, 924, 1), 128);
  EXPECT_EQ(hash_pass_grid(std::size_t(1) << 22, 128, 4, 924, 1), 512);
  EXPECT_EQ(hash_pass_grid(std::size_t(1) << 24, 100, 4, 924, 1), 924);  // wants 2,621
  EXPECT_EQ(hash_pass_grid(std::size_t(1) << 24, 128, 4, 924, 1), 924);  // wants 2,048
  EXPECT_EQ(hash_pass_grid(12800, 100, 4, 924, 1), 2);
  EXPECT_EQ(hash_pass_grid(12799, 100, 4, 924, 1), 1);
  EXPECT_EQ(hash_pass_grid(5000, 100, 4, 924, 1), 1);  // at least one block
  EXPECT_EQ(hash_pass_grid(mi, 0, 4, 924, 1), 924);    // below one group: one
  EXPECT_EQ(hash_pass_grid(mi, 1, 4, 100, 1), 100);
  EXPECT_EQ(hash_pass_grid(mi, 1, 1, 2000, 1), 2000);  // 65,536 > 2,000
  // The partials (warps x groups) stay at most n / 16.
  for (std::size_t n : {std::size_t(6400), std::size_t(100000), mi, std::size_t(1) << 22}) {
    const int grid = hash_pass_grid(n, 100, 4, 1 << 20, 1);
    EXPECT_LE(static_cast<std::size_t>(grid) * 4 * 100, n / 16) << n;
  }
  // Never fewer blocks than the SMs where the resident grid has them.
  EXPECT_EQ(hash_pass_grid(std::size_t(1) << 14, 100, 4, 128, 132), 128);  // wants 2
  EXPECT_EQ(hash_pass_grid(std::size_t(1) << 18, 100, 4, 924, 132), 132);  // wants 40
  EXPECT_EQ(hash_pass_grid(mi, 100, 4, 924, 132), 163);
  EXPECT_EQ(hash_pass_grid(mi, 100, 4, 924, 0), 163);
}

TEST(GroupBySizing, TheHashPassDecidesTheRegimeAtTheResidentGridThenCapsIt) {
  using cupar::detail::hash_pass;
  using cupar::detail::plan_hash_pass;
  const std::size_t mi = std::size_t(1) << 20;
  // Few groups: two passes, 163 blocks, partials of a warp's table (256 slots) for each warp.
  hash_pass p = plan_hash_pass(mi, 100, 128, 256, 924, 1);
  EXPECT_EQ(p.grid, 163);
  EXPECT_TRUE(p.second_pass);
  EXPECT_EQ(p.partial_slots, std::size_t(163) * 4 * 256);
  // From 2^24 rows the cap is above the resident grid.
  p = plan_hash_pass(std::size_t(1) << 24, 100, 128, 256, 924, 1);
  EXPECT_EQ(p.grid, 924);
  EXPECT_TRUE(p.second_pass);
  EXPECT_EQ(p.partial_slots, std::size_t(924) * 4 * 256);
  // Capped to 16 blocks or fewer, still two passes (the second reads the partials' count).
  p = plan_hash_pass(20000, 100, 128, 256, 157, 1);
  EXPECT_EQ(p.grid, 3);
  EXPECT_TRUE(p.second_pass);
  EXPECT_EQ(p.partial_slots, std::size_t(3) * 4 * 256);
  // ... and at least one block an SM where the resident grid has them.
  p = plan_hash_pass(20000, 100, 128, 256, 157, 132);
  EXPECT_EQ(p.grid, 132);
  EXPECT_TRUE(p.second_pass);
  EXPECT_EQ(p.partial_slots, std::size_t(132) * 4 * 256);
  // More groups than half a warp's table: one pass at the resident grid, no partials.
  p = plan_hash_pass(mi, 129, 128, 256, 924, 1);
  EXPECT_EQ(p.grid, 924);
  EXPECT_FALSE(p.second_pass);
  EXPECT_EQ(p.partial_slots, 0u);
  // Larger slots (a warp's table of 32): up to 16 groups in two passes.
  p = plan_hash_pass(mi, 16, 128, 32, 924, 1);
  EXPECT_EQ(p.grid, 924);  // 2^20 / 1,024 = 1,024 blocks wanted
  EXPECT_TRUE(p.second_pass);
  EXPECT_EQ(p.partial_slots, std::size_t(924) * 4 * 32);
  EXPECT_FALSE(plan_hash_pass(mi, 17, 128, 32, 924, 1).second_pass);
  // A resident grid of 16 blocks or fewer (2,048 rows or fewer): one pass, as it is.
  p = plan_hash_pass(2000, 100, 128, 256, 16, 1);
  EXPECT_EQ(p.grid, 16);
  EXPECT_FALSE(p.second_pass);
  EXPECT_EQ(p.partial_slots, 0u);
}

}  // namespace
}  // namespace cupar::testing
