// cupar tests: the operators of the conformance suites as run-time snippets (the JIT path).
// Same names and meanings as tests/compiled/ops.cuh, so the suites run unchanged on both paths.
// Compiled by g++: the run-time operator path needs no nvcc.
#pragma once

#include "../common/group_stats.hpp"
#include "../common/types.hpp"

#include <cupar/cupar.hpp>

#include <string>
#include <type_traits>

CUPAR_JIT_TYPE(cupar::testing::mat2, "mat2", "struct mat2 { unsigned int a, b, c, d; };")
CUPAR_JIT_TYPE(cupar::testing::record, "record",
               "struct record { float key; unsigned int payload; };")
CUPAR_JIT_TYPE(cupar::testing::group_stats, "group_stats",
               "struct group_stats { unsigned int count; float sum, min, max; };")

namespace cupar::testing {

template <class T>
std::string cxx() {
  if constexpr (cupar::detail::is_scalar_v<T>) {
    return cupar::detail::scalar_cxx_name(cupar::detail::scalar_of<T>());
  } else {
    return cupar::jit::type_source<T>::name;
  }
}

/// Every operator as a snippet compiled at run time.
struct jit_ops {
  static constexpr const char* name = "jit";
  /// A sum for the reduce with determinism::not_guaranteed: a snippet, which runs the run-to-run
  /// reduce (only the named plus has the single-pass one).
  template <class T>
  static cupar::jit::op sum() {
    return plus<T>();
  }
  template <class T>
  static constexpr bool one_pass_sum() {
    return false;
  }
  template <class T>
  static cupar::jit::op plus() {
    if constexpr (std::is_integral_v<T>) {
      // Wrap-around without signed overflow, like the reference.
      const std::string u = cxx<std::make_unsigned_t<T>>();
      return cupar::jit::op("static_cast<" + cxx<T>() + ">(static_cast<" + u +
                            ">(a) + static_cast<" + u + ">(b))");
    } else {
      return cupar::jit::op("a + b");
    }
  }
  template <class T>
  static cupar::jit::op maximum() {
    return cupar::jit::op("a < b ? b : a");
  }
  template <class T>
  static cupar::jit::op minimum() {
    return cupar::jit::op("b < a ? b : a");
  }
  template <class T>
  static cupar::jit::op square() {
    if constexpr (std::is_integral_v<T>) {
      const std::string u = cxx<std::make_unsigned_t<T>>();
      const std::string w = sizeof(T) <= 4 ? "unsigned int" : "unsigned long long";
      const std::string xw = "static_cast<" + w + ">(static_cast<" + u + ">(x))";
      return cupar::jit::op("static_cast<" + cxx<T>() + ">(" + xw + " * " + xw + ")");
    } else {
      return cupar::jit::op("x * x");
    }
  }
  template <class T>
  static cupar::jit::op positive_one() {
    // C-style casts: a functional cast cannot spell "signed char" or "unsigned long".
    const std::string t = "(" + cxx<T>() + ")";
    return cupar::jit::op("x > " + t + "0 ? " + t + "1 : " + t + "0");
  }
  static cupar::jit::op mat2_mul() {
    return cupar::jit::op(
        "mat2{a.a * b.a + a.b * b.c, a.a * b.b + a.b * b.d, a.c * b.a + a.d * b.c, "
        "a.c * b.b + a.d * b.d}");
  }
  template <class In, class Out>
  static cupar::jit::op affine() {
    const std::string o = cxx<Out>();
    return cupar::jit::op("static_cast<" + o + ">(static_cast<" + o + ">(x) * static_cast<" + o +
                          ">(3) + static_cast<" + o + ">(1))");
  }
  template <class A, class B, class Out>
  static cupar::jit::op sub() {
    const std::string o = cxx<Out>();
    return cupar::jit::op("static_cast<" + o + ">(static_cast<" + o + ">(a) - static_cast<" + o +
                          ">(b))");
  }
  template <class T>
  static cupar::jit::op less() {
    return cupar::jit::op("a < b");
  }
  template <class T>
  static cupar::jit::op greater() {
    return cupar::jit::op("b < a");
  }
  static cupar::jit::op record_less() { return cupar::jit::op("a.key < b.key"); }
  template <class T, class L>
  static cupar::jit::op halve() {
    const std::string l = cxx<L>();
    return cupar::jit::op("static_cast<" + l + ">(x) / static_cast<" + l + ">(2)");
  }
  static cupar::jit::op record_key() { return cupar::jit::op("x.key"); }
  static cupar::jit::op record_bumped() {
    return cupar::jit::op("record{x.key * 2.0f, x.payload + 1u}");
  }
  static cupar::jit::op record_of_key() { return cupar::jit::op("record{x, 7u}"); }
  template <class T>
  static cupar::jit::op less_than(T t) {
    return cupar::jit::op("x < t").param("t", t);
  }
  template <class T>
  static cupar::jit::op equal_to() {
    return cupar::jit::op("a == b");
  }
  static cupar::jit::op record_key_below(float t) {
    return cupar::jit::op("x.key < t").param("t", t);
  }
  static cupar::jit::op record_same_key() { return cupar::jit::op("a.key == b.key"); }
  template <class T>
  static cupar::jit::op same_div4() {
    return cupar::jit::op("static_cast<long long>(a) / 4 == static_cast<long long>(b) / 4");
  }
  static cupar::jit::op merge_stats() {
    return cupar::jit::op(
        "group_stats{a.count + b.count, a.sum + b.sum, b.min < a.min ? b.min : a.min, "
        "a.max < b.max ? b.max : a.max}");
  }
  template <class T>
  static cupar::jit::op nan_last_less() {
    return cupar::jit::op("a < b || (a == a && b != b)");
  }
};

/// Named operators where the library has them (reduce and scan compile nothing, less / greater
/// sorts run the radix sort), snippets elsewhere.
struct named_ops : jit_ops {
  static constexpr const char* name = "named";
  template <class T>
  static cupar::jit::op sum() {
    return cupar::jit::plus;
  }
  /// The named plus runs the single-pass sum for T where the compiled library has T.
  template <class T>
  static bool one_pass_sum() {
    if constexpr (!atomic_addable<T>()) {
      return false;
    } else {
      const std::string types = std::string(",") + CUPAR_TEST_LIBRARY_TYPES + ",";
      return types == ",all," ||
             types.find(std::string(",") +
                        cupar::detail::scalar_name(cupar::detail::scalar_of<T>()) + ",") !=
                 std::string::npos;
    }
  }
  template <class T>
  static cupar::jit::op plus() {
    return cupar::jit::plus;
  }
  template <class T>
  static cupar::jit::op maximum() {
    return cupar::jit::maximum;
  }
  template <class T>
  static cupar::jit::op minimum() {
    return cupar::jit::minimum;
  }
  template <class T>
  static cupar::jit::op less() {
    return cupar::jit::less;
  }
  template <class T>
  static cupar::jit::op greater() {
    return cupar::jit::greater;
  }
  template <class T>
  static cupar::jit::op equal_to() {
    return cupar::jit::equal_to;
  }
};

}  // namespace cupar::testing
