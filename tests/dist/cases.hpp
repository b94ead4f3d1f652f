// cupar tests: the distributed algorithms' checks, run by every rank. The same cases serve one
// process driving all GPUs (dist_test.cu, a thread per rank) and one process per GPU
// (dist_worker.cu, launched by multiprocess_test.cpp); they are compiled once (cases.cu). Every
// rank can regenerate every rank's shard (the data is a function of the case, the rank layout and
// the global index), so each rank computes the reference itself: the single-GPU cupar call on the
// gathered data, on its own device, and compares its part of the result. Integer results are
// compared exactly.
#pragma once

#include <cupar/dist/communicator.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cupar::dist_testing {

// ---- a rank's context and its failures
// ------------------------------------------------------------

struct rank_ctx {
  ::cupar::dist::communicator& comm;
  cudaStream_t s;
  int rank() const { return comm.rank(); }
  int size() const { return comm.size(); }
};

struct failures {
  std::vector<std::string> messages;
  void fail(const std::string& m) { messages.push_back(m); }
  bool ok() const { return messages.empty(); }
};

/// Every case by name ("reduce", "all_reduce", "scans", "histogram", "sort", "sort_comparator",
/// "group_by", "join").
const std::vector<std::pair<std::string, std::function<void(rank_ctx&, failures&)>>>& all_cases();

}  // namespace cupar::dist_testing
