// cupar tests: the README's examples with C++ callables, compiled by nvcc (see doc_examples.cpp).
#include <cupar/cupar.cuh>

// The examples keep the documents' layout: not reformatted.
// clang-format off

#include <cuda/std/tuple>

#include <cmath>
#include <cstddef>

// The functors the README's fused example names.
struct product {
  template <class T>
  __device__ float operator()(const T& ab) const {
    return cuda::std::get<0>(ab) * cuda::std::get<1>(ab);
  }
};
struct argmax_op {
  template <class T>
  __device__ T operator()(const T& a, const T& b) const {
    const float va = cuda::std::get<1>(a), vb = cuda::std::get<1>(b);
    return vb > va || (vb == va && cuda::std::get<0>(b) < cuda::std::get<0>(a)) ? b : a;
  }
};
struct above_half {
  __device__ bool operator()(float x) const { return x > 0.5f; }
};

[[maybe_unused]] void first_example(const float* d_in, float* d_out, std::size_t n,
                                    cupar::stream_ref stream) {
  // doc-example: README.md
  cupar::reduce(d_in, d_out, n, [] __device__ (float a, float b) { return fmaxf(a, b); }, -INFINITY, stream);
  // doc-example end
}

// doc-example: README.md
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
using thrust::make_transform_iterator;
// doc-example end

[[maybe_unused]] void fused(const float* d_a, const float* d_b, const float* d_x, std::size_t n,
                            cupar::stream_ref s) {
  // doc-example: README.md
  // dot product: one pass over a and b
  auto ab = thrust::make_zip_iterator(d_a, d_b);
  float dot = cupar::reduce_value(make_transform_iterator(ab, product{}), n, cuda::std::plus<>{}, 0.f, s);
  using iv = cuda::std::tuple<int, float>;
  auto iz = thrust::make_zip_iterator(thrust::make_counting_iterator<int>(0), d_x);
  iv best = cupar::reduce_value(iz, n, argmax_op{}, iv{-1, -INFINITY}, s);
  // count where x > 0.5: the selected items are not wanted, only their number
  std::size_t c = cupar::select_if_count(d_x, thrust::make_discard_iterator(), n, above_half{}, s);
  // doc-example end
  (void)dot, (void)best, (void)c;
}
// clang-format on

// The examples keep the documents' layout: not reformatted.
// clang-format off

// types.hpp: the not-guaranteed (single-pass) sum.
[[maybe_unused]] void not_guaranteed_sum(const float* d_x, float* d_sum, std::size_t n,
                                         cupar::stream_ref stream) {
  // doc-example: include/cupar/types.hpp
  cupar::reduce(d_x, d_sum, n, cuda::std::plus<float>{}, 0.0f,
                cupar::determinism::not_guaranteed, stream);  // one pass, atomic adds
  // doc-example end
}

// README.md: the same with the named run-time plus.
[[maybe_unused]] void not_guaranteed_named(const float* d_x, float* d_sum, std::size_t n,
                                           cupar::stream_ref stream) {
  // doc-example: README.md
  cupar::reduce(d_x, d_sum, n, cupar::jit::plus, 0.0f, cupar::determinism::not_guaranteed, stream);
  // doc-example end
}

// group_by.cuh: hash aggregation into count, sum, min, max per key.
struct stats {
  unsigned count;
  float sum, min, max;
};
struct to_stats {
  __device__ stats operator()(float x) const { return {1u, x, x, x}; }
};
struct merge_stats {
  __device__ stats operator()(const stats& a, const stats& b) const {
    return {a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)};
  }
};
[[maybe_unused]] std::size_t group_stats(const unsigned* d_keys, const float* d_x, std::size_t n,
                                         cupar::stream_ref stream) {
  // doc-example: include/cupar/group_by.cuh
  auto g = cupar::group_by(d_keys, thrust::make_transform_iterator(d_x, to_stats{}),
                           n, merge_stats{}, stream);  // g.keys, g.values, g.size()
  // doc-example end
  return g.size();
}

// group_by.cuh: a group-by on a composite key under a hash and an equality.
namespace group_by_composite {
// doc-example: include/cupar/group_by.cuh
struct day_store { unsigned day, store; };
struct hash_day_store {  // the key's two columns in one 64-bit value
  __device__ unsigned long long operator()(day_store k) const {
    return (static_cast<unsigned long long>(k.day) << 32) | k.store;
  }
};
struct same_day_store {
  __device__ bool operator()(day_store a, day_store b) const {
    return a.day == b.day && a.store == b.store;
  }
};
// doc-example end
[[maybe_unused]] std::size_t sales(const day_store* d_keys, const float* d_sales, std::size_t n,
                                   cupar::stream_ref stream) {
  // doc-example: include/cupar/group_by.cuh
  // sales per (day, store): g.keys (day_store), g.values (float), g.size()
  auto g = cupar::group_by(d_keys, d_sales, n, hash_day_store{}, same_day_store{},
                           cuda::std::plus<float>{}, stream);
  // doc-example end
  return g.size();
}
}  // namespace group_by_composite

// join.cuh: a join of keys computed on the fly.
struct customer {
  unsigned id;
  float balance;
};
struct order {
  unsigned cust;
  float price;
};
struct id_of {
  __device__ unsigned operator()(const customer& c) const { return c.id; }
};
struct cust_of {
  __device__ unsigned operator()(const order& o) const { return o.cust; }
};
[[maybe_unused]] std::size_t join_computed(const customer* d_cust, std::size_t n_cust,
                                           const order* d_orders, std::size_t n_orders,
                                           cupar::stream_ref stream) {
  // doc-example: include/cupar/join.cuh
  auto m = cupar::inner_join(thrust::make_transform_iterator(d_cust, id_of{}), n_cust,
                             thrust::make_transform_iterator(d_orders, cust_of{}), n_orders,
                             stream);
  // doc-example end
  return m.size();
}
// clang-format on
