// cupar internal: the families of kernel sets, in one list (the enum `family` and the table of
// records in src/jit/core/family.cpp are made from it). A family's record is `<name>_family`,
// defined in its file under src/jit/families/.
#pragma once

#define CUPAR_JIT_FAMILIES(X) \
  X(reduce)                   \
  X(scan_inclusive)           \
  X(scan_exclusive)           \
  X(transform_unary)          \
  X(transform_binary)         \
  X(merge_sort_keys)          \
  X(merge_sort_pairs)         \
  X(histogram_even)           \
  X(histogram_range)          \
  X(select_if)                \
  X(select_flagged)           \
  X(partition_if)             \
  X(unique)                   \
  X(unique_by_key)            \
  X(run_length_encode)        \
  X(reduce_by_key)            \
  X(scan_by_key_inclusive)    \
  X(scan_by_key_exclusive)    \
  X(three_way_partition)      \
  X(segmented_reduce)         \
  X(segmented_scan_inclusive) \
  X(segmented_scan_exclusive) \
  X(binary_search)            \
  X(transform_reduce)         \
  X(for_each)
