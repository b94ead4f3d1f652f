// cupar internal: telling operator arguments apart from the other arguments of an overload set.
#pragma once

#include <cupar/memory.hpp>
#include <cupar/stream.hpp>
#include <cupar/types.hpp>

#include <type_traits>

namespace cupar {
namespace jit {
class op;
}

namespace detail {

template <class T>
inline constexpr bool is_jit_op_v = std::is_same_v<std::decay_t<T>, jit::op>;

/// True for types that can be a C++ operator argument: not a run-time (JIT) operator and not
/// one of the other argument kinds an algorithm's overloads take in that position.
template <class T>
inline constexpr bool is_callable_op_v =
    !is_jit_op_v<T> && !std::is_convertible_v<T, stream_ref> &&
    !std::is_same_v<std::decay_t<T>, radix_options> && !std::is_pointer_v<std::decay_t<T>> &&
    !std::is_arithmetic_v<std::decay_t<T>> &&
    !std::is_base_of_v<memory_resource, std::decay_t<T>> && std::is_class_v<std::decay_t<T>>;

}  // namespace detail
}  // namespace cupar
