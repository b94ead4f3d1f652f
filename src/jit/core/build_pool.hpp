// cupar internal: the pool of threads that makes the optimised (tier-2) builds in the background.
// Generic (jobs are functions; no CUDA, no NVRTC): the engine gives it the warm-up link and the
// exit handler's registration (engine.cpp, "background builds").
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace cupar::detail::jit {

/// Runs jobs on up to `threads` threads, taken from the queue in submission order (several run
/// at once; each may finish in any order).
///
/// Threads start lazily: the first by start() or the first submit(); another whenever a job is
/// queued that no idle thread will take, up to `threads`. The first thread runs `warm_up(arch)`
/// before any job (unless warmed_here() came first); the first submit() or settle() after start
/// waits for that warm-up and then
/// calls `on_settled` once, on its own thread (the engine registers its exit handler there, so
/// that the handler runs before the destructors nvJitLink registers during its first link).
class build_pool {
 public:
  build_pool(std::size_t threads, std::function<void(int)> warm_up,
             std::function<void()> on_settled);
  build_pool(const build_pool&) = delete;
  build_pool& operator=(const build_pool&) = delete;
  /// stop().
  ~build_pool();

  /// Starts the first thread, whose warm-up then overlaps the caller's own work (idempotent).
  void start(int arch);
  /// Waits for the warm-up of a started first thread and calls `on_settled` if not yet done
  /// (idempotent; returns at once when nothing was started).
  void settle();
  /// The caller did what the warm-up does (the engine: a quick build linked with LTO on the
  /// caller's thread): a first thread not yet warming up skips it, and settle() waits for none
  /// (a warm-up already running finishes as a job would: stop() joins it).
  void warmed_here();
  /// Queues `job`; starts the first thread if needed and waits for its warm-up (settle()). A job
  /// submitted after stop() is dropped.
  void submit(std::function<void()> job, int arch);
  /// Blocks until every job submitted before the call has finished or was dropped. Jobs
  /// submitted meanwhile are not waited for: with other threads submitting all the time, waiting
  /// for an empty queue could wait forever.
  void wait_idle();
  /// Drops the queued jobs, waits for the running ones and joins every thread. Later submits are
  /// dropped. Idempotent.
  void stop();

  /// Threads started so far (tests).
  std::size_t threads_started() const;

 private:
  struct queued {
    std::uint64_t seq;
    std::function<void()> job;
  };
  /// The lowest sequence number not finished (submitted_ + 1 when every job has): jobs leave the
  /// queue in order, so the running ones are below the queue's.
  std::uint64_t first_unfinished() const;
  /// settle() with the lock held; false when stopping.
  bool settle(std::unique_lock<std::mutex>& lock);
  void run(int arch, bool warm_up);

  const std::size_t max_threads_;
  const std::function<void(int)> warm_up_;
  const std::function<void()> on_settled_;
  mutable std::mutex mutex_;
  std::condition_variable cv_, idle_cv_, warmed_cv_;
  std::deque<queued> jobs_;
  std::set<std::uint64_t> running_;
  std::vector<std::thread> threads_;
  std::size_t started_ = 0;
  std::uint64_t submitted_ = 0;
  std::size_t idle_ = 0;  // threads waiting for a job
  bool stopping_ = false;
  bool warmed_ = false;   // the first thread's warm-up is done
  bool settled_ = false;  // on_settled was called
};

/// The pool's size: `env` (CUPAR_JIT_BUILD_THREADS) when it is an integer from 1 to 64, else a
/// quarter of `cores`, from 1 to 4 (an LTO link already spreads its code generation over up to 8
/// threads: link.cpp).
std::size_t build_threads(const char* env, unsigned cores);

}  // namespace cupar::detail::jit
