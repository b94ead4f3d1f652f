// cupar internal: the pool of threads that makes the optimised (tier-2) builds in the background.
#include "build_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace cupar::detail::jit {

build_pool::build_pool(std::size_t threads, std::function<void(int)> warm_up,
                       std::function<void()> on_settled)
    : max_threads_(std::max<std::size_t>(threads, 1)),
      warm_up_(std::move(warm_up)),
      on_settled_(std::move(on_settled)) {}

build_pool::~build_pool() {
  stop();
}

void build_pool::start(int arch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!stopping_ && threads_.empty()) {
    threads_.emplace_back([this, arch] { run(arch, true); });
    ++started_;
  }
}

void build_pool::settle() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!threads_.empty()) settle(lock);
}

void build_pool::warmed_here() {
  std::lock_guard<std::mutex> lock(mutex_);
  warmed_ = true;
  warmed_cv_.notify_all();
}

void build_pool::submit(std::function<void()> job, int arch) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) return;
  if (threads_.empty()) {
    threads_.emplace_back([this, arch] { run(arch, true); });
    ++started_;
  }
  if (!settle(lock)) return;
  jobs_.push_back({++submitted_, std::move(job)});
  // One more thread while jobs wait that no idle thread will take (a program with one new
  // operator at a time keeps one thread).
  if (idle_ < jobs_.size() && threads_.size() < max_threads_) {
    threads_.emplace_back([this, arch] { run(arch, false); });
    ++started_;
  }
  cv_.notify_one();
}

void build_pool::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::uint64_t target = submitted_;
  idle_cv_.wait(lock, [this, target] { return first_unfinished() > target; });
}

void build_pool::stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    jobs_.clear();  // queued jobs are dropped; the running ones finish
    threads.swap(threads_);
    cv_.notify_all();
    idle_cv_.notify_all();
    warmed_cv_.notify_all();
  }
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

std::size_t build_pool::threads_started() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return started_;
}

std::uint64_t build_pool::first_unfinished() const {
  if (!running_.empty()) return *running_.begin();
  return jobs_.empty() ? submitted_ + 1 : jobs_.front().seq;
}

bool build_pool::settle(std::unique_lock<std::mutex>& lock) {
  if (!settled_) {
    warmed_cv_.wait(lock, [this] { return warmed_ || stopping_; });
    if (stopping_) return false;
    settled_ = true;
    if (on_settled_) on_settled_();
  }
  return !stopping_;
}

void build_pool::run(int arch, bool warm_up) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (warmed_) warm_up = false;  // warmed_here() came first
  }
  if (warm_up && warm_up_) warm_up_(arch);
  std::unique_lock<std::mutex> lock(mutex_);
  if (warm_up) {
    warmed_ = true;
    warmed_cv_.notify_all();
  }
  for (;;) {
    ++idle_;
    cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (stopping_) return;
    queued q = std::move(jobs_.front());
    jobs_.pop_front();
    running_.insert(q.seq);
    lock.unlock();
    try {
      q.job();
    } catch (...) {
      // A job reports its own failures (the engine's count them); one that throws is done.
    }
    q.job = nullptr;  // what the job holds goes before the lock is taken again
    lock.lock();
    running_.erase(q.seq);
    idle_cv_.notify_all();
  }
}

std::size_t build_threads(const char* env, unsigned cores) {
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v >= 1 && v <= 64) return static_cast<std::size_t>(v);
  }
  return std::clamp<std::size_t>(cores / 4, 1, 4);
}

}  // namespace cupar::detail::jit
