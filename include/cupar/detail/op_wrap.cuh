// cupar internal: making user callables acceptable to CUB (compiled path, needs nvcc).
#pragma once

#include <cupar/detail/op_traits.hpp>

#include <type_traits>
#include <utility>

namespace cupar::detail {

/// Calls `op` and converts the result to `R`. Its declared return type lets CUB (which asks an
/// operator's result type in host code) use extended __device__ lambdas written without a
/// trailing return type, which CUB alone rejects with a static_assert.
template <class R, class Op>
struct returning_op {
  Op op;
  template <class... Args>
  __device__ __forceinline__ R operator()(Args&&... args) const {
    return static_cast<R>(op(static_cast<Args&&>(args)...));
  }
};

/// `op` itself when CUB can see its result type (functors, cuda::std function objects, lambdas
/// with a trailing return type), so CUB's specialisations for e.g. cuda::std::plus still apply;
/// otherwise `op` wrapped in returning_op<R>.
template <class R, class Op>
__host__ auto with_result_type(const Op& op) {
  static_assert(std::is_trivially_copyable_v<Op>,
                "cupar: the operator must be trivially copyable (it is passed to the GPU by "
                "value); capture by value, not by reference to host objects");
#if defined(__CUDACC_EXTENDED_LAMBDA__)
  if constexpr (__nv_is_extended_device_lambda_closure_type(Op) &&
                !__nv_is_extended_device_lambda_with_preserved_return_type(Op)) {
    return returning_op<R, Op>{op};
  } else {
    return op;
  }
#else
  return op;
#endif
}

/// Always wrapped: for iterators (histogram's sample operator) that need an explicit type.
template <class R, class Op>
__host__ returning_op<R, Op> always_returning(const Op& op) {
  static_assert(std::is_trivially_copyable_v<Op>,
                "cupar: the operator must be trivially copyable (it is passed to the GPU by "
                "value); capture by value, not by reference to host objects");
  return returning_op<R, Op>{op};
}

}  // namespace cupar::detail
