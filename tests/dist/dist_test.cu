// cupar tests: the distributed algorithms with one process driving every GPU of the machine (a
// thread per rank, cupar::dist::communicator::local and run_on_ranks). Each case runs on every
// rank and compares the rank's result with the single-GPU cupar call on the gathered data
// (tests/dist/cases.cuh). With one GPU the communicator has one rank (still a real NCCL
// communicator); CUPAR_DIST_TEST_DEVICES=0,1 limits the ranks to those devices.
#include "common/gpu.hpp"
#include "dist/cases.hpp"

#include <cupar/dist.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace cupar::dist_testing {
namespace {

std::vector<int> test_devices() {
  std::vector<int> out;
  if (const char* e = std::getenv("CUPAR_DIST_TEST_DEVICES")) {
    std::stringstream in(e);
    std::string item;
    while (std::getline(in, item, ','))
      if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

/// A stream of the current device, destroyed last (declare it before the buffers using it).
class own_stream {
 public:
  own_stream() { cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
  ~own_stream() {
    cudaStreamSynchronize(s_);
    cudaStreamDestroy(s_);
  }
  own_stream(const own_stream&) = delete;
  own_stream& operator=(const own_stream&) = delete;
  operator stream_ref() const { return stream_ref(s_); }  // NOLINT

 private:
  cudaStream_t s_ = nullptr;
};

/// Runs one case on every rank; reports each rank's failures.
void run_case(const std::string& name, const dist::config& cfg = {}) {
  auto comms = dist::communicator::local(test_devices(), cfg);
  std::mutex m;
  std::vector<std::string> messages;
  const auto& cases = all_cases();
  const auto it =
      std::find_if(cases.begin(), cases.end(), [&](const auto& c) { return c.first == name; });
  ASSERT_NE(it, cases.end());
  dist::run_on_ranks(comms, [&](dist::communicator& comm) {
    cudaStream_t s = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    {
      rank_ctx c{comm, s};
      failures f;
      it->second(c, f);
      std::lock_guard<std::mutex> lock(m);
      for (const auto& msg : f.messages)
        messages.push_back("rank " + std::to_string(comm.rank()) + ": " + msg);
    }
    cudaStreamSynchronize(s);
    cudaStreamDestroy(s);
  });
  for (const auto& msg : messages)
    ADD_FAILURE() << msg;
  ::testing::Test::RecordProperty("ranks", static_cast<int>(comms.size()));
}

class Dist : public ::testing::TestWithParam<std::string> {};

TEST_P(Dist, MatchesTheSingleGpuCallOnTheGatheredData) {
  CUPAR_REQUIRE_GPU();
  run_case(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, Dist,
                         ::testing::Values("reduce", "all_reduce", "scans", "histogram", "sort",
                                           "sort_comparator", "group_by", "join"),
                         [](const auto& info) { return info.param; });

// Errors: every rank gets an exception, none waits forever.

TEST(DistErrors, BadArgumentsOnOneRankFailTheCallOnEveryRank) {
  CUPAR_REQUIRE_GPU();
  auto comms = dist::communicator::local(test_devices());
  std::mutex m;
  std::vector<std::string> kinds(comms.size());
  dist::run_on_ranks(comms, [&](dist::communicator& comm) {
    own_stream s;
    device_buffer<int> x(std::vector<int>(1000, 1), s);
    // Rank 0 passes a null input with n > 0.
    const int* in = comm.rank() == 0 ? nullptr : x.data();
    std::string kind;
    try {
      (void)dist::sort_keys(comm, in, 1000, s);
      kind = "none";
    } catch (const std::invalid_argument&) {
      kind = "invalid_argument";
    } catch (const dist::remote_error& e) {
      kind = e.rank() == 0 ? "remote_error(0)" : "remote_error(?)";
    }
    // The communicator still works.
    const int sum = dist::reduce_value(comm, x.data(), 1000, jit::plus, 0, s);
    if (sum != 1000 * comm.size()) kind += " then a wrong sum";
    {
      std::lock_guard<std::mutex> lock(m);
      kinds[static_cast<std::size_t>(comm.rank())] = kind;
    }
  });
  EXPECT_EQ(kinds[0], "invalid_argument");
  for (std::size_t r = 1; r < kinds.size(); ++r)
    EXPECT_EQ(kinds[r], "remote_error(0)") << "rank " << r;
}

TEST(DistErrors, DifferentCallsOnTheRanksAreAMismatchEverywhere) {
  CUPAR_REQUIRE_GPU();
  auto comms = dist::communicator::local(test_devices());
  if (comms.size() < 2) GTEST_SKIP() << "needs two GPUs";
  std::atomic<int> mismatches{0};
  dist::run_on_ranks(comms, [&](dist::communicator& comm) {
    own_stream s;
    device_buffer<int> x(std::vector<int>(100, 2), s), y(100, s);
    try {
      if (comm.rank() == 0) {
        dist::inclusive_scan(comm, x.data(), y.data(), 100, jit::op("a + b"), s);
      } else {
        (void)dist::reduce_value(comm, x.data(), 100, jit::op("a * b"), 1, s);
      }
    } catch (const dist::mismatch_error&) {
      ++mismatches;
    }
    // Afterwards the same call on every rank works.
    EXPECT_EQ(dist::reduce_value(comm, x.data(), 100, jit::op("a + b"), 0, s), 200 * comm.size());
  });
  EXPECT_EQ(mismatches.load(), static_cast<int>(comms.size()));
}

TEST(DistErrors, ARankThatNeverCallsTimesOutTheOthers) {
  CUPAR_REQUIRE_GPU();
  dist::config cfg;
  cfg.timeout = std::chrono::milliseconds(1500);
  auto comms = dist::communicator::local(test_devices(), cfg);
  if (comms.size() < 2) GTEST_SKIP() << "needs two GPUs";
  std::atomic<int> timeouts{0};
  const auto start = std::chrono::steady_clock::now();
  dist::run_on_ranks(comms, [&](dist::communicator& comm) {
    if (comm.rank() == comm.size() - 1) return;  // this rank never makes the call
    own_stream s;
    device_buffer<unsigned> x(std::vector<unsigned>(100000, 3u), s);
    try {
      (void)dist::sort_keys(comm, x.data(), 100000, s);
    } catch (const dist::timeout_error&) {
      ++timeouts;
    }
    EXPECT_TRUE(comm.aborted());
    EXPECT_THROW((void)dist::reduce_value(comm, x.data(), 10, jit::plus, 0u, s),
                 dist::aborted_error);
  });
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(timeouts.load(), static_cast<int>(comms.size()) - 1);
  EXPECT_LT(waited, std::chrono::seconds(30));
}

TEST(DistErrors, AnExceptionOnOneRankAbortsTheOthersInRunOnRanks) {
  CUPAR_REQUIRE_GPU();
  auto comms = dist::communicator::local(test_devices());  // no timeout
  if (comms.size() < 2) GTEST_SKIP() << "needs two GPUs";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(dist::run_on_ranks(comms,
                                  [&](dist::communicator& comm) {
                                    if (comm.rank() == 0)
                                      throw std::runtime_error("rank 0 gives up");
                                    own_stream s;
                                    device_buffer<int> x(std::vector<int>(10, 1), s);
                                    (void)dist::reduce_value(comm, x.data(), 10, jit::op("a + b"),
                                                             0, s);
                                  }),
               std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

TEST(DistErrors, AStreamOfAnotherDeviceIsRefused) {
  CUPAR_REQUIRE_GPU();
  int count = 0;
  cudaGetDeviceCount(&count);
  if (count < 2) GTEST_SKIP() << "needs two GPUs";
  auto comms = dist::communicator::local({0});
  cudaSetDevice(1);
  {
    own_stream s1;
    cudaSetDevice(0);
    device_buffer<int> x(std::vector<int>(10, 1), stream_ref::legacy_default());
    EXPECT_THROW((void)dist::reduce_value(comms[0], x.data(), 10, jit::plus, 0, s1),
                 std::invalid_argument);
  }
  cudaSetDevice(0);
}

}  // namespace
}  // namespace cupar::dist_testing
