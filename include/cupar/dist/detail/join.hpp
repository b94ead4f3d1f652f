// cupar::dist internal: dist::inner_join (declared in dist/algorithms.hpp).
#pragma once

#include <cupar/dist/algorithms.hpp>

namespace cupar::dist {

template <class K, class L, class R>
joined<K, L, R> inner_join(communicator& comm, const K* d_left_keys, const L* d_left_values,
                           std::size_t n_left, const K* d_right_keys, const R* d_right_values,
                           std::size_t n_right, stream_ref s, memory_resource& mr) {
  static_assert(::cupar::detail::is_scalar_v<K>,
                "cupar::dist::inner_join: keys must be arithmetic (ranks are assigned by a hash "
                "of the key)");
  static_assert(std::is_trivially_copyable_v<L> && std::is_trivially_copyable_v<R>,
                "cupar::dist::inner_join: values must be trivially copyable");
  using namespace detail;
  constexpr const char* fn = "cupar::dist::inner_join";
  const call_scope scope(comm, fn, s);
  const auto local = checked([&] {
    ::cupar::detail::require_data(fn, "d_left_keys", d_left_keys, n_left);
    ::cupar::detail::require_data(fn, "d_left_values", d_left_values, n_left);
    ::cupar::detail::require_data(fn, "d_right_keys", d_right_keys, n_right);
    ::cupar::detail::require_data(fn, "d_right_values", d_right_values, n_right);
  });
  const call_header h{
      call_kind::inner_join, {sizeof(K), sizeof(L), sizeof(R)}, 0, 0, n_left, n_right};
  begin_call(comm, fn, h, local, nullptr, 0, s);
  if (local) std::rethrow_exception(local);
  const int ranks = comm.size();
  const int me = comm.rank();
  const auto P = static_cast<std::size_t>(ranks);
  const auto key = ::cupar::detail::scalar_of<K>();

  // 1. The owner of each row: a hash of its key (NaN keys: nobody).
  device_buffer<unsigned char> lb, rb;
  device_buffer<unsigned long long> counts;
  device_buffer<K> lk, rk;
  device_buffer<L> lv;
  device_buffer<R> rv;
  allocate_together(comm, fn, s, [&] {
    lb = device_buffer<unsigned char>(n_left * bucket_bytes(ranks), s, mr);
    rb = device_buffer<unsigned char>(n_right * bucket_bytes(ranks), s, mr);
    counts = device_buffer<unsigned long long>(2 * P, s, mr);
    lk = device_buffer<K>(n_left, s, mr);
    lv = device_buffer<L>(n_left, s, mr);
    rk = device_buffer<K>(n_right, s, mr);
    rv = device_buffer<R>(n_right, s, mr);
  });
  hash_buckets(key, d_left_keys, n_left, ranks, true, lb.data(), counts.data(), s);
  hash_buckets(key, d_right_keys, n_right, ranks, true, rb.data(), counts.data() + P, s);
  const auto matrix = all_gather_device(comm, counts.data(), 2 * P, s);  // P rows of 2P
  std::vector<std::uint64_t> l_send(P), l_recv(P), r_send(P), r_recv(P);
  for (std::size_t j = 0; j < P; ++j) {
    l_send[j] = matrix[static_cast<std::size_t>(me) * 2 * P + j];
    r_send[j] = matrix[static_cast<std::size_t>(me) * 2 * P + P + j];
    l_recv[j] = matrix[j * 2 * P + static_cast<std::size_t>(me)];
    r_recv[j] = matrix[j * 2 * P + P + static_cast<std::size_t>(me)];
  }
  partition_by_bucket(lb.data(), n_left, ranks, d_left_keys, sizeof(K), d_left_values, sizeof(L),
                      lk.data(), lv.data(), mr, s);
  partition_by_bucket(rb.data(), n_right, ranks, d_right_keys, sizeof(K), d_right_values, sizeof(R),
                      rk.data(), rv.data(), mr, s);
  lb = device_buffer<unsigned char>();
  rb = device_buffer<unsigned char>();

  // 2. Exchange both tables.
  const std::uint64_t nl = sum(l_recv), nr = sum(r_recv);
  device_buffer<K> glk, grk;
  device_buffer<L> glv;
  device_buffer<R> grv;
  allocate_together(comm, fn, s, [&] {
    glk = device_buffer<K>(nl, s, mr);
    glv = device_buffer<L>(nl, s, mr);
    grk = device_buffer<K>(nr, s, mr);
    grv = device_buffer<R>(nr, s, mr);
  });
  exchange(comm, {{lk.data(), glk.data(), sizeof(K)}, {lv.data(), glv.data(), sizeof(L)}}, l_send,
           l_recv, s);
  exchange(comm, {{rk.data(), grk.data(), sizeof(K)}, {rv.data(), grv.data(), sizeof(R)}}, r_send,
           r_recv, s);
  lk = device_buffer<K>();
  lv = device_buffer<L>();
  rk = device_buffer<K>();
  rv = device_buffer<R>();

  // 3. Join what this rank received (local_join synchronises the stream: wait here first, with
  //    the timeout).
  wait(comm, s);
  const local_join j(key, glk.data(), nl, grk.data(), nr, mr, s);
  joined<K, L, R> out;
  out.keys = device_buffer<K>(j.count(), s, mr);
  out.left = device_buffer<L>(j.count(), s, mr);
  out.right = device_buffer<R>(j.count(), s, mr);
  j.write(out.keys.data(), glv.data(), sizeof(L), out.left.data(), grv.data(), sizeof(R),
          out.right.data(), s);
  return out;
}

}  // namespace cupar::dist
