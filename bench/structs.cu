// cupar benchmarks: the struct rows (records.hpp) with operators compiled by nvcc as functors:
// cupar's C++ path and CUB called directly. The cupar_jit rows of jit_structs.cpp run the same
// operators as run-time snippets on the kernels precompiled for the struct's size class.
//
//   reduce_struct/<impl>/rec16          reduce with rec16_merge from rec16_identity()
//   inclusive_scan_struct/<impl>/rec16  inclusive scan with rec16_merge
//   merge_sort_keys/<impl>/rec16, rec32 merge sort by sum (rec16) or key (rec32)
//   reduce_by_key/<impl>/u32_rec16      a group-by: u32 keys in runs, rec16 values merged per run
//   reduce_by_key/<impl>/u32_rec28      the same with rec28 values (seven floats: the cupar_jit
//                                       row pads them to the class s32a8 and back)
#include "by_key_runners.hpp"
#include "records.hpp"
#include "rows.hpp"
#include "runners.hpp"

#include <cupar/cupar.cuh>

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>

namespace cupar_bench {

void reduce_struct_cupar_rec16(benchmark::State& state) {
  reduce_runner<rec16>(state, [](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
    cupar::reduce(in, out, n, rec16_merge{}, rec16_identity(), s);
  });
}

void reduce_struct_cub_rec16(benchmark::State& state) {
  cub_temp temp;
  reduce_runner<rec16>(state, [&](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceReduce::Reduce(t, bytes, in, out, static_cast<int>(n), rec16_merge{},
                                       rec16_identity(), s);
    });
  });
}

void inclusive_scan_struct_cupar_rec16(benchmark::State& state) {
  scan_runner<rec16>(state, [](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
    cupar::inclusive_scan(in, out, n, rec16_merge{}, s);
  });
}

void inclusive_scan_struct_cub_rec16(benchmark::State& state) {
  cub_temp temp;
  scan_runner<rec16>(state, [&](const rec16* in, rec16* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceScan::InclusiveScan(t, bytes, in, out, rec16_merge{}, static_cast<int>(n),
                                            s);
    });
  });
}

namespace {

template <class R, class Less>
void merge_sort_struct_cupar(benchmark::State& state) {
  sort_keys_runner<R>(state, [](const R* in, R* out, std::size_t n, cudaStream_t s) {
    cupar::sort_keys(in, out, n, Less{}, s);
  });
}

template <class R, class Less>
void merge_sort_struct_cub(benchmark::State& state) {
  cub_temp temp;
  sort_keys_runner<R>(state, [&](const R* in, R* out, std::size_t n, cudaStream_t s) {
    temp.run([&](void* t, std::size_t& bytes) {
      return cub::DeviceMergeSort::SortKeysCopy(t, bytes, in, out, static_cast<int>(n), Less{}, s);
    });
  });
}

}  // namespace

namespace {

/// reduce_by_key of R values by u32 keys in runs, merged by Merge: cupar's C++ path, CUB.
template <class R, class Merge>
void reduce_by_key_records_cupar(benchmark::State& state) {
  by_key_compact_runner<std::uint32_t, R>(
      state, [](const std::uint32_t* k, const R* v, std::uint32_t* ko, R* vo, std::size_t* count,
                std::size_t n,
                cudaStream_t s) { cupar::reduce_by_key(k, v, ko, vo, count, n, Merge{}, s); });
}

template <class R, class Merge>
void reduce_by_key_records_cub(benchmark::State& state) {
  cub_temp temp;
  by_key_compact_runner<std::uint32_t, R>(
      state, [&](const std::uint32_t* k, const R* v, std::uint32_t* ko, R* vo, std::size_t* count,
                 std::size_t n, cudaStream_t s) {
        temp.run([&](void* t, std::size_t& bytes) {
          return cub::DeviceReduce::ReduceByKey(t, bytes, k, ko, v, vo, count, Merge{},
                                                static_cast<int>(n), s);
        });
      });
}

}  // namespace

void reduce_by_key_cupar_u32_rec16(benchmark::State& state) {
  reduce_by_key_records_cupar<rec16, rec16_merge>(state);
}
void reduce_by_key_cub_u32_rec16(benchmark::State& state) {
  reduce_by_key_records_cub<rec16, rec16_merge>(state);
}
void reduce_by_key_cupar_u32_rec28(benchmark::State& state) {
  reduce_by_key_records_cupar<rec28, rec28_merge>(state);
}
void reduce_by_key_cub_u32_rec28(benchmark::State& state) {
  reduce_by_key_records_cub<rec28, rec28_merge>(state);
}

void merge_sort_keys_cupar_rec16(benchmark::State& state) {
  merge_sort_struct_cupar<rec16, rec16_less>(state);
}
void merge_sort_keys_cub_rec16(benchmark::State& state) {
  merge_sort_struct_cub<rec16, rec16_less>(state);
}
void merge_sort_keys_cupar_rec32(benchmark::State& state) {
  merge_sort_struct_cupar<rec32, rec32_less>(state);
}
void merge_sort_keys_cub_rec32(benchmark::State& state) {
  merge_sort_struct_cub<rec32, rec32_less>(state);
}

}  // namespace cupar_bench
