// cupar::dist: algorithms over shards on several GPUs. Every rank calls the same function, in the
// same order, with its own shard (device memory of its communicator's device) and a stream of
// that device; results are shards again, or a value every rank receives. The operators are those
// of the single-GPU calls: a cupar::jit::op (this header, any host compiler) or a C++ callable
// (cupar/dist.cuh, nvcc). Each algorithm is the single-GPU cupar call on the local shard plus
// NCCL exchanges (docs/DISTRIBUTED.md describes each, with its cost).
//
// Errors, on every rank (communicator.hpp): std::invalid_argument on the rank whose arguments are
// wrong and dist::remote_error on the others, dist::mismatch_error when ranks make different
// calls, dist::timeout_error with a timeout, dist::nccl_error, plus what the local calls throw
// (cupar::jit_error for an operator that does not compile: on every rank, since every rank
// compiles it).
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/by_key.hpp>
#include <cupar/detail/checks.hpp>
#include <cupar/detail/cuda_check.hpp>
#include <cupar/detail/type_id.hpp>
#include <cupar/dist/communicator.hpp>
#include <cupar/dist/detail/runtime.hpp>
#include <cupar/histogram.hpp>
#include <cupar/jit.hpp>
#include <cupar/memory.hpp>
#include <cupar/reduce.hpp>
#include <cupar/scan.hpp>
#include <cupar/search.hpp>
#include <cupar/sort.hpp>
#include <cupar/sort_jit.hpp>
#include <cupar/stream.hpp>
#include <cupar/transform.hpp>
#include <cupar/types.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Whether the callable (nvcc) overloads of the single-GPU calls were visible when these templates
// were defined: cupar/dist.cuh includes cupar/cupar.cuh first and checks this.
#define CUPAR_DIST_ALGORITHMS_INCLUDED 1
#if defined(CUPAR_DIST_WITH_CALLABLES)
#define CUPAR_DIST_ALGORITHMS_HAVE_CALLABLES 1
#endif

namespace cupar::dist {

/// A sorted shard of key-value pairs (dist::sort_pairs).
template <class K, class V>
struct sorted_pairs {
  device_buffer<K> keys;
  device_buffer<V> values;
};

/// The groups a rank owns after dist::reduce_by_key: keys (ascending) and their aggregates.
template <class K, class V>
struct groups {
  device_buffer<K> keys;
  device_buffer<V> values;
  std::size_t size() const noexcept { return keys.size(); }
};

/// The pairs of an inner join a rank owns: for each pair, the key and the two rows' values.
template <class K, class L, class R>
struct joined {
  device_buffer<K> keys;
  device_buffer<L> left;
  device_buffer<R> right;
  std::size_t size() const noexcept { return keys.size(); }
};

namespace detail {

using ::cupar::detail::is_scalar_v;

/// Identity of a run-time operator across ranks (its text, preamble and named kind; not its
/// parameters' values). C++ callables: 0 (not compared).
inline std::uint64_t op_hash(const ::cupar::jit::op& op) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  };
  mix(op.source());
  mix(::cupar::jit::detail::op_preamble(*op.definition()));
  return h ^ (static_cast<std::uint64_t>(op.named()) << 56);
}
template <class Op>
std::uint64_t op_hash(const Op&) {
  return 0;
}

/// NCCL's data type for an arithmetic T, or -1 (NCCL has no 16-bit integers).
template <class T>
constexpr int nccl_type() {
  if constexpr (std::is_same_v<T, float>) {
    return ncclFloat32;
  } else if constexpr (std::is_same_v<T, double>) {
    return ncclFloat64;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) == 1) {
    return std::is_signed_v<T> ? ncclInt8 : ncclUint8;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) == 4) {
    return std::is_signed_v<T> ? ncclInt32 : ncclUint32;
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) == 8) {
    return std::is_signed_v<T> ? ncclInt64 : ncclUint64;
  } else {
    return -1;
  }
}

/// The NCCL reduction a named operator is, or -1. C++ callables: specialised in cupar/dist.cuh
/// for cuda::std::plus, multiplies, minimum and maximum.
template <class Op>
struct nccl_named {
  static int get(const Op&) { return -1; }
};
template <>
struct nccl_named<::cupar::jit::op> {
  static int get(const ::cupar::jit::op& op) {
    switch (op.named()) {
      case ::cupar::jit::named_op::plus:
        return ncclSum;
      case ::cupar::jit::named_op::multiplies:
        return ncclProd;
      case ::cupar::jit::named_op::minimum:
        return ncclMin;
      case ::cupar::jit::named_op::maximum:
        return ncclMax;
      default:
        return -1;
    }
  }
};

/// The NCCL reduction for `op` on T, or -1 when the operator must be applied by cupar.
template <class T, class Op>
int nccl_reduction(const Op& op) {
  if constexpr (is_scalar_v<T> && nccl_type<T>() >= 0) {
    return nccl_named<Op>::get(op);
  } else {
    (void)op;
    return -1;
  }
}

/// The identity of an NCCL reduction on T (what an empty shard contributes).
template <class T>
T nccl_identity(int op) {
  if (op == ncclProd) return T(1);
  if (op == ncclMin) {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::max();
  }
  if (op == ncclMax) {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  }
  return T(0);
}

/// Runs this rank's argument checks, keeping what they threw for begin_call.
template <class F>
std::exception_ptr checked(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return std::current_exception();
  }
  return nullptr;
}

/// `count` T of device memory to the host, once the stream's work is done (synchronises the
/// stream, with the communicator's timeout).
template <class T>
void to_host(const communicator& comm, T* host, const void* device, std::size_t count,
             stream_ref s) {
  read_back(comm, host, device, count * sizeof(T), s);
}
inline void copy_device(void* dst, const void* src, std::size_t bytes, stream_ref s) {
  if (bytes == 0) return;
  ::cupar::detail::check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s.get()),
                              "cudaMemcpyAsync");
}
inline void copy_from_host(void* dst, const void* src, std::size_t bytes, stream_ref s) {
  if (bytes == 0) return;
  ::cupar::detail::check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s.get()),
                              "cudaMemcpyAsync");
}

/// The ranks whose shard is not empty, in rank order.
inline std::vector<int> non_empty(const call_record& r, int below) {
  std::vector<int> out;
  for (int j = 0; j < below; ++j) {
    if (r.headers[static_cast<std::size_t>(j)].n != 0) out.push_back(j);
  }
  return out;
}

// ---- reduce ---------------------------------------------------------------------------------

template <class T, class Op>
void reduce(communicator& comm, const char* fn, const T* d_in, T* d_out, std::size_t n,
            const Op& op, T init, stream_ref s, memory_resource& mr) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::dist::reduce: T must be trivially copyable");
  const call_scope scope(comm, fn, s);
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_in", d_in, n);
    ::cupar::detail::require_pointer(fn, "d_out", d_out);
  });
  const int named = nccl_reduction<T>(op);
  const call_header h{call_kind::reduce, {sizeof(T), 0, 0}, 0, op_hash(op), n, 0};
  if constexpr (is_scalar_v<T> && nccl_type<T>() >= 0) {
    if (named >= 0) {
      // An NCCL reduction: rank 0 reduces its shard from init, the others from the identity,
      // and NCCL combines the partials.
      if (verifies(comm)) {
        begin_call(comm, fn, h, local, nullptr, 0, s);
      }
      if (local) std::rethrow_exception(local);
      const T start = comm.rank() == 0 ? init : nccl_identity<T>(named);
      ::cupar::reduce(d_in, d_out, n, op, start, s, mr);
      nccl_all_reduce(comm, d_out, d_out, 1, static_cast<ncclDataType_t>(nccl_type<T>()),
                      static_cast<ncclRedOp_t>(named), s);
      return;
    }
  }
  // Any other operator: each rank reduces its shard from its first element, the partials are
  // gathered, and every rank combines those of the non-empty ranks in rank order from init.
  // The payload is each rank's first element (zeros from empty ranks): the same size everywhere.
  const call_record r =
      begin_call(comm, fn, h, local, n != 0 && !local ? d_in : nullptr, sizeof(T), s);
  if (local) std::rethrow_exception(local);
  const int ranks = comm.size();
  device_buffer<T> parts(static_cast<std::size_t>(ranks) + 1, s, mr);
  T* mine = parts.data() + ranks;
  if (n >= 2) {
    T first;
    std::memcpy(&first, r.payloads.data() + static_cast<std::size_t>(comm.rank()) * sizeof(T),
                sizeof(T));
    ::cupar::reduce(d_in + 1, mine, n - 1, op, first, s, mr);
  } else if (n == 1) {
    copy_device(mine, d_in, sizeof(T), s);
  }
  all_gather(comm, mine, parts.data(), sizeof(T), s);
  const std::vector<int> have = non_empty(r, ranks);
  if (have.empty()) {
    copy_from_host(d_out, &init, sizeof(T), s);  // staged by CUDA before the call returns
    return;
  }
  if (static_cast<int>(have.size()) == ranks) {
    ::cupar::reduce(static_cast<const T*>(parts.data()), d_out, static_cast<std::size_t>(ranks), op,
                    init, s, mr);
    return;
  }
  std::vector<std::uint64_t> idx(have.begin(), have.end());
  device_buffer<std::uint64_t> d_idx(idx, s, mr);
  device_buffer<T> packed(have.size(), s, mr);
  gather_bytes(parts.data(), sizeof(T), d_idx.data(), have.size(), packed.data(), s);
  ::cupar::reduce(static_cast<const T*>(packed.data()), d_out, have.size(), op, init, s, mr);
}

/// dist::reduce_value for both operator kinds.
template <class T, class Op>
T reduce_value(communicator& comm, const T* d_in, std::size_t n, const Op& op, T init, stream_ref s,
               memory_resource& mr) {
  device_buffer<T> out(1, s, mr);
  reduce(comm, "cupar::dist::reduce_value", d_in, out.data(), n, op, init, s, mr);
  T value;
  to_host(comm, &value, out.data(), 1, s);
  return value;
}

// ---- all_reduce -------------------------------------------------------------------------------

template <class T, class Op>
void all_reduce(communicator& comm, const char* fn, const T* d_in, T* d_out, std::size_t n,
                const Op& op, stream_ref s, memory_resource& mr) {
  static_assert(std::is_trivially_copyable_v<T>,
                "cupar::dist::all_reduce: T must be trivially copyable");
  const call_scope scope(comm, fn, s);
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_in", d_in, n);
    ::cupar::detail::require_data(fn, "d_out", d_out, n);
    ::cupar::detail::require_same_or_disjoint(fn, "d_in", d_in, n * sizeof(T), "d_out", d_out,
                                              n * sizeof(T));
  });
  const int named = nccl_reduction<T>(op);
  const call_header h{call_kind::all_reduce, {sizeof(T), 0, 0}, 0, op_hash(op), n, 0};
  if (verifies(comm) || named < 0) {
    const call_record r = begin_call(comm, fn, h, local, nullptr, 0, s);
    if (local) std::rethrow_exception(local);
    for (const auto& x : r.headers) {
      if (x.n != n) {
        throw mismatch_error(std::string(fn) + ": every rank must give the same n (this rank " +
                             std::to_string(n) + ", another " + std::to_string(x.n) + ")");
      }
    }
  } else if (local) {
    std::rethrow_exception(local);
  }
  if (n == 0) return;
  if constexpr (is_scalar_v<T> && nccl_type<T>() >= 0) {
    if (named >= 0) {
      nccl_all_reduce(comm, d_in, d_out, n, static_cast<ncclDataType_t>(nccl_type<T>()),
                      static_cast<ncclRedOp_t>(named), s);
      return;
    }
  }
  // Reduce-scatter then all-gather, as a ring all-reduce moves data: rank j owns elements
  // [j * chunk, (j + 1) * chunk); every rank sends it that part, j combines the P parts in rank
  // order with the operator, and the combined parts are gathered on every rank.
  const auto ranks = static_cast<std::size_t>(comm.size());
  const auto me = static_cast<std::size_t>(comm.rank());
  const std::size_t chunk = (n + ranks - 1) / ranks;
  auto part = [&](std::size_t j) {
    const std::size_t b = std::min(n, j * chunk);
    return std::pair<std::size_t, std::size_t>{b, std::min(n, b + chunk) - b};
  };
  std::vector<std::uint64_t> send(ranks), recv(ranks);
  for (std::size_t j = 0; j < ranks; ++j)
    send[j] = part(j).second;
  const auto [mine_at, mine_n] = part(me);
  std::fill(recv.begin(), recv.end(), mine_n);
  device_buffer<T> parts(mine_n * ranks, s, mr);
  exchange(comm, {{d_in, parts.data(), sizeof(T)}}, send, recv, s);
  if (mine_n != 0) {
    T* acc = d_out + mine_at;
    if (ranks == 1) {
      copy_device(acc, parts.data(), mine_n * sizeof(T), s);
    } else {
      ::cupar::transform(static_cast<const T*>(parts.data()),
                         static_cast<const T*>(parts.data() + mine_n), acc, mine_n, op, s);
      for (std::size_t j = 2; j < ranks; ++j) {
        ::cupar::transform(static_cast<const T*>(acc),
                           static_cast<const T*>(parts.data() + j * mine_n), acc, mine_n, op, s);
      }
    }
  }
  std::vector<std::size_t> bytes(ranks);
  for (std::size_t j = 0; j < ranks; ++j)
    bytes[j] = part(j).second * sizeof(T);
  all_gather_v(comm, d_out + mine_at, d_out, bytes, s);
}

// ---- scans ------------------------------------------------------------------------------------

/// The scans' fix-up, d_out[i] = op(*d_prefix, d_out[i]) for i < n, with the prefix read from
/// device memory: a binary transform whose first input broadcasts it. Specialised here for
/// run-time operators and in cupar/dist.cuh for C++ callables.
template <class Op, class = void>
struct prefix_applier;

template <>
struct prefix_applier<::cupar::jit::op> {
  template <class T>
  static void apply(const ::cupar::jit::op& op, const T* d_prefix, T* d_out, std::size_t n,
                    stream_ref s) {
    if (n == 0) return;
    namespace jit = ::cupar::jit;
    ::cupar::transform(jit::permutation(jit::iterator(d_prefix), jit::constant(0)),
                       jit::iterator(static_cast<const T*>(d_out)), jit::output(d_out), n, op, s);
  }
};

/// The reduction, in rank order, of `first` (a device value, or nothing) and the totals of the
/// non-empty ranks before this one (`parts`, one per rank), written to `*d_result`: an inclusive
/// scan of at most P values (scans keep the operands' order, reductions need not). False when
/// there is nothing to reduce.
template <class T, class Op>
bool prefix_of(const call_record& r, int me, const T* parts, const T* first, const Op& op,
               T* d_result, stream_ref s, memory_resource& mr) {
  const std::vector<int> before = non_empty(r, me);
  const std::size_t k = before.size() + (first != nullptr ? 1 : 0);
  if (k == 0) return false;
  device_buffer<T> list(k, s, mr);
  std::size_t at = 0;
  if (first != nullptr) copy_device(list.data() + at++, first, sizeof(T), s);
  if (!before.empty()) {
    const std::vector<std::uint64_t> idx(before.begin(), before.end());
    device_buffer<std::uint64_t> d_idx(idx, s, mr);
    gather_bytes(parts, sizeof(T), d_idx.data(), idx.size(), list.data() + at, s);
  }
  if (k > 1) ::cupar::inclusive_scan(static_cast<const T*>(list.data()), list.data(), k, op, s, mr);
  copy_device(d_result, list.data() + (k - 1), sizeof(T), s);
  return true;
}

/// The scans' argument checks and header exchange.
template <class T, class Op>
call_record begin_scan(communicator& comm, const char* fn, call_kind kind, const T* d_in,
                       const T* d_out, std::size_t n, const Op& op, stream_ref s) {
  static_assert(std::is_trivially_copyable_v<T>, "cupar::dist scans: T must be trivially copyable");
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_in", d_in, n);
    ::cupar::detail::require_data(fn, "d_out", d_out, n);
    ::cupar::detail::require_same_or_disjoint(fn, "d_in", d_in, n * sizeof(T), "d_out", d_out,
                                              n * sizeof(T));
  });
  const call_header h{kind, {sizeof(T), 0, 0}, 0, op_hash(op), n, 0};
  call_record r = begin_call(comm, fn, h, local, nullptr, 0, s);
  if (local) std::rethrow_exception(local);
  return r;
}

template <class T, class Op>
void inclusive_scan(communicator& comm, const char* fn, const T* d_in, T* d_out, std::size_t n,
                    const Op& op, stream_ref s, memory_resource& mr) {
  const call_scope scope(comm, fn, s);
  const call_record r = begin_scan(comm, fn, call_kind::inclusive_scan, d_in, d_out, n, op, s);
  // The local scan; its last element is this rank's total. The totals are gathered, and each
  // rank applies the reduction of those before it to its elements (on the device throughout).
  const auto ranks = static_cast<std::size_t>(comm.size());
  device_buffer<T> parts(ranks + 2, s, mr);
  T* mine = parts.data() + ranks;
  T* prefix = parts.data() + ranks + 1;
  if (n != 0) {
    ::cupar::inclusive_scan(d_in, d_out, n, op, s, mr);
    copy_device(mine, d_out + (n - 1), sizeof(T), s);
  }
  all_gather(comm, mine, parts.data(), sizeof(T), s);
  if (n == 0) return;
  if (prefix_of<T>(r, comm.rank(), parts.data(), nullptr, op, prefix, s, mr)) {
    prefix_applier<Op>::apply(op, static_cast<const T*>(prefix), d_out, n, s);
  }
}

template <class T, class Op>
void exclusive_scan(communicator& comm, const char* fn, const T* d_in, T* d_out, std::size_t n,
                    const Op& op, T init, stream_ref s, memory_resource& mr) {
  const call_scope scope(comm, fn, s);
  const call_record r = begin_scan(comm, fn, call_kind::exclusive_scan, d_in, d_out, n, op, s);
  // out[0] = Q, out[i] = Q op (x0 op ... op x(i-1)) with Q = init op (the totals before this
  // rank): the local inclusive scan of x[0, n - 1) is written to out[1, n), this rank's total is
  // its last element op x(n - 1), and Q is applied once the totals are gathered.
  const auto ranks = static_cast<std::size_t>(comm.size());
  device_buffer<T> parts(ranks + 3, s, mr);
  T* mine = parts.data() + ranks;
  T* q = parts.data() + ranks + 1;
  T* d_init = parts.data() + ranks + 2;
  copy_from_host(d_init, &init, sizeof(T), s);  // staged by CUDA before the call returns
  device_buffer<T> copy;
  const T* src = d_in;
  if (n != 0) {
    if (d_in == d_out) {  // the scan below writes out[1, n) while it reads x[0, n - 1)
      copy = device_buffer<T>(n, s, mr);
      copy_device(copy.data(), d_in, n * sizeof(T), s);
      src = copy.data();
    }
    if (n >= 2) {
      ::cupar::inclusive_scan(src, d_out + 1, n - 1, op, s, mr);
      ::cupar::transform(static_cast<const T*>(d_out + (n - 1)), src + (n - 1), mine, 1, op, s);
    } else {
      copy_device(mine, src, sizeof(T), s);
    }
  }
  all_gather(comm, mine, parts.data(), sizeof(T), s);
  if (n == 0) return;
  prefix_of<T>(r, comm.rank(), parts.data(), d_init, op, q, s, mr);
  copy_device(d_out, q, sizeof(T), s);
  prefix_applier<Op>::apply(op, static_cast<const T*>(q), d_out + 1, n - 1, s);
}

// ---- histograms ---------------------------------------------------------------------------------

template <class Counter, class Local>
void histogram(communicator& comm, const char* fn, std::size_t n, Counter* d_histogram,
               int num_levels, std::uint64_t op, stream_ref s, Local&& local_histogram) {
  static_assert(std::is_integral_v<Counter> && (sizeof(Counter) == 4 || sizeof(Counter) == 8),
                "cupar::dist histograms: counters must be 32- or 64-bit integers");
  const call_scope scope(comm, fn, s);
  const auto local = checked([&] {
    ::cupar::detail::require_pointer(fn, "d_histogram", d_histogram);
    if (num_levels < 2) {
      ::cupar::detail::throw_invalid_argument(
          fn, "num_levels = " + std::to_string(num_levels) + " (at least 2 levels, i.e. one bin)");
    }
  });
  if (verifies(comm)) {
    const call_header h{call_kind::histogram,
                        {sizeof(Counter), 0, 0},
                        static_cast<std::uint32_t>(num_levels),
                        op,
                        n,
                        0};
    begin_call(comm, fn, h, local, nullptr, 0, s);
  }
  if (local) std::rethrow_exception(local);
  local_histogram();
  nccl_all_reduce(comm, d_histogram, d_histogram, static_cast<std::size_t>(num_levels - 1),
                  static_cast<ncclDataType_t>(nccl_type<Counter>()), ncclSum, s);
}

// ---- sample sort ------------------------------------------------------------------------------

/// How many samples a sort draws: per output shard, so that the largest shard exceeds N / P by
/// more than sort_balance only with negligible probability (it is checked, and drawn again).
constexpr std::uint64_t samples_per_rank = 16384;
/// The bound on the largest output shard of dist::sort_keys / sort_pairs: N / P * (1 +
/// sort_balance) + 1 elements (exactly balanced when every key is a sample: N <= 16384 P).
constexpr double sort_balance = 0.05;
/// Local element counts are limited to 2^40 (their tag: rank << 40 | index).
constexpr int tag_bits = 40;

inline std::uint64_t tag_base(int rank) {
  return static_cast<std::uint64_t>(rank) << tag_bits;
}

/// The radix sort's side of the sample sort: arithmetic keys in CUB's radix order.
template <class K>
struct radix_order {
  radix_options options;
  std::uint32_t flags() const { return options.order == sort_order::descending ? 1u : 0u; }
  std::uint64_t hash() const { return 0; }
  template <class V>
  void sort_samples(const K* keys, K* keys_out, const V* values, V* values_out, std::size_t n,
                    stream_ref s, memory_resource& mr) const {
    ::cupar::sort_pairs(keys, keys_out, values, values_out, n, options, s, mr);
  }
  void buckets(const K* keys, std::size_t n, const K* split_keys, const std::uint64_t* split_tags,
               int splitters, std::uint64_t base, void* out, unsigned long long* counts,
               stream_ref s, memory_resource&) const {
    radix_buckets(::cupar::detail::scalar_of<K>(), options.order == sort_order::descending, keys, n,
                  split_keys, split_tags, splitters, base, out, counts, s);
  }
  void sort_keys(K* keys, std::size_t n, stream_ref s, memory_resource& mr) const {
    ::cupar::sort_keys(keys, keys, n, options, s, mr);
  }
  template <class V>
  void sort_pairs(K* keys, V* values, std::size_t n, stream_ref s, memory_resource& mr) const {
    ::cupar::sort_pairs(keys, keys, values, values, n, options, s, mr);
  }
};

/// The comparator's side: a stable merge sort, ties between keys broken by their tags.
template <class K, class Comp>
struct comparator_order {
  const Comp& comp;
  std::uint32_t flags() const { return 2u; }
  std::uint64_t hash() const { return op_hash(comp); }
  template <class V>
  void sort_samples(const K* keys, K* keys_out, const V* values, V* values_out, std::size_t n,
                    stream_ref s, memory_resource& mr) const {
    ::cupar::stable_sort_pairs(keys, keys_out, values, values_out, n, comp, s, mr);
  }
  void buckets(const K* keys, std::size_t n, const K* split_keys, const std::uint64_t* split_tags,
               int splitters, std::uint64_t base, void* out, unsigned long long* counts,
               stream_ref s, memory_resource& mr) const {
    device_buffer<std::uint64_t> lb(n, s, mr), ub(n, s, mr);
    if (n != 0) {
      ::cupar::lower_bound(split_keys, static_cast<std::size_t>(splitters), keys, n, lb.data(),
                           comp, s);
      ::cupar::upper_bound(split_keys, static_cast<std::size_t>(splitters), keys, n, ub.data(),
                           comp, s);
    }
    tie_buckets(lb.data(), ub.data(), n, split_tags, splitters, base, out, counts, s);
  }
  void sort_keys(K* keys, std::size_t n, stream_ref s, memory_resource& mr) const {
    ::cupar::stable_sort_keys(keys, keys, n, comp, s, mr);
  }
  template <class V>
  void sort_pairs(K* keys, V* values, std::size_t n, stream_ref s, memory_resource& mr) const {
    ::cupar::stable_sort_pairs(keys, keys, values, values, n, comp, s, mr);
  }
};

/// Rank `j`'s number of samples out of `total` (proportional to its share of the elements).
inline std::uint64_t samples_of(std::uint64_t n_j, std::uint64_t n_total, std::uint64_t total) {
  if (total >= n_total) return n_j;
  return static_cast<std::uint64_t>((static_cast<long double>(total) * n_j) / n_total);
}

/// The splitters of a sample sort and each element's destination: draws samples, sorts them,
/// picks P - 1 splitters, has `destinations(split_keys, split_tags, splitters, d_counts)` count
/// the elements each rank gets, and gathers the count matrix (counts[i * P + j]: rank i to rank
/// j), drawing again with more samples while the largest shard would exceed the bound.
template <class K, class Order, class Destinations>
std::vector<std::uint64_t> assign_ranks(communicator& comm, const call_record& r, const K* d_keys,
                                        std::size_t n, const Order& order,
                                        const Destinations& destinations, stream_ref s,
                                        memory_resource& mr, phase_timer& phases) {
  const int ranks = comm.size();
  const int me = comm.rank();
  const std::uint64_t total = r.total_n();
  device_buffer<unsigned long long> d_counts(static_cast<std::size_t>(ranks), s, mr);
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t want = samples_per_rank * static_cast<std::uint64_t>(ranks)
                               << (3 * attempt);
    const bool exact = want >= total;
    // Every rank's number of samples, proportional to its count (all of its keys when exact):
    // stratified samples of its keys, in position order, so the gathered samples are in (rank,
    // position) order.
    std::vector<std::uint64_t> counts_of(static_cast<std::size_t>(ranks));
    for (int j = 0; j < ranks; ++j)
      counts_of[static_cast<std::size_t>(j)] =
          samples_of(r.headers[static_cast<std::size_t>(j)].n, total, want);
    const std::uint64_t m = counts_of[static_cast<std::size_t>(me)];
    std::uint64_t all = 0;
    std::vector<std::size_t> key_bytes(static_cast<std::size_t>(ranks)),
        tag_bytes(static_cast<std::size_t>(ranks));
    for (int j = 0; j < ranks; ++j) {
      all += counts_of[static_cast<std::size_t>(j)];
      key_bytes[static_cast<std::size_t>(j)] = counts_of[static_cast<std::size_t>(j)] * sizeof(K);
      tag_bytes[static_cast<std::size_t>(j)] = counts_of[static_cast<std::size_t>(j)] * 8;
    }
    device_buffer<K> my_keys(m, s, mr), keys(all, s, mr), sorted_keys(all, s, mr);
    device_buffer<std::uint64_t> my_tags(m, s, mr), tags(all, s, mr), sorted_tags(all, s, mr);
    sample_keys(d_keys, sizeof(K), n, m,
                0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(me) + 1) +
                    static_cast<std::uint64_t>(attempt),
                tag_base(me), my_keys.data(), my_tags.data(), s);
    all_gather_v(comm, my_keys.data(), keys.data(), key_bytes, s);
    all_gather_v(comm, my_tags.data(), tags.data(), tag_bytes, s);
    order.sort_samples(static_cast<const K*>(keys.data()), sorted_keys.data(),
                       static_cast<const std::uint64_t*>(tags.data()), sorted_tags.data(), all, s,
                       mr);
    // Splitter j is the sample at j * all / P: each bucket holds about all / P samples.
    std::vector<std::uint64_t> picks;
    for (int j = 1; j < ranks; ++j)
      picks.push_back(all * static_cast<std::uint64_t>(j) / static_cast<std::uint64_t>(ranks));
    const int splitters = ranks - 1;
    device_buffer<std::uint64_t> d_picks(picks, s, mr);
    device_buffer<K> split_keys(picks.size(), s, mr);
    device_buffer<std::uint64_t> split_tags(picks.size(), s, mr);
    gather_bytes(sorted_keys.data(), sizeof(K), d_picks.data(), picks.size(), split_keys.data(), s);
    gather_bytes(sorted_tags.data(), 8, d_picks.data(), picks.size(), split_tags.data(), s);
    phases.mark("samples and splitters");
    destinations(static_cast<const K*>(split_keys.data()),
                 static_cast<const std::uint64_t*>(split_tags.data()), splitters, d_counts.data());
    phases.mark("destinations");
    std::vector<std::uint64_t> matrix =
        all_gather_device(comm, d_counts.data(), static_cast<std::size_t>(ranks), s);
    phases.mark("counts");
    std::uint64_t largest = 0;
    for (int j = 0; j < ranks; ++j) {
      std::uint64_t to_j = 0;
      for (int i = 0; i < ranks; ++i)
        to_j += matrix[static_cast<std::size_t>(i * ranks + j)];
      largest = std::max(largest, to_j);
    }
    const double bound = static_cast<double>(total) / ranks * (1.0 + sort_balance) + 1.0;
    if (exact || static_cast<double>(largest) <= bound) return matrix;
  }
}

/// The column and the row of this rank in the count matrix.
inline void row_and_column(const std::vector<std::uint64_t>& matrix, int ranks, int me,
                           std::vector<std::uint64_t>& send, std::vector<std::uint64_t>& recv) {
  send.assign(static_cast<std::size_t>(ranks), 0);
  recv.assign(static_cast<std::size_t>(ranks), 0);
  for (int j = 0; j < ranks; ++j) {
    send[static_cast<std::size_t>(j)] = matrix[static_cast<std::size_t>(me * ranks + j)];
    recv[static_cast<std::size_t>(j)] = matrix[static_cast<std::size_t>(j * ranks + me)];
  }
}

inline std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t t = 0;
  for (auto x : v)
    t += x;
  return t;
}

/// Allocates what an exchange needs, agreeing across ranks that every rank could.
template <class F>
void allocate_together(communicator& comm, const char* fn, stream_ref s, F&& allocate) {
  std::exception_ptr failed;
  try {
    allocate();
  } catch (const ::cupar::out_of_memory&) {
    failed = std::current_exception();
  } catch (const ::cupar::cuda_error&) {
    failed = std::current_exception();
  }
  agree(comm, fn, failed, s);
}

/// The most elements a rank can receive from a sort of `total` over `ranks` (the balance bound).
inline std::uint64_t sort_capacity(std::uint64_t total, int ranks) {
  const auto bound =
      static_cast<std::uint64_t>(static_cast<double>(total) / ranks * (1.0 + sort_balance)) + 2;
  return std::min<std::uint64_t>(total, bound);
}

/// The sorts' argument checks and header exchange.
template <class K, class V, class Order>
call_record begin_sort(communicator& comm, const char* fn, call_kind kind, const K* d_keys,
                       const V* d_values, bool with_values, std::size_t n, const Order& order,
                       stream_ref s) {
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_keys", d_keys, n);
    if (with_values) ::cupar::detail::require_data(fn, "d_values", d_values, n);
    if (n >= (std::size_t(1) << tag_bits)) {
      ::cupar::detail::throw_invalid_argument(
          fn, "n = " + std::to_string(n) + " elements on one rank (at most 2^40)");
    }
  });
  const call_header h{kind,
                      {sizeof(K), with_values ? static_cast<std::uint32_t>(sizeof(V)) : 0u, 0},
                      order.flags(),
                      order.hash(),
                      n,
                      0};
  call_record r = begin_call(comm, fn, h, local, nullptr, 0, s);
  if (local) std::rethrow_exception(local);
  return r;
}

/// A sort with one rank, or with no keys anywhere: the local sort into the output.
template <class K, class V, class Order>
void sort_alone(communicator& comm, const char* fn, const K* d_keys, const V* d_values,
                std::size_t n, const Order& order, device_buffer<K>& keys_out,
                device_buffer<V>* values_out, stream_ref s, memory_resource& mr) {
  const bool with_values = values_out != nullptr;
  allocate_together(comm, fn, s, [&] {
    keys_out = device_buffer<K>(n, s, mr);
    if (with_values) *values_out = device_buffer<V>(n, s, mr);
  });
  if (n == 0) return;
  copy_device(keys_out.data(), d_keys, n * sizeof(K), s);
  if (with_values) {
    copy_device(values_out->data(), d_values, n * sizeof(V), s);
    order.sort_pairs(keys_out.data(), values_out->data(), n, s, mr);
  } else {
    order.sort_keys(keys_out.data(), n, s, mr);
  }
}

/// Sample sort of keys and (when values_out is not null) values.
template <class K, class V, class Order>
void sample_sort(communicator& comm, const char* fn, call_kind kind, const K* d_keys,
                 const V* d_values, std::size_t n, const Order& order, device_buffer<K>& keys_out,
                 device_buffer<V>* values_out, stream_ref s, memory_resource& mr) {
  const bool with_values = values_out != nullptr;
  const call_scope scope(comm, fn, s);
  phase_timer phases(comm, s);
  const call_record r = begin_sort(comm, fn, kind, d_keys, d_values, with_values, n, order, s);
  const int ranks = comm.size();
  const int me = comm.rank();
  const std::uint64_t total = r.total_n();
  if (ranks == 1 || total == 0) {
    sort_alone(comm, fn, d_keys, d_values, n, order, keys_out, values_out, s, mr);
    return;
  }
  // Everything the sort needs, allocated at once (the output for the balance bound: every rank
  // receives at most that many), and agreed on by every rank before any data moves.
  device_buffer<unsigned char> buckets;
  device_buffer<K> part_keys;
  device_buffer<V> part_values;
  const std::uint64_t capacity = sort_capacity(total, ranks);
  phases.mark("header");
  allocate_together(comm, fn, s, [&] {
    keys_out = device_buffer<K>(capacity, s, mr);
    if (with_values) *values_out = device_buffer<V>(capacity, s, mr);
    buckets = device_buffer<unsigned char>(n * bucket_bytes(ranks), s, mr);
    part_keys = device_buffer<K>(n, s, mr);
    if (with_values) part_values = device_buffer<V>(n, s, mr);
  });
  phases.mark("allocate");
  std::vector<std::uint64_t> send, recv;
  const std::vector<std::uint64_t> matrix = assign_ranks(
      comm, r, d_keys, n, order,
      [&](const K* split_keys, const std::uint64_t* split_tags, int splitters,
          unsigned long long* d_counts) {
        order.buckets(d_keys, n, split_keys, split_tags, splitters, tag_base(me), buckets.data(),
                      d_counts, s, mr);
      },
      s, mr, phases);
  row_and_column(matrix, ranks, me, send, recv);
  partition_by_bucket(buckets.data(), n, ranks, d_keys, sizeof(K),
                      with_values ? static_cast<const void*>(d_values) : nullptr,
                      with_values ? sizeof(V) : 0, part_keys.data(),
                      with_values ? static_cast<void*>(part_values.data()) : nullptr, mr, s);
  buckets = device_buffer<unsigned char>();
  phases.mark("partition");
  const std::uint64_t m = sum(recv);  // <= capacity: assign_ranks enforces the bound
  std::vector<exchange_array> arrays{{part_keys.data(), keys_out.data(), sizeof(K)}};
  if (with_values) arrays.push_back({part_values.data(), values_out->data(), sizeof(V)});
  exchange(comm, arrays, send, recv, s);
  part_keys = device_buffer<K>();  // given back in stream order, after the exchange
  part_values = device_buffer<V>();
  phases.mark("exchange");
  keys_out.shrink(m);
  if (with_values) values_out->shrink(m);
  if (with_values) {
    order.sort_pairs(keys_out.data(), values_out->data(), m, s, mr);
  } else {
    order.sort_keys(keys_out.data(), m, s, mr);
  }
  phases.mark("local sort");
}

// ---- group-by ----------------------------------------------------------------------------------

template <class K, class V, class Op>
groups<K, V> reduce_by_key(communicator& comm, const char* fn, const K* d_keys, const V* d_values,
                           std::size_t n, const Op& op, stream_ref s, memory_resource& mr) {
  static_assert(is_scalar_v<K>,
                "cupar::dist::reduce_by_key: keys must be arithmetic (ranks are assigned by a "
                "hash of the key)");
  static_assert(std::is_trivially_copyable_v<V>,
                "cupar::dist::reduce_by_key: V must be trivially copyable");
  const call_scope scope(comm, fn, s);
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_keys", d_keys, n);
    ::cupar::detail::require_data(fn, "d_values", d_values, n);
  });
  const call_header h{call_kind::reduce_by_key, {sizeof(K), sizeof(V), 0}, 0, op_hash(op), n, 0};
  const call_record r = begin_call(comm, fn, h, local, nullptr, 0, s);
  if (local) std::rethrow_exception(local);
  const int ranks = comm.size();
  const int me = comm.rank();
  groups<K, V> out;
  // Everything but what this rank receives, allocated at once (m <= n) and agreed on.
  device_buffer<K> sk, local_keys, part_keys;
  device_buffer<V> sv, local_values, part_values;
  device_buffer<unsigned char> buckets;
  device_buffer<unsigned long long> counts;
  allocate_together(comm, fn, s, [&] {
    sk = device_buffer<K>(n, s, mr);
    sv = device_buffer<V>(n, s, mr);
    local_keys = device_buffer<K>(n, s, mr);
    local_values = device_buffer<V>(n, s, mr);
    buckets = device_buffer<unsigned char>(n * bucket_bytes(ranks), s, mr);
    counts = device_buffer<unsigned long long>(static_cast<std::size_t>(ranks), s, mr);
    part_keys = device_buffer<K>(n, s, mr);
    part_values = device_buffer<V>(n, s, mr);
  });
  // 1. Combine each key's rows locally (radix sort, then reduce_by_key): the exchange moves one
  //    partial aggregate per key and rank.
  std::size_t m = 0;
  if (n != 0) {
    ::cupar::sort_pairs(d_keys, sk.data(), d_values, sv.data(), n, s, mr);
    m = ::cupar::reduce_by_key_count(static_cast<const K*>(sk.data()),
                                     static_cast<const V*>(sv.data()), local_keys.data(),
                                     local_values.data(), n, op, s, mr);
  }
  sk = device_buffer<K>();
  sv = device_buffer<V>();
  // 2. Each key's partials go to the rank its hash names.
  hash_buckets(::cupar::detail::scalar_of<K>(), local_keys.data(), m, ranks, false, buckets.data(),
               counts.data(), s);
  const auto matrix = all_gather_device(comm, counts.data(), static_cast<std::size_t>(ranks), s);
  std::vector<std::uint64_t> send, recv;
  row_and_column(matrix, ranks, me, send, recv);
  partition_by_bucket(buckets.data(), m, ranks, local_keys.data(), sizeof(K), local_values.data(),
                      sizeof(V), part_keys.data(), part_values.data(), mr, s);
  buckets = device_buffer<unsigned char>();
  local_keys = device_buffer<K>();
  local_values = device_buffer<V>();
  const std::uint64_t got = sum(recv);
  device_buffer<K> rk;
  device_buffer<V> rv;
  allocate_together(comm, fn, s, [&] {
    rk = device_buffer<K>(got, s, mr);
    rv = device_buffer<V>(got, s, mr);
    out.keys = device_buffer<K>(got, s, mr);
    out.values = device_buffer<V>(got, s, mr);
  });
  exchange(comm,
           {{part_keys.data(), rk.data(), sizeof(K)}, {part_values.data(), rv.data(), sizeof(V)}},
           send, recv, s);
  part_keys = device_buffer<K>();
  part_values = device_buffer<V>();
  // reduce_by_key_count below synchronises the stream itself: wait here, with the timeout.
  wait(comm, s);
  // 3. Combine the partials of each key this rank owns (in rank order: the sort is stable and the
  //    partials arrive in rank order).
  if (got == 0) return out;
  ::cupar::sort_pairs(rk.data(), rk.data(), rv.data(), rv.data(), got, s, mr);
  const std::size_t g = ::cupar::reduce_by_key_count(
      static_cast<const K*>(rk.data()), static_cast<const V*>(rv.data()), out.keys.data(),
      out.values.data(), got, op, s, mr);
  out.keys.shrink(g);
  out.values.shrink(g);
  return out;
}

}  // namespace detail

// ================================ public interface
// ================================================

/// Reduces every element of every rank's shard from `init` into `*d_out` on every rank. `op` must
/// be associative and commutative, as for cupar::reduce (CUB's reduce combines elements in an
/// order of its own; the scans and all_reduce keep the operands' order).
///
/// Named operators NCCL has (jit::plus, multiplies, minimum, maximum; cuda::std::plus ... from
/// dist.cuh) on types NCCL has (8-, 32-, 64-bit integers, float, double) reduce each shard
/// locally and combine the partials with ncclAllReduce: asynchronous (with config::verify_calls,
/// the header exchange synchronises the stream first); floating-point sums then round in NCCL's
/// order. Any other operator (run-time text, structs): each shard is reduced locally from its
/// first element, the P partials are gathered and every rank combines them in rank order from
/// init; the header exchange synchronises the stream, the rest is asynchronous.
///
/// @param comm   this rank's communicator
/// @param d_in   this rank's shard (device memory of comm.device(); null only when n == 0)
/// @param d_out  one T of device memory: the result, on every rank
/// @param n      this rank's element count (ranks may differ; 0 allowed)
/// @param op     run-time operator (a, b) -> T (C++ callables: cupar/dist.cuh)
/// @param init   initial value, used once (give the same on every rank)
/// @throws see the top of this header
template <class T>
void reduce(communicator& comm, const T* d_in, T* d_out, std::size_t n, const jit::op& op,
            ::cupar::detail::type_identity_t<T> init, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::reduce(comm, "cupar::dist::reduce", d_in, d_out, n, op, init, stream, mr);
}

/// dist::reduce, returned to the host on every rank (synchronises the stream).
template <class T>
T reduce_value(communicator& comm, const T* d_in, std::size_t n, const jit::op& op,
               ::cupar::detail::type_identity_t<T> init, stream_ref stream,
               memory_resource& mr = default_resource()) {
  return detail::reduce_value(comm, d_in, n, op, init, stream, mr);
}

/// Element-wise reduction across ranks: d_out[i] = x(0)[i] op x(1)[i] op ... op x(P-1)[i] on every
/// rank, for vectors of the same n on every rank (an all-reduce). Named operators NCCL has on
/// its types are one ncclAllReduce. Any other operator: a reduce-scatter (rank j receives every
/// rank's j-th chunk of n / P elements, ncclSend/ncclRecv) and P - 1 binary transforms with the
/// operator in rank order, then an all-gather of the chunks: each rank sends and receives
/// 2 (P - 1) / P n elements, as a ring all-reduce does. In place (d_out == d_in) allowed.
/// Asynchronous, except the header exchange (always made for operators NCCL does not have:
/// mismatched n would corrupt memory). Parameters and exceptions as dist::reduce.
template <class T>
void all_reduce(communicator& comm, const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                stream_ref stream, memory_resource& mr = default_resource()) {
  detail::all_reduce(comm, "cupar::dist::all_reduce", d_in, d_out, n, op, stream, mr);
}

/// Inclusive scan over the concatenation of the shards in rank order: each rank's d_out[i] is
/// the reduction of every element before it on earlier ranks and of its own d_in[0, i]. The
/// result keeps each rank's shard (d_out has this rank's n elements; in place allowed). `op` must
/// be associative; it need not be commutative (operands keep their order). Each rank scans its
/// shard (one read, one write), the last elements (rank totals) are gathered, and each rank
/// applies the reduction of the totals before it to its elements (one more read and write): 4 n
/// element moves against a single-GPU scan's 2 n, and one small all-gather. Synchronises the
/// stream once (the header: every rank's count); the rest is asynchronous. Parameters and
/// exceptions as dist::reduce.
template <class T>
void inclusive_scan(communicator& comm, const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::inclusive_scan(comm, "cupar::dist::inclusive_scan", d_in, d_out, n, op, stream, mr);
}

/// Exclusive scan over the concatenation of the shards from `init` (given once, the same on every
/// rank): d_out[i] = init op (all elements before it). As inclusive_scan otherwise.
template <class T>
void exclusive_scan(communicator& comm, const T* d_in, T* d_out, std::size_t n, const jit::op& op,
                    ::cupar::detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::exclusive_scan(comm, "cupar::dist::exclusive_scan", d_in, d_out, n, op, init, stream, mr);
}

/// The histogram of every rank's samples, on every rank: each rank counts its shard with
/// cupar::histogram_even (same levels on every rank) and the counters are summed with
/// ncclAllReduce. d_histogram (num_levels - 1 counters of 32 or 64 bits) receives the global
/// counts. Asynchronous (with config::verify_calls the header exchange synchronises first).
template <class Sample, class Counter, class Level>
void histogram_even(communicator& comm, const Sample* d_samples, Counter* d_histogram,
                    int num_levels, Level lower, Level upper, std::size_t n, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::histogram(
      comm, "cupar::dist::histogram_even", n, d_histogram, num_levels, 0, stream, [&] {
        ::cupar::histogram_even(d_samples, d_histogram, num_levels, lower, upper, n, stream, mr);
      });
}

/// histogram_even of op(sample), with a run-time sample operator (as cupar::histogram_even).
template <class Sample, class Counter, class Level>
void histogram_even(communicator& comm, const Sample* d_samples, Counter* d_histogram,
                    int num_levels, Level lower, Level upper, std::size_t n, const jit::op& op,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::histogram(comm, "cupar::dist::histogram_even", n, d_histogram, num_levels,
                    detail::op_hash(op), stream, [&] {
                      ::cupar::histogram_even(d_samples, d_histogram, num_levels, lower, upper, n,
                                              op, stream, mr);
                    });
}

/// The histogram over the bins [h_levels[i], h_levels[i + 1]) of every rank's samples, on every
/// rank (as histogram_even).
template <class Sample, class Counter, class Level>
void histogram_range(communicator& comm, const Sample* d_samples, Counter* d_histogram,
                     int num_levels, const Level* h_levels, std::size_t n, stream_ref stream,
                     memory_resource& mr = default_resource()) {
  detail::histogram(
      comm, "cupar::dist::histogram_range", n, d_histogram, num_levels, 0, stream, [&] {
        ::cupar::histogram_range(d_samples, d_histogram, num_levels, h_levels, n, stream, mr);
      });
}

/// Sorts the keys of every rank (radix sort: arithmetic keys, options as cupar::sort_keys) into
/// shards that, concatenated in rank order, are the sorted keys of all ranks; stable across ranks
/// (equal keys keep the order of rank, then position). Returns this rank's shard (allocated from
/// `mr` on `stream`). Output shards are balanced: each holds at most N / P * 1.05 + 1 of the N
/// keys (exactly N / P, rounded, when N <= 16,384 P), also with skewed and all-equal keys.
///
/// A sample sort: 16,384 P keys sampled (stratified, on the device; every key when there are
/// fewer), gathered and sorted on every rank; P - 1 splitters taken at regular ranks among them
/// (ties broken by rank and position); each key's destination found by binary search among the
/// splitters; a stable partition by destination; counts, then keys exchanged with
/// ncclSend/ncclRecv; the received keys radix-sorted in place. Synchronises the stream a few
/// times (the header, the counts, an agreement before the allocations); the partition, the
/// exchange and the final sort are asynchronous.
/// @throws see the top of this header; std::invalid_argument for a null d_keys with n > 0 or
///         n >= 2^40 on one rank
template <class K>
device_buffer<K> sort_keys(communicator& comm, const K* d_keys, std::size_t n,
                           radix_options options, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  static_assert(::cupar::detail::is_scalar_v<K>,
                "cupar::dist::sort_keys: radix sort needs arithmetic keys; sort others with a "
                "comparator");
  device_buffer<K> out;
  detail::sample_sort<K, unsigned char>(comm, "cupar::dist::sort_keys",
                                        detail::call_kind::sort_keys, d_keys, nullptr, n,
                                        detail::radix_order<K>{options}, out, nullptr, stream, mr);
  return out;
}

/// dist::sort_keys ascending.
template <class K>
device_buffer<K> sort_keys(communicator& comm, const K* d_keys, std::size_t n, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  return sort_keys(comm, d_keys, n, ascending, stream, mr);
}

/// dist::sort_keys with a run-time comparator (keys of any type the JIT knows; local sorts are
/// stable merge sorts; splitters are found with cupar::lower_bound / upper_bound). The same
/// balance and stability.
template <class K>
device_buffer<K> sort_keys(communicator& comm, const K* d_keys, std::size_t n, const jit::op& comp,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  device_buffer<K> out;
  detail::sample_sort<K, unsigned char>(
      comm, "cupar::dist::sort_keys", detail::call_kind::sort_keys, d_keys, nullptr, n,
      detail::comparator_order<K, jit::op>{comp}, out, nullptr, stream, mr);
  return out;
}

/// Sorts key-value pairs across ranks by key (radix; values of any trivially copyable type move
/// with their keys). As dist::sort_keys otherwise.
template <class K, class V>
sorted_pairs<K, V> sort_pairs(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                              radix_options options, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  static_assert(::cupar::detail::is_scalar_v<K>,
                "cupar::dist::sort_pairs: radix sort needs arithmetic keys; sort others with a "
                "comparator");
  static_assert(std::is_trivially_copyable_v<V>,
                "cupar::dist::sort_pairs: V must be trivially copyable");
  sorted_pairs<K, V> out;
  detail::sample_sort<K, V>(comm, "cupar::dist::sort_pairs", detail::call_kind::sort_pairs, d_keys,
                            d_values, n, detail::radix_order<K>{options}, out.keys, &out.values,
                            stream, mr);
  return out;
}

/// dist::sort_pairs ascending.
template <class K, class V>
sorted_pairs<K, V> sort_pairs(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                              stream_ref stream, memory_resource& mr = default_resource()) {
  return sort_pairs(comm, d_keys, d_values, n, ascending, stream, mr);
}

/// dist::sort_pairs with a run-time comparator.
template <class K, class V>
sorted_pairs<K, V> sort_pairs(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                              const jit::op& comp, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  sorted_pairs<K, V> out;
  detail::sample_sort<K, V>(comm, "cupar::dist::sort_pairs", detail::call_kind::sort_pairs, d_keys,
                            d_values, n, detail::comparator_order<K, jit::op>{comp}, out.keys,
                            &out.values, stream, mr);
  return out;
}

/// Group-by over keys spread across ranks: every distinct key (`==`; -0.0 == +0.0) ends on
/// exactly one rank (the hash of the key modulo P), with the reduction of all its values from
/// every rank by `op` (associative and commutative: the order of a key's values across ranks is
/// rank order, within a rank the radix sort's). Each rank: radix-sorts its rows by key and
/// reduces each key's rows (cupar::sort_pairs, reduce_by_key), so one partial per key and rank
/// moves; partitions the partials by owner and exchanges them (ncclSend/ncclRecv); sorts what it
/// received and reduces again. Returns this rank's groups, keys ascending. Values may be structs
/// (accumulators such as {count, sum, min, max}). Synchronises the stream several times.
template <class K, class V>
groups<K, V> reduce_by_key(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                           const jit::op& op, stream_ref stream,
                           memory_resource& mr = default_resource()) {
  return detail::reduce_by_key(comm, "cupar::dist::reduce_by_key", d_keys, d_values, n, op, stream,
                               mr);
}

/// Inner equi-join of two tables spread across ranks, on arithmetic keys: each rank gives its
/// rows of the left table (keys, values) and of the right table; every pair of rows with equal
/// keys (NaN keys match nothing; -0.0 == +0.0) is output once, on the rank that owns the key (a
/// hash of the key modulo P): both tables are partitioned by that hash and exchanged, then each
/// rank joins what it received (sort both sides by key, bounds of each left key among the right
/// keys, one output per pair). Returns this rank's pairs ordered by key, then left row, then
/// right row (rows in the order of their rank, then position). Values of any trivially copyable
/// type (carry row indices to gather other columns). Synchronises the stream several times.
template <class K, class L, class R>
joined<K, L, R> inner_join(communicator& comm, const K* d_left_keys, const L* d_left_values,
                           std::size_t n_left, const K* d_right_keys, const R* d_right_values,
                           std::size_t n_right, stream_ref stream,
                           memory_resource& mr = default_resource());

}  // namespace cupar::dist

#include <cupar/dist/detail/join.hpp>
