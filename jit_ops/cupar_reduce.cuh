// cupar JIT: CUB's reduce kernels with a run-time operator. Expects cupar_T and the operator
// function cupar_jit_op(const unsigned char* state, cupar_T a, cupar_T b) -> cupar_T. With
// CUPAR_TRANSFORM_REDUCE (transform_reduce sets) also cupar_In and the transform
// cupar_jit_xform(const unsigned char* state, cupar_In x) -> cupar_T, which CUB's agent applies
// to each loaded item (after its vector loads); with CUPAR_INDEX_INPUT as well ("+index" sets)
// the items are indices and the transform is an iterator expression.
#pragma once

#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>

#include <cuda/std/iterator>

#if defined(CUPAR_INDEX_INPUT)
/// The input of the "+index" sets: element i is the index i itself, which the first slot (an
/// iterator expression, cupar_jit_xform) turns into the element. The host passes it as an 8-byte
/// argument holding 0 (cupar_In is unsigned long long). CUB reads a non-pointer input with
/// striped (coalesced) loads, one element per thread per step.
struct cupar_index_iterator {
  typedef unsigned long long value_type;
  typedef long long difference_type;
  typedef const unsigned long long* pointer;
  typedef unsigned long long reference;
  typedef ::cuda::std::random_access_iterator_tag iterator_category;
  unsigned long long base;
  __host__ __device__ __forceinline__ value_type operator*() const { return base; }
  __host__ __device__ __forceinline__ value_type operator[](difference_type i) const {
    return base + static_cast<unsigned long long>(i);
  }
  __host__ __device__ __forceinline__ cupar_index_iterator operator+(difference_type i) const {
    return {base + static_cast<unsigned long long>(i)};
  }
  __host__ __device__ __forceinline__ cupar_index_iterator operator-(difference_type i) const {
    return {base - static_cast<unsigned long long>(i)};
  }
  __host__ __device__ __forceinline__ difference_type operator-(cupar_index_iterator o) const {
    return static_cast<difference_type>(base - o.base);
  }
  __host__ __device__ __forceinline__ cupar_index_iterator& operator+=(difference_type i) {
    base += static_cast<unsigned long long>(i);
    return *this;
  }
  __host__ __device__ __forceinline__ cupar_index_iterator& operator++() {
    ++base;
    return *this;
  }
  __host__ __device__ __forceinline__ bool operator==(cupar_index_iterator o) const {
    return base == o.base;
  }
  __host__ __device__ __forceinline__ bool operator!=(cupar_index_iterator o) const {
    return base != o.base;
  }
};
#endif

struct cupar_reduce_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_T& a, const cupar_T& b) const {
    return cupar_jit_op(state.bytes, a, b);
  }
};

#if defined(CUPAR_TRANSFORM_REDUCE)
struct cupar_transform_op {
  cupar_functor_state state;
  __device__ __forceinline__ cupar_T operator()(const cupar_In& x) const {
    return cupar_jit_xform(state.bytes, x);
  }
};
#endif

/// The initial value: a host value or one read from device memory when the kernel runs
/// (cupar_init, cupar_prelude.cuh).
typedef cupar_init<cupar_T> cupar_reduce_init;

typedef unsigned long long cupar_offset;
typedef cub::detail::reduce::policy_hub<cupar_T, cupar_offset, cupar_reduce_op>::MaxPolicy
    cupar_policy;
typedef cupar_policy::ActivePolicy cupar_active;
