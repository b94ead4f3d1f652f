// cupar tests: device buffers, memory resources (the default pool, an RMM-shaped resource through
// cupar::resource_adaptor, failing and null-returning resources), streams (stream_ref, many
// streams at once).
#include "../common/counting_resource.hpp"
#include "../conformance/common.hpp"
#include "ops.cuh"

#include <cupar/cupar.cuh>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace cupar::testing {
namespace {

// --- stream_ref -----------------------------------------------------------------------------

// (stream_ref's compile-time construction rules are checked in tests/unit/unit_test.cpp.)

TEST(StreamRef, NamedDefaultStreams) {
  EXPECT_EQ(cupar::stream_ref::legacy_default().get(), cudaStreamLegacy);
  EXPECT_EQ(cupar::stream_ref::per_thread_default().get(), cudaStreamPerThread);
  EXPECT_NE(cupar::stream_ref::legacy_default(), cupar::stream_ref::per_thread_default());
  CUPAR_REQUIRE_GPU();
  const std::vector<int> h = {4, -1, 7, 2};
  for (cupar::stream_ref s :
       {cupar::stream_ref::legacy_default(), cupar::stream_ref::per_thread_default()}) {
    device_buffer<int> in(h, s), out(4, s);
    EXPECT_EQ(cupar::reduce_value(in.data(), 4, compiled_ops::plus<int>(), 0, s), 12);
    cupar::inclusive_scan(in.data(), out.data(), 4, compiled_ops::plus<int>(), s);
    EXPECT_EQ(out.to_host(), (std::vector<int>{4, 3, 10, 12}));
    cupar::sort_keys(in.data(), out.data(), 4, s);
    EXPECT_EQ(out.to_host(), (std::vector<int>{-1, 2, 4, 7}));
  }
}

// --- device_buffer --------------------------------------------------------------------------

TEST(DeviceBuffer, BadRangesAndSizesThrowBeforeAnyWork) {
  const cupar::stream_ref s = cupar::stream_ref::legacy_default();
  device_buffer<int> empty;
  int host[4] = {};
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.data(), nullptr);
  CUPAR_EXPECT_THROW_WITH(empty.copy_from_host(host, 1), std::invalid_argument,
                          "copy_from_host: range [0, 0 + 1) is outside the buffer of 0");
  CUPAR_EXPECT_THROW_WITH(empty.copy_to_host(host, 2, 1), std::invalid_argument,
                          "copy_to_host: range [1, 1 + 2) is outside the buffer of 0");
  CUPAR_EXPECT_THROW_WITH((device_buffer<double>(SIZE_MAX / 4, s)), std::invalid_argument,
                          "overflow size_t");
  if (!gpu_available()) return;
  device_buffer<int> four(4, s);
  CUPAR_EXPECT_THROW_WITH(four.copy_from_host(host, 5), std::invalid_argument,
                          "range [0, 0 + 5) is outside the buffer of 4");
  CUPAR_EXPECT_THROW_WITH(four.copy_from_host(host, 1, 4), std::invalid_argument,
                          "range [4, 4 + 1)");
  CUPAR_EXPECT_THROW_WITH(four.copy_to_host(host, SIZE_MAX, 2), std::invalid_argument,
                          "is outside the buffer of 4");
  CUPAR_EXPECT_THROW_WITH(four.copy_from_host(nullptr, 2), std::invalid_argument,
                          "host is null but n = 2");
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(DeviceBuffer, CopiesInAndOutWithOffsets) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const auto h = random_values<std::int64_t>(1000, 1, -1e12, 1e12);
  device_buffer<std::int64_t> b(h, stream);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.bytes(), 8000u);
  EXPECT_EQ(b.stream(), cupar::stream_ref(stream));
  EXPECT_EQ(b.to_host(), h);
  const std::vector<std::int64_t> patch = {1, 2, 3};
  b.copy_from_host(patch.data(), 3, 997);
  std::vector<std::int64_t> tail(5);
  b.copy_to_host(tail.data(), 5, 995);
  EXPECT_EQ(tail, (std::vector<std::int64_t>{h[995], h[996], 1, 2, 3}));
  // to_host(count): the first count elements only (what a select or unique wrote).
  EXPECT_EQ(b.to_host(3), (std::vector<std::int64_t>{h[0], h[1], h[2]}));
  EXPECT_TRUE(b.to_host(0).empty());
  EXPECT_EQ(b.to_host(1000), b.to_host());
  EXPECT_THROW(b.to_host(1001), std::invalid_argument);
  b.copy_from_host(patch.data(), 0, 1000);  // an empty range at the end is fine
  b.fill_bytes(0x01);
  EXPECT_EQ(b.to_host(), std::vector<std::int64_t>(1000, 0x0101010101010101LL));
  device_buffer<float> from_pointer(reinterpret_cast<const float*>(patch.data()), 4, stream);
  EXPECT_EQ(from_pointer.size(), 4u);
  device_buffer<char> none(0, stream);
  none.fill_bytes(0xFF);
  EXPECT_TRUE(none.to_host().empty());
}

TEST(DeviceBuffer, MovesTransferOwnershipAndFreeOnce) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  {
    device_buffer<int> a(std::vector<int>{1, 2, 3}, stream, mr);
    int* const pa = a.data();
    device_buffer<int> b(std::move(a));
    EXPECT_EQ(b.data(), pa);
    EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): documented empty state
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(b.to_host(), (std::vector<int>{1, 2, 3}));
    device_buffer<int> c(100, stream, mr);
    EXPECT_EQ(upstream.live_allocations(), 2u);
    c = std::move(b);  // c's old storage is given back
    EXPECT_EQ(c.data(), pa);
    EXPECT_EQ(upstream.live_allocations(), 1u);
    auto& self = c;
    c = std::move(self);
    EXPECT_EQ(c.data(), pa);
    EXPECT_EQ(c.to_host(), (std::vector<int>{1, 2, 3}));
    device_buffer<int> empty(0, stream, mr);  // nothing is allocated for no elements
    EXPECT_EQ(upstream.allocations(), 2u);
  }
  EXPECT_EQ(upstream.live_allocations(), 0u);
  EXPECT_EQ(upstream.deallocations(), 2u);
  EXPECT_EQ(upstream.mismatched(), 0u);
  EXPECT_EQ(upstream.other_stream_frees(), 0u);
}

TEST(DeviceBuffer, SetStreamMovesTheFinalDeallocation) {
  CUPAR_REQUIRE_GPU();
  owned_stream s1, s2;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  {
    device_buffer<int> b(64, s1, mr);
    b.fill_bytes(0);
    ASSERT_EQ(cudaStreamSynchronize(s1.get()), cudaSuccess);
    b.set_stream(s2);
    EXPECT_EQ(b.stream(), cupar::stream_ref(s2));
  }
  EXPECT_EQ(upstream.live_allocations(), 0u);
  EXPECT_EQ(upstream.other_stream_frees(), 1u) << "documented: freed on the new stream";
}

// --- resources ------------------------------------------------------------------------------

TEST(DefaultResource, IsOnePoolThatAlignsAndReportsOutOfMemory) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  EXPECT_EQ(&cupar::default_resource(), &cupar::default_resource());
  cupar::memory_resource& mr = cupar::default_resource();
  for (std::size_t bytes : {std::size_t(1), std::size_t(255), std::size_t(1) << 20}) {
    void* p = mr.allocate(bytes, stream);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 256, 0u) << bytes << " bytes";
    EXPECT_EQ(cudaMemsetAsync(p, 0x5A, bytes, stream.get()), cudaSuccess);
    mr.deallocate(p, bytes, stream);
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  const std::size_t huge = 2 * total_bytes;  // more than the device has
  try {
    (void)mr.allocate(huge, stream);
    ADD_FAILURE() << "expected cupar::out_of_memory";
  } catch (const cupar::out_of_memory& e) {
    EXPECT_EQ(e.bytes(), huge);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "no error left pending";
  // The failed attempt did not leave the pool holding the device's memory.
  std::size_t free_after = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_after, &total_bytes), cudaSuccess);
  EXPECT_GE(free_after, free_bytes / 2) << "free before " << free_bytes << ", after " << free_after;
  void* plain = nullptr;
  ASSERT_EQ(cudaMalloc(&plain, free_bytes / 4), cudaSuccess) << "memory for others after the OOM";
  ASSERT_EQ(cudaFree(plain), cudaSuccess);
  const std::vector<int> h = {1, 2, 3};
  device_buffer<int> in(h, stream);
  EXPECT_EQ(cupar::reduce_value(in.data(), 3, compiled_ops::plus<int>(), 0, stream), 6);
}

// The default resource keeps blocks given back on a stream for later allocations on that
// stream only (memory.hpp).
TEST(DefaultResource, KeepsBlocksForTheirOwnStreamOnly) {
  CUPAR_REQUIRE_GPU();
  cupar::release_cached_memory();
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  cupar::memory_resource& mr = cupar::default_resource();
  owned_stream a, b;
  void* p = mr.allocate(1000, a);
  mr.deallocate(p, 1000, a);
  EXPECT_GE(cupar::cached_memory_bytes(), 1000u);
  void* q = mr.allocate(900, a);  // same size class: the kept block, no CUDA call
  EXPECT_EQ(q, p);
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  mr.deallocate(q, 900, a);
  void* r = mr.allocate(1000, b);  // another stream never gets a's block
  EXPECT_NE(r, p);
  mr.deallocate(r, 1000, b);
  void* bigger = mr.allocate(5000, a);  // another size class
  EXPECT_NE(bigger, p);
  mr.deallocate(bigger, 5000, a);

  // A stream created after another was destroyed (it may get the same handle) does not see the
  // destroyed one's blocks.
  void* x = nullptr;
  cudaStream_t old_handle = nullptr;
  {
    owned_stream c;
    old_handle = c.get();
    x = mr.allocate(3000, c);
    ASSERT_EQ(cudaMemsetAsync(x, 1, 3000, c.get()), cudaSuccess);
    mr.deallocate(x, 3000, c);
    ASSERT_EQ(cudaStreamSynchronize(c.get()), cudaSuccess);
  }
  for (int i = 0; i < 4; ++i) {
    owned_stream d;
    void* y = mr.allocate(3000, d);
    EXPECT_NE(y, x) << "new stream " << (d.get() == old_handle ? "with the old handle" : "");
    mr.deallocate(y, 3000, d);
  }

  // Large blocks are not kept.
  const std::size_t kept = cupar::cached_memory_bytes();
  void* large = mr.allocate(std::size_t(100) << 20, a);
  mr.deallocate(large, std::size_t(100) << 20, a);
  EXPECT_EQ(cupar::cached_memory_bytes(), kept);

  // A stream being captured into a graph gets graph allocations, not kept blocks.
  ASSERT_EQ(cudaStreamBeginCapture(a.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  void* g = mr.allocate(1000, a);
  EXPECT_NE(g, p);
  mr.deallocate(g, 1000, a);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(a.get(), &graph), cudaSuccess);
  EXPECT_EQ(cupar::cached_memory_bytes(), kept);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);

  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cupar::release_cached_memory();
  EXPECT_EQ(cupar::cached_memory_bytes(), 0u);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> h = {1, 2, 3};
  device_buffer<int> in(h, a);
  EXPECT_EQ(cupar::reduce_value(in.data(), 3, compiled_ops::plus<int>(), 0, a), 6);
}

// Calls captured into a CUDA graph take graph allocations for their temporaries (never kept
// blocks), so the graph can be launched again and again.
TEST(DefaultResource, CallsCanBeCapturedIntoAGraph) {
  CUPAR_REQUIRE_GPU();
  owned_stream s;
  const std::size_t n = 100003;
  const auto h = random_values<std::uint32_t>(n, 11, 0, 1u << 20);
  std::vector<std::uint32_t> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  const std::uint32_t expected_sum = std::accumulate(h.begin(), h.end(), 0u);
  device_buffer<std::uint32_t> in(h, s), out(n, s), sum(1, s);
  const auto plus = compiled_ops::plus<std::uint32_t>();
  cupar::reduce(in.data(), sum.data(), n, plus, 0u, s);  // leaves kept blocks for the stream
  ASSERT_EQ(cudaStreamSynchronize(s.get()), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cupar::reduce(in.data(), sum.data(), n, plus, 0u, s);
  cupar::sort_keys(in.data(), out.data(), n, s);
  cupar::inclusive_scan(out.data(), out.data(), n, plus, s);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s.get(), &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  std::vector<std::uint32_t> scanned = sorted;
  std::partial_sum(scanned.begin(), scanned.end(), scanned.begin());
  for (int launch = 0; launch < 3; ++launch) {
    ASSERT_EQ(cudaMemsetAsync(out.data(), 0, n * sizeof(std::uint32_t), s.get()), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(sum.data(), 0, sizeof(std::uint32_t), s.get()), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s.get()), cudaSuccess);
    EXPECT_EQ(sum.to_host()[0], expected_sum) << "launch " << launch;
    EXPECT_EQ(out.to_host(), scanned) << "launch " << launch;
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  // And the stream works normally afterwards.
  EXPECT_EQ(cupar::reduce_value(in.data(), n, plus, 0u, s), expected_sum);
}

// CUPAR_KEEP_BLOCKS=0 (the ctest entry cupar_memory_no_keep_tests sets it): nothing is kept, and
// the blocks still serve every allocation.
TEST(DefaultResource, KeepsNothingWhenToldNot) {
  CUPAR_REQUIRE_GPU();
  const char* env = std::getenv("CUPAR_KEEP_BLOCKS");
  if (env == nullptr || std::string(env) != "0") {
    GTEST_SKIP() << "runs with CUPAR_KEEP_BLOCKS=0 (ctest: cupar_memory_no_keep_tests)";
  }
  cupar::memory_resource& mr = cupar::default_resource();
  owned_stream a;
  for (std::size_t bytes : {1000, 5000, 1 << 20}) {
    void* p = mr.allocate(bytes, a);
    ASSERT_NE(p, nullptr);
    ASSERT_EQ(cudaMemsetAsync(p, 1, bytes, a.get()), cudaSuccess);
    mr.deallocate(p, bytes, a);
    EXPECT_EQ(cupar::cached_memory_bytes(), 0u) << bytes;
  }
  ASSERT_EQ(cudaStreamSynchronize(a.get()), cudaSuccess);
}

// Threads on their own streams (more streams than the resource keeps blocks for), each calling
// algorithms whose temporaries come and go, with sizes that change from call to call: every
// result matches the CPU, so no block was handed to two streams at once.
TEST(DefaultResource, ReuseAcrossManyStreamsAndThreadsStaysCorrect) {
  CUPAR_REQUIRE_GPU();
  constexpr int threads = 8;
  constexpr int streams_per_thread = 10;  // 80 streams: more than the 64 the resource tracks
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([t, &failures] {
      try {
        std::vector<std::unique_ptr<owned_stream>> streams;
        for (int i = 0; i < streams_per_thread; ++i)
          streams.push_back(std::make_unique<owned_stream>());
        for (int round = 0; round < 3; ++round) {
          for (int i = 0; i < streams_per_thread; ++i) {
            const owned_stream& s = *streams[static_cast<std::size_t>(i)];
            const std::size_t n =
                1000 + std::size_t(7919) * std::size_t(t * 31 + i * 7 + round * 3) % 200000;
            const auto h =
                random_values<std::uint32_t>(n, std::uint64_t(t * 1000 + i * 10 + round), 0, 1000);
            device_buffer<std::uint32_t> in(h, s), out(n, s);
            const std::uint32_t sum =
                cupar::reduce_value(in.data(), n, compiled_ops::plus<std::uint32_t>(), 0u, s);
            cupar::sort_keys(in.data(), out.data(), n, s);
            cupar::inclusive_scan(in.data(), in.data(), n, compiled_ops::plus<std::uint32_t>(), s);
            std::vector<std::uint32_t> sorted = h, scanned = h;
            std::sort(sorted.begin(), sorted.end());
            std::partial_sum(scanned.begin(), scanned.end(), scanned.begin());
            if (sum != std::accumulate(h.begin(), h.end(), 0u) || out.to_host() != sorted ||
                in.to_host() != scanned) {
              ++failures;
            }
          }
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << e.what();
        ++failures;
      }
    });
  }
  for (auto& th : pool)
    th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

void expect_all_freed_on_their_streams(const counting_upstream& up) {
  EXPECT_EQ(up.live_allocations(), 0u);
  EXPECT_EQ(up.live_bytes(), 0u);
  EXPECT_EQ(up.mismatched(), 0u);
  EXPECT_EQ(up.other_stream_frees(), 0u);
  EXPECT_EQ(up.allocations(), up.deallocations());
}

struct odd_value {  // 12 bytes: radix-sorted through an index and a gather
  std::uint32_t a, b, c;
};

TEST(ResourceAdaptor, EveryFamilyTakesAndGivesBackItsTemporariesOnItsStream) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  const std::size_t n = 300007;
  const auto h = random_values<int>(n, 2, -1000, 1000);
  std::vector<int> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  std::size_t after_buffers = 0;
  {
    device_buffer<int> in(h, stream, mr), out(n, stream, mr), keys(h, stream, mr);
    device_buffer<int> one(1, stream, mr);
    device_buffer<odd_value> values(n, stream, mr);
    values.fill_bytes(0x3C);  // sorted along: initialised, so that initcheck sees no test defect
    device_buffer<std::uint64_t> hist(10, stream, mr);
    after_buffers = upstream.allocations();
    const auto plus = compiled_ops::plus<int>();
    cupar::reduce(in.data(), one.data(), n, plus, 0, stream, mr);
    const int sum = cupar::reduce_value(in.data(), n, plus, 0, stream, mr);
    EXPECT_EQ(one.to_host()[0], sum);
    EXPECT_EQ(sum, std::accumulate(h.begin(), h.end(), 0));
    cupar::inclusive_scan(in.data(), out.data(), n, plus, stream, mr);
    EXPECT_EQ(out.to_host().back(), sum);
    cupar::exclusive_scan(in.data(), in.data(), n, plus, 0, stream, mr);
    cupar::sort_keys(keys.data(), out.data(), n, stream, mr);
    EXPECT_EQ(out.to_host(), sorted);
    cupar::sort_keys(keys.data(), keys.data(), n, cupar::descending, stream, mr);  // in place
    cupar::sort_pairs(out.data(), out.data(), values.data(), values.data(), n, stream, mr);
    cupar::sort_keys(keys.data(), out.data(), n, compiled_ops::less<int>(), stream, mr);
    EXPECT_EQ(out.to_host(), sorted);
    cupar::stable_sort_pairs(keys.data(), keys.data(), values.data(), values.data(), n,
                             compiled_ops::less<int>(), stream, mr);
    cupar::histogram_even(out.data(), hist.data(), 11, -1000, 1000, n, stream, mr);
    const int levels[] = {-1000, 0, 1000};
    cupar::histogram_range(out.data(), hist.data(), 3, levels, n, stream, mr);
    cupar::histogram_even(out.data(), hist.data(), 11, -500, 501, n,
                          compiled_ops::halve<int, int>(), stream, mr);  // every x / 2
    const auto counts = hist.to_host();
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), std::uint64_t(0)),
              static_cast<std::uint64_t>(n));
    EXPECT_EQ(upstream.live_allocations(), 6u) << "only the buffers are live between calls";
  }
  EXPECT_GE(upstream.allocations(), after_buffers + 10);
  expect_all_freed_on_their_streams(upstream);
  EXPECT_EQ(upstream.streams(), (std::set<cudaStream_t>{stream.get()}));
}

// An RMM-shaped resource that fails (std::bad_alloc, as RMM does) at the k-th allocation, and
// counts like counting_upstream otherwise.
class failing_upstream {
 public:
  failing_upstream(counting_upstream& inner, std::size_t fail_at)
      : inner_(&inner), fail_at_(fail_at) {}
  void* allocate(std::size_t bytes, stream_view s) {
    if (++calls_ == fail_at_) throw std::bad_alloc();
    return inner_->allocate(bytes, s);
  }
  void deallocate(void* p, std::size_t bytes, stream_view s) { inner_->deallocate(p, bytes, s); }
  std::size_t calls() const { return calls_; }

 private:
  counting_upstream* inner_;
  std::size_t fail_at_;
  std::size_t calls_ = 0;
};

TEST(ResourceAdaptor, OutOfMemoryLeaksNothingAndTheNextCallWorks) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  const std::size_t n = std::size_t(1) << 22;
  const auto h = random_values<std::uint32_t>(n, 3, 0, 0xFFFFFFFFu);
  std::vector<std::uint32_t> sorted = h;
  std::sort(sorted.begin(), sorted.end());
  device_buffer<std::uint32_t> keys(h, stream), out(n, stream);
  device_buffer<odd_value> values(n, stream);
  values.fill_bytes(0x3C);  // initialised: the sorts copy it (initcheck reads that as a use)
  counting_upstream small(std::size_t(1) << 20);  // 1 MiB: far less than a sort of 16 MiB needs
  cupar::resource_adaptor small_mr{small};
  try {
    cupar::sort_keys(keys.data(), keys.data(), n, stream, small_mr);
    ADD_FAILURE() << "expected cupar::out_of_memory";
  } catch (const cupar::out_of_memory& e) {
    EXPECT_GT(e.bytes(), std::size_t(1) << 20);
  }
  EXPECT_THROW(
      cupar::sort_pairs(keys.data(), out.data(), values.data(), values.data(), n, stream, small_mr),
      cupar::out_of_memory);
  EXPECT_THROW(cupar::stable_sort_keys(keys.data(), out.data(), n,
                                       compiled_ops::less<std::uint32_t>(), stream, small_mr),
               cupar::out_of_memory);
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "no error left pending";
  expect_all_freed_on_their_streams(small);
  // The next calls, with the default resource, work (and the failed in-place sort left its
  // input as it was).
  EXPECT_EQ(keys.to_host(), h);
  cupar::sort_keys(keys.data(), out.data(), n, stream);
  EXPECT_EQ(out.to_host(), sorted);
  EXPECT_EQ(cupar::reduce_value(keys.data(), n, compiled_ops::maximum<std::uint32_t>(), 0u, stream),
            sorted.back());

  // Fail each allocation in turn of calls that make several (nested temporaries of the in-place
  // index sort; the result slot and temporaries of reduce_value; histogram levels): whichever
  // fails, everything taken before is given back.
  counting_upstream counted;
  auto sequence = [&](cupar::memory_resource& mr) {
    auto attempt = [&](auto&& call) {
      try {
        call();
      } catch (const cupar::out_of_memory&) {
      }
    };
    attempt([&] {
      cupar::sort_pairs(keys.data(), keys.data(), values.data(), values.data(), n,
                        cupar::descending, stream, mr);
    });
    attempt([&] {
      (void)cupar::reduce_value(keys.data(), n, compiled_ops::plus<std::uint32_t>(), 0u, stream,
                                mr);
    });
    attempt([&] {
      const std::uint32_t levels[] = {0, 1u << 30, 3u << 30};
      device_buffer<std::uint32_t> hist(2, stream, mr);
      cupar::histogram_range(keys.data(), hist.data(), 3, levels, n, stream, mr);
    });
  };
  // How many allocations the sequence makes when none fails, then fail each in turn.
  std::size_t total = 0;
  {
    failing_upstream never(counted, std::size_t(-1));
    cupar::resource_adaptor mr{never};
    sequence(mr);
    total = never.calls();
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    expect_all_freed_on_their_streams(counted);
  }
  ASSERT_GE(total, 3u);
  for (std::size_t k = 1; k <= total; ++k) {
    SCOPED_TRACE("allocation " + std::to_string(k) + " of " + std::to_string(total) + " fails");
    failing_upstream failing(counted, k);
    cupar::resource_adaptor mr{failing};
    sequence(mr);
    EXPECT_GE(failing.calls(), k);
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    expect_all_freed_on_their_streams(counted);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

// Resources that break the contract by returning null instead of throwing.
class null_resource final : public cupar::memory_resource {
 private:
  void* do_allocate(std::size_t, cupar::stream_ref) override { return nullptr; }
  void do_deallocate(void*, std::size_t, cupar::stream_ref) noexcept override { ++frees; }

 public:
  std::size_t frees = 0;
};
struct null_upstream {
  void* allocate(std::size_t, stream_view) { return nullptr; }
  void deallocate(void*, std::size_t, stream_view) {}
};

template <class Mr>
void expect_null_refused(Mr& mr, cupar::stream_ref stream) {
  const std::size_t n = 100000;
  const auto h = random_values<float>(n, 4, -1, 1);
  device_buffer<float> in(h, stream), out(n, stream);
  device_buffer<std::uint32_t> hist(4, stream);
  const auto plus = compiled_ops::plus<float>();
  EXPECT_THROW(cupar::reduce(in.data(), out.data(), n, plus, 0.0f, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW((void)cupar::reduce_value(in.data(), n, plus, 0.0f, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW(cupar::inclusive_scan(in.data(), out.data(), n, plus, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW(cupar::exclusive_scan(in.data(), out.data(), n, plus, 1.0f, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW(cupar::sort_keys(in.data(), out.data(), n, stream, mr), cupar::out_of_memory);
  EXPECT_THROW(cupar::sort_keys(out.data(), out.data(), n, cupar::descending, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW(cupar::sort_keys(in.data(), out.data(), n, compiled_ops::less<float>(), stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW(cupar::histogram_even(in.data(), hist.data(), 5, -1.0f, 1.0f, n, stream, mr),
               cupar::out_of_memory);
  const float levels[] = {-1.0f, 0.0f, 1.0f};
  EXPECT_THROW(cupar::histogram_range(in.data(), hist.data(), 3, levels, n, stream, mr),
               cupar::out_of_memory);
  EXPECT_THROW((device_buffer<float>(10, stream, mr)), cupar::out_of_memory);
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_TRUE(bitwise_equal(in.to_host(), h));
  long double sum = 0;
  for (float x : h)
    sum += x;
  EXPECT_NEAR(cupar::reduce_value(in.data(), n, plus, 0.0f, stream), static_cast<double>(sum),
              sum_tolerance<float>(n, static_cast<double>(n)));
}

TEST(NullReturningResource, IsReportedAsOutOfMemoryNotACrash) {
  CUPAR_REQUIRE_GPU();
  owned_stream stream;
  null_resource direct;
  expect_null_refused(direct, stream);
  EXPECT_EQ(direct.frees, 0u) << "null was never handed back as if it were memory";
  null_upstream upstream;
  cupar::resource_adaptor adapted{upstream};
  expect_null_refused(adapted, stream);
}

// --- many streams ---------------------------------------------------------------------------

struct stream_work {
  std::vector<int> h;
  std::vector<int> sorted;
  long long sum = 0;
  std::unique_ptr<device_buffer<int>> in, reduced, scanned, radix, merged;
};

void queue_work(stream_work& w, cupar::stream_ref s, cupar::memory_resource& mr) {
  const std::size_t n = w.h.size();
  w.in = std::make_unique<device_buffer<int>>(w.h, s, mr);
  w.reduced = std::make_unique<device_buffer<int>>(1, s, mr);
  w.scanned = std::make_unique<device_buffer<int>>(n, s, mr);
  w.radix = std::make_unique<device_buffer<int>>(n, s, mr);
  w.merged = std::make_unique<device_buffer<int>>(n, s, mr);
  cupar::reduce(w.in->data(), w.reduced->data(), n, compiled_ops::plus<int>(), 0, s, mr);
  cupar::inclusive_scan(w.in->data(), w.scanned->data(), n, compiled_ops::plus<int>(), s, mr);
  cupar::sort_keys(w.in->data(), w.radix->data(), n, s, mr);
  cupar::sort_keys(w.in->data(), w.merged->data(), n, compiled_ops::less<int>(), s, mr);
}

void check_work(stream_work& w) {
  EXPECT_EQ(w.reduced->to_host()[0], static_cast<int>(w.sum));
  const auto scanned = w.scanned->to_host();
  EXPECT_EQ(scanned.back(), static_cast<int>(w.sum));
  std::vector<int> ref(w.h.size());
  std::partial_sum(w.h.begin(), w.h.end(), ref.begin());
  EXPECT_EQ(scanned, ref);
  EXPECT_EQ(w.radix->to_host(), w.sorted);
  EXPECT_EQ(w.merged->to_host(), w.sorted);
  w.in.reset();
  w.reduced.reset();
  w.scanned.reset();
  w.radix.reset();
  w.merged.reset();
}

std::vector<stream_work> make_work(std::size_t streams) {
  std::vector<stream_work> work(streams);
  for (std::size_t i = 0; i < streams; ++i) {
    auto& w = work[i];
    w.h = random_values<int>((std::size_t(1) << 20) + 1000 * i, 10 + i, -1000, 1000);
    w.sorted = w.h;
    std::sort(w.sorted.begin(), w.sorted.end());
    w.sum = std::accumulate(w.h.begin(), w.h.end(), 0LL);
  }
  return work;
}

TEST(ManyStreams, AllQueuedThenSynchronisedOnOneCountingResource) {
  CUPAR_REQUIRE_GPU();
  constexpr std::size_t count = 6;
  std::vector<std::unique_ptr<owned_stream>> streams;
  for (std::size_t i = 0; i < count; ++i)
    streams.push_back(std::make_unique<owned_stream>());
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  auto work = make_work(count);
  for (std::size_t i = 0; i < count; ++i)
    queue_work(work[i], *streams[i], mr);
  for (auto& s : streams)
    ASSERT_EQ(cudaStreamSynchronize(s->get()), cudaSuccess);
  for (std::size_t i = 0; i < count; ++i) {
    SCOPED_TRACE("stream " + std::to_string(i));
    check_work(work[i]);
  }
  expect_all_freed_on_their_streams(upstream);
  std::set<cudaStream_t> all;
  for (auto& s : streams)
    all.insert(s->get());
  EXPECT_EQ(upstream.streams(), all);
}

TEST(ManyStreams, OneHostThreadPerStream) {
  CUPAR_REQUIRE_GPU();
  constexpr std::size_t count = 4;
  std::vector<std::unique_ptr<owned_stream>> streams;  // outlive the buffers freed on them
  for (std::size_t i = 0; i < count; ++i)
    streams.push_back(std::make_unique<owned_stream>());
  counting_upstream upstream;
  cupar::resource_adaptor mr{upstream};
  auto work = make_work(count);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < count; ++i) {
    threads.emplace_back([&, i] {
      try {
        for (int round = 0; round < 3; ++round) {
          queue_work(work[i], *streams[i], mr);
          // Default-resource calls interleaved from the other threads as well.
          const int s = cupar::reduce_value(work[i].in->data(), work[i].h.size(),
                                            compiled_ops::plus<int>(), 0, *streams[i]);
          if (s != static_cast<int>(work[i].sum)) ++failures;
          if (cudaStreamSynchronize(streams[i]->get()) != cudaSuccess) ++failures;
          if (work[i].radix->to_host() != work[i].sorted) ++failures;
          if (work[i].merged->to_host() != work[i].sorted) ++failures;
        }
      } catch (...) {
        ++failures;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  for (std::size_t i = 0; i < count; ++i)
    check_work(work[i]);
  expect_all_freed_on_their_streams(upstream);
  EXPECT_EQ(upstream.streams().size(), count);
}

}  // namespace
}  // namespace cupar::testing
