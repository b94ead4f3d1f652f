// cupar: small vocabulary types shared by the algorithm families.
#pragma once

namespace cupar {

/// Direction of a radix sort.
enum class sort_order { ascending, descending };

/// Options of a radix sort: direction and the range of key bits [begin_bit, end_bit) to sort by.
/// Bits count in the key's radix representation (CUB's): for floating-point keys that is the
/// order-preserving transform of the IEEE bits. end_bit = -1 means "all bits of the key".
struct radix_options {
  sort_order order = sort_order::ascending;
  int begin_bit = 0;
  int end_bit = -1;
};

/// Ascending radix sort on every bit of the key (the default).
inline constexpr radix_options ascending{};
/// Descending radix sort on every bit of the key.
inline constexpr radix_options descending{sort_order::descending, 0, -1};

/// What a reduction promises about the bits of its result when its operator is not exactly
/// associative (floating-point sums), for the reduce overloads that take it (both operator kinds):
///
///   cupar::reduce(d_x, d_sum, n, cuda::std::plus<float>{}, 0.0f,
///                 cupar::determinism::not_guaranteed, stream);  // one pass, atomic adds
enum class determinism {
  /// The same bits from run to run on one GPU and one build tier: CUB's two-pass tree (the
  /// default of every reduce).
  run_to_run,
  /// Permits a faster single-pass sum whose blocks add their totals to the output with atomic
  /// adds in the order they finish, so a floating-point result may differ in its last bits from
  /// run to run (an integer sum is exact). Taken for a sum (cuda::std::plus, cupar::jit::plus)
  /// of 32- or 64-bit integers, float or double into a pointer; every other call runs the
  /// run-to-run reduce, which meets the request too.
  not_guaranteed
};

/// An initial value held in device memory, for reduce and the scans (both operator kinds): the
/// kernels read `*ptr` when they run, not when the call is made, so it may be the result of an
/// earlier kernel on the same stream (a reduction's total seeding the next scan) with no copy to
/// the host and no synchronisation. The caller keeps *ptr alive and unchanged until the call's
/// kernels have run (stream order). Made with cupar::device_value{d_ptr} (T deduced).
///
///   cupar::reduce(d_a, d_total, n, cupar::jit::plus, 0.0f, stream);  // the total of a
///   // b's running sums, starting from that total:
///   cupar::exclusive_scan(d_b, d_out, m, cupar::jit::plus, cupar::device_value{d_total}, stream);
template <class T>
struct device_value {
  const T* ptr = nullptr;
  constexpr explicit device_value(const T* p) noexcept : ptr(p) {}
};
template <class T>
device_value(T*) -> device_value<T>;
template <class T>
device_value(const T*) -> device_value<T>;

}  // namespace cupar
