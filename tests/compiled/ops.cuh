// cupar tests: the operators of the conformance suites as C++ callables (the compiled path).
// tests/jit/ops.hpp gives the same operators as run-time snippets; the suites are written once
// against either.
#pragma once

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

struct compiled_ops {
  static constexpr const char* name = "compiled";
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
};

}  // namespace cupar::testing
