// cupar::dist: algorithms over data spread across GPUs, on NCCL. This header: the communicator
// (who the ranks are and how they talk), how to make one in each of the three shapes of program
// that use several GPUs, and the errors the distributed calls throw.
//
// A rank is one GPU. Each rank holds its shard of the data as device memory of its own device,
// and every rank calls the same cupar::dist algorithms in the same order with its own shard and a
// stream of its own device ("SPMD", as with NCCL and MPI). Three ways to have ranks:
//
//   // 1. One process per GPU (the shape that spans nodes): rank 0 makes an id, every process
//   //    gets it (a file on a shared file system, a socket: exchange_via_socket, MPI, a job
//   //    launcher's environment).
//   auto id = cupar::dist::unique_id::exchange_via_file("/shared/job42.id", rank,
//                                                       std::chrono::seconds(60));
//   cupar::dist::communicator comm(id, size, rank, /*device=*/local_rank);
//
//   // 2. One process driving all of its GPUs: one communicator per GPU, each used from its own
//   //    thread; run_on_ranks runs a function on every rank's thread and waits.
//   auto comms = cupar::dist::communicator::local();  // every visible GPU
//   cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) { spmd_code(c); });
//
//   // 3. An NCCL communicator the caller already has (not destroyed by cupar).
//   auto comm = cupar::dist::communicator::wrap(my_nccl_comm);
//
// Errors. A call that fails on one rank fails on every rank that takes part in it, with a typed
// exception, instead of leaving the others waiting in a collective: each call first exchanges a
// small header (its name, sequence number, types and counts, and whether the rank's own checks
// passed), so bad arguments on one rank (std::invalid_argument there, dist::remote_error on the
// others) and ranks calling different algorithms (dist::mismatch_error everywhere) are reported
// before any data moves; and every exchange of data is preceded by an agreement that each rank
// got the memory it needs. A rank that dies or stops calling cannot be detected that way: give
// the communicator a timeout (config::timeout) and the others throw dist::timeout_error after it
// and abort the communicator instead of waiting forever.
#pragma once

#include <cupar/config.hpp>
#include <cupar/error.hpp>
#include <cupar/stream.hpp>

#include <nccl.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(_WIN32)
#define CUPAR_DIST_EXPORT __declspec(dllexport)
#else
#define CUPAR_DIST_EXPORT __attribute__((visibility("default")))
#endif

namespace cupar::dist {

// ---- errors --------------------------------------------------------------------------------

/// An NCCL call failed. `code()` is its ncclResult_t; what() holds NCCL's own message
/// (ncclGetErrorString and ncclGetLastError).
class CUPAR_DIST_EXPORT nccl_error : public ::cupar::error {
 public:
  nccl_error(int code, const std::string& what) : error(what), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

/// The communicator's timeout (config::timeout) passed while this rank waited for the others
/// (a rank died, hangs, or stopped calling). The communicator has been aborted: every later call
/// on it throws dist::aborted_error.
class CUPAR_DIST_EXPORT timeout_error : public ::cupar::error {
 public:
  using error::error;
};

/// The ranks did not make the same call: another algorithm, other element types or sizes, another
/// operator, or a call skipped (what() lists what each rank called). Thrown on every rank; the
/// communicator stays usable.
class CUPAR_DIST_EXPORT mismatch_error : public ::cupar::error {
 public:
  using error::error;
};

/// Another rank failed in this call (its arguments were refused, or it could not allocate what
/// the call needs): `rank()` is the first such rank and what() carries its message. Nothing was
/// exchanged; the communicator stays usable.
class CUPAR_DIST_EXPORT remote_error : public ::cupar::error {
 public:
  remote_error(int rank, const std::string& what) : error(what), rank_(rank) {}
  int rank() const noexcept { return rank_; }

 private:
  int rank_;
};

/// The communicator was aborted (communicator::abort, a timeout, or run_on_ranks after another
/// rank threw): it can make no more calls.
class CUPAR_DIST_EXPORT aborted_error : public ::cupar::error {
 public:
  using error::error;
};

// ---- configuration and bootstrap -------------------------------------------------------------

/// Options of a communicator.
struct config {
  /// How long a rank waits for the others in one call before it gives up (dist::timeout_error,
  /// communicator aborted). Zero: wait as long as it takes (NCCL's default). With a timeout the
  /// NCCL communicator is made non-blocking (ncclConfig_t::blocking = 0), so that waits can be
  /// interrupted; communicators that cupar wraps keep their own mode.
  std::chrono::milliseconds timeout{0};
  /// Exchange a header at the start of every call (sequence number, call, types, counts, each
  /// rank's argument checks): turns calls that do not match across ranks and bad arguments on
  /// one rank into exceptions on every rank. About one small all-gather and one stream
  /// synchronisation per call; the algorithms that need every rank's count exchange it anyway.
  /// Off: all_reduce, reduce and the histograms exchange no header (nothing is checked across
  /// ranks, and they no longer synchronise the stream); the other calls still exchange their
  /// counts and checks.
  bool verify_calls = true;
};

/// The identifier of an NCCL communicator under construction (ncclUniqueId, 128 bytes): made once
/// (by rank 0, say) and handed to every rank out of band.
class CUPAR_DIST_EXPORT unique_id {
 public:
  /// A new id (ncclGetUniqueId: it also opens the bootstrap listener of this process, so the
  /// process that makes it must stay alive until every rank has joined). Throws nccl_error.
  static unique_id create();
  /// The id from its bytes (as bytes() gave them). Throws std::invalid_argument for another size.
  static unique_id from_bytes(const void* data, std::size_t size);
  /// The id from its hexadecimal text (as to_hex() gave it). Throws std::invalid_argument.
  static unique_id from_hex(std::string_view hex);
  /// Rank 0 makes a new id and writes it to `path` (a temporary file renamed into place, so the
  /// others never read half an id); every other rank waits for the file and reads it. For
  /// processes on one machine or sharing a file system. Throws timeout_error when the file has
  /// not appeared after `timeout`, std::invalid_argument for a malformed file, cupar::error for
  /// a file that cannot be written. Remove the file once every rank has made its communicator.
  static unique_id exchange_via_file(const std::string& path, int rank,
                                     std::chrono::milliseconds timeout);

  /// Rank 0 makes a new id, listens on `host`:`port` (an address of this machine, e.g.
  /// "127.0.0.1" for processes on one machine, or the machine's address on the cluster network)
  /// and sends the id to the size - 1 other ranks as they connect; every other rank connects
  /// (retrying until rank 0 listens) and receives it. No shared file system needed. Throws
  /// timeout_error when the exchange is not done within `timeout` (rank 0: not every rank came;
  /// the others: no rank 0 answered), std::invalid_argument for a bad rank, size, port or host,
  /// cupar::error for a socket that fails (e.g. the port is taken).
  static unique_id exchange_via_socket(const std::string& host, int port, int rank, int size,
                                       std::chrono::milliseconds timeout);

  const std::array<unsigned char, 128>& bytes() const noexcept { return bytes_; }
  std::string to_hex() const;
  ncclUniqueId nccl() const noexcept;

 private:
  std::array<unsigned char, 128> bytes_{};
};

namespace detail {
struct comm_state;
}

// ---- the communicator --------------------------------------------------------------------------

/// One rank's end of an NCCL communicator, on its device. Move-only; cheap to move. A
/// communicator is used by one thread at a time (each rank of a process from its own thread).
class CUPAR_DIST_EXPORT communicator {
 public:
  /// Rank `rank` of `size` on device `device`, joining the other ranks that use the same `id`
  /// (ncclCommInitRankConfig). Blocks until every rank has joined (or the timeout passed: then
  /// timeout_error). Throws std::invalid_argument for a rank outside [0, size) or a device that
  /// does not exist, nccl_error when NCCL fails.
  communicator(const unique_id& id, int size, int rank, int device, config cfg = {});

  /// One communicator per device of `devices` (default: every visible GPU, in order), rank i on
  /// devices[i], for one process that drives them all: use each from its own thread
  /// (run_on_ranks). Throws std::invalid_argument for an empty, repeated or unknown device,
  /// nccl_error.
  static std::vector<communicator> local(std::vector<int> devices = {}, config cfg = {});

  /// Wraps an NCCL communicator the caller made and keeps owning (cupar never destroys it). Its
  /// rank, size and device are asked from NCCL. Throws std::invalid_argument for a null handle.
  static communicator wrap(ncclComm_t comm, config cfg = {});

  communicator(communicator&&) noexcept;
  communicator& operator=(communicator&&) noexcept;
  communicator(const communicator&) = delete;
  communicator& operator=(const communicator&) = delete;
  /// Destroys the NCCL communicator it owns (ncclCommDestroy; after an abort, only its memory).
  ~communicator();

  int rank() const noexcept;
  int size() const noexcept;
  /// The CUDA device of this rank: every call takes a stream of it.
  int device() const noexcept;
  ncclComm_t get() const noexcept;
  const config& settings() const noexcept;

  /// Aborts the NCCL communicator (ncclCommAbort): calls in progress on it return with
  /// aborted_error and later calls throw it. Safe from any thread, also while another thread
  /// waits in a call. A wrapped communicator (wrap) is only marked aborted (cupar's calls on it
  /// throw aborted_error): its NCCL communicator belongs to the caller, who may ncclCommAbort it.
  /// Never throws.
  void abort() noexcept;
  bool aborted() const noexcept;

  /// Waits for the work queued on `stream` (a stream of device()), honouring the timeout and
  /// reporting NCCL's asynchronous errors: the way to wait for the asynchronous calls
  /// (all_reduce, reduce, histograms) when a rank may fail. Throws timeout_error, nccl_error,
  /// aborted_error, cupar::cuda_error.
  void synchronize(stream_ref stream) const;

  /// Internal.
  const std::shared_ptr<detail::comm_state>& state() const noexcept { return state_; }

 private:
  explicit communicator(std::shared_ptr<detail::comm_state> s) noexcept;
  std::shared_ptr<detail::comm_state> state_;
};

/// Runs `fn(comms[i])` on one thread per communicator (each thread with comms[i].device()
/// current) and waits for all. When one throws, the communicators of the others are aborted so
/// that no rank waits forever for it, and the first exception (by rank) is rethrown once every
/// thread has ended (the others typically end with aborted_error). For one process driving all
/// of its GPUs.
CUPAR_DIST_EXPORT void run_on_ranks(std::vector<communicator>& comms,
                                    const std::function<void(communicator&)>& fn);

/// The NCCL version cupar::dist runs with (ncclGetVersion), e.g. 22809.
CUPAR_DIST_EXPORT int nccl_version();

}  // namespace cupar::dist
