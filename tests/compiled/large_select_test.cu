// cupar tests: the stream compaction families above 2^31 items (label `large`): select_if,
// select_flagged, partition, three_way_partition and unique with C++ callables and run-time
// operators. The inputs are periodic patterns whose selections are known in closed form, so the
// outputs are checked on the GPU against a function of the output position.
#include "large_common.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
namespace {

constexpr std::size_t n_large = two31 + 1001;
constexpr std::uint64_t period = 251;  // x(i) = i mod 251, as bytes

struct mod251 {
  __host__ __device__ std::uint8_t operator()(std::size_t i) const {
    return static_cast<std::uint8_t>(i % period);
  }
};
struct below {
  std::uint8_t t;
  __device__ bool operator()(std::uint8_t x) const { return x < t; }
};
/// out[k] = k mod m + base: the k-th item of a selection of the values [base, base + m) of each
/// period, in input order.
struct kth_of_period {
  std::uint64_t m, base;
  __device__ std::uint8_t operator()(std::size_t k) const {
    return static_cast<std::uint8_t>(base + k % m);
  }
};
/// Number of i in [0, n) with lo <= i mod 251 < hi.
std::size_t in_band(std::size_t n, std::uint64_t lo, std::uint64_t hi) {
  const std::size_t r = n % period;
  return (n / period) * (hi - lo) + (r > lo ? std::min<std::uint64_t>(r, hi) - lo : 0);
}

struct reversed_rejects {
  std::size_t r;
  __device__ std::uint8_t operator()(std::size_t j) const {
    return static_cast<std::uint8_t>(100 + (r - 1 - j) % 151);
  }
};
// Runs of 3: x(i) = (i / 3) mod 256, neighbouring runs always differ.
struct runs_of_3 {
  __device__ std::uint8_t operator()(std::size_t i) const {
    return static_cast<std::uint8_t>((i / 3) % 256);
  }
};
struct kth_byte {
  __device__ std::uint8_t operator()(std::size_t k) const {
    return static_cast<std::uint8_t>(k % 256);
  }
};
// Flags: every 7th item.
struct every_7th {
  __device__ std::uint8_t operator()(std::size_t i) const { return i % 7 == 0 ? 1 : 0; }
};
struct kth_of_7th {
  __device__ std::uint8_t operator()(std::size_t k) const {
    return static_cast<std::uint8_t>(((7 * k) / 3) % 256);
  }
};

// Extended lambdas must be defined in a function with public access (not a test's body).
std::size_t unique_with_lambda(const std::uint8_t* in, std::uint8_t* out, std::size_t n,
                               cupar::stream_ref s) {
  return cupar::unique_count(
      in, out, n, [] __device__(std::uint8_t a, std::uint8_t b) { return a == b; }, s);
}

class LargeSelect : public Large {};

TEST_F(LargeSelect, SelectIfAndPartitionAboveTwoToThe31) {
  CUPAR_REQUIRE_GPU_BYTES(2 * n_large + (std::size_t(1) << 30));
  owned_stream stream;
  device_buffer<std::uint8_t> in(n_large, stream), out(n_large, stream);
  fill(in.data(), n_large, mod251{}, stream.get());
  const std::size_t want = in_band(n_large, 0, 100);
  // C++ callable, then run-time operator.
  EXPECT_EQ(cupar::select_if_count(in.data(), out.data(), n_large, below{100}, stream), want);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), want, kth_of_period{100, 0}, stream));
  out.fill_bytes(0);
  const cupar::jit::op pred = cupar::jit::op("x < t").param("t", std::uint8_t(100));
  device_buffer<std::size_t> count(1, stream);
  cupar::select_if(in.data(), out.data(), count.data(), n_large, pred, stream);
  EXPECT_EQ(count.to_host()[0], want);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), want, kth_of_period{100, 0}, stream));
  // Partition: the rejected items (values 100..250 of each period) follow in reverse order; the
  // j-th from the end of the input is the (R - 1 - j)-th rejected item, R = n - want.
  EXPECT_EQ(cupar::partition_count(in.data(), out.data(), n_large, pred, stream), want);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), want, kth_of_period{100, 0}, stream));
  const std::size_t rejected = n_large - want;
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(out.data() + want, rejected, reversed_rejects{rejected}, stream));
}

TEST_F(LargeSelect, ThreeWayPartitionAboveTwoToThe31) {
  CUPAR_REQUIRE_GPU_BYTES(4 * n_large + (std::size_t(1) << 30));
  owned_stream stream;
  device_buffer<std::uint8_t> in(n_large, stream), first(n_large, stream), second(n_large, stream),
      rest(n_large, stream);
  fill(in.data(), n_large, mod251{}, stream.get());
  const std::size_t w1 = in_band(n_large, 0, 50), w2 = in_band(n_large, 50, 100);
  const auto c = cupar::three_way_partition_counts(in.data(), first.data(), second.data(),
                                                   rest.data(), n_large, cupar::jit::op("x < 50"),
                                                   cupar::jit::op("x < 100"), stream);
  EXPECT_EQ(c.first, w1);
  EXPECT_EQ(c.second, w2);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(first.data(), w1, kth_of_period{50, 0}, stream));
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(second.data(), w2, kth_of_period{50, 50}, stream));
  CUPAR_EXPECT_NO_MISMATCH(
      count_mismatches(rest.data(), n_large - w1 - w2, kth_of_period{151, 100}, stream));
  const auto d = cupar::three_way_partition_counts(
      in.data(), first.data(), second.data(), rest.data(), n_large, below{50}, below{100}, stream);
  EXPECT_EQ(d.first, w1);
  EXPECT_EQ(d.second, w2);
}

TEST_F(LargeSelect, UniqueAndSelectFlaggedAboveTwoToThe31) {
  CUPAR_REQUIRE_GPU_BYTES(3 * n_large + (std::size_t(1) << 30));
  owned_stream stream;
  device_buffer<std::uint8_t> in(n_large, stream), out(n_large, stream);
  fill(in.data(), n_large, runs_of_3{}, stream.get());
  const std::size_t runs = (n_large + 2) / 3;
  EXPECT_EQ(cupar::unique_count(in.data(), out.data(), n_large, stream), runs);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), runs, kth_byte{}, stream));
  out.fill_bytes(0);
  EXPECT_EQ(unique_with_lambda(in.data(), out.data(), n_large, stream), runs);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), runs, kth_byte{}, stream));
  device_buffer<std::uint8_t> flags(n_large, stream);
  fill(flags.data(), n_large, every_7th{}, stream.get());
  const std::size_t flagged = (n_large + 6) / 7;
  EXPECT_EQ(cupar::select_flagged_count(in.data(), flags.data(), out.data(), n_large, stream),
            flagged);
  CUPAR_EXPECT_NO_MISMATCH(count_mismatches(out.data(), flagged, kth_of_7th{}, stream));
}

}  // namespace
}  // namespace cupar::testing
