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

}  // namespace cupar
