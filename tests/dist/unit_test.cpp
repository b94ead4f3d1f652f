// cupar tests: what of cupar::dist needs no GPU (CI runs these): the id's text forms, the
// file bootstrap's errors, argument checks made before NCCL is asked anything, and the
// distributed headers compiled by the host compiler alone.
#include <cupar/dist.hpp>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

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

/// A port of this machine's loopback nobody listens on now.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

TEST(DistUniqueId, EveryRankGetsRankZerosIdThroughALoopbackSocket) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  constexpr int size = 5;
  std::vector<std::array<unsigned char, 128>> got(size);
  std::vector<std::string> errors(size);
  std::vector<std::thread> ranks;
  // The others start first: they retry until rank 0 listens.
  for (int r = size - 1; r >= 0; --r) {
    ranks.emplace_back([&, r] {
      try {
        got[static_cast<std::size_t>(r)] = dist::unique_id::exchange_via_socket(
                                               "127.0.0.1", port, r, size, std::chrono::seconds(20))
                                               .bytes();
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(r)] = e.what();
      }
    });
    if (r == size - 1) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (auto& t : ranks)
    t.join();
  for (int r = 0; r < size; ++r) {
    EXPECT_EQ(errors[static_cast<std::size_t>(r)], "") << "rank " << r;
    EXPECT_EQ(got[static_cast<std::size_t>(r)], got[0]) << "rank " << r;
  }
  EXPECT_NE(got[0], (std::array<unsigned char, 128>{}));
}

TEST(DistUniqueId, ASocketExchangeWithoutTheOthersTimesOut) {
  const int port = free_port();
  ASSERT_GT(port, 0);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(
      dist::unique_id::exchange_via_socket("127.0.0.1", port, 1, 2, std::chrono::milliseconds(200)),
      dist::timeout_error);
  EXPECT_THROW(
      dist::unique_id::exchange_via_socket("127.0.0.1", port, 0, 2, std::chrono::milliseconds(200)),
      dist::timeout_error);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_THROW(
      dist::unique_id::exchange_via_socket("127.0.0.1", 0, 0, 2, std::chrono::milliseconds(10)),
      std::invalid_argument);
  EXPECT_THROW(
      dist::unique_id::exchange_via_socket("127.0.0.1", port, 2, 2, std::chrono::milliseconds(10)),
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
// clang-format on

/// The README's example of cupar::dist, compiled (not run).
[[maybe_unused]] void readme_example(const unsigned* d_keys, const float* d_rows, std::size_t n,
                                     cudaStream_t s, const cupar::jit::op& merge, int rank,
                                     int size, int local_gpu) {
  auto comms = cupar::dist::communicator::local();  // one rank per GPU of this process
  cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) {
    // this rank's rows d_keys[0, n), d_rows[0, n) on GPU c.device(); s a stream of that GPU
    auto groups = cupar::dist::reduce_by_key(c, d_keys, d_rows, n, merge, s);  // GROUP BY key
    auto sorted = cupar::dist::sort_keys(c, d_keys, n, s);                     // ORDER BY key
    (void)groups;
    (void)sorted;
  });
  // one process per GPU (the shape that spans nodes): rank 0 writes the NCCL id to a file
  auto id =
      cupar::dist::unique_id::exchange_via_file("/shared/job.id", rank, std::chrono::minutes(1));
  cupar::dist::communicator c(id, size, rank, local_gpu);
}

// The examples keep the headers' layout: not reformatted.
// clang-format off
/// What a rank runs, in the examples below.
void spmd_code(cupar::dist::communicator&) {}

/// The examples at the top of cupar/dist.hpp and cupar/dist/communicator.hpp, compiled (not run);
/// scripts/check_doc_examples.py (test cupar_doc_examples_match) checks they are the headers' text.
[[maybe_unused]] void header_examples(const unsigned* d_keys, const double* d_x, std::size_t n,
                                      cudaStream_t s, int rank, int size, int local_rank,
                                      ncclComm_t my_nccl_comm) {
  {
    // doc-example: include/cupar/dist.hpp
    auto comms = cupar::dist::communicator::local();            // one rank per visible GPU
    cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) {
      // ... this rank's shard d_keys[0, n) on c.device(), a stream s of that device ...
      cupar::device_buffer<unsigned> sorted = cupar::dist::sort_keys(c, d_keys, n, s);
      double total = cupar::dist::reduce_value(c, d_x, n, cupar::jit::op("a + b"), 0.0, s);
      // doc-example end
      (void)total;
      // doc-example: include/cupar/dist.hpp
    });
    // doc-example end
  }
  {
    // doc-example: include/cupar/dist/communicator.hpp
    auto id = cupar::dist::unique_id::exchange_via_file("/shared/job42.id", rank,
                                                        std::chrono::seconds(60));
    cupar::dist::communicator comm(id, size, rank, /*device=*/local_rank);
    // doc-example end
  }
  {
    // doc-example: include/cupar/dist/communicator.hpp
    auto comms = cupar::dist::communicator::local();  // every visible GPU
    cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) { spmd_code(c); });
    // doc-example end
    (void)comms;
  }
  {
    // doc-example: include/cupar/dist/communicator.hpp
    auto comm = cupar::dist::communicator::wrap(my_nccl_comm);
    // doc-example end
  }
}

}  // namespace
