#include "common.cuh"
using P = red_hub::MaxPolicy;
using MP = ms_hub::MaxPolicy;
using cub::NullType;
template __global__ void cub::detail::reduce::DeviceReduceSingleTileKernel<
    P, const float*, float*, red_off, jit_op, float, float, ::cuda::std::__identity>(
    const float*, float*, red_off, jit_op, float, ::cuda::std::__identity);
template __global__ void cub::detail::reduce::DeviceReduceKernel<P, const float*, red_off, jit_op,
                                                                 float, ::cuda::std::__identity>(
    const float*, float*, red_off, cub::GridEvenShare<red_off>, jit_op, ::cuda::std::__identity);
template __global__ void cub::detail::reduce::DeviceReduceSingleTileKernel<
    P, float*, float*, int, jit_op, float, float, ::cuda::std::__identity>(float*, float*, int,
                                                                           jit_op, float,
                                                                           ::cuda::std::__identity);
template __global__ void cub::detail::merge_sort::DeviceMergeSortBlockSortKernel<
    MP, float*, NullType*, float*, NullType*, ms_off, jit_less, float, NullType>(
    bool, float*, NullType*, float*, NullType*, ms_off, float*, NullType*, jit_less,
    cub::detail::vsmem_t);
template __global__ void
cub::detail::merge_sort::DeviceMergeSortPartitionKernel<float*, ms_off, jit_less, float>(
    bool, float*, float*, ms_off, ms_off, ms_off*, jit_less, ms_off, int);
template __global__ void cub::detail::merge_sort::DeviceMergeSortMergeKernel<
    MP, float*, NullType*, float*, NullType*, ms_off, jit_less, float, NullType>(
    bool, float*, NullType*, ms_off, float*, NullType*, jit_less, ms_off*, ms_off,
    cub::detail::vsmem_t);
