// cupar::dist with C++ callables (nvcc): the distributed algorithms of <cupar/dist.hpp> taking
// functors and extended __device__ lambdas, as the single-GPU calls of <cupar/cupar.cuh> do.
// cuda::std::plus, multiplies, minimum and maximum on types NCCL has map to NCCL's reductions.
// Include this header before <cupar/dist.hpp> (or instead of it).
#pragma once

#if defined(CUPAR_DIST_ALGORITHMS_INCLUDED) && !defined(CUPAR_DIST_WITH_CALLABLES)
#error \
    "include <cupar/dist.cuh> before <cupar/dist.hpp>: the distributed algorithms must see the C++-callable overloads of the single-GPU calls"
#endif
#define CUPAR_DIST_WITH_CALLABLES 1

#include <cupar/cupar.cuh>
#include <cupar/dist.hpp>

#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <cuda/std/functional>

#include <type_traits>

namespace cupar::dist {
namespace detail {

template <class T>
struct nccl_named<::cuda::std::plus<T>> {
  static int get(const ::cuda::std::plus<T>&) { return ncclSum; }
};
template <class T>
struct nccl_named<::cuda::std::multiplies<T>> {
  static int get(const ::cuda::std::multiplies<T>&) { return ncclProd; }
};
template <class T>
struct nccl_named<::cuda::minimum<T>> {
  static int get(const ::cuda::minimum<T>&) { return ncclMin; }
};
template <class T>
struct nccl_named<::cuda::maximum<T>> {
  static int get(const ::cuda::maximum<T>&) { return ncclMax; }
};

template <class Op>
constexpr bool is_callable_v =
    ::cupar::detail::is_callable_op_v<Op> && !std::is_same_v<std::decay_t<Op>, ::cupar::jit::op>;

/// The scans' fix-up with a C++ callable: the prefix broadcast from device memory.
template <class Op>
struct prefix_applier<Op, std::enable_if_t<is_callable_v<Op>>> {
  template <class T>
  static void apply(const Op& op, const T* d_prefix, T* d_out, std::size_t n, stream_ref s) {
    if (n == 0) return;
    ::cupar::transform(
        thrust::make_permutation_iterator(d_prefix, thrust::make_constant_iterator(0)),
        static_cast<const T*>(d_out), d_out, n, op, s);
  }
};

}  // namespace detail

/// dist::reduce with a C++ callable (functor, cuda::std function object or extended __device__
/// lambda): see the run-time-operator overload in dist/algorithms.hpp.
template <class T, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
void reduce(communicator& comm, const T* d_in, T* d_out, std::size_t n, Op op,
            ::cupar::detail::type_identity_t<T> init, stream_ref stream,
            memory_resource& mr = default_resource()) {
  detail::reduce(comm, "cupar::dist::reduce", d_in, d_out, n, op, init, stream, mr);
}

/// dist::reduce_value with a C++ callable.
template <class T, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
T reduce_value(communicator& comm, const T* d_in, std::size_t n, Op op,
               ::cupar::detail::type_identity_t<T> init, stream_ref stream,
               memory_resource& mr = default_resource()) {
  return detail::reduce_value(comm, d_in, n, op, static_cast<T>(init), stream, mr);
}

/// dist::all_reduce with a C++ callable.
template <class T, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
void all_reduce(communicator& comm, const T* d_in, T* d_out, std::size_t n, Op op,
                stream_ref stream, memory_resource& mr = default_resource()) {
  detail::all_reduce(comm, "cupar::dist::all_reduce", d_in, d_out, n, op, stream, mr);
}

/// dist::inclusive_scan with a C++ callable.
template <class T, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
void inclusive_scan(communicator& comm, const T* d_in, T* d_out, std::size_t n, Op op,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::inclusive_scan(comm, "cupar::dist::inclusive_scan", d_in, d_out, n, op, stream, mr);
}

/// dist::exclusive_scan with a C++ callable.
template <class T, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
void exclusive_scan(communicator& comm, const T* d_in, T* d_out, std::size_t n, Op op,
                    ::cupar::detail::type_identity_t<T> init, stream_ref stream,
                    memory_resource& mr = default_resource()) {
  detail::exclusive_scan(comm, "cupar::dist::exclusive_scan", d_in, d_out, n, op, init, stream, mr);
}

/// dist::histogram_even with a C++ sample operator.
template <class Sample, class Counter, class Level, class Op,
          std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
void histogram_even(communicator& comm, const Sample* d_samples, Counter* d_histogram,
                    int num_levels, Level lower, Level upper, std::size_t n, Op op,
                    stream_ref stream, memory_resource& mr = default_resource()) {
  detail::histogram(comm, "cupar::dist::histogram_even", n, d_histogram, num_levels, 0, stream,
                    [&] {
                      ::cupar::histogram_even(d_samples, d_histogram, num_levels, lower, upper, n,
                                              op, stream, mr);
                    });
}

/// dist::sort_keys with a C++ comparator.
template <class K, class Comp, std::enable_if_t<detail::is_callable_v<Comp>, int> = 0>
device_buffer<K> sort_keys(communicator& comm, const K* d_keys, std::size_t n, Comp comp,
                           stream_ref stream, memory_resource& mr = default_resource()) {
  device_buffer<K> out;
  detail::sample_sort<K, unsigned char>(
      comm, "cupar::dist::sort_keys", detail::call_kind::sort_keys, d_keys, nullptr, n,
      detail::comparator_order<K, Comp>{comp}, out, nullptr, stream, mr);
  return out;
}

/// dist::sort_pairs with a C++ comparator.
template <class K, class V, class Comp, std::enable_if_t<detail::is_callable_v<Comp>, int> = 0>
sorted_pairs<K, V> sort_pairs(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                              Comp comp, stream_ref stream,
                              memory_resource& mr = default_resource()) {
  sorted_pairs<K, V> out;
  detail::sample_sort<K, V>(comm, "cupar::dist::sort_pairs", detail::call_kind::sort_pairs, d_keys,
                            d_values, n, detail::comparator_order<K, Comp>{comp}, out.keys,
                            &out.values, stream, mr);
  return out;
}

/// dist::reduce_by_key with a C++ callable.
template <class K, class V, class Op, std::enable_if_t<detail::is_callable_v<Op>, int> = 0>
groups<K, V> reduce_by_key(communicator& comm, const K* d_keys, const V* d_values, std::size_t n,
                           Op op, stream_ref stream, memory_resource& mr = default_resource()) {
  return detail::reduce_by_key(comm, "cupar::dist::reduce_by_key", d_keys, d_values, n, op, stream,
                               mr);
}

}  // namespace cupar::dist

#if !defined(CUPAR_DIST_ALGORITHMS_HAVE_CALLABLES)
#error "include <cupar/dist.cuh> before <cupar/dist.hpp>"
#endif
