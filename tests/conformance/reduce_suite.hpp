// cupar tests: reduce conformance (include after `using Ops = ...;`).
// Splitting: CUPAR_SUITE_TYPES / CUPAR_SUITE_UNTYPED as in scan_suite.hpp; CUPAR_SUITE_TYPED 0
// leaves out the typed tests too (a unit that wants expect_sum only).
#pragma once

#include "../common/counting_resource.hpp"
#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace cupar::testing {

/// Checks `got` against init + h[0] + ... computed on the CPU: exactly (wrapping) for integers,
/// within sum_tolerance for floating point (`extra_terms`: more rounding steps than a tree's, as
/// atomic_sum_terms gives for the not-guaranteed sum).
template <class T>
void expect_sum(T got, const std::vector<T>& h, T init, double extra_terms = 0) {
  if constexpr (std::is_integral_v<T>) {
    T ref = init;
    for (T x : h)
      ref = wrapping_add(ref, x);
    EXPECT_EQ(got, ref);
  } else {
    long double ref = init, abs_sum = std::fabs(static_cast<long double>(init));
    for (T x : h)
      ref += x, abs_sum += std::fabs(static_cast<long double>(x));
    EXPECT_NEAR(static_cast<double>(got), static_cast<double>(ref),
                sum_tolerance<T>(h.size(), static_cast<double>(abs_sum), extra_terms));
  }
}

#if !defined(CUPAR_SUITE_TYPED) || CUPAR_SUITE_TYPED
#if defined(CUPAR_SUITE_TYPES)
using reduce_types = CUPAR_SUITE_TYPES;
#else
using reduce_types = arithmetic_types;
#endif

template <class T>
class Reduce : public ::testing::Test {};
TYPED_TEST_SUITE(Reduce, reduce_types, type_names);

TYPED_TEST(Reduce, SumMatchesReferenceAtEverySize) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<T>(n, 100 + n);
    const T init = static_cast<T>(2);
    device_buffer<T> in(h, stream), out(1, stream);
    cupar::reduce(in.data(), out.data(), n, Ops::template plus<T>(), init, stream);
    expect_sum(out.to_host()[0], h, init);
  }
}

// transform_reduce: the sum of squares and a count where, each one fused pass, against the CPU
// computing the transform first. For run-time operators each is one set with two operators (the
// named plus of named_ops is compiled beside the transform there).
TYPED_TEST(Reduce, TransformReduceFusesTheTransform) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<T>(n, 300 + n);
    std::vector<T> squares(n), positive(n);
    for (std::size_t i = 0; i < n; ++i) {
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        using W = std::conditional_t<(sizeof(T) <= 4), unsigned, unsigned long long>;
        squares[i] = static_cast<T>(static_cast<W>(static_cast<U>(h[i])) *
                                    static_cast<W>(static_cast<U>(h[i])));
      } else {
        squares[i] = h[i] * h[i];
      }
      positive[i] = h[i] > T(0) ? T(1) : T(0);
    }
    device_buffer<T> in(h, stream), out(1, stream);
    cupar::transform_reduce(in.data(), out.data(), n, Ops::template square<T>(),
                            Ops::template plus<T>(), T(3), stream);
    expect_sum(out.to_host()[0], squares, T(3));
    const T count = cupar::transform_reduce_value(in.data(), n, Ops::template positive_one<T>(),
                                                  Ops::template plus<T>(), T(0), stream);
    expect_sum(count, positive, T(0));
  }
}

TYPED_TEST(Reduce, TransformReduceChecksItsArguments) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  device_buffer<T> out(1, stream);
  EXPECT_THROW(
      cupar::transform_reduce(static_cast<const T*>(nullptr), out.data(), 5,
                              Ops::template square<T>(), Ops::template plus<T>(), T(0), stream),
      std::invalid_argument);
  EXPECT_THROW(
      cupar::transform_reduce(out.data(), static_cast<T*>(nullptr), 1, Ops::template square<T>(),
                              Ops::template plus<T>(), T(0), stream),
      std::invalid_argument);
  // n == 0 writes init.
  cupar::transform_reduce(static_cast<const T*>(nullptr), out.data(), 0, Ops::template square<T>(),
                          Ops::template plus<T>(), T(9), stream);
  EXPECT_EQ(out.to_host()[0], T(9));
}

TYPED_TEST(Reduce, MaxAndMinOverTheFullRangeAreExact) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(1), std::size_t(33), std::size_t(4097), scaled(std::size_t(1) << 20)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = full_range_values<T>(n, 7 + n);
    device_buffer<T> in(h, stream), out(2, stream);
    cupar::reduce(in.data(), out.data(), n, Ops::template maximum<T>(),
                  std::numeric_limits<T>::lowest(), stream);
    cupar::reduce(in.data(), out.data() + 1, n, Ops::template minimum<T>(),
                  std::numeric_limits<T>::max(), stream);
    const auto got = out.to_host();
    EXPECT_EQ(got[0], *std::max_element(h.begin(), h.end()));
    EXPECT_EQ(got[1], *std::min_element(h.begin(), h.end()));
  }
}

TYPED_TEST(Reduce, ReduceValueReturnsTheSameResultToTheHost) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  for (std::size_t n :
       {std::size_t(0), std::size_t(1), std::size_t(1000), scaled(std::size_t(1) << 22)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<T>(n, 5 + n);
    device_buffer<T> in(h, stream), out(1, stream);
    cupar::reduce(in.data(), out.data(), n, Ops::template plus<T>(), T(1), stream);
    const T value = cupar::reduce_value(in.data(), n, Ops::template plus<T>(), T(1), stream);
    const T via_device = out.to_host()[0];
    EXPECT_EQ(std::memcmp(&value, &via_device, sizeof(T)), 0) << value << " vs " << via_device;
  }
}

TYPED_TEST(Reduce, EmptyInputWritesInit) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  device_buffer<T> out(1, stream);
  out.fill_bytes(0xAB);
  cupar::reduce(static_cast<const T*>(nullptr), out.data(), 0, Ops::template plus<T>(), T(42),
                stream);
  EXPECT_EQ(out.to_host()[0], T(42));
  EXPECT_EQ(cupar::reduce_value(static_cast<const T*>(nullptr), 0, Ops::template maximum<T>(), T(7),
                                stream),
            T(7));
}

// An initial value in device memory (cupar::device_value), read when the kernels run: written by
// a kernel queued just before on the same stream, no copy to the host.
TYPED_TEST(Reduce, DeviceInitialValueIsReadWhenTheKernelsRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  device_buffer<T> d_init(1, stream), out(1, stream);
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<T>(n, 300 + n);
    const T init = static_cast<T>(2);
    const device_buffer<T> source(std::vector<T>{init}, stream), in(h, stream);
    cupar::reduce(source.data(), d_init.data(), 1, Ops::template plus<T>(), T(0), stream);
    out.fill_bytes(0xAB);
    cupar::reduce(in.data(), out.data(), n, Ops::template plus<T>(),
                  cupar::device_value{d_init.data()}, stream);
    expect_sum(out.to_host()[0], h, init);
    // Exact: a maximum over the full range, seeded above and below it.
    const auto full = full_range_values<T>(n, 310 + n);
    const device_buffer<T> wide(full, stream);
    for (T seed : {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}) {
      const device_buffer<T> seeded(std::vector<T>{seed}, stream);
      cupar::reduce(wide.data(), out.data(), n, Ops::template maximum<T>(),
                    cupar::device_value{seeded.data()}, stream);
      T want = seed;
      for (T x : full)
        want = std::max(want, x);
      EXPECT_EQ(out.to_host()[0], want);
    }
  }
  CUPAR_EXPECT_THROW_WITH(cupar::reduce(out.data(), out.data(), 1, Ops::template plus<T>(),
                                        cupar::device_value<T>{nullptr}, stream),
                          std::invalid_argument, "init.ptr");
}

TYPED_TEST(Reduce, IsDeterministicFromRunToRun) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  const std::size_t n = scaled((std::size_t(1) << 22) + 12345);
  const auto h = random_values<T>(n, 99, 0, 100);
  device_buffer<T> in(h, stream);
  const T first = cupar::reduce_value(in.data(), n, Ops::template plus<T>(), T(0), stream);
  for (int i = 0; i < 5; ++i) {
    const T again = cupar::reduce_value(in.data(), n, Ops::template plus<T>(), T(0), stream);
    EXPECT_EQ(std::memcmp(&first, &again, sizeof(T)), 0);
  }
}

// determinism::not_guaranteed: a sum the single-pass kernel takes (Ops::sum on a type with atomic
// adds) gives the reference at every size, runs one pass with no temporary storage (nothing is
// allocated), and an output inside the input falls back to the run-to-run reduce (it is read
// before it is written). Any other operator or type gives the run-to-run result.
TYPED_TEST(Reduce, NotGuaranteedSumIsOnePassAndMatchesTheReference) {
  CUPAR_REQUIRE_GPU();
  using T = TypeParam;
  owned_stream stream;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  const bool one_pass = Ops::template one_pass_sum<T>();
  device_buffer<T> out(1, stream);
  for (std::size_t n : standard_sizes()) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto h = small_values<T>(n, 700 + n);
    const T init = static_cast<T>(3);
    device_buffer<T> in(h, stream);
    out.fill_bytes(0xAB);
    const std::size_t before = upstream.allocations();
    cupar::reduce(in.data(), out.data(), n, Ops::template sum<T>(), init,
                  cupar::determinism::not_guaranteed, stream, mr);
    expect_sum(out.to_host()[0], h, init, atomic_sum_terms(n));
    if (one_pass) {
      EXPECT_EQ(upstream.allocations(), before) << "the single pass allocates nothing";
    } else if (n > 0) {
      EXPECT_GT(upstream.allocations(), before) << "the run-to-run reduce has temporary storage";
    }
    // Exact: the maximum over the full range is not a sum, so it runs run-to-run.
    const auto full = full_range_values<T>(n, 710 + n);
    const device_buffer<T> wide(full, stream);
    cupar::reduce(wide.data(), out.data(), n, Ops::template maximum<T>(),
                  std::numeric_limits<T>::lowest(), cupar::determinism::not_guaranteed, stream);
    T want = std::numeric_limits<T>::lowest();
    for (T x : full)
      want = std::max(want, x);
    EXPECT_EQ(out.to_host()[0], want);
    if (n > 0) {
      // The total written over the input's last element, which it also reads.
      cupar::reduce(in.data(), in.data() + (n - 1), n, Ops::template sum<T>(), init,
                    cupar::determinism::not_guaranteed, stream);
      expect_sum(in.to_host()[n - 1], h, init, atomic_sum_terms(n));
    }
  }
  CUPAR_EXPECT_THROW_WITH(cupar::reduce(out.data(), out.data(), 1, Ops::template sum<T>(), T(0),
                                        static_cast<cupar::determinism>(7), stream),
                          std::invalid_argument, "not a cupar::determinism value");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce(static_cast<const T*>(nullptr), out.data(), 3, Ops::template sum<T>(), T(0),
                    cupar::determinism::not_guaranteed, stream),
      std::invalid_argument, "d_in is null but n = 3");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce(out.data(), static_cast<T*>(nullptr), 1, Ops::template sum<T>(), T(0),
                    cupar::determinism::not_guaranteed, stream),
      std::invalid_argument, "d_out is null");
  EXPECT_EQ(upstream.live_allocations(), 0u);
}

TYPED_TEST(Reduce, BadArgumentsThrowBeforeAnyWorkAndTheNextCallWorks) {
  using T = TypeParam;
  cupar::stream_ref s = cupar::stream_ref::legacy_default();
  T dummy{};
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce(static_cast<const T*>(nullptr), &dummy, 5, Ops::template plus<T>(), T(0), s),
      std::invalid_argument, "d_in is null but n = 5");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce(&dummy, static_cast<T*>(nullptr), 1, Ops::template plus<T>(), T(0), s),
      std::invalid_argument, "d_out is null");
  CUPAR_EXPECT_THROW_WITH((void)cupar::reduce_value(static_cast<const T*>(nullptr), 3,
                                                    Ops::template plus<T>(), T(0), s),
                          std::invalid_argument, "cupar::reduce_value: d_in");
  CUPAR_EXPECT_THROW_WITH(
      cupar::reduce(&dummy, &dummy, 1, Ops::template plus<T>(), cupar::device_value<T>{nullptr}, s),
      std::invalid_argument, "cupar::reduce: init.ptr");
  if (!gpu_available()) return;
  owned_stream stream;
  const std::vector<T> h = {T(1), T(2), T(3)};
  device_buffer<T> in(h, stream);
  EXPECT_EQ(cupar::reduce_value(in.data(), 3, Ops::template plus<T>(), T(0), stream), T(6));
}

#endif  // CUPAR_SUITE_TYPED

#if !defined(CUPAR_SUITE_UNTYPED) || CUPAR_SUITE_UNTYPED
TEST(ReduceStruct, NonCommutativeProductKeepsOperandOrder) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  for (std::size_t n : standard_sizes()) {
    if (n > (std::size_t(1) << 22)) continue;
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<mat2> h(n);
    const auto r = random_values<std::uint32_t>(4 * n, 3 + n, 0, 0xFFFFFFFFu);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]};
    const mat2 init{1, 2, 3, 4};
    mat2 ref = init;
    for (const auto& m : h)
      ref = mat2_mul(ref, m);
    device_buffer<mat2> in(h, stream), out(1, stream);
    cupar::reduce(in.data(), out.data(), n, Ops::mat2_mul(), init, stream);
    EXPECT_EQ(out.to_host()[0], ref);
    EXPECT_EQ(cupar::reduce_value(in.data(), n, Ops::mat2_mul(), init, stream), ref);
    // The initial value from device memory: on the left as well.
    const device_buffer<mat2> d_init(std::vector<mat2>{init}, stream);
    out.fill_bytes(0xAB);
    cupar::reduce(in.data(), out.data(), n, Ops::mat2_mul(), cupar::device_value{d_init.data()},
                  stream);
    EXPECT_EQ(out.to_host()[0], ref);
  }
}

#endif  // CUPAR_SUITE_UNTYPED

}  // namespace cupar::testing
