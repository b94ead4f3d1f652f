// cupar internal: the arithmetic element types the compiled library and the JIT know by name.
#pragma once

#include <cstdint>
#include <type_traits>

namespace cupar::detail {

/// Arithmetic element types with precompiled library code. `char`, `long`, `long long` and the
/// like map to the type of the same size and signedness.
enum class scalar : std::uint8_t {
  i8 = 1,
  i16,
  i32,
  i64,
  u8,
  u16,
  u32,
  u64,
  f32,
  f64,
};

inline constexpr int scalar_count = 10;

/// X(type) for the C++ type of each scalar, in enum order (explicit instantiations of the
/// compiled library, one translation unit per type).
#define CUPAR_FOR_EACH_SCALAR_TYPE(X) \
  X(signed char)                      \
  X(short)                            \
  X(int)                              \
  X(long long)                        \
  X(unsigned char)                    \
  X(unsigned short)                   \
  X(unsigned int)                     \
  X(unsigned long long)               \
  X(float)                            \
  X(double)

/// Blocks template argument deduction (init values take the element type of the data).
template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;

template <class T>
inline constexpr bool is_scalar_v = (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                     sizeof(T) <= 8) ||
                                    std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T>
constexpr scalar scalar_of() noexcept {
  static_assert(is_scalar_v<T>,
                "cupar: element type must be an integer of 1, 2, 4 or 8 bytes, float or double");
  if constexpr (std::is_same_v<T, float>) {
    return scalar::f32;
  } else if constexpr (std::is_same_v<T, double>) {
    return scalar::f64;
  } else if constexpr (std::is_signed_v<T>) {
    return sizeof(T) == 1   ? scalar::i8
           : sizeof(T) == 2 ? scalar::i16
           : sizeof(T) == 4 ? scalar::i32
                            : scalar::i64;
  } else {
    return sizeof(T) == 1   ? scalar::u8
           : sizeof(T) == 2 ? scalar::u16
           : sizeof(T) == 4 ? scalar::u32
                            : scalar::u64;
  }
}

constexpr int scalar_size(scalar s) noexcept {
  switch (s) {
    case scalar::i8:
    case scalar::u8:
      return 1;
    case scalar::i16:
    case scalar::u16:
      return 2;
    case scalar::i32:
    case scalar::u32:
    case scalar::f32:
      return 4;
    default:
      return 8;
  }
}

/// Short name used in messages and cache keys: "i8" ... "f64".
constexpr const char* scalar_name(scalar s) noexcept {
  switch (s) {
    case scalar::i8:
      return "i8";
    case scalar::i16:
      return "i16";
    case scalar::i32:
      return "i32";
    case scalar::i64:
      return "i64";
    case scalar::u8:
      return "u8";
    case scalar::u16:
      return "u16";
    case scalar::u32:
      return "u32";
    case scalar::u64:
      return "u64";
    case scalar::f32:
      return "f32";
    case scalar::f64:
      return "f64";
  }
  return "?";
}

/// The C++ spelling of the type in generated device code (fixed-width, no headers needed).
constexpr const char* scalar_cxx_name(scalar s) noexcept {
  switch (s) {
    case scalar::i8:
      return "signed char";
    case scalar::i16:
      return "short";
    case scalar::i32:
      return "int";
    case scalar::i64:
      return "long long";
    case scalar::u8:
      return "unsigned char";
    case scalar::u16:
      return "unsigned short";
    case scalar::u32:
      return "unsigned int";
    case scalar::u64:
      return "unsigned long long";
    case scalar::f32:
      return "float";
    case scalar::f64:
      return "double";
  }
  return "?";
}

constexpr bool scalar_is_float(scalar s) noexcept {
  return s == scalar::f32 || s == scalar::f64;
}
constexpr bool scalar_is_signed(scalar s) noexcept {
  return s == scalar::i8 || s == scalar::i16 || s == scalar::i32 || s == scalar::i64 ||
         scalar_is_float(s);
}

/// Calls `f(T{})` with T the canonical C++ type of `s` (the one used in library instantiations).
template <class F>
decltype(auto) visit_scalar(scalar s, F&& f) {
  switch (s) {
    case scalar::i8:
      return f(static_cast<signed char>(0));
    case scalar::i16:
      return f(static_cast<short>(0));
    case scalar::i32:
      return f(static_cast<int>(0));
    case scalar::i64:
      return f(static_cast<long long>(0));
    case scalar::u8:
      return f(static_cast<unsigned char>(0));
    case scalar::u16:
      return f(static_cast<unsigned short>(0));
    case scalar::u32:
      return f(static_cast<unsigned int>(0));
    case scalar::u64:
      return f(static_cast<unsigned long long>(0));
    case scalar::f32:
      return f(0.0f);
    default:
      return f(0.0);
  }
}

}  // namespace cupar::detail
