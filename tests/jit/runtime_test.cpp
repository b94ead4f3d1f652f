// cupar tests: run-time operators on the GPU, beyond the conformance suites: parameters, caches
// (in process, many threads, on disk, corrupt entries), tiers, plans, errors. Compiled by g++.
#include "../common/data.hpp"
#include "../common/gpu.hpp"
#include "../common/precompiled.hpp"
#include "../common/streams.hpp"

#include <cupar/cupar.hpp>

#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using cupar::jit::op;
using cupar::testing::owned_stream;

namespace {

/// A fresh operator source each call, so caches from earlier tests cannot serve it.
std::string unique_suffix() {
  static std::atomic<int> n{0};
  return " + 0.0f * " + std::to_string(::getpid()) + "." + std::to_string(n++) + "f";
}

/// A direct-build budget for the scope (cupar::jit::set_direct_build_budget).
class direct_budget {
 public:
  explicit direct_budget(double ms) : old_(cupar::jit::get_direct_build_budget()) {
    cupar::jit::set_direct_build_budget(ms);
  }
  ~direct_budget() { cupar::jit::set_direct_build_budget(old_); }
  direct_budget(const direct_budget&) = delete;
  direct_budget& operator=(const direct_budget&) = delete;

 private:
  double old_;
};

}  // namespace

TEST(JitRuntime, ParametersChangeWithoutRecompiling) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::vector<float> h = {1, 2, 3, 4};
  cupar::device_buffer<float> in(h, s), out(4, s);
  op o("x * scale + shift" + unique_suffix());
  o.param("scale", 2.0f).param("shift", 1.0f);
  cupar::transform(in.data(), out.data(), 4, o, s);
  EXPECT_EQ(out.to_host(), (std::vector<float>{3, 5, 7, 9}));
  cupar::jit::wait_for_background_builds();
  const auto before = cupar::jit::get_stats();
  for (float k = 0; k < 5; ++k) {
    o.set("scale", k).set("shift", -k);
    cupar::transform(in.data(), out.data(), 4, o, s);
    const auto got = out.to_host();
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got[i], h[i] * k - k);
  }
  const auto after = cupar::jit::get_stats();
  EXPECT_EQ(after.operator_compiles, before.operator_compiles);
  EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  EXPECT_GE(after.memory_hits, before.memory_hits);
}

TEST(JitRuntime, SixteenThreadsAskingForANewOperatorCompileItOnce) {
  CUPAR_REQUIRE_GPU();
  const std::string source = "a * b" + unique_suffix();
  const auto mode = cupar::jit::get_mode();
  cupar::jit::set_mode(cupar::jit::mode::optimized);  // one synchronous build, no background one
  cupar::jit::wait_for_background_builds();           // earlier tests' builds are not counted
  const auto before = cupar::jit::get_stats();
  std::vector<std::thread> threads;
  std::atomic<int> correct{0};
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      owned_stream s;
      const std::vector<double> h = {1.0, 2.0, 3.0, double(t)};
      cupar::device_buffer<double> in(h, s);
      // Each thread builds its own op object from the same source.
      const double v = cupar::reduce_value(in.data(), h.size(), op(source), 1.0, s);
      if (v == 6.0 * t) correct++;
    });
  }
  for (auto& th : threads)
    th.join();
  const auto after = cupar::jit::get_stats();
  cupar::jit::set_mode(mode);
  EXPECT_EQ(correct.load(), 16);
  // One build for all threads: the operator alone on the precompiled set, or (a build whose
  // CUPAR_JIT_PRECOMPILE_FILTER left reduce<f64> out) the kernels from source.
  const bool set = cupar::testing::precompiled_here("reduce<f64>");
  EXPECT_EQ((set ? after.operator_compiles - before.operator_compiles
                 : after.kernel_compiles - before.kernel_compiles),
            1u)
      << "one build for all threads";
  if (set) {
    EXPECT_EQ(after.links - before.links, 1u);
  }
  EXPECT_GE(after.memory_hits - before.memory_hits, 15u);
}

TEST(JitRuntime, TiersGiveBitIdenticalResults) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = cupar::testing::scaled((std::size_t(1) << 20) + 17);
  const auto h = cupar::testing::random_values<float>(n, 5, -1, 1);
  cupar::device_buffer<float> in(h, s), scanned(n, s);
  const std::string source = "a + b * 0.5f" + unique_suffix();
  const auto mode = cupar::jit::get_mode();
  cupar::jit::set_mode(cupar::jit::mode::fast);
  const float quick = cupar::reduce_value(in.data(), n, op(source), 0.0f, s);
  cupar::jit::clear_memory_cache();
  cupar::jit::set_mode(cupar::jit::mode::optimized);
  const float inlined = cupar::reduce_value(in.data(), n, op(source), 0.0f, s);
  cupar::jit::set_mode(mode);
  EXPECT_EQ(std::memcmp(&quick, &inlined, sizeof(float)), 0) << quick << " vs " << inlined;
}

/// transform_reduce into a wider accumulator (the transform_reduce<f32,u64>, <u32,u64>, <f32,f64>
/// and <i32,i64> sets) and on 1- and 2-byte elements (<u8,u8>, <u16,u16>) against the CPU, in both
/// tiers: the out-of-line kernels take a block's full tiles two at a time where a thread's items
/// of a tile are at most 32 bytes (jit_ops/cupar_reduce.cuh), so the sizes give blocks one, two
/// and three full tiles with and without a partial one, and the misaligned arrays take the
/// striped path. Integer-valued data and wrapping unsigned sums: the results are exact whatever
/// the order.
TEST(JitRuntime, WideningTransformReduceMatchesTheCpuInBothTiers) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t tile = 256 * 8;  // the sets' tile: 256 threads, 8 items
  const std::size_t grid = 5 * 132;  // the tier-1 grid on 132 SMs (others differ: sizes vary)
  const std::vector<std::size_t> sizes = cupar::testing::scaled(std::vector<std::size_t>{
      0, 1, 7, tile - 1, tile, tile + 1, 2 * tile + 3, grid * tile, grid * tile * 2 + 5,
      grid * tile * 3 + 5 * tile + 37, (std::size_t(1) << 24) + 5});
  const std::size_t most = sizes.back() + 1;
  std::vector<float> hf(most);
  std::vector<std::int32_t> hi(most);
  std::vector<std::uint32_t> hu(most);
  std::vector<std::uint8_t> h8(most);
  std::vector<std::uint16_t> h16(most);
  for (std::size_t i = 0; i < most; ++i) {
    h8[i] = static_cast<std::uint8_t>(i * 2654435761u >> 7);
    h16[i] = static_cast<std::uint16_t>(i * 2246822519u >> 5);
    hf[i] = static_cast<float>(static_cast<int>((i * 2654435761u) % 13) - 6);
    hi[i] = static_cast<std::int32_t>((i * 2654435761u) % 2000000001u) - 1000000000;
    hu[i] = static_cast<std::uint32_t>(i * 2246822519u);
  }
  cupar::device_buffer<float> df(hf, s);
  cupar::device_buffer<std::int32_t> di(hi, s);
  cupar::device_buffer<std::uint32_t> du(hu, s);
  cupar::device_buffer<std::uint8_t> d8(h8, s);
  cupar::device_buffer<std::uint16_t> d16(h16, s);
  const std::string salt = std::to_string(::getpid());
  const op count_f("x > 0.5f ? 1ull : 0ull + 0 * " + salt);
  const op wide_f("(double)x * 2.0 + 0 * " + salt);
  const op wide_i("(long long)x * 3 + 0 * " + salt);
  const op count_u("x % 3u == 0u ? 1ull : 0ull + 0 * " + salt);
  const op thrice("x * 3 + 0 * " + salt);
  const auto mode = cupar::jit::get_mode();
  for (const auto m : {cupar::jit::mode::fast, cupar::jit::mode::optimized}) {
    cupar::jit::clear_memory_cache();
    cupar::jit::set_mode(m);
    for (std::size_t n : sizes) {
      for (std::size_t skip : {std::size_t(0), std::size_t(1)}) {
        if (n + skip > most) continue;
        SCOPED_TRACE("mode " + std::to_string(static_cast<int>(m)) + ", n = " +
                     std::to_string(n) + ", offset " + std::to_string(skip));
        unsigned long long cf = 0, cu = 0;
        double sf = 0;
        long long si = 0;
        std::uint8_t s8 = 5;
        std::uint16_t s16 = 5;
        for (std::size_t i = skip; i < skip + n; ++i) {
          s8 = static_cast<std::uint8_t>(s8 + static_cast<std::uint8_t>(h8[i] * 3));
          s16 = static_cast<std::uint16_t>(s16 + static_cast<std::uint16_t>(h16[i] * 3));
          cf += hf[i] > 0.5f ? 1 : 0;
          sf += static_cast<double>(hf[i]) * 2.0;
          si += static_cast<long long>(hi[i]) * 3;
          cu += hu[i] % 3u == 0u ? 1 : 0;
        }
        EXPECT_EQ((cupar::transform_reduce_value<float, unsigned long long>(
                      df.data() + skip, n, count_f, cupar::jit::plus, 7ull, s)),
                  cf + 7);
        EXPECT_EQ((cupar::transform_reduce_value<float, double>(df.data() + skip, n, wide_f,
                                                                cupar::jit::plus, 0.0, s)),
                  sf);
        EXPECT_EQ((cupar::transform_reduce_value<std::int32_t, long long>(
                      di.data() + skip, n, wide_i, cupar::jit::plus, 0ll, s)),
                  si);
        EXPECT_EQ((cupar::transform_reduce_value<std::uint32_t, unsigned long long>(
                      du.data() + skip, n, count_u, cupar::jit::plus, 0ull, s)),
                  cu);
        EXPECT_EQ((cupar::transform_reduce_value<std::uint8_t, std::uint8_t>(
                      d8.data() + skip, n, thrice, cupar::jit::plus, std::uint8_t(5), s)),
                  s8);
        EXPECT_EQ((cupar::transform_reduce_value<std::uint16_t, std::uint16_t>(
                      d16.data() + skip, n, thrice, cupar::jit::plus, std::uint16_t(5), s)),
                  s16);
      }
    }
  }
  cupar::jit::set_mode(mode);
}

TEST(JitRuntime, TieredBuildUpgradesToTheOptimisedKernels) {
  CUPAR_REQUIRE_GPU();
  if (!cupar::testing::precompiled_here("reduce<i32>")) {
    GTEST_SKIP() << "reduce<i32> is not precompiled in this build (CUPAR_JIT_PRECOMPILE_FILTER "
                    "or _TYPES): its operators compile the kernels from source, with no tiers";
  }
  owned_stream s;
  const std::vector<int> h(5000, 3);
  cupar::device_buffer<int> in(h, s);
  const auto mode = cupar::jit::get_mode();
  cupar::jit::set_mode(cupar::jit::mode::tiered);
  const direct_budget never(0);  // the quick build first, whatever earlier builds took
  const op o("a + b" + std::string(" + 0 * ") + std::to_string(::getpid()));
  const auto before = cupar::jit::get_stats();
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), o, 0, s), 15000);
  cupar::jit::wait_for_background_builds();
  const auto mid = cupar::jit::get_stats();
  EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), o, 0, s), 15000);
  const auto after = cupar::jit::get_stats();
  cupar::jit::set_mode(mode);
  EXPECT_GE(mid.background_builds, before.background_builds + 1);
  // Issue 28: the optimised build is loaded (and its kernels resolved) in the background, so the
  // call that switches to it loads nothing.
  EXPECT_GE(mid.loads, before.loads + 2) << "the quick build and the optimised one";
  EXPECT_EQ(after.upgrades, mid.upgrades + 1) << "the next call switches to the optimised build";
  EXPECT_EQ(after.loads, mid.loads) << "the switching call loaded a binary itself";
  // Where the first call's quick build spent its time (stats::quick_*).
  EXPECT_EQ(mid.quick_builds, before.quick_builds + 1);
  EXPECT_GT(mid.quick_compile_ms, before.quick_compile_ms);
  EXPECT_GT(mid.quick_link_ms, before.quick_link_ms);
  EXPECT_GT(mid.quick_load_ms, before.quick_load_ms);
  EXPECT_GE(mid.quick_pool_wait_ms, before.quick_pool_wait_ms);
  EXPECT_EQ(after.quick_builds, mid.quick_builds) << "the switching call made a quick build";
  // The process's first tiered quick build with an operator to compile (this one, or one of an
  // earlier test) was linked with LTO in place of the pool's warm-up; 0 would mean that build
  // failed and fell back to the usual one.
  EXPECT_GE(mid.quick_lto_links, 1u);
}

// Issue 28, item 1: once a set's optimised build has been timed within the direct budget, a
// new operator on it gets the optimised build before its first call returns: no quick build,
// nothing in the background, no switch; with the budget 0 the quick build comes first again.
TEST(JitRuntime, TieredBuildIsOptimisedAtOnceWhereTheSetsBuildsAreQuick) {
  CUPAR_REQUIRE_GPU();
  if (!cupar::testing::precompiled_here("reduce<u64>")) {
    GTEST_SKIP() << "reduce<u64> is not precompiled in this build: its operators compile the "
                    "kernels from source, with no tiers";
  }
  owned_stream s;
  const std::vector<unsigned long long> h(70001, 2);
  cupar::device_buffer<unsigned long long> in(h, s);
  const auto mode = cupar::jit::get_mode();
  cupar::jit::set_mode(cupar::jit::mode::tiered);
  const auto made = [](int k) {
    return op("a + b + 0 * " + std::to_string(::getpid()) + "ull * " + std::to_string(k));
  };
  {
    const direct_budget any(1e9);  // every timed set qualifies
    // The set's first operator here, or a later one: either way its optimised build is timed.
    EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), made(1), 0ull, s), 140002ull);
    cupar::jit::wait_for_background_builds();
    const auto before = cupar::jit::get_stats();
    EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), made(2), 0ull, s), 140002ull);
    const auto first = cupar::jit::get_stats();
    EXPECT_EQ(first.direct_builds, before.direct_builds + 1) << "the optimised build, at once";
    EXPECT_EQ(first.links, before.links + 1) << "one link: no quick build before it";
    EXPECT_EQ(first.loads, before.loads + 1);
    cupar::jit::wait_for_background_builds();
    EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), made(2), 0ull, s), 140002ull);
    const auto second = cupar::jit::get_stats();
    EXPECT_EQ(second.background_builds, first.background_builds) << "nothing queued";
    EXPECT_EQ(second.upgrades, first.upgrades) << "nothing to switch to";
    EXPECT_EQ(second.links, first.links);
  }
  {
    const direct_budget never(0);
    const auto before = cupar::jit::get_stats();
    EXPECT_EQ(cupar::reduce_value(in.data(), h.size(), made(3), 0ull, s), 140002ull);
    cupar::jit::wait_for_background_builds();
    const auto after = cupar::jit::get_stats();
    EXPECT_EQ(after.direct_builds, before.direct_builds);
    EXPECT_EQ(after.background_builds, before.background_builds + 1) << "quick build, then the "
                                                                        "optimised one queued";
  }
  cupar::jit::set_mode(mode);
}

TEST(JitRuntime, DiskCacheServesASecondProcessAndRejectsCorruptEntries) {
  CUPAR_REQUIRE_GPU();
  if (const char* child = std::getenv("CUPAR_TEST_CHILD")) {
    // Child process: build the operator named by the parent, report the counters.
    owned_stream s;
    const std::vector<float> h = {1, 2, 3};
    cupar::device_buffer<float> in(h, s);
    const float v = cupar::reduce_value(in.data(), 3, op(child), 0.0f, s);
    const auto st = cupar::jit::get_stats();
    std::printf("CHILD value=%g disk_hits=%llu compiles=%llu rejects=%llu\n", v,
                static_cast<unsigned long long>(st.disk_hits),
                static_cast<unsigned long long>(st.operator_compiles + st.kernel_compiles),
                static_cast<unsigned long long>(st.disk_rejects));
    return;
  }
  const fs::path dir =
      fs::temp_directory_path() / ("cupar-cache-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string source = "a + b" + unique_suffix();
  auto run_child = [&](const std::string& label) {
    const std::string out = (dir / (label + ".out")).string();
    // The sharding variables are dropped: under a sharded run (scripts/sanitize.py) the child
    // would otherwise run its one test only if it fell in the parent's shard.
    const std::string cmd =
        "env -u CUPAR_DISABLE_DISK_CACHE -u GTEST_SHARD_INDEX "
        "-u GTEST_TOTAL_SHARDS -u GTEST_SHARD_STATUS_FILE CUPAR_CACHE_DIR='" +
        dir.string() + "' CUPAR_JIT_MODE=optimized CUPAR_TEST_CHILD='" + source + "' '" +
        fs::read_symlink("/proc/self/exe").string() +
        "' --gtest_filter=JitRuntime.DiskCacheServesASecondProcess* > '" + out + "' 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out);
    std::string line, result;
    while (std::getline(in, line)) {
      if (line.rfind("CHILD", 0) == 0) result = line;
    }
    return result;
  };
  const std::string first = run_child("first");
  EXPECT_NE(first.find("value=6 disk_hits=0 compiles=1"), std::string::npos) << first;
  const std::string second = run_child("second");
  EXPECT_NE(second.find("value=6 disk_hits=1 compiles=0"), std::string::npos) << second;
  // Truncate every entry: the next process must reject and rebuild, not load it.
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cupar") continue;
    fs::resize_file(e.path(), fs::file_size(e.path()) / 2);
  }
  const std::string third = run_child("third");
  EXPECT_NE(third.find("value=6 disk_hits=0 compiles=1 rejects=1"), std::string::npos) << third;
  // Garbage of the right size is rejected by the checksum.
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".cupar") continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(e.path()) / 2));
    const char junk[16] = "not a cubin at!";
    f.write(junk, sizeof junk);
  }
  const std::string fourth = run_child("fourth");
  EXPECT_NE(fourth.find("value=6 disk_hits=0 compiles=1 rejects=1"), std::string::npos) << fourth;
  const std::string fifth = run_child("fifth");
  EXPECT_NE(fifth.find("value=6 disk_hits=1 compiles=0"), std::string::npos) << fifth;
  fs::remove_all(dir);
}

TEST(JitRuntime, ABadOperatorLeavesTheLibraryWorking) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::vector<int> h = {1, 2, 3};
  cupar::device_buffer<int> in(h, s), out(3, s);
  EXPECT_THROW(cupar::reduce(in.data(), out.data(), 3, op("a +* b"), 0, s), cupar::jit_error);
  EXPECT_THROW(cupar::transform(in.data(), out.data(), 3, op("undefined_thing(x)"), s),
               cupar::jit_error);
  // No error is left pending: the next calls (JIT and runtime) work.
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cupar::reduce_value(in.data(), 3, op("a + b"), 10, s), 16);
  cupar::inclusive_scan(in.data(), out.data(), 3, cupar::jit::plus, s);
  EXPECT_EQ(out.to_host(), (std::vector<int>{1, 3, 6}));
}

TEST(JitRuntime, PlansRunLikeTheFreeFunctions) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 100003;
  const auto h = cupar::testing::random_values<int>(n, 9, -100, 100);
  cupar::device_buffer<int> in(h, s), out(n, s), keys(n, s);
  cupar::jit::reduce_plan<int> sum(op("a + b"));
  EXPECT_EQ(sum.value(in.data(), n, 5, s), std::accumulate(h.begin(), h.end(), 5));
  cupar::jit::reduce_plan<int> named(cupar::jit::maximum);
  EXPECT_EQ(named.value(in.data(), n, INT_MIN, s), *std::max_element(h.begin(), h.end()));
  cupar::jit::scan_plan<int> scan(op("a + b"), true);
  scan.inclusive(in.data(), out.data(), n, s);
  std::vector<int> ref(n);
  std::inclusive_scan(h.begin(), h.end(), ref.begin());
  EXPECT_EQ(out.to_host(), ref);
  EXPECT_THROW(scan.exclusive(in.data(), out.data(), n, 0, s), std::invalid_argument);
  cupar::jit::transform_plan<int, int> affine(op("x * k").param("k", 3));
  affine(in.data(), out.data(), n, s);
  auto got = out.to_host();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], h[i] * 3);
  affine.set("k", -1);
  affine(in.data(), out.data(), n, s);
  got = out.to_host();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(got[i], -h[i]);
  cupar::jit::sort_plan<int> descending(op("a > b"));
  descending(in.data(), keys.data(), n, s);
  auto sorted = h;
  std::sort(sorted.begin(), sorted.end(), std::greater<int>());
  EXPECT_EQ(keys.to_host(), sorted);
}

struct trade {
  float price;
  int quantity;
};
CUPAR_JIT_TYPE(trade, "trade", "struct trade { float price; int quantity; };")

TEST(JitRuntime, UserStructsThroughEveryFamily) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 5000;
  std::vector<trade> h(n);
  for (std::size_t i = 0; i < n; ++i)
    h[i] = {static_cast<float>((i * 37) % 101), int(i % 7)};
  cupar::device_buffer<trade> in(h, s), out(n, s);
  // reduce: total quantity and the highest price.
  const trade r = cupar::reduce_value(
      in.data(), n, op("trade{a.price > b.price ? a.price : b.price, a.quantity + b.quantity}"),
      trade{0.0f, 0}, s);
  int qty = 0;
  float top = 0;
  for (const auto& t : h)
    qty += t.quantity, top = std::max(top, t.price);
  EXPECT_EQ(r.quantity, qty);
  EXPECT_EQ(r.price, top);
  // scan, transform to another type, stable sort by price, histogram of prices.
  cupar::inclusive_scan(in.data(), out.data(), n, op("trade{b.price, a.quantity + b.quantity}"), s);
  EXPECT_EQ(out.to_host().back().quantity, qty);
  cupar::device_buffer<double> notional(n, s);
  cupar::transform(in.data(), notional.data(), n, op("double(x.price) * x.quantity"), s);
  const auto nh = notional.to_host();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(nh[i], double(h[i].price) * h[i].quantity);
  cupar::stable_sort_keys(in.data(), out.data(), n, op("a.price < b.price"), s);
  auto ref = h;
  std::stable_sort(ref.begin(), ref.end(),
                   [](const trade& a, const trade& b) { return a.price < b.price; });
  const auto sorted = out.to_host();
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(sorted[i].price, ref[i].price);
    ASSERT_EQ(sorted[i].quantity, ref[i].quantity);
  }
  cupar::device_buffer<unsigned> bins(10, s);
  cupar::histogram_even(in.data(), bins.data(), 11, 0.0f, 101.0f, n, op("x.price"), s);
  std::vector<unsigned> ref_bins(10, 0);
  for (const auto& t : h) {
    const int b = static_cast<int>((t.price - 0.0f) * (10.0f / 101.0f));
    if (b >= 0 && b < 10) ref_bins[b]++;
  }
  EXPECT_EQ(bins.to_host(), ref_bins);
}

namespace {

struct rgb {  // 12 bytes, no merge sort set of its own
  float r, g, b;
};
struct tagged {  // 8 bytes at alignment 4: takes the 8-byte set when its arrays are 8-aligned
  float weight;
  std::uint32_t tag;
};
struct wide24 {  // 24 bytes at alignment 8
  double a;
  std::uint64_t b;
  std::uint32_t c, d;
};

/// Payload i: a value that names its input position i, so a moved or lost payload shows.
template <class V>
V payload_of(std::size_t i) {
  const auto u = static_cast<std::uint32_t>(i);
  if constexpr (std::is_same_v<V, std::uint16_t>) {
    return static_cast<std::uint16_t>(u * 40503u);
  } else if constexpr (std::is_same_v<V, rgb>) {
    return {static_cast<float>(u), static_cast<float>(u % 7), -static_cast<float>(u)};
  } else if constexpr (std::is_same_v<V, tagged>) {
    return {static_cast<float>(u) * 0.5f, ~u};
  } else {
    return {static_cast<double>(u) + 0.25, std::uint64_t(u) << 20 | 5u, u, u ^ 0xABCDu};
  }
}

template <class V>
bool same_bytes(const V& x, const V& y) {
  return std::memcmp(&x, &y, sizeof(V)) == 0;
}

/// Stable sort of (key, payload) pairs by a snippet comparator, against std::stable_sort, out of
/// place and in place.
template <class K, class V>
void check_sort_pairs_by_index(const char* comparator, bool descending, std::size_t n,
                               cupar::stream_ref s) {
  SCOPED_TRACE(std::string("payload of ") + std::to_string(sizeof(V)) +
               " bytes, n = " + std::to_string(n));
  const auto keys = cupar::testing::random_values<K>(n, 90 + n, -50, 50);  // many equal keys
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i)
    values[i] = payload_of<V>(i);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return descending ? keys[b] < keys[a] : keys[a] < keys[b];
  });
  const op comp(comparator);
  cupar::device_buffer<K> k_in(keys, s), k_out(n, s);
  cupar::device_buffer<V> v_in(values, s), v_out(n, s);
  for (int in_place = 0; in_place < 2; ++in_place) {
    SCOPED_TRACE(in_place ? "in place" : "out of place");
    if (in_place) {
      k_out.copy_from_host(keys.data(), n);
      v_out.copy_from_host(values.data(), n);
      cupar::stable_sort_pairs(k_out.data(), k_out.data(), v_out.data(), v_out.data(), n, comp, s);
    } else {
      cupar::stable_sort_pairs(k_in.data(), k_out.data(), v_in.data(), v_out.data(), n, comp, s);
    }
    const auto got_k = k_out.to_host();
    const auto got_v = v_out.to_host();
    ASSERT_EQ(got_k.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(got_k[i], keys[order[i]]) << "key at " << i;
      ASSERT_TRUE(same_bytes(got_v[i], values[order[i]])) << "payload at " << i;
    }
  }
}

}  // namespace

// Merge sort pairs whose payload has no precompiled set (2 bytes, 12- and 24-byte structs, an
// 8-byte struct of alignment 4) sort the keys with an index payload and gather the values: only
// the comparator is compiled, never CUB's kernels from source (they took 2-3 s an operator).
TEST(JitRuntime, SortPairsWithPayloadsOfNoSetCompileOnlyTheComparator) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const auto before = cupar::jit::get_stats();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(4353),
                        cupar::testing::scaled(std::size_t(300001))}) {
    check_sort_pairs_by_index<int, std::uint16_t>("a < b", false, n, s);
    check_sort_pairs_by_index<int, rgb>("b < a", true, n, s);
    check_sort_pairs_by_index<float, tagged>("a < b", false, n, s);
    check_sort_pairs_by_index<float, wide24>("b < a", true, n, s);
  }
  const auto after = cupar::jit::get_stats();
  if (cupar::testing::precompiled_here("merge_sort_pairs<i32,s4a4>") &&
      cupar::testing::precompiled_here("merge_sort_pairs<f32,s4a4>") &&
      cupar::testing::precompiled_here("merge_sort_pairs<f32,s8a8>")) {
    EXPECT_EQ(after.kernel_compiles, before.kernel_compiles);
  }
  EXPECT_GE(after.operator_compiles, before.operator_compiles);
}

// Histograms of struct samples with levels or counters the struct classes have no set for (range
// bins, integer and double levels, 64-bit counters): the operator maps the samples to the level
// type in one for_each pass and the precompiled histogram of that type bins them; only the
// operator compiles.
TEST(JitRuntime, HistogramsOfStructSamplesWithAnyLevelsCompileOnlyTheOperator) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const auto before = cupar::jit::get_stats();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4999),
                        cupar::testing::scaled(std::size_t(1000003))}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<trade> h(n);
    for (std::size_t i = 0; i < n; ++i)
      h[i] = {static_cast<float>((i * 37) % 101), int(i % 9) - 1};  // quantities -1..7
    cupar::device_buffer<trade> in(h, s);
    // Range bins over the price, f32 levels, 64-bit counters.
    const std::vector<float> levels = {0.0f, 10.0f, 25.5f, 50.0f, 101.0f};
    cupar::device_buffer<unsigned long long> range(levels.size() - 1, s);
    range.fill_bytes(0xFF);
    cupar::histogram_range(in.data(), range.data(), static_cast<int>(levels.size()), levels.data(),
                           n, op("x.price"), s);
    std::vector<unsigned long long> want_range(levels.size() - 1, 0);
    for (const auto& t : h)
      for (std::size_t b = 0; b + 1 < levels.size(); ++b)
        if (t.price >= levels[b] && t.price < levels[b + 1]) want_range[b]++;
    EXPECT_EQ(range.to_host(), want_range);
    // Even bins over the quantity, int levels [0, 7): -1 and 7 fall outside.
    cupar::device_buffer<unsigned> even_int(7, s);
    cupar::histogram_even(in.data(), even_int.data(), 8, 0, 7, n, op("x.quantity"), s);
    std::vector<unsigned> want_int(7, 0);
    for (const auto& t : h)
      if (t.quantity >= 0 && t.quantity < 7) want_int[t.quantity]++;
    EXPECT_EQ(even_int.to_host(), want_int);
    // Even bins of double levels over a computed value, 64-bit counters.
    cupar::device_buffer<unsigned long long> even_f64(10, s);
    cupar::histogram_even(in.data(), even_f64.data(), 11, 0.0, 101.0, n,
                          op("double(x.price) + 0.25 * x.quantity"), s);
    std::vector<unsigned long long> want_f64(10, 0);
    for (const auto& t : h) {
      const double v = double(t.price) + 0.25 * t.quantity;
      if (v >= 0.0 && v < 101.0) want_f64[static_cast<int>(v * (10.0 / 101.0))]++;
    }
    EXPECT_EQ(even_f64.to_host(), want_f64);
  }
  if (cupar::testing::precompiled_here("for_each<u64>")) {
    EXPECT_EQ(cupar::jit::get_stats().kernel_compiles, before.kernel_compiles);
  }
}
