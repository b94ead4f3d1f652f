// cupar tests: what of cupar::dist needs no GPU (CI runs these): the id's text forms, the
// file bootstrap's errors, argument checks made before NCCL is asked anything, and the
// distributed headers compiled by the host compiler alone.
#include <cupar/dist.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

namespace dist = cupar::dist;

TEST(DistUniqueId, HexRoundTripsAndBadTextIsRefused) {
  unsigned char raw[128];
  for (int i = 0; i < 128; ++i)
    raw[i] = static_cast<unsigned char>(i * 7 + 3);
  const auto id = dist::unique_id::from_bytes(raw, 128);
  const std::string hex = id.to_hex();
  EXPECT_EQ(hex.size(), 256u);
  EXPECT_EQ(dist::unique_id::from_hex(hex).bytes(), id.bytes());
  EXPECT_EQ(dist::unique_id::from_hex(hex + "\n").bytes(), id.bytes());
  EXPECT_THROW(dist::unique_id::from_hex(hex.substr(2)), std::invalid_argument);
  std::string bad = hex;
  bad[10] = 'g';
  EXPECT_THROW(dist::unique_id::from_hex(bad), std::invalid_argument);
  EXPECT_THROW(dist::unique_id::from_bytes(raw, 127), std::invalid_argument);
  EXPECT_THROW(dist::unique_id::from_bytes(nullptr, 128), std::invalid_argument);
}

TEST(DistUniqueId, AFileThatNeverComesTimesOutAndAMalformedOneIsRefused) {
  const std::string path = "/tmp/cupar_dist_unit_" + std::to_string(::getpid()) + ".id";
  std::remove(path.c_str());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(dist::unique_id::exchange_via_file(path, 1, std::chrono::milliseconds(100)),
               dist::timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  {
    std::ofstream out(path);
    out << "not an id\n";
  }
  EXPECT_THROW(dist::unique_id::exchange_via_file(path, 1, std::chrono::milliseconds(100)),
               std::invalid_argument);
  std::remove(path.c_str());
  EXPECT_THROW(dist::unique_id::exchange_via_file(path, -1, std::chrono::milliseconds(100)),
               std::invalid_argument);
}

TEST(DistCommunicator, BadRanksAndDevicesAreRefusedBeforeNccl) {
  unsigned char raw[128] = {};
  const auto id = dist::unique_id::from_bytes(raw, 128);
  EXPECT_THROW(dist::communicator(id, 2, 2, 0), std::invalid_argument);
  EXPECT_THROW(dist::communicator(id, 2, -1, 0), std::invalid_argument);
  EXPECT_THROW(dist::communicator(id, 0, 0, 0), std::invalid_argument);
  EXPECT_THROW(dist::communicator(id, 1, 0, 1 << 20), std::invalid_argument);
  EXPECT_THROW(dist::communicator::local({1 << 20}), std::invalid_argument);
  EXPECT_THROW(dist::communicator::wrap(nullptr), std::invalid_argument);
  EXPECT_GT(dist::nccl_version(), 21800);
}

/// The examples of cupar/dist.hpp and cupar/dist/communicator.hpp, compiled (not run: they need
/// GPUs and other processes).
[[maybe_unused]] void header_examples(int rank, int size, int local_rank, const unsigned* d_keys,
                                      const double* d_x, std::size_t n, cudaStream_t s,
                                      ncclComm_t my_nccl_comm) {
  {
    auto id = cupar::dist::unique_id::exchange_via_file("/shared/job42.id", rank,
                                                        std::chrono::seconds(60));
    cupar::dist::communicator comm(id, size, rank, /*device=*/local_rank);
  }
  {
    auto comms = cupar::dist::communicator::local();  // every visible GPU
    cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) {
      cupar::device_buffer<unsigned> sorted = cupar::dist::sort_keys(c, d_keys, n, s);
      double total = cupar::dist::reduce_value(c, d_x, n, cupar::jit::op("a + b"), 0.0, s);
      (void)sorted;
      (void)total;
    });
  }
  {
    auto comm = cupar::dist::communicator::wrap(my_nccl_comm);
    (void)comm;
  }
}

}  // namespace
