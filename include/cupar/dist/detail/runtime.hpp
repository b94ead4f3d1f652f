// cupar::dist internal: what the algorithm templates (dist/algorithms.hpp) call in libcupar_dist:
// the start of a call (header exchange and checks), the exchanges of data, and the kernels that
// assign elements to ranks and move them. Not a public interface.
#pragma once

#include <cupar/detail/type_id.hpp>
#include <cupar/dist/communicator.hpp>
#include <cupar/memory.hpp>
#include <cupar/stream.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace cupar::dist::detail {

/// Which algorithm a call is (part of the header every rank checks).
enum class call_kind : std::uint32_t {
  reduce = 1,
  all_reduce,
  inclusive_scan,
  exclusive_scan,
  histogram,
  sort_keys,
  sort_pairs,
  reduce_by_key,
  inner_join,
  barrier,
};

/// What one rank says about a call. Every field but `n` and `aux` must be the same on every rank.
struct call_header {
  call_kind kind = call_kind::barrier;
  std::uint32_t sizes[3] = {0, 0, 0};  // element sizes (keys, values, ...)
  std::uint32_t flags = 0;             // call options (direction, ...)
  std::uint64_t op_hash = 0;           // identity of the operator (0: none or not comparable)
  std::uint64_t n = 0;                 // this rank's element count
  std::uint64_t aux = 0;               // a second count (the other table of a join)
};

/// What every rank said, in rank order.
struct call_record {
  std::vector<call_header> headers;
  /// `payload_bytes` bytes per rank, in rank order (the payload of begin_call).
  std::vector<unsigned char> payloads;
  std::uint64_t total_n() const noexcept {
    std::uint64_t t = 0;
    for (const auto& h : headers)
      t += h.n;
    return t;
  }
};

/// Checks that the communicator can run a call on `stream` (not aborted, stream of its device:
/// std::invalid_argument otherwise, thrown on this rank alone) and makes the device current for
/// the guard's life.
class CUPAR_DIST_EXPORT call_scope {
 public:
  call_scope(const communicator& comm, const char* function, stream_ref stream);
  ~call_scope();
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;

 private:
  int previous_ = -1;
};

/// The start of a call: every rank sends its header, its own argument checks' outcome (`local`:
/// the std::invalid_argument this rank's checks threw, or null) and `payload_bytes` bytes of
/// device memory at `d_payload` (may be null when 0). Returns what every rank sent (synchronises
/// `stream`). Throws, on every rank: mismatch_error when the ranks' calls differ; on the ranks
/// whose checks passed, remote_error when another rank's failed (the failing rank rethrows its
/// own exception from `local`); timeout_error, nccl_error, aborted_error.
CUPAR_DIST_EXPORT call_record begin_call(const communicator& comm, const char* function,
                                         const call_header& mine, const std::exception_ptr& local,
                                         const void* d_payload, std::size_t payload_bytes,
                                         stream_ref stream);

/// Whether calls exchange headers (config::verify_calls).
CUPAR_DIST_EXPORT bool verifies(const communicator& comm) noexcept;

/// Every rank says whether it can go on (`local`: the exception it got, e.g. out of memory, or
/// null); throws on every rank if one cannot: remote_error on the others, `local` rethrown on it.
/// Synchronises `stream`.
CUPAR_DIST_EXPORT void agree(const communicator& comm, const char* function,
                             const std::exception_ptr& local, stream_ref stream);

/// Waits for `stream` with the communicator's timeout (communicator::synchronize).
CUPAR_DIST_EXPORT void wait(const communicator& comm, stream_ref stream);

/// Copies `bytes` of device memory to `host` once the work queued on `stream` is done, waiting
/// with the communicator's timeout (through pinned staging memory: a copy to pageable memory
/// would block out of the timeout's reach). Synchronises `stream`.
CUPAR_DIST_EXPORT void read_back(const communicator& comm, void* host, const void* device,
                                 std::size_t bytes, stream_ref stream);

/// d_recv[r * bytes, (r + 1) * bytes) = rank r's d_send[0, bytes). Asynchronous.
CUPAR_DIST_EXPORT void all_gather(const communicator& comm, const void* d_send, void* d_recv,
                                  std::size_t bytes, stream_ref stream);

/// Rank r's d_send[0, bytes[r]) to d_recv at the sum of bytes[0, r), on every rank. `bytes` is
/// the same on every rank. Asynchronous.
CUPAR_DIST_EXPORT void all_gather_v(const communicator& comm, const void* d_send, void* d_recv,
                                    const std::vector<std::size_t>& bytes, stream_ref stream);

/// Each rank's `count` device values, gathered to the host on every rank in rank order (count *
/// size() values): one all-gather and one read back. Synchronises `stream`.
CUPAR_DIST_EXPORT std::vector<std::uint64_t> all_gather_device(const communicator& comm,
                                                               const unsigned long long* d_values,
                                                               std::size_t count,
                                                               stream_ref stream);

/// ncclAllReduce of `count` elements of `type` with `op`. Asynchronous.
CUPAR_DIST_EXPORT void nccl_all_reduce(const communicator& comm, const void* d_send, void* d_recv,
                                       std::size_t count, ncclDataType_t type, ncclRedOp_t op,
                                       stream_ref stream);

/// One array of an exchange: elements of `elem_size` bytes.
struct exchange_array {
  const void* send;
  void* recv;
  std::size_t elem_size;
};

/// The all-to-all of every array at once (one NCCL group): this rank's elements
/// [sum(send[0, j)), + send[j]) go to rank j, whose elements for this rank land at
/// sum(recv[0, j)). `send` and `recv` count elements, size() each. Asynchronous.
CUPAR_DIST_EXPORT void exchange(const communicator& comm, const std::vector<exchange_array>& arrays,
                                const std::vector<std::uint64_t>& send,
                                const std::vector<std::uint64_t>& recv, stream_ref stream);

/// Whether the algorithms time their phases (the environment variable CUPAR_DIST_PROFILE=1, read
/// once): they then wait for their stream at each phase boundary. For benchmarks.
CUPAR_DIST_EXPORT bool profiling() noexcept;

/// The phases of the last profiled call on this thread: (name, milliseconds).
inline std::vector<std::pair<const char*, double>>& last_phases() {
  static thread_local std::vector<std::pair<const char*, double>> log;
  return log;
}

/// Marks phase boundaries of a call when profiling (else does nothing).
class phase_timer {
 public:
  phase_timer(const communicator& comm, stream_ref s) : comm_(comm), s_(s), on_(profiling()) {
    if (on_) {
      last_phases().clear();
      wait(comm_, s_);
      start_ = std::chrono::steady_clock::now();
    }
  }
  void mark(const char* name) {
    if (!on_) return;
    wait(comm_, s_);
    const auto now = std::chrono::steady_clock::now();
    last_phases().emplace_back(name,
                               std::chrono::duration<double, std::milli>(now - start_).count());
    start_ = now;
  }

 private:
  const communicator& comm_;
  stream_ref s_;
  bool on_;
  std::chrono::steady_clock::time_point start_{};
};

// ---- kernels -----------------------------------------------------------------------------------

/// dst[i] = src[idx[i]] for i < count, elements of `elem_size` bytes. Asynchronous.
CUPAR_DIST_EXPORT void gather_bytes(const void* src, std::size_t elem_size,
                                    const std::uint64_t* d_idx, std::size_t count, void* dst,
                                    stream_ref stream);

/// m samples of n keys (elements of `key_size` bytes), on the device: the i-th from the i-th of m
/// equal strata of [0, n) at a pseudo-random position drawn from `seed` (every position when
/// m == n), so the samples come in position order; d_tags[i] = tag_base + position. Asynchronous.
CUPAR_DIST_EXPORT void sample_keys(const void* d_keys, std::size_t key_size, std::size_t n,
                                   std::size_t m, std::uint64_t seed, std::uint64_t tag_base,
                                   void* d_sample_keys, std::uint64_t* d_tags, stream_ref stream);

/// The bytes of a bucket id for `ranks` destinations (ids 0 .. ranks, the last meaning "none").
inline int bucket_bytes(int ranks) {
  return ranks < 255 ? 1 : (ranks < 65535 ? 2 : 4);
}

/// For each key i of an arithmetic type: the number of splitters (key, tag) ordered before
/// (keys[i], tag_base + i), in the radix sort's order of the key type (ascending or descending;
/// -0.0 == +0.0, NaN by bits) then tags ascending, written as a bucket id of
/// bucket_bytes(splitters + 1) bytes; `d_counts[b]` (zeroed here) counts the keys of each bucket
/// b in [0, splitters]. Asynchronous.
CUPAR_DIST_EXPORT void radix_buckets(::cupar::detail::scalar key, bool descending,
                                     const void* d_keys, std::size_t n, const void* d_split_keys,
                                     const std::uint64_t* d_split_tags, int splitters,
                                     std::uint64_t tag_base, void* d_buckets,
                                     unsigned long long* d_counts, stream_ref stream);

/// The same for keys ordered by a comparator, from lower and upper bounds of each key among the
/// splitter keys: bucket = lb + the splitters of [lb, ub) whose tag is below tag_base + i.
CUPAR_DIST_EXPORT void tie_buckets(const std::uint64_t* d_lb, const std::uint64_t* d_ub,
                                   std::size_t n, const std::uint64_t* d_split_tags, int splitters,
                                   std::uint64_t tag_base, void* d_buckets,
                                   unsigned long long* d_counts, stream_ref stream);

/// bucket = a hash of the key modulo `ranks` (equal keys, -0.0 and +0.0 included, hash alike);
/// with `drop_nan`, NaN keys get bucket `ranks` (sent nowhere). Ids of bucket_bytes(ranks)
/// bytes. Asynchronous.
CUPAR_DIST_EXPORT void hash_buckets(::cupar::detail::scalar key, const void* d_keys, std::size_t n,
                                    int ranks, bool drop_nan, void* d_buckets,
                                    unsigned long long* d_counts, stream_ref stream);

/// Stable partition of n elements by bucket (ids of bucket_bytes(buckets) bytes, 0 .. buckets - 1;
/// elements of bucket `buckets` are dropped): keys and values (value_size 0: none) are written
/// grouped by bucket, in input order within a bucket. Asynchronous; temporaries from `mr`.
CUPAR_DIST_EXPORT void partition_by_bucket(const void* d_buckets, std::size_t n, int buckets,
                                           const void* d_keys, std::size_t key_size,
                                           const void* d_values, std::size_t value_size,
                                           void* d_keys_out, void* d_values_out,
                                           memory_resource& mr, stream_ref stream);

/// The local step of an inner join on arithmetic keys, over the rows a rank received: sorts both
/// sides by key, finds each left row's matches, and counts the pairs (synchronises `stream`
/// once); write() then writes every pair with equal keys, ordered by key, then left row (in the
/// order received), then right row. Temporaries from `mr` on `stream`, held until destruction.
class CUPAR_DIST_EXPORT local_join {
 public:
  local_join(::cupar::detail::scalar key, const void* d_left_keys, std::size_t n_left,
             const void* d_right_keys, std::size_t n_right, memory_resource& mr, stream_ref stream);
  ~local_join();
  local_join(const local_join&) = delete;
  local_join& operator=(const local_join&) = delete;
  /// The number of pairs.
  std::size_t count() const noexcept;
  /// Writes count() keys, left values and right values (value sizes in bytes; a null output
  /// with size 0 writes nothing). Asynchronous.
  void write(void* d_keys_out, const void* d_left_values, std::size_t left_size, void* d_left_out,
             const void* d_right_values, std::size_t right_size, void* d_right_out,
             stream_ref stream) const;

 private:
  struct impl;
  impl* impl_;
};

}  // namespace cupar::dist::detail
