// cupar internal: argument checks shared by both operator paths. They run before anything is
// queued on the stream and throw std::invalid_argument whose message names the function and the
// argument, e.g. "cupar::reduce: d_in is null but n = 5".
#pragma once

#include <cupar/config.hpp>
#include <cupar/types.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

namespace cupar::detail {

[[noreturn]] CUPAR_EXPORT void throw_invalid_argument(const char* function,
                                                      const std::string& message);

/// Whether cupar::set_device_checks is on (one relaxed atomic load).
CUPAR_EXPORT bool device_checks_on() noexcept;
/// With the device check on: throws std::invalid_argument when `ptr` is device memory that the
/// current device (the stream's: every call checks after its device guard) cannot access.
CUPAR_EXPORT void check_pointer_device(const char* function, const char* name, const void* ptr);

/// `order` is one of cupar::determinism's values (else std::invalid_argument: a value cast from an
/// integer).
inline void require_determinism(const char* function, determinism order) {
  if (order != determinism::run_to_run && order != determinism::not_guaranteed) {
    throw_invalid_argument(function, "order is not a cupar::determinism value");
  }
}

/// The device check of cupar::set_device_checks for one pointer argument (null and unchecked
/// ranges pass).
inline void require_reachable(const char* function, const char* name, const void* ptr) {
  if (ptr != nullptr && device_checks_on()) check_pointer_device(function, name, ptr);
}

/// Stands for a range given by an iterator that is not a pointer (a counting, transform or
/// discard iterator, ...) in the checks below: it is never null and overlaps nothing, so such a
/// range is left unchecked (detail/iterators.cuh: range_address). Address 1 is never that of an
/// allocation.
inline const void* unchecked_range() noexcept {
  return reinterpret_cast<const void*>(std::uintptr_t{1});
}

inline bool is_unchecked_range(const void* p) noexcept {
  return p == unchecked_range();
}

/// `ptr` may be null only when `n == 0`.
/// Then, when n > 0 and the device check is on, it must be reachable from the current device.
inline void require_data(const char* function, const char* name, const void* ptr, std::size_t n) {
  if (n != 0 && ptr == nullptr) {
    throw_invalid_argument(function, std::string(name) + " is null but n = " + std::to_string(n));
  }
  if (n != 0) require_reachable(function, name, ptr);
}

/// `ptr` must not be null whatever `n` is (e.g. reduce's output, which receives init for n == 0),
/// and, with the device check on, reachable from the current device.
inline void require_pointer(const char* function, const char* name, const void* ptr) {
  if (ptr == nullptr) throw_invalid_argument(function, std::string(name) + " is null");
  require_reachable(function, name, ptr);
}

/// n elements of `element_size` bytes must be addressable.
inline void require_size(const char* function, std::size_t n, std::size_t element_size) {
  if (element_size != 0 && n > std::numeric_limits<std::size_t>::max() / element_size) {
    throw_invalid_argument(function, "n = " + std::to_string(n) + " elements overflow size_t");
  }
}

inline bool ranges_overlap(const void* a, std::size_t a_bytes, const void* b,
                           std::size_t b_bytes) noexcept {
  if (a_bytes == 0 || b_bytes == 0) return false;
  if (is_unchecked_range(a) || is_unchecked_range(b)) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a);
  const auto pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + b_bytes && pb < pa + a_bytes;
}

/// The two ranges must be the same range (in place) or not overlap at all.
inline void require_same_or_disjoint(const char* function, const char* a_name, const void* a,
                                     std::size_t a_bytes, const char* b_name, const void* b,
                                     std::size_t b_bytes) {
  if (a == b && a_bytes == b_bytes) return;  // in place (or two unchecked ranges)
  if (ranges_overlap(a, a_bytes, b, b_bytes)) {
    throw_invalid_argument(function, std::string(a_name) + " and " + b_name +
                                         " partially overlap (they must be the same range or "
                                         "disjoint)");
  }
}

/// The two ranges must not overlap at all.
inline void require_disjoint(const char* function, const char* a_name, const void* a,
                             std::size_t a_bytes, const char* b_name, const void* b,
                             std::size_t b_bytes) {
  if (ranges_overlap(a, a_bytes, b, b_bytes)) {
    throw_invalid_argument(function,
                           std::string(a_name) + " and " + b_name + " overlap (they must not)");
  }
}

}  // namespace cupar::detail
