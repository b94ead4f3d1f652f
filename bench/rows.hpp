// cupar benchmarks: every row of the suite. A row is named <family>/<impl>/<type> and runs at the
// sizes of its size set; Google Benchmark appends /<n> (and /manual_time or /real_time).
//
// impl is one of
//   cupar            cupar's C++-callable path (cupar.cuh, or the library for radix sort and
//                    histograms without a sample operator)
//   cupar_jit        cupar with a run-time (JIT) operator: the same operator as the cupar row,
//                    as a source snippet, from a .cpp compiled by the host compiler
//                    (jit_kernels.cpp), timed once its optimised build serves (jit_rows.hpp)
//   cupar_jit_literal  three_way_partition: cupar_jit with the thresholds written in the
//                    operators' text instead of passed as parameters (the peer's form)
//   cupar_jit_named  cupar with a named run-time operator (cupar::jit::plus): a CUB
//                    instantiation precompiled in the library, nothing compiled at run time
//   cupar_not_guaranteed, cupar_jit_named_not_guaranteed  reduce with
//                    determinism::not_guaranteed (the single-pass atomic sum; word_types.cu)
//   cupar_hash, cupar_sort  group_by_*: group_by held to its hash table, and the
//                    sort-based route called by hand (sort_pairs, reduce_by_key) (group_by.cu);
//                    their cupar_jit rows: group_by with run-time operators (group_by_jit.cpp)
//   cupar_packed     group_by_*/pair_stats: group_by on the two-column keys packed into 8-byte
//                    integers by hand (the pair_stats cupar rows: the struct keys under a hash
//                    and an equality)
//   cupar_jit_plan   host overhead of a JIT plan (reduce_plan, scan_plan, transform_plan)
//   cub, cub_i64     CUB called directly in the same process on the same data (int num_items;
//                    cub_i64: int64_t num_items, for radix sort whose tuning depends on it)
//   cub_scan_by_key  a segmented scan as CUB's scan-by-key on segment ids materialised before
//                    timing (segmented_runners.hpp); cub_radix: CUB's segmented radix sort
//   cub_malloc_async CUB with cudaMallocAsync/cudaFreeAsync around each call (host overhead)
//   cub_flat         zip8 / zip16: CUB's sum over the rows' bytes as one array (the read bound)
//   thrust           Thrust with thrust::cuda::par.on(stream) (allocates its temporary storage
//                    with cudaMalloc in each call; reduce returns the value to the host)
//   cpu_seq, cpu_omp the sequential C++ standard library and OpenMP on all cores
//   cuda_memcpy      cudaMemcpyAsync device to device (the bandwidth bound)
//
// To add a row: one X(...) line below and the function family_impl_type(benchmark::State&) in
// any translation unit (see runners.hpp for the one-function pattern). The report
// (scripts/bench_report.py) picks rows up by name.
//
// The jit_latency family is named jit_latency/<measure>/<case> (impl = the measure, type = the
// case): fresh processes of cupar_jit_latency run by jit_latency_rows.cpp, one iteration each,
// reporting seconds. Its rows come last: they are the slowest to run, and a run stopped by a time
// limit then loses only latency rows, not a family's kernel rows.
#pragma once

#include <benchmark/benchmark.h>

// X(family, impl, type, size set); size sets: gpu (2^10..2^28), cpu_seq (2^10..2^26),
// cpu_omp (2^10..2^28), host_overhead (1,024), once (no size: one iteration, manual time).
#define CUPAR_BENCH_ROWS(X)                                                    \
  X(copy, cuda_memcpy, u32, gpu)                                               \
                                                                               \
  X(reduce_sum, cupar, f32, gpu)                                               \
  X(reduce_sum, cupar_jit, f32, gpu)                                           \
  X(reduce_sum, cupar_jit_named, f32, gpu)                                     \
  X(reduce_sum, cub, f32, gpu)                                                 \
  X(reduce_sum, thrust, f32, gpu)                                              \
  X(reduce_sum, cpu_seq, f32, cpu_seq)                                         \
  X(reduce_sum, cpu_omp, f32, cpu_omp)                                         \
  X(reduce_sum, cupar, i32, gpu)                                               \
  X(reduce_sum, cupar_jit, i32, gpu)                                           \
  X(reduce_sum, cupar_jit_named, i32, gpu)                                     \
  X(reduce_sum, cub, i32, gpu)                                                 \
  X(reduce_sum, thrust, i32, gpu)                                              \
  X(reduce_sum, cpu_seq, i32, cpu_seq)                                         \
  X(reduce_sum, cpu_omp, i32, cpu_omp)                                         \
  X(reduce_max, cupar, f32, gpu)                                               \
  X(reduce_max, cupar_jit, f32, gpu)                                           \
  X(reduce_max, cub, f32, gpu)                                                 \
  X(reduce_max, thrust, f32, gpu)                                              \
  X(reduce_max, cpu_seq, f32, cpu_seq)                                         \
  X(reduce_max, cpu_omp, f32, cpu_omp)                                         \
  X(reduce_sum, cupar_not_guaranteed, f32, gpu)                                \
  X(reduce_sum, cupar_jit_named_not_guaranteed, f32, gpu)                      \
  X(reduce_sum, cupar_not_guaranteed, i32, gpu)                                \
  X(reduce_sum, cupar_jit_named_not_guaranteed, i32, gpu)                      \
  X(reduce_max, cupar, f16, gpu)                                               \
  X(reduce_max, cupar_jit, f16, gpu)                                           \
  X(reduce_max, cub, f16, gpu)                                                 \
  X(reduce_max, cupar, bf16, gpu)                                              \
  X(reduce_max, cupar_jit, bf16, gpu)                                          \
  X(reduce_max, cub, bf16, gpu)                                                \
  X(reduce_sum_to_f32, cupar, f16, gpu)                                        \
  X(reduce_sum_to_f32, cupar_jit, f16, gpu)                                    \
  X(reduce_sum_to_f32, cub, f16, gpu)                                          \
  X(reduce_sum_to_f32, cupar, bf16, gpu)                                       \
  X(reduce_sum_to_f32, cupar_jit, bf16, gpu)                                   \
  X(reduce_sum_to_f32, cub, bf16, gpu)                                         \
  X(reduce_any, cupar, bool, gpu)                                              \
  X(reduce_any, cupar_jit, bool, gpu)                                          \
  X(reduce_any, cub, bool, gpu)                                                \
  X(inclusive_scan_max, cupar, f16, gpu)                                       \
  X(inclusive_scan_max, cupar_jit, f16, gpu)                                   \
  X(inclusive_scan_max, cub, f16, gpu)                                         \
                                                                               \
  X(inclusive_scan, cupar, f32, gpu)                                           \
  X(inclusive_scan, cupar_jit, f32, gpu)                                       \
  X(inclusive_scan, cub, f32, gpu)                                             \
  X(inclusive_scan, thrust, f32, gpu)                                          \
  X(inclusive_scan, cpu_seq, f32, cpu_seq)                                     \
  X(inclusive_scan, cpu_omp, f32, cpu_omp)                                     \
  X(inclusive_scan, cupar, i32, gpu)                                           \
  X(inclusive_scan, cupar_jit, i32, gpu)                                       \
  X(inclusive_scan, cub, i32, gpu)                                             \
  X(inclusive_scan, thrust, i32, gpu)                                          \
  X(inclusive_scan, cpu_seq, i32, cpu_seq)                                     \
  X(inclusive_scan, cpu_omp, i32, cpu_omp)                                     \
                                                                               \
  X(radix_sort_keys, cupar, u32, gpu)                                          \
  X(radix_sort_keys, cub, u32, gpu)                                            \
  X(radix_sort_keys, cub_i64, u32, gpu)                                        \
  X(radix_sort_keys, thrust, u32, gpu)                                         \
  X(radix_sort_keys, cpu_seq, u32, cpu_seq)                                    \
  X(radix_sort_keys, cpu_omp, u32, cpu_omp)                                    \
  X(radix_sort_keys, cupar, u64, gpu)                                          \
  X(radix_sort_keys, cub, u64, gpu)                                            \
  X(radix_sort_keys, cub_i64, u64, gpu)                                        \
  X(radix_sort_keys, thrust, u64, gpu)                                         \
  X(radix_sort_keys, cpu_seq, u64, cpu_seq)                                    \
  X(radix_sort_keys, cpu_omp, u64, cpu_omp)                                    \
  X(radix_sort_keys, cupar, f32, gpu)                                          \
  X(radix_sort_keys, cub, f32, gpu)                                            \
  X(radix_sort_keys, cub_i64, f32, gpu)                                        \
  X(radix_sort_keys, thrust, f32, gpu)                                         \
  X(radix_sort_keys, cpu_seq, f32, cpu_seq)                                    \
  X(radix_sort_keys, cpu_omp, f32, cpu_omp)                                    \
  X(radix_sort_keys, cupar, i32, gpu)                                          \
  X(radix_sort_keys, cub, i32, gpu)                                            \
  X(radix_sort_keys, cub_i64, i32, gpu)                                        \
  X(radix_sort_keys, cupar, u8, gpu)                                           \
  X(radix_sort_keys, cub, u8, gpu)                                             \
  X(radix_sort_keys, cub_i64, u8, gpu)                                         \
  X(radix_sort_pairs, cupar, u32_u32, gpu)                                     \
  X(radix_sort_pairs, cub, u32_u32, gpu)                                       \
  X(radix_sort_pairs, cub_i64, u32_u32, gpu)                                   \
  X(radix_sort_pairs, thrust, u32_u32, gpu)                                    \
  X(radix_sort_pairs, cpu_seq, u32_u32, cpu_seq)                               \
  X(radix_sort_pairs, cpu_omp, u32_u32, cpu_omp)                               \
                                                                               \
  X(merge_sort_keys, cupar, f32, gpu)                                          \
  X(merge_sort_keys, cupar_jit, f32, gpu)                                      \
  X(merge_sort_keys, cub, f32, gpu)                                            \
  X(merge_sort_keys, thrust, f32, gpu)                                         \
  X(merge_sort_keys, cpu_seq, f32, cpu_seq)                                    \
  X(merge_sort_keys, cpu_omp, f32, cpu_omp)                                    \
  X(merge_sort_keys, cupar, i32, gpu)                                          \
  X(merge_sort_keys, cupar_jit, i32, gpu)                                      \
  X(merge_sort_keys, cub, i32, gpu)                                            \
  X(merge_sort_keys, thrust, i32, gpu)                                         \
  X(merge_sort_keys, cpu_seq, i32, cpu_seq)                                    \
  X(merge_sort_keys, cpu_omp, i32, cpu_omp)                                    \
  X(merge_sort_keys, cupar, rec16, gpu)                                        \
  X(merge_sort_keys, cupar_jit, rec16, gpu)                                    \
  X(merge_sort_keys, cub, rec16, gpu)                                          \
  X(merge_sort_keys, cupar, rec32, gpu)                                        \
  X(merge_sort_keys, cupar_jit, rec32, gpu)                                    \
  X(merge_sort_keys, cub, rec32, gpu)                                          \
  X(reduce_struct, cupar, rec16, gpu)                                          \
  X(reduce_struct, cupar_jit, rec16, gpu)                                      \
  X(reduce_struct, cub, rec16, gpu)                                            \
  X(inclusive_scan_struct, cupar, rec16, gpu)                                  \
  X(inclusive_scan_struct, cupar_jit, rec16, gpu)                              \
  X(inclusive_scan_struct, cub, rec16, gpu)                                    \
  X(reduce_by_key, cupar, u32_rec16, gpu)                                      \
  X(reduce_by_key, cupar_jit, u32_rec16, gpu)                                  \
  X(reduce_by_key, cub, u32_rec16, gpu)                                        \
  X(reduce_by_key, cupar, u32_rec28, gpu)                                      \
  X(reduce_by_key, cupar_jit, u32_rec28, gpu)                                  \
  X(reduce_by_key, cub, u32_rec28, gpu)                                        \
  X(merge_sort_pairs, cupar, f32_u32, gpu)                                     \
  X(merge_sort_pairs, cupar_jit, f32_u32, gpu)                                 \
  X(merge_sort_pairs, cub, f32_u32, gpu)                                       \
  X(merge_sort_pairs, thrust, f32_u32, gpu)                                    \
  X(merge_sort_pairs, cpu_seq, f32_u32, cpu_seq)                               \
  X(merge_sort_pairs, cpu_omp, f32_u32, cpu_omp)                               \
                                                                               \
  X(reduce_sum_squares, cupar, f32, gpu)                                       \
  X(reduce_sum_squares, cupar_jit, f32, gpu)                                   \
  X(reduce_sum_squares, cupar_jit_expr, f32, gpu)                              \
  X(reduce_sum_squares, cupar_unfused, f32, gpu)                               \
  X(reduce_sum_squares, cub, f32, gpu)                                         \
  X(dot, cupar, f32, gpu)                                                      \
  X(dot, cupar_jit, f32, gpu)                                                  \
  X(dot, cub, f32, gpu)                                                        \
  X(argmax, cupar, f32, gpu)                                                   \
  X(argmax, cupar_jit, f32, gpu)                                               \
  X(argmax, cub, f32, gpu)                                                     \
  X(argmax32, cupar, f32, gpu)                                                 \
  X(argmax32, cupar_jit, f32, gpu)                                             \
  X(argmax32, cub, f32, gpu)                                                   \
  X(zip8, cupar, f32, gpu)                                                     \
  X(zip8, cupar_jit, f32, gpu)                                                 \
  X(zip8, cub_flat, f32, gpu)                                                  \
  X(zip16, cupar, f32, gpu)                                                    \
  X(zip16, cupar_jit, f32, gpu)                                                \
  X(zip16, cub_flat, f32, gpu)                                                 \
  X(count_where, cupar, f32, gpu)                                              \
  X(count_where, cupar_jit, f32, gpu)                                          \
  X(count_where, cupar_jit_expr, f32, gpu)                                     \
  X(count_where, cub, f32, gpu)                                                \
  X(scan_squares, cupar, f32, gpu)                                             \
  X(scan_squares, cupar_jit_expr, f32, gpu)                                    \
  X(scan_squares, cub, f32, gpu)                                               \
  X(inclusive_scan_out, cupar, f32, gpu)                                       \
  X(inclusive_scan_out, cupar_jit_expr, f32, gpu)                              \
  X(inclusive_scan_out, cub, f32, gpu)                                         \
  X(merge_sort_computed, cupar, f32, gpu)                                      \
  X(merge_sort_computed, cub, f32, gpu)                                        \
  X(sort_computed, cupar_jit_expr, u32, gpu)                                   \
  X(sort_computed, cub, u32, gpu)                                              \
                                                                               \
  X(transform_unary, cupar, f32, gpu)                                          \
  X(transform_unary, cupar_jit, f32, gpu)                                      \
  X(transform_unary, cupar_jit_expr, f32, gpu)                                 \
  X(transform_unary, cub, f32, gpu)                                            \
  X(transform_unary, thrust, f32, gpu)                                         \
  X(transform_unary, cpu_seq, f32, cpu_seq)                                    \
  X(transform_unary, cpu_omp, f32, cpu_omp)                                    \
  X(transform_binary, cupar, i32, gpu)                                         \
  X(transform_binary, cupar_jit, i32, gpu)                                     \
  X(transform_binary, cupar_jit_expr, i32, gpu)                                \
  X(transform_binary, cub, i32, gpu)                                           \
  X(transform_binary, thrust, i32, gpu)                                        \
  X(transform_binary, cpu_seq, i32, cpu_seq)                                   \
  X(transform_binary, cpu_omp, i32, cpu_omp)                                   \
  X(transform_mixed, cupar, i32_f64, gpu)                                      \
  X(transform_mixed, cupar_jit, i32_f64, gpu)                                  \
  X(transform_mixed, cub, i32_f64, gpu)                                        \
                                                                               \
  X(histogram_even, cupar, f32, gpu)                                           \
  X(histogram_even, cub, f32, gpu)                                             \
  X(histogram_even, cpu_seq, f32, cpu_seq)                                     \
  X(histogram_even, cpu_omp, f32, cpu_omp)                                     \
  X(histogram_even, cupar, u8, gpu)                                            \
  X(histogram_even, cub, u8, gpu)                                              \
  X(histogram_even, cpu_seq, u8, cpu_seq)                                      \
  X(histogram_even, cpu_omp, u8, cpu_omp)                                      \
  X(histogram_even_op, cupar, f32, gpu)                                        \
  X(histogram_even_op, cupar_jit, f32, gpu)                                    \
  X(histogram_even_op, cub, f32, gpu)                                          \
  X(histogram_even_op, cpu_seq, f32, cpu_seq)                                  \
  X(histogram_even_op, cpu_omp, f32, cpu_omp)                                  \
                                                                               \
  X(host_overhead, cupar, reduce_f32, host_overhead)                           \
  X(host_overhead, cupar_jit, reduce_f32, host_overhead)                       \
  X(host_overhead, cupar_jit_plan, reduce_f32, host_overhead)                  \
  X(host_overhead, cub, reduce_f32, host_overhead)                             \
  X(host_overhead, cub_malloc_async, reduce_f32, host_overhead)                \
  X(host_overhead, cupar, inclusive_scan_f32, host_overhead)                   \
  X(host_overhead, cupar_jit, inclusive_scan_f32, host_overhead)               \
  X(host_overhead, cupar_jit_plan, inclusive_scan_f32, host_overhead)          \
  X(host_overhead, cub, inclusive_scan_f32, host_overhead)                     \
  X(host_overhead, cub_malloc_async, inclusive_scan_f32, host_overhead)        \
  X(host_overhead, cupar, transform_f32, host_overhead)                        \
  X(host_overhead, cupar_jit, transform_f32, host_overhead)                    \
  X(host_overhead, cupar_jit_plan, transform_f32, host_overhead)               \
  X(host_overhead, cub, transform_f32, host_overhead)                          \
  X(host_overhead, cupar_jit_expr, transform_f32, host_overhead)               \
  X(host_overhead, cupar_jit_expr, reduce_f32, host_overhead)                  \
                                                                               \
  X(select_if, cupar, u32, gpu)                                                \
  X(select_if, cupar_jit, u32, gpu)                                            \
  X(select_if, cub, u32, gpu)                                                  \
  X(select_if, thrust, u32, gpu)                                               \
  X(select_if, cpu_seq, u32, cpu_seq)                                          \
  X(select_if_transformed, cupar, u32, gpu)                                    \
  X(select_if_transformed, cupar_jit_expr, u32, gpu)                           \
  X(select_if_transformed, cupar_jit_unfused, u32, gpu)                        \
  X(select_if_transformed, cub, u32, gpu)                                      \
  X(select_if_output, cupar_jit_expr, u32, gpu)                                \
  X(select_if_output, cupar_jit_unfused, u32, gpu)                             \
  X(select_if_output, cub, u32, gpu)                                           \
  X(select_flagged, cupar, u32, gpu)                                           \
  X(select_flagged, cub, u32, gpu)                                             \
  X(select_flagged, thrust, u32, gpu)                                          \
  X(select_flagged, cpu_seq, u32, cpu_seq)                                     \
  X(select_flagged_transformed, cupar_jit_expr, u32, gpu)                      \
  X(select_flagged_transformed, cupar_jit_unfused, u32, gpu)                   \
  X(select_flagged_transformed, cub, u32, gpu)                                 \
  X(partition, cupar, u32, gpu)                                                \
  X(partition, cupar_jit, u32, gpu)                                            \
  X(partition, cub, u32, gpu)                                                  \
  X(partition, thrust, u32, gpu)                                               \
  X(partition, cpu_seq, u32, cpu_seq)                                          \
  X(partition_in_order, cupar, u32, gpu)                                       \
  X(partition_copy, cupar, u32, gpu)                                           \
  X(partition_copy, cub, u32, gpu)                                             \
  X(partition_copy, thrust, u32, gpu)                                          \
  X(three_way_partition, cupar, u32, gpu)                                      \
  X(three_way_partition, cupar_jit, u32, gpu)                                  \
  X(three_way_partition, cupar_jit_literal, u32, gpu)                          \
  X(three_way_partition, cub, u32, gpu)                                        \
  X(unique, cupar, u32, gpu)                                                   \
  X(unique, cupar_jit, u32, gpu)                                               \
  X(unique, cupar_jit_named, u32, gpu)                                         \
  X(unique, cub, u32, gpu)                                                     \
  X(unique, thrust, u32, gpu)                                                  \
  X(unique, cpu_seq, u32, cpu_seq)                                             \
                                                                               \
  X(reduce_by_key, cupar, u32_f32, gpu)                                        \
  X(reduce_by_key, cupar_jit, u32_f32, gpu)                                    \
  X(reduce_by_key, cupar_jit_named, u32_f32, gpu)                              \
  X(reduce_by_key, cub, u32_f32, gpu)                                          \
  X(reduce_by_key, thrust, u32_f32, gpu)                                       \
  X(reduce_by_key, cpu_seq, u32_f32, cpu_seq)                                  \
  X(reduce_by_key, cupar, u32_f32_functor, gpu)                                \
  X(reduce_by_key, cupar_jit, u32_f32_functor, gpu)                            \
  X(reduce_by_key, cub, u32_f32_functor, gpu)                                  \
  X(reduce_by_key, cupar, key16_f32, gpu)                                      \
  X(reduce_by_key, cupar_jit, key16_f32, gpu)                                  \
  X(reduce_by_key, cub, key16_f32, gpu)                                        \
  X(reduce_by_key_transformed, cupar_jit_expr, u32_f32, gpu)                   \
  X(reduce_by_key_transformed, cupar_jit_unfused, u32_f32, gpu)                \
  X(reduce_by_key_transformed, cub, u32_f32, gpu)                              \
  X(inclusive_scan_by_key, cupar, u32_f32, gpu)                                \
  X(inclusive_scan_by_key, cupar_jit, u32_f32, gpu)                            \
  X(inclusive_scan_by_key, cupar_jit_named, u32_f32, gpu)                      \
  X(inclusive_scan_by_key, cub, u32_f32, gpu)                                  \
  X(inclusive_scan_by_key, thrust, u32_f32, gpu)                               \
  X(inclusive_scan_by_key, cpu_seq, u32_f32, cpu_seq)                          \
  X(inclusive_scan_by_key, cupar, u32_f32_functor, gpu)                        \
  X(inclusive_scan_by_key, cupar_jit, u32_f32_functor, gpu)                    \
  X(inclusive_scan_by_key, cub, u32_f32_functor, gpu)                          \
  X(unique_by_key, cupar, u32_f32, gpu)                                        \
  X(unique_by_key, cupar_jit, u32_f32, gpu)                                    \
  X(unique_by_key, cupar_jit_named, u32_f32, gpu)                              \
  X(unique_by_key, cub, u32_f32, gpu)                                          \
  X(unique_by_key, thrust, u32_f32, gpu)                                       \
  X(unique_by_key, cpu_seq, u32_f32, cpu_seq)                                  \
  X(run_length_encode, cupar, u32, gpu)                                        \
  X(run_length_encode, cub, u32, gpu)                                          \
  X(run_length_encode, thrust, u32, gpu)                                       \
  X(run_length_encode, cpu_seq, u32, cpu_seq)                                  \
                                                                               \
  X(segmented_reduce, cupar, f32, gpu)                                         \
  X(segmented_reduce, cupar_jit, f32, gpu)                                     \
  X(segmented_reduce, cupar_jit_named, f32, gpu)                               \
  X(segmented_reduce, cub, f32, gpu)                                           \
  X(segmented_reduce, cpu_seq, f32, cpu_seq)                                   \
                                                                               \
  X(segmented_inclusive_scan, cupar, f32, gpu)                                 \
  X(segmented_inclusive_scan, cupar_jit, f32, gpu)                             \
  X(segmented_inclusive_scan, cub_scan_by_key, f32, gpu)                       \
                                                                               \
  X(segmented_sort_keys, cupar, u32, gpu)                                      \
  X(segmented_sort_keys, cub, u32, gpu)                                        \
  X(segmented_sort_keys, cub_radix, u32, gpu)                                  \
                                                                               \
  X(lower_bound, cupar, u32, gpu)                                              \
  X(lower_bound, cupar_jit, u32, gpu)                                          \
  X(lower_bound, cupar_jit_named, u32, gpu)                                    \
  X(lower_bound, thrust, u32, gpu)                                             \
  X(lower_bound, cpu_seq, u32, cpu_seq)                                        \
  X(gather, cupar, u32, gpu)                                                   \
  X(gather, thrust, u32, gpu)                                                  \
  X(gather, cupar, u64, gpu)                                                   \
  X(gather, thrust, u64, gpu)                                                  \
  X(scatter, cupar, u32, gpu)                                                  \
  X(scatter, thrust, u32, gpu)                                                 \
  X(group_by_100, cupar, u32_stats, gpu)                                       \
  X(group_by_100, cupar_hash, u32_stats, gpu)                                  \
  X(group_by_100, cupar_jit, u32_stats, gpu)                                   \
  X(group_by_100, cupar_into, u32_stats, gpu)                                  \
  X(group_by_100, cupar_sort, u32_stats, gpu)                                  \
  X(group_by_100, cupar, pair_stats, gpu)                                      \
  X(group_by_100, cupar_jit, pair_stats, gpu)                                  \
  X(group_by_100, cupar_packed, pair_stats, gpu)                               \
  X(group_by_100, cupar_sort, pair_stats, gpu)                                 \
  X(group_by_1k, cupar, u32_stats, gpu)                                        \
  X(group_by_1k, cupar_hash, u32_stats, gpu)                                   \
  X(group_by_1k, cupar_jit, u32_stats, gpu)                                    \
  X(group_by_1k, cupar_into, u32_stats, gpu)                                   \
  X(group_by_1k, cupar_sort, u32_stats, gpu)                                   \
  X(group_by_1k, cupar, pair_stats, gpu)                                       \
  X(group_by_1k, cupar_jit, pair_stats, gpu)                                   \
  X(group_by_1k, cupar_packed, pair_stats, gpu)                                \
  X(group_by_1k, cupar_sort, pair_stats, gpu)                                  \
  X(group_by_4k, cupar, u32_stats, gpu)                                        \
  X(group_by_4k, cupar_hash, u32_stats, gpu)                                   \
  X(group_by_4k, cupar_jit, u32_stats, gpu)                                    \
  X(group_by_4k, cupar_into, u32_stats, gpu)                                   \
  X(group_by_4k, cupar_sort, u32_stats, gpu)                                   \
  X(group_by_4k, cupar, pair_stats, gpu)                                       \
  X(group_by_4k, cupar_jit, pair_stats, gpu)                                   \
  X(group_by_4k, cupar_packed, pair_stats, gpu)                                \
  X(group_by_4k, cupar_sort, pair_stats, gpu)                                  \
  X(group_by_32k, cupar, u32_stats, gpu)                                       \
  X(group_by_32k, cupar_hash, u32_stats, gpu)                                  \
  X(group_by_32k, cupar_jit, u32_stats, gpu)                                   \
  X(group_by_32k, cupar_into, u32_stats, gpu)                                  \
  X(group_by_32k, cupar_sort, u32_stats, gpu)                                  \
  X(group_by_32k, cupar, pair_stats, gpu)                                      \
  X(group_by_32k, cupar_jit, pair_stats, gpu)                                  \
  X(group_by_32k, cupar_packed, pair_stats, gpu)                               \
  X(group_by_32k, cupar_sort, pair_stats, gpu)                                 \
  X(group_by_1m, cupar, u32_stats, gpu)                                        \
  X(group_by_1m, cupar_hash, u32_stats, gpu)                                   \
  X(group_by_1m, cupar_jit, u32_stats, gpu)                                    \
  X(group_by_1m, cupar_into, u32_stats, gpu)                                   \
  X(group_by_1m, cupar_sort, u32_stats, gpu)                                   \
  X(group_by_1m, cupar, pair_stats, gpu)                                       \
  X(group_by_1m, cupar_jit, pair_stats, gpu)                                   \
  X(group_by_1m, cupar_packed, pair_stats, gpu)                                \
  X(group_by_1m, cupar_sort, pair_stats, gpu)                                  \
  X(group_by_16m, cupar, u32_stats, gpu)                                       \
  X(group_by_16m, cupar_hash, u32_stats, gpu)                                  \
  X(group_by_16m, cupar_jit, u32_stats, gpu)                                   \
  X(group_by_16m, cupar_into, u32_stats, gpu)                                  \
  X(group_by_16m, cupar_sort, u32_stats, gpu)                                  \
  X(group_by_16m, cupar, pair_stats, gpu)                                      \
  X(group_by_16m, cupar_jit, pair_stats, gpu)                                  \
  X(group_by_16m, cupar_packed, pair_stats, gpu)                               \
  X(group_by_16m, cupar_sort, pair_stats, gpu)                                 \
  X(join, cupar, u32, gpu)                                                     \
  X(join, cupar_sort, u32, gpu)                                                \
  X(join, cupar_jit, pair, gpu)                                                \
  X(top_k_1, cupar, u32, gpu)                                                  \
  X(top_k_100, cupar, u32, gpu)                                                \
  X(top_k_65536, cupar, u32, gpu)                                              \
  X(top_k_100, cupar, f32, gpu)                                                \
  X(top_k_100, cupar, u64, gpu)                                                \
  X(top_k_100, cupar_jit, f32, gpu)                                            \
  X(top_k_65536, cupar_jit, f32, gpu)                                          \
  X(top_k_100, cupar_jit_sort, f32, gpu)                                       \
                                                                               \
  X(jit_latency, cold_process, reduce_f32, once)                               \
  X(jit_latency, disk_cache_process, reduce_f32, once)                         \
  X(jit_latency, warm_in_process, reduce_f32, once)                            \
  X(jit_latency, new_operator_in_process, reduce_f32, once)                    \
  X(jit_latency, switch_in_process, reduce_f32, once)                          \
  X(jit_latency, cold_process, reduce_f32_optimized, once)                     \
  X(jit_latency, cold_process, merge_sort_keys_f32, once)                      \
  X(jit_latency, disk_cache_process, merge_sort_keys_f32, once)                \
  X(jit_latency, warm_in_process, merge_sort_keys_f32, once)                   \
  X(jit_latency, new_operator_in_process, merge_sort_keys_f32, once)           \
  X(jit_latency, switch_in_process, merge_sort_keys_f32, once)                 \
  X(jit_latency, cold_process, merge_sort_keys_f32_optimized, once)            \
  X(jit_latency, cold_process, reduce_point, once)                             \
  X(jit_latency, disk_cache_process, reduce_point, once)                       \
  X(jit_latency, warm_in_process, reduce_point, once)                          \
  X(jit_latency, new_operator_in_process, reduce_point, once)                  \
  X(jit_latency, cold_process, select_if_u32, once)                            \
  X(jit_latency, disk_cache_process, select_if_u32, once)                      \
  X(jit_latency, warm_in_process, select_if_u32, once)                         \
  X(jit_latency, new_operator_in_process, select_if_u32, once)                 \
  X(jit_latency, switch_in_process, select_if_u32, once)                       \
  X(jit_latency, cold_process, partition_u32, once)                            \
  X(jit_latency, disk_cache_process, partition_u32, once)                      \
  X(jit_latency, warm_in_process, partition_u32, once)                         \
  X(jit_latency, new_operator_in_process, partition_u32, once)                 \
  X(jit_latency, cold_process, three_way_partition_u32, once)                  \
  X(jit_latency, disk_cache_process, three_way_partition_u32, once)            \
  X(jit_latency, warm_in_process, three_way_partition_u32, once)               \
  X(jit_latency, new_operator_in_process, three_way_partition_u32, once)       \
  X(jit_latency, cold_process, unique_u32, once)                               \
  X(jit_latency, disk_cache_process, unique_u32, once)                         \
  X(jit_latency, warm_in_process, unique_u32, once)                            \
  X(jit_latency, new_operator_in_process, unique_u32, once)                    \
  X(jit_latency, cold_process, reduce_by_key_u32_f32, once)                    \
  X(jit_latency, disk_cache_process, reduce_by_key_u32_f32, once)              \
  X(jit_latency, warm_in_process, reduce_by_key_u32_f32, once)                 \
  X(jit_latency, new_operator_in_process, reduce_by_key_u32_f32, once)         \
  X(jit_latency, switch_in_process, reduce_by_key_u32_f32, once)               \
  X(jit_latency, cold_process, inclusive_scan_by_key_u32_f32, once)            \
  X(jit_latency, disk_cache_process, inclusive_scan_by_key_u32_f32, once)      \
  X(jit_latency, warm_in_process, inclusive_scan_by_key_u32_f32, once)         \
  X(jit_latency, new_operator_in_process, inclusive_scan_by_key_u32_f32, once) \
  X(jit_latency, cold_process, segmented_reduce_f32, once)                     \
  X(jit_latency, disk_cache_process, segmented_reduce_f32, once)               \
  X(jit_latency, warm_in_process, segmented_reduce_f32, once)                  \
  X(jit_latency, new_operator_in_process, segmented_reduce_f32, once)          \
  X(jit_latency, switch_in_process, segmented_reduce_f32, once)                \
  X(jit_latency, cold_process, segmented_inclusive_scan_f32, once)             \
  X(jit_latency, disk_cache_process, segmented_inclusive_scan_f32, once)       \
  X(jit_latency, warm_in_process, segmented_inclusive_scan_f32, once)          \
  X(jit_latency, new_operator_in_process, segmented_inclusive_scan_f32, once)  \
  X(jit_latency, cold_process, lower_bound_u32, once)                          \
  X(jit_latency, disk_cache_process, lower_bound_u32, once)                    \
  X(jit_latency, warm_in_process, lower_bound_u32, once)                       \
  X(jit_latency, new_operator_in_process, lower_bound_u32, once)               \
  X(jit_latency, switch_in_process, lower_bound_u32, once)                     \
  X(jit_latency, cold_process, reduce_rec16, once)                             \
  X(jit_latency, disk_cache_process, reduce_rec16, once)                       \
  X(jit_latency, warm_in_process, reduce_rec16, once)                          \
  X(jit_latency, new_operator_in_process, reduce_rec16, once)                  \
  X(jit_latency, cold_process, inclusive_scan_rec16, once)                     \
  X(jit_latency, disk_cache_process, inclusive_scan_rec16, once)               \
  X(jit_latency, warm_in_process, inclusive_scan_rec16, once)                  \
  X(jit_latency, new_operator_in_process, inclusive_scan_rec16, once)          \
  X(jit_latency, cold_process, merge_sort_rec32, once)                         \
  X(jit_latency, disk_cache_process, merge_sort_rec32, once)                   \
  X(jit_latency, warm_in_process, merge_sort_rec32, once)                      \
  X(jit_latency, new_operator_in_process, merge_sort_rec32, once)              \
  X(jit_latency, cold_process, reduce_rec36, once)                             \
  X(jit_latency, disk_cache_process, reduce_rec36, once)                       \
  X(jit_latency, warm_in_process, reduce_rec36, once)                          \
  X(jit_latency, new_operator_in_process, reduce_rec36, once)                  \
  X(jit_latency, cold_process, reduce_by_key_u32_rec16, once)                  \
  X(jit_latency, disk_cache_process, reduce_by_key_u32_rec16, once)            \
  X(jit_latency, warm_in_process, reduce_by_key_u32_rec16, once)               \
  X(jit_latency, new_operator_in_process, reduce_by_key_u32_rec16, once)       \
  X(jit_latency, cold_process, group_by_u32_rec16, once)                       \
  X(jit_latency, disk_cache_process, group_by_u32_rec16, once)                 \
  X(jit_latency, warm_in_process, group_by_u32_rec16, once)                    \
  X(jit_latency, new_operator_in_process, group_by_u32_rec16, once)            \
  X(jit_latency, cold_process, reduce_by_key_u32_acc56, once)                  \
  X(jit_latency, disk_cache_process, reduce_by_key_u32_acc56, once)            \
  X(jit_latency, warm_in_process, reduce_by_key_u32_acc56, once)               \
  X(jit_latency, new_operator_in_process, reduce_by_key_u32_acc56, once)       \
  X(jit_latency, cold_process, lower_bound_event16, once)                      \
  X(jit_latency, disk_cache_process, lower_bound_event16, once)                \
  X(jit_latency, warm_in_process, lower_bound_event16, once)                   \
  X(jit_latency, new_operator_in_process, lower_bound_event16, once)           \
  X(jit_latency, cold_process, sum_of_squares_f32, once)                       \
  X(jit_latency, disk_cache_process, sum_of_squares_f32, once)                 \
  X(jit_latency, warm_in_process, sum_of_squares_f32, once)                    \
  X(jit_latency, new_operator_in_process, sum_of_squares_f32, once)            \
  X(jit_latency, switch_in_process, sum_of_squares_f32, once)                  \
  X(jit_latency, cold_process, dot_f32, once)                                  \
  X(jit_latency, disk_cache_process, dot_f32, once)                            \
  X(jit_latency, warm_in_process, dot_f32, once)                               \
  X(jit_latency, new_operator_in_process, dot_f32, once)                       \
  X(jit_latency, cold_process, argmax_f32, once)                               \
  X(jit_latency, disk_cache_process, argmax_f32, once)                         \
  X(jit_latency, warm_in_process, argmax_f32, once)                            \
  X(jit_latency, new_operator_in_process, argmax_f32, once)                    \
  X(jit_latency, cold_process, scan_squares_f32, once)                         \
  X(jit_latency, disk_cache_process, scan_squares_f32, once)                   \
  X(jit_latency, warm_in_process, scan_squares_f32, once)                      \
  X(jit_latency, new_operator_in_process, scan_squares_f32, once)              \
  X(jit_latency, cold_process, transform_rec16_f32, once)                      \
  X(jit_latency, disk_cache_process, transform_rec16_f32, once)                \
  X(jit_latency, warm_in_process, transform_rec16_f32, once)                   \
  X(jit_latency, new_operator_in_process, transform_rec16_f32, once)           \
  X(jit_latency, cold_process, select_expr_f32, once)                          \
  X(jit_latency, disk_cache_process, select_expr_f32, once)                    \
  X(jit_latency, warm_in_process, select_expr_f32, once)                       \
  X(jit_latency, new_operator_in_process, select_expr_f32, once)               \
  X(jit_latency, cold_process, sort_computed_u32, once)                        \
  X(jit_latency, disk_cache_process, sort_computed_u32, once)                  \
  X(jit_latency, warm_in_process, sort_computed_u32, once)                     \
  X(jit_latency, new_operator_in_process, sort_computed_u32, once)             \
  X(jit_latency, cold_process, select_output_f32, once)                        \
  X(jit_latency, disk_cache_process, select_output_f32, once)                  \
  X(jit_latency, warm_in_process, select_output_f32, once)                     \
  X(jit_latency, new_operator_in_process, select_output_f32, once)             \
  X(jit_latency, cold_process, reduce_f16, once)                               \
  X(jit_latency, disk_cache_process, reduce_f16, once)                         \
  X(jit_latency, warm_in_process, reduce_f16, once)                            \
  X(jit_latency, new_operator_in_process, reduce_f16, once)                    \
  X(jit_latency, cold_process, reduce_nested_zip, once)                        \
  X(jit_latency, disk_cache_process, reduce_nested_zip, once)                  \
  X(jit_latency, warm_in_process, reduce_nested_zip, once)                     \
  X(jit_latency, new_operator_in_process, reduce_nested_zip, once)

namespace cupar_bench {

#define CUPAR_BENCH_DECLARE_ROW(family, impl, type, sizes) \
  void family##_##impl##_##type(benchmark::State& state);
CUPAR_BENCH_ROWS(CUPAR_BENCH_DECLARE_ROW)
#undef CUPAR_BENCH_DECLARE_ROW

}  // namespace cupar_bench
