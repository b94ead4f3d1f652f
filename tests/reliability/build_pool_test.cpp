// cupar tests: the pool of threads that makes the JIT's optimised builds in the background
// (src/jit/core/build_pool.hpp; issue 28: several new operators' builds at once, a clean exit).
// Host only: the jobs here are functions that wait on gates, so every ordering is forced, not
// hoped for.
#include "jit/core/build_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using cupar::detail::jit::build_pool;
using cupar::detail::jit::build_threads;
using namespace std::chrono_literals;

/// A gate jobs wait at until it opens; counts the jobs inside and the most inside at once.
class gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(m_);
    ++inside_;
    most_ = std::max(most_, inside_);
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    --inside_;
  }
  void open() {
    std::lock_guard<std::mutex> lock(m_);
    open_ = true;
    cv_.notify_all();
  }
  /// Waits until `n` jobs are inside (false after 10 s).
  bool wait_inside(int n) {
    std::unique_lock<std::mutex> lock(m_);
    return cv_.wait_for(lock, 10s, [&] { return inside_ >= n; });
  }
  int inside() {
    std::lock_guard<std::mutex> lock(m_);
    return inside_;
  }
  int most() {
    std::lock_guard<std::mutex> lock(m_);
    return most_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool open_ = false;
  int inside_ = 0, most_ = 0;
};

TEST(BuildPool, RunsEveryJobAndWaitIdleWaitsForThem) {
  build_pool pool(3, nullptr, nullptr);
  std::atomic<int> done{0};
  for (int i = 0; i < 50; ++i) {
    pool.submit(
        [&] {
          std::this_thread::sleep_for(1ms);
          done.fetch_add(1);
        },
        90);
  }
  pool.wait_idle();
  EXPECT_EQ(done.load(), 50);
  EXPECT_LE(pool.threads_started(), 3u);
}

TEST(BuildPool, RunsUpToItsSizeAtOnceAndNoMore) {
  build_pool pool(3, nullptr, nullptr);
  gate g;
  for (int i = 0; i < 6; ++i)
    pool.submit([&] { g.pass(); }, 90);
  ASSERT_TRUE(g.wait_inside(3)) << "three jobs should run at once on a pool of three";
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(g.inside(), 3) << "a fourth job ran while three held the pool";
  g.open();
  pool.wait_idle();
  EXPECT_EQ(g.most(), 3);
  EXPECT_EQ(pool.threads_started(), 3u);
}

TEST(BuildPool, StartsThreadsOnlyWhenJobsWait) {
  build_pool pool(4, nullptr, nullptr);
  for (int i = 0; i < 10; ++i) {
    pool.submit([] {}, 90);
    pool.wait_idle();  // one job at a time: the one thread takes each
  }
  EXPECT_EQ(pool.threads_started(), 1u);
}

TEST(BuildPool, WaitIdleDoesNotWaitForJobsSubmittedAfterIt) {
  build_pool pool(2, nullptr, nullptr);
  gate first, later;
  pool.submit([&] { first.pass(); }, 90);
  ASSERT_TRUE(first.wait_inside(1));
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    pool.wait_idle();
    returned = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(returned.load()) << "wait_idle returned while a job queued before it ran";
  pool.submit([&] { later.pass(); }, 90);  // after wait_idle began: not waited for
  ASSERT_TRUE(later.wait_inside(1));
  first.open();
  waiter.join();
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(later.inside(), 1) << "the later job is still running";
  later.open();
  pool.wait_idle();
}

TEST(BuildPool, WaitIdleWaitsForAnEarlierJobThatFinishesLast) {
  // Jobs finish out of order on several threads: a later job done must not count for an
  // earlier one still running.
  build_pool pool(2, nullptr, nullptr);
  gate slow;
  std::atomic<bool> slow_done{false};
  pool.submit(
      [&] {
        slow.pass();
        slow_done = true;
      },
      90);
  ASSERT_TRUE(slow.wait_inside(1));
  pool.submit([] {}, 90);
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    slow.open();
  });
  pool.wait_idle();
  EXPECT_TRUE(slow_done.load());
  opener.join();
}

TEST(BuildPool, StopDropsQueuedJobsAndWaitsForRunningOnes) {
  build_pool pool(1, nullptr, nullptr);
  gate g;
  std::atomic<bool> running_finished{false};
  std::atomic<int> queued_ran{0};
  pool.submit(
      [&] {
        g.pass();
        running_finished = true;
      },
      90);
  ASSERT_TRUE(g.wait_inside(1));
  for (int i = 0; i < 5; ++i)
    pool.submit([&] { queued_ran.fetch_add(1); }, 90);
  std::thread opener([&] {
    std::this_thread::sleep_for(100ms);
    g.open();
  });
  pool.stop();
  EXPECT_TRUE(running_finished.load()) << "stop returned while a job ran";
  EXPECT_EQ(queued_ran.load(), 0) << "queued jobs ran after stop";
  pool.submit([&] { queued_ran.fetch_add(1); }, 90);  // after stop: dropped
  pool.wait_idle();                                   // returns: nothing left
  EXPECT_EQ(queued_ran.load(), 0);
  pool.stop();  // idempotent
  opener.join();
}

TEST(BuildPool, WarmUpRunsFirstAndOnSettledOnceOnTheSubmittingThread) {
  std::atomic<int> warm_ups{0}, settled{0};
  std::atomic<bool> warm_done{false}, job_saw_warm{false}, settled_after_warm{false};
  std::thread::id settled_on;
  std::mutex id_mutex;
  build_pool pool(
      3,
      [&](int arch) {
        EXPECT_EQ(arch, 86);
        std::this_thread::sleep_for(50ms);
        warm_ups.fetch_add(1);
        warm_done = true;
      },
      [&] {
        settled.fetch_add(1);
        settled_after_warm = warm_done.load();
        std::lock_guard<std::mutex> lock(id_mutex);
        settled_on = std::this_thread::get_id();
      });
  pool.start(86);
  pool.start(86);  // idempotent
  for (int i = 0; i < 8; ++i)
    pool.submit([&] { job_saw_warm = warm_done.load(); }, 86);
  pool.wait_idle();
  EXPECT_EQ(warm_ups.load(), 1) << "only the first thread warms up";
  EXPECT_EQ(settled.load(), 1);
  EXPECT_TRUE(settled_after_warm.load()) << "on_settled ran before the warm-up finished";
  EXPECT_TRUE(job_saw_warm.load());
  std::lock_guard<std::mutex> lock(id_mutex);
  EXPECT_EQ(settled_on, std::this_thread::get_id());
}

TEST(BuildPool, SettleWithoutStartReturnsAtOnce) {
  std::atomic<int> settled{0};
  build_pool pool(2, nullptr, [&] { settled.fetch_add(1); });
  pool.settle();
  EXPECT_EQ(settled.load(), 0);
  EXPECT_EQ(pool.threads_started(), 0u);
  pool.start(90);
  pool.settle();
  pool.settle();
  EXPECT_EQ(settled.load(), 1);
}

// The engine's first tiered quick build links with LTO itself (engine.cpp): the pool then runs
// no warm-up, and the first submit settles at once, on the submitting thread.
TEST(BuildPool, WarmedHereSkipsTheWarmUpAndSettlesOnTheSubmittingThread) {
  std::atomic<int> warm_ups{0}, settled{0}, ran{0};
  std::thread::id settled_on;
  std::mutex id_mutex;
  build_pool pool(
      2, [&](int) { warm_ups.fetch_add(1); },
      [&] {
        settled.fetch_add(1);
        std::lock_guard<std::mutex> lock(id_mutex);
        settled_on = std::this_thread::get_id();
      });
  pool.warmed_here();
  for (int i = 0; i < 4; ++i)
    pool.submit([&] { ran.fetch_add(1); }, 90);
  pool.wait_idle();
  EXPECT_EQ(ran.load(), 4);
  EXPECT_EQ(warm_ups.load(), 0) << "the warm-up ran after warmed_here";
  EXPECT_EQ(settled.load(), 1);
  {
    std::lock_guard<std::mutex> lock(id_mutex);
    EXPECT_EQ(settled_on, std::this_thread::get_id());
  }
  pool.stop();
}

// warmed_here while the first thread's warm-up runs: settle() no longer waits for it, and stop()
// still joins it.
TEST(BuildPool, WarmedHereDuringAWarmUpLetsSettleGoOnAndStopJoinsIt) {
  std::atomic<bool> release{false}, warm_started{false}, warm_finished{false};
  std::atomic<int> settled{0};
  build_pool pool(
      1,
      [&](int) {
        warm_started = true;
        while (!release.load())
          std::this_thread::sleep_for(1ms);
        warm_finished = true;
      },
      [&] { settled.fetch_add(1); });
  pool.start(90);
  while (!warm_started.load())
    std::this_thread::sleep_for(1ms);
  pool.warmed_here();
  pool.settle();  // returns with the warm-up still running
  EXPECT_EQ(settled.load(), 1);
  EXPECT_FALSE(warm_finished.load());
  std::thread releaser([&] {
    std::this_thread::sleep_for(20ms);
    release = true;
  });
  pool.stop();
  EXPECT_TRUE(warm_finished.load()) << "stop() returned before the warm-up ended";
  releaser.join();
}

TEST(BuildPool, AThrowingJobLeavesThePoolWorking) {
  build_pool pool(1, nullptr, nullptr);
  std::atomic<int> done{0};
  pool.submit([] { throw 42; }, 90);
  pool.submit([&] { done.fetch_add(1); }, 90);
  pool.wait_idle();
  EXPECT_EQ(done.load(), 1);
}

TEST(BuildPool, SizeFromTheEnvironmentOrAQuarterOfTheCores) {
  EXPECT_EQ(build_threads("6", 16), 6u);
  EXPECT_EQ(build_threads("1", 2), 1u);
  EXPECT_EQ(build_threads("64", 2), 64u);
  // Not an integer from 1 to 64: the default.
  EXPECT_EQ(build_threads("0", 16), 4u);
  EXPECT_EQ(build_threads("65", 16), 4u);
  EXPECT_EQ(build_threads("3x", 16), 4u);
  EXPECT_EQ(build_threads("", 16), 4u);
  EXPECT_EQ(build_threads(nullptr, 16), 4u);
  EXPECT_EQ(build_threads(nullptr, 2), 1u);
  EXPECT_EQ(build_threads(nullptr, 12), 3u);
  EXPECT_EQ(build_threads(nullptr, 128), 4u);
  EXPECT_EQ(build_threads(nullptr, 0), 1u);
}

}  // namespace
