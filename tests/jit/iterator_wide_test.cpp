// cupar tests: wide iterator expressions on the GPU: states over cupar::jit::max_param_bytes (a
// zip of 16 columns takes 128 bytes of pointers, an output transform with eight parameters 72),
// which the call writes to device memory before its kernels. Every family that reads an
// expression in its kernels (reduce, the scans, transform, select, reduce_by_key, group_by) and
// every output store, against CPU references at sizes 0, 1, odd and large, both tiers; the shape
// cache; a graph captured from the stream; the limit (max_expression_state_bytes) refused before
// anything runs. Compiled by g++.
#include "../common/gpu.hpp"
#include "../common/streams.hpp"
#include "iterator_helpers.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace jit = cupar::jit;
using cupar::testing::owned_stream;
using jit::op;

namespace {

using cupar::testing::both_tiers;
using cupar::testing::small_values;
const std::vector<std::size_t>& sizes = cupar::testing::expression_sizes;
using u64 = unsigned long long;

constexpr int columns = 16;

/// Sixteen u32 columns on the device and on the host.
struct table16 {
  std::vector<std::vector<unsigned>> host;
  std::vector<cupar::device_buffer<unsigned>> dev;
  table16(std::size_t n, unsigned seed, cupar::stream_ref s) {
    for (int c = 0; c < columns; ++c) {
      host.push_back(small_values<unsigned>(n, seed + static_cast<unsigned>(c), 0, 1000));
      dev.emplace_back(host.back(), s);
    }
  }
  /// zip(column 0, ..., column 15): 128 bytes of pointers.
  jit::iterator zip() const {
    const auto d = [&](int c) { return dev[static_cast<std::size_t>(c)].data(); };
    return jit::zip(d(0), d(1), d(2), d(3), d(4), d(5), d(6), d(7), d(8), d(9), d(10), d(11), d(12),
                    d(13), d(14), d(15));
  }
  /// Row i's sum as the snippet computes it.
  u64 row(std::size_t i) const {
    u64 r = 0;
    for (int c = 0; c < columns; ++c)
      r += host[static_cast<std::size_t>(c)][i];
    return r;
  }
};

/// The sum of the sixteen fields of x, as u64.
const op& row_sum() {
  static const op f(
      "(unsigned long long)x._0 + x._1 + x._2 + x._3 + x._4 + x._5 + x._6 + x._7 + x._8 + "
      "x._9 + x._10 + x._11 + x._12 + x._13 + x._14 + x._15");
  return f;
}

/// x + p0 + ... + p7 (eight u64 parameters: 64 bytes, with the output's pointer 72).
op plus_eight_parameters() {
  op f("x + p0 + p1 + p2 + p3 + p4 + p5 + p6 + p7");
  for (int k = 0; k < 8; ++k)
    f.param("p" + std::to_string(k), static_cast<u64>(k + 1));
  return f;
}

TEST(JitWideExpression, ReduceScansAndTransformsOfSixteenColumnsMatchTheCpu) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const table16 t(n, 100, s);
    std::vector<u64> rows(n), prefix(n), prefix_plus_36(n);
    u64 total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      rows[i] = t.row(i);
      total += rows[i];
      prefix[i] = total;
      prefix_plus_36[i] = total + 36;  // 1 + ... + 8
    }
    cupar::device_buffer<u64> out(n, s), sum(1, s);
    std::vector<cupar::device_buffer<unsigned>> copies;
    for (int c = 0; c < 9; ++c)
      copies.emplace_back(n, s);
    const jit::iterator rows16 = jit::transform<u64>(t.zip(), row_sum());
    both_tiers([&] {
      // reduce (the "+index" sets), into device memory and to the host.
      cupar::reduce(rows16, sum.data(), n, jit::plus, u64{0}, s);
      EXPECT_EQ(sum.to_host()[0], total);
      EXPECT_EQ(cupar::reduce_value(rows16, n, jit::plus, u64{0}, s), total);
      // transform (the "for_each" set): the zip read by the generated pass.
      cupar::transform(t.zip(), out.data(), n, row_sum(), s);
      EXPECT_EQ(out.to_host(), rows);
      // A scan of the wide input; then into a wide output (a transform output whose operator
      // has eight parameters).
      cupar::inclusive_scan<u64>(rows16, out.data(), n, jit::plus, s);
      EXPECT_EQ(out.to_host(), prefix);
      cupar::inclusive_scan<u64>(
          rows16, jit::transform_output<u64>(out.data(), plus_eight_parameters()), n, jit::plus, s);
      EXPECT_EQ(out.to_host(), prefix_plus_36);
      // Nine columns into nine: a wide input and a wide zip output (72 bytes each).
      const auto d = [&](int c) { return t.dev[static_cast<std::size_t>(c)].data(); };
      const auto o = [&](int c) { return copies[static_cast<std::size_t>(c)].data(); };
      cupar::transform(jit::zip(d(0), d(1), d(2), d(3), d(4), d(5), d(6), d(7), d(8)),
                       jit::zip_output(o(0), o(1), o(2), o(3), o(4), o(5), o(6), o(7), o(8)), n,
                       op("x"), s);
      for (int c = 0; c < 9; ++c)
        EXPECT_EQ(copies[static_cast<std::size_t>(c)].to_host(),
                  t.host[static_cast<std::size_t>(c)])
            << "column " << c;
    });
  }
}

TEST(JitWideExpression, SelectReduceByKeyAndGroupByReadWideValues) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  for (std::size_t n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const table16 t(n, 200, s);
    const jit::iterator rows16 = jit::transform<u64>(t.zip(), row_sum());
    // Keys in runs of 7 rows (reduce_by_key), and 100 distinct ones (group_by).
    std::vector<unsigned> runs(n), keys(n);
    for (std::size_t i = 0; i < n; ++i) {
      runs[i] = static_cast<unsigned>(i / 7);
      keys[i] = static_cast<unsigned>((i * 2654435761u) % 100);
    }
    cupar::device_buffer<unsigned> d_runs(runs, s), d_keys(keys, s), keys_out(n, s);
    cupar::device_buffer<u64> out(n, s);
    cupar::device_buffer<std::size_t> count(1, s);
    std::vector<u64> selected, run_sums;
    std::vector<unsigned> run_keys;
    std::vector<std::pair<unsigned, u64>> groups;
    {
      std::vector<u64> by_key(100, 0);
      std::vector<bool> seen(100, false);
      for (std::size_t i = 0; i < n; ++i) {
        const u64 r = t.row(i);
        if (r % 3 == 0) selected.push_back(r);
        if (i % 7 == 0) {
          run_keys.push_back(runs[i]);
          run_sums.push_back(0);
        }
        run_sums.back() += r;
        by_key[keys[i]] += r;
        seen[keys[i]] = true;
      }
      for (unsigned k = 0; k < 100; ++k)
        if (seen[k]) groups.emplace_back(k, by_key[k]);
    }
    both_tiers([&] {
      // select_if reads the items in its kernels (the "+index" sets).
      EXPECT_EQ(cupar::select_if_count<u64>(rows16, out.data(), n, op("x % 3 == 0"), s),
                selected.size());
      std::vector<u64> got = out.to_host();
      got.resize(selected.size());
      EXPECT_EQ(got, selected);
      // reduce_by_key's values.
      const std::size_t nruns = cupar::reduce_by_key_count<unsigned, u64>(
          d_runs.data(), rows16, keys_out.data(), out.data(), n, jit::plus, s);
      ASSERT_EQ(nruns, run_keys.size());
      std::vector<unsigned> k = keys_out.to_host();
      got = out.to_host();
      k.resize(nruns);
      got.resize(nruns);
      EXPECT_EQ(k, run_keys);
      EXPECT_EQ(got, run_sums);
      // group_by's values (hash tables reading the expression).
      const cupar::groups<unsigned, u64> g =
          cupar::group_by<unsigned, u64>(d_keys.data(), rows16, n, jit::plus, s);
      const std::vector<unsigned> gk = g.keys.to_host();
      const std::vector<u64> gv = g.values.to_host();
      std::vector<std::pair<unsigned, u64>> pairs;
      for (std::size_t i = 0; i < gk.size(); ++i)
        pairs.emplace_back(gk[i], gv[i]);
      std::sort(pairs.begin(), pairs.end());
      EXPECT_EQ(pairs, groups);
    });
  }
}

// The same wide shape over other arrays generates and compiles nothing (only the state is
// filled; the suites set CUPAR_JIT_CHECK_SHAPE_CACHE=1, which also checks it against a fresh
// generation).
TEST(JitWideExpression, TheSameShapeOverOtherColumnsCompilesNothing) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 5003;
  const table16 a(n, 300, s), b(n, 400, s);
  auto total = [&](const table16& t) {
    u64 r = 0;
    for (std::size_t i = 0; i < n; ++i)
      r += t.row(i);
    return r;
  };
  const op sum(
      "x._0 + x._1 + x._2 + x._3 + x._4 + x._5 + x._6 + x._7 + x._8 + x._9 + x._10 + "
      "x._11 + x._12 + x._13 + x._14 + (unsigned long long)x._15 /* shape cache */");
  auto run = [&](const table16& t) {
    return cupar::reduce_value(jit::transform<u64>(t.zip(), sum), n, jit::plus, u64{0}, s);
  };
  EXPECT_EQ(run(a), total(a));
  jit::wait_for_background_builds();
  const auto before = jit::get_stats();
  EXPECT_EQ(run(b), total(b));
  EXPECT_EQ(run(a), total(a));
  const auto after = jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_EQ(after.links, before.links);
  EXPECT_GE(after.expression_code_reuses, before.expression_code_reuses + 2);
}

// The state travels in the parameters of the kernel that writes it, so a graph captured from
// the stream holds the bytes, not a host pointer: replayed after the host's copies are gone and
// other calls ran, it reads the same columns.
TEST(JitWideExpression, AGraphCapturedFromTheStreamKeepsItsState) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 100003;
  const table16 t(n, 500, s), other(n, 600, s);
  std::vector<u64> rows(n);
  for (std::size_t i = 0; i < n; ++i)
    rows[i] = t.row(i);
  cupar::device_buffer<u64> out(n, s), other_out(n, s);
  cupar::transform(t.zip(), out.data(), n, row_sum(), s);  // built before the capture
  jit::wait_for_background_builds();
  ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cupar::transform(t.zip(), out.data(), n, row_sum(), s);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.get(), &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int launch = 0; launch < 3; ++launch) {
    cupar::transform(other.zip(), other_out.data(), n, row_sum(), s);
    ASSERT_EQ(cudaMemsetAsync(out.data(), 0, n * sizeof(u64), s.get()), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s.get()), cudaSuccess);
    EXPECT_EQ(out.to_host(), rows) << "launch " << launch;
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Over max_expression_state_bytes (129 pointers and the output's): std::invalid_argument naming
// the limit, before anything runs; the library keeps working, and 1,024 bytes exactly run.
TEST(JitWideExpression, StatesOverTheLimitAreRefusedBeforeAnythingRuns) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 1000;
  cupar::device_buffer<unsigned> x(small_values<unsigned>(n, 7, 0, 9), s);
  cupar::device_buffer<u64> out(std::vector<u64>(n, 42), s);
  std::vector<jit::field> fields;
  std::string sum = "0ull";
  const std::size_t pointers = jit::max_expression_state_bytes / 8 + 1;
  for (std::size_t k = 0; k < pointers; ++k) {
    fields.push_back({"c" + std::to_string(k), x.data()});
    sum += " + x.c" + std::to_string(k);
  }
  try {
    cupar::transform(jit::zip(fields), out.data(), n, op(sum), s);
    FAIL() << "a state of " << pointers * 8 << " bytes was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(jit::max_expression_state_bytes)),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(out.to_host(), std::vector<u64>(n, 42));
  // Two pointers fewer fit exactly (the output's pointer takes the last 8 bytes).
  fields.erase(fields.end() - 2, fields.end());
  sum = "0ull";
  for (std::size_t k = 0; k < fields.size(); ++k)
    sum += " + x.c" + std::to_string(k);
  cupar::transform(jit::zip(fields), out.data(), n, op(sum), s);
  const std::vector<unsigned> hx = x.to_host();
  std::vector<u64> expected(n);
  for (std::size_t i = 0; i < n; ++i)
    expected[i] = static_cast<u64>(hx[i]) * fields.size();
  EXPECT_EQ(out.to_host(), expected);
}

}  // namespace
