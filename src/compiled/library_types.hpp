// cupar internal: which element types the compiled library is built for (CUPAR_LIBRARY_TYPES;
// all by default). Callers of the per-type instantiations (radix and segmented sorts, histograms,
// named operators) test library_has_v<T> so that a build without a type neither instantiates a
// call to it nor fails to link.
#pragma once

#include <cupar/detail/checks.hpp>
#include <cupar/detail/type_id.hpp>

#include <cupar_library_types.hpp>

#include <string>

namespace cupar::detail {

template <class T>
inline constexpr bool library_has_v = library_types[static_cast<int>(scalar_of<T>())];

/// std::invalid_argument: the library was built without element type `s`.
[[noreturn]] inline void throw_type_not_built(const char* function, scalar s) {
  throw_invalid_argument(function, std::string("element type ") + scalar_name(s) +
                                       " is not in this build of the library "
                                       "(CUPAR_LIBRARY_TYPES)");
}

/// visit_scalar for the per-type instantiations of the library: f(T{}) for a type it is built
/// for, throw_type_not_built otherwise (so no call to a missing instantiation is compiled).
template <class F>
void visit_library_scalar(const char* function, scalar s, F&& f) {
  visit_scalar(s, [&](auto v) {
    if constexpr (library_has_v<decltype(v)>) {
      f(v);
    } else {
      throw_type_not_built(function, s);
    }
  });
}

}  // namespace cupar::detail
