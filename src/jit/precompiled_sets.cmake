# The JIT kernel sets compiled when the library is built (tools/cupar_precompile): every
# algorithm with a run-time operator for the arithmetic element types. Other types (user structs,
# mixed transform types, other sort payload sizes) are compiled from source at run time, once,
# then cached on disk.
set(_types i8 i16 i32 i64 u8 u16 u32 u64 f32 f64)
set(CUPAR_PRECOMPILED_SETS "")
foreach(_t IN LISTS _types)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "reduce<${_t}>"
       "scan_inclusive<${_t}>"
       "scan_exclusive<${_t}>"
       "transform_unary<${_t},${_t}>"
       "transform_binary<${_t},${_t},${_t}>"
       "merge_sort_keys<${_t}>"
       "merge_sort_pairs<${_t},s4a4>"
       "merge_sort_pairs<${_t},s8a8>"
       "histogram_even<${_t},${_t},u32>"
       "histogram_even<${_t},${_t},u64>"
       "histogram_range<${_t},${_t},u32>"
       "histogram_range<${_t},${_t},u64>"
       "transform_reduce<${_t},${_t}>"
       "transform_reduce<u64,${_t}>+index"
       "scan_inclusive<${_t}>+index"
       "scan_exclusive<${_t}>+index"
       "scan_inclusive<${_t}>+io"
       "scan_exclusive<${_t}>+io")
endforeach()
# "transform_reduce<u64,T>+index": reduce over a run-time iterator expression (jit_iterator.hpp)
# into T: the kernels read indices, the expression's generated code computes each element.
# "scan_*<T>+index": scans of an expression (the kernels read it through cupar_expr_iterator);
# "scan_*<T>+io": also written through an output expression (cupar_expr_output);
# struct classes of these compile from source once.
# transform_reduce into a wider accumulator: counts (u64) of floats and of u32s, sums of f32 in
# f64 and of i32 in i64.
list(APPEND CUPAR_PRECOMPILED_SETS
     "transform_reduce<f32,u64>" "transform_reduce<f64,u64>" "transform_reduce<u32,u64>"
     "transform_reduce<f32,f64>" "transform_reduce<i32,i64>")
# transform over iterator and output expressions, and transforms of types without CUB transform
# sets (mixed types, structs of no class): one kernel walking indices whose slot, generated per
# call shape, loads, applies and stores with the caller's types (jit_ops/cupar_for_each.cuh).
list(APPEND CUPAR_PRECOMPILED_SETS "for_each<u64>")

# The data-processing families: kernels compiled for size classes (the unsigned integer of each
# size), so one set serves every arithmetic type of that size; the operators' generated wrappers
# reinterpret the bits as the caller's types.
# "+index": the input is a run-time iterator expression (jit_iterator.hpp) read by the kernels
# (cupar_expr_input.cuh), fused; the other families write an expression to a temporary array
# first (the for_each set), so they need no variant. "+io": the output is an expression too
# (transform_output, discard, ...), stored by the kernels as they compact (an array input is
# read as an expression of one array); the other families write their outputs to a temporary
# array that one for_each pass stores through the expression.
set(_classes u8 u16 u32 u64)
foreach(_c IN LISTS _classes)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "select_if<${_c}>"
       "select_if<${_c}>+inplace"
       "select_if<${_c}>+index"
       "select_if<${_c}>+io"
       "partition_if<${_c}>"
       "partition_if<${_c}>+index"
       "partition_if<${_c}>+io"
       "three_way_partition<${_c}>"
       "unique<${_c}>"
       "unique<${_c}>+index"
       "unique<${_c}>+io")
  foreach(_f IN ITEMS u8 u32)
    list(APPEND CUPAR_PRECOMPILED_SETS "select_flagged<${_c},${_f}>" "select_flagged<${_c},${_f}>+inplace")
  endforeach()
endforeach()

# Segmented reduce and scans (values of each size class) and the binary searches (values of each
# size class, 4- and 8-byte positions): 20 sets. The searches' default comparator `<` needs the
# user's type: it is the precompiled named `less` of that type, linked to the class's kernels.
foreach(_c IN LISTS _classes)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "segmented_reduce<${_c}>"
       "segmented_scan_inclusive<${_c}>"
       "segmented_scan_exclusive<${_c}>"
       "binary_search<${_c},u32>"
       "binary_search<${_c},u64>")
endforeach()

# The by-key families: keys and values of every pair of size classes (16 sets per family), and
# run-length encoding of every key class with 4- and 8-byte counts: 72 sets (about 4-5 min of CI
# build at 3-4 s a set). The default equality is the precompiled named equal_to of the key type,
# linked to the class's kernels, so calls with no operator, or named ones, compile nothing.
# unique_by_key, reduce_by_key and run_length_encode count with 32-bit offsets below 2^31 items
# (64-bit ones ran 1.2-1.8x slower, H100); their 64-bit "+wide" variants for larger inputs are
# compiled from source at run time (to precompile them too: "<family><${_k},${_v}>+wide", 40 sets).
foreach(_k IN LISTS _classes)
  foreach(_v IN LISTS _classes)
    list(APPEND CUPAR_PRECOMPILED_SETS
         "unique_by_key<${_k},${_v}>"
         "reduce_by_key<${_k},${_v}>"
         "scan_by_key_inclusive<${_k},${_v}>"
         "scan_by_key_exclusive<${_k},${_v}>")
  endforeach()
  list(APPEND CUPAR_PRECOMPILED_SETS "run_length_encode<${_k},u32>" "run_length_encode<${_k},u64>")
endforeach()

# The named plus of reduce_by_key and the scans by key on 4- and 8-byte arithmetic values, with
# 4- and 8-byte keys: cuda::std::plus<> compiled into the kernels (the "+plus" variant; the value
# type itself, not its size class), which is what the compiled path hands CUB and the only
# operator for which CUB's reduce-by-key agent takes its identity-zero scan: 36 sets. Other
# named operators, other sizes and snippets use the generic sets above.
foreach(_k IN ITEMS u32 u64)
  foreach(_v IN ITEMS i32 u32 f32 i64 u64 f64)
    list(APPEND CUPAR_PRECOMPILED_SETS
         "reduce_by_key<${_k},${_v}>+plus"
         "scan_by_key_inclusive<${_k},${_v}>+plus"
         "scan_by_key_exclusive<${_k},${_v}>+plus")
  endforeach()
endforeach()

# User structs (issue 11): reduce, the scans and merge sort keys compiled for opaque storage of
# the struct's exact size and alignment ("s<size>a<align>", cupar_storage in jit_ops/
# cupar_prelude.cuh), so that a run-time operator on a struct is linked like one on a float
# instead of compiling CUB's kernels from source (2.1-2.4 s on the H100). CUB picks its tuning
# from the type's size and whether it is primitive (a struct and its storage are not), so a class
# gets the policy nvcc would give the struct. Merge sort pairs: struct keys with the 4- and 8-byte
# payloads (an index, a row id) the arithmetic keys' sets have. Transforms: a record to a record of
# the same class, a record to an f32 or f64 (a field, a derived value: the common projections),
# an f32 to a record; histograms of records binned by an f32 the sample operator computes, 32-bit
# counters. Other mixes (other arithmetic types, two records of different classes, binary
# transforms, other level and counter types) compile from source once. CUPAR_JIT_STRUCT_CLASSES:
# "all" (the 23 classes below, 253 sets), "none", or a list of classes (CI builds three).
set(_struct_classes_all
    s4a4 s8a4 s12a4 s16a4 s20a4 s24a4 s28a4 s32a4
    s8a8 s16a8 s24a8 s32a8 s40a8 s48a8 s64a8 s96a8 s128a8
    s16a16 s32a16 s48a16 s64a16 s96a16 s128a16)
# A list of classes from a cache variable: "none" or s<size>a<align> words (checked).
function(_cupar_struct_class_list var value out)
  if(value STREQUAL "none")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(REPLACE "," ";" _list "${value}")
  foreach(_c IN LISTS _list)
    if(NOT _c MATCHES "^s([0-9]+)a([0-9]+)$")
      message(FATAL_ERROR "${var}: '${_c}' is not a class s<size>a<align>")
    endif()
    set(_size ${CMAKE_MATCH_1})
    set(_align ${CMAKE_MATCH_2})
    math(EXPR _rem "${_size} % ${_align}")
    if(NOT _align MATCHES "^(1|2|4|8|16)$" OR _size GREATER 128 OR _size EQUAL 0 OR NOT _rem EQUAL 0)
      message(FATAL_ERROR "${var}: '${_c}': the size must be a multiple of the "
                          "alignment (1, 2, 4, 8 or 16), at most 128 bytes")
    endif()
  endforeach()
  set(${out} "${_list}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CUPAR_JIT_STRUCT_CLASSES OR CUPAR_JIT_STRUCT_CLASSES STREQUAL "all")
  set(_struct_classes ${_struct_classes_all})
else()
  _cupar_struct_class_list(CUPAR_JIT_STRUCT_CLASSES "${CUPAR_JIT_STRUCT_CLASSES}" _struct_classes)
endif()
foreach(_s IN LISTS _struct_classes)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "reduce<${_s}>"
       "scan_inclusive<${_s}>"
       "scan_exclusive<${_s}>"
       "merge_sort_keys<${_s}>"
       "merge_sort_pairs<${_s},s4a4>"
       "merge_sort_pairs<${_s},s8a8>"
       "transform_unary<${_s},${_s}>"
       "transform_unary<${_s},f32>"
       "transform_unary<${_s},f64>"
       "transform_unary<f32,${_s}>"
       "histogram_even<${_s},f32,u32>"
       "transform_reduce<u64,${_s}>+index")
endforeach()

# The data-processing families on structs (records filtered, partitioned, deduplicated;
# accumulators such as (count, sum, min, max) reduced or scanned by key or by segment): their
# kernels already move opaque storage of the struct's size and alignment when compiled from
# source, so a precompiled set of that class serves every struct of it, the operator linked in
# as for the arithmetic size classes. 20 sets per class; by default for the record shapes met
# most (8, 16 and 20 bytes of 4-byte fields, the last a (key, count, sum, min, max) group-by row
# as examples/groupby.cpp has it; 8, 16 and 32 bytes with 8-byte ones): 120 sets (the "+index"
# selections and partitions of zips into such records, and their "+io" forms into output
# expressions, included).
# CUPAR_JIT_STRUCT_DP_CLASSES: "default", "none", or a list. Struct keys in the by-key families,
# binary searches and select_flagged on structs still compile from source.
set(_struct_dp_classes_default s8a4 s16a4 s20a4 s8a8 s16a8 s32a8)
if(NOT DEFINED CUPAR_JIT_STRUCT_DP_CLASSES OR CUPAR_JIT_STRUCT_DP_CLASSES STREQUAL "default")
  set(_struct_dp_classes ${_struct_dp_classes_default})
else()
  _cupar_struct_class_list(CUPAR_JIT_STRUCT_DP_CLASSES "${CUPAR_JIT_STRUCT_DP_CLASSES}"
                           _struct_dp_classes)
endif()
foreach(_s IN LISTS _struct_dp_classes)
  list(APPEND CUPAR_PRECOMPILED_SETS
       "select_if<${_s}>"
       "select_if<${_s}>+inplace"
       "select_if<${_s}>+index"
       "select_if<${_s}>+io"
       "partition_if<${_s}>"
       "partition_if<${_s}>+index"
       "partition_if<${_s}>+io"
       "three_way_partition<${_s}>"
       "unique<${_s}>"
       "segmented_reduce<${_s}>"
       "segmented_scan_inclusive<${_s}>"
       "segmented_scan_exclusive<${_s}>")
  foreach(_k IN ITEMS u32 u64)
    list(APPEND CUPAR_PRECOMPILED_SETS
         "reduce_by_key<${_k},${_s}>"
         "scan_by_key_inclusive<${_k},${_s}>"
         "scan_by_key_exclusive<${_k},${_s}>"
         "unique_by_key<${_k},${_s}>")
  endforeach()
endforeach()
