// cupar tests: the operators of the conformance suites as C++ callables (the compiled path).
// tests/jit/ops.hpp gives the same operators as run-time snippets; the suites are written once
// against either.
#pragma once

#include "../common/group_stats.hpp"
#include "../common/types.hpp"

#include <cuda/std/functional>

#include <type_traits>

namespace cupar::testing {

template <class T>
struct plus_op {  // wraps for integers, like the reference
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};
template <class T>
struct max_op {
  __device__ T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct min_op {
  __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct square_op {  // x * x, wrapping for integers like the reference
  __device__ T operator()(T x) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      using W = std::conditional_t<(sizeof(T) <= 4), unsigned, unsigned long long>;
      return static_cast<T>(static_cast<W>(static_cast<U>(x)) * static_cast<W>(static_cast<U>(x)));
    } else {
      return x * x;
    }
  }
};
template <class T>
struct positive_one_op {  // 1 for x > 0, else 0 (count where, summed)
  __device__ T operator()(T x) const { return x > T(0) ? T(1) : T(0); }
};
struct mat2_mul_op {
  __device__ mat2 operator()(const mat2& x, const mat2& y) const { return mat2_mul(x, y); }
};
template <class In, class Out>
struct affine_op {  // x * 3 + 1 computed in Out
  __device__ Out operator()(In x) const {
    return static_cast<Out>(static_cast<Out>(x) * static_cast<Out>(3) + static_cast<Out>(1));
  }
};
template <class A, class B, class Out>
struct sub_op {
  __device__ Out operator()(A a, B b) const {
    return static_cast<Out>(static_cast<Out>(a) - static_cast<Out>(b));
  }
};
template <class T>
struct less_op {
  __device__ bool operator()(T a, T b) const { return a < b; }
};
template <class T>
struct greater_op {
  __device__ bool operator()(T a, T b) const { return b < a; }
};
struct record_less_op {
  __device__ bool operator()(const record& a, const record& b) const { return a.key < b.key; }
};
template <class T, class L>
struct halve_op {  // histogram sample operator: x / 2 as the level type
  __device__ L operator()(T x) const { return static_cast<L>(x) / static_cast<L>(2); }
};
struct record_key_op {
  __device__ float operator()(const record& r) const { return r.key; }
};
struct record_bumped_op {  // key doubled, payload + 1
  __device__ record operator()(const record& r) const { return {r.key * 2.0f, r.payload + 1u}; }
};
struct record_of_key_op {  // a record of the key, payload 7
  __device__ record operator()(float k) const { return {k, 7u}; }
};

template <class T>
struct less_than_op {  // predicate x < t
  T t;
  __device__ bool operator()(T x) const { return x < t; }
};
template <class T>
struct equal_op {
  __device__ bool operator()(T a, T b) const { return a == b; }
};
struct record_key_below_op {
  float t;
  __device__ bool operator()(const record& r) const { return r.key < t; }
};
struct record_same_key_op {
  __device__ bool operator()(const record& a, const record& b) const { return a.key == b.key; }
};

template <class T>
struct same_div4_op {  // keys equal when their integer parts agree after division by 4
  __device__ bool operator()(T a, T b) const {
    return static_cast<long long>(a) / 4 == static_cast<long long>(b) / 4;
  }
};
struct merge_stats_op {
  __device__ group_stats operator()(const group_stats& a, const group_stats& b) const {
    return group_stats_merge(a, b);
  }
};

template <class T>
struct nan_last_less_op {  // a strict weak ordering with NaN after every number (search tests)
  __device__ bool operator()(T a, T b) const { return a < b || (a == a && b != b); }
};

struct compiled_ops {
  static constexpr const char* name = "compiled";
  /// A sum the single-pass reduce of determinism::not_guaranteed recognises, and whether it runs
  /// it for T (it allocates nothing then).
  template <class T>
  static ::cuda::std::plus<T> sum() {
    return {};
  }
  template <class T>
  static constexpr bool one_pass_sum() {
    return atomic_addable<T>();
  }
  template <class T>
  static plus_op<T> plus() {
    return {};
  }
  template <class T>
  static max_op<T> maximum() {
    return {};
  }
  template <class T>
  static min_op<T> minimum() {
    return {};
  }
  static mat2_mul_op mat2_mul() { return {}; }
  template <class T>
  static square_op<T> square() {
    return {};
  }
  template <class T>
  static positive_one_op<T> positive_one() {
    return {};
  }
  template <class In, class Out>
  static affine_op<In, Out> affine() {
    return {};
  }
  template <class A, class B, class Out>
  static sub_op<A, B, Out> sub() {
    return {};
  }
  template <class T>
  static less_op<T> less() {
    return {};
  }
  template <class T>
  static greater_op<T> greater() {
    return {};
  }
  static record_less_op record_less() { return {}; }
  template <class T, class L>
  static halve_op<T, L> halve() {
    return {};
  }
  static record_key_op record_key() { return {}; }
  static record_bumped_op record_bumped() { return {}; }
  static record_of_key_op record_of_key() { return {}; }
  template <class T>
  static less_than_op<T> less_than(T t) {
    return {t};
  }
  template <class T>
  static equal_op<T> equal_to() {
    return {};
  }
  static record_key_below_op record_key_below(float t) { return {t}; }
  static record_same_key_op record_same_key() { return {}; }
  template <class T>
  static same_div4_op<T> same_div4() {
    return {};
  }
  static merge_stats_op merge_stats() { return {}; }
  template <class T>
  static nan_last_less_op<T> nan_last_less() {
    return {};
  }
};

}  // namespace cupar::testing
