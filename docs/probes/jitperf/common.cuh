#pragma once
#include <cub/device/dispatch/kernels/merge_sort.cuh>
#include <cub/device/dispatch/kernels/reduce.cuh>
#include <cub/device/dispatch/tuning/tuning_merge_sort.cuh>
#include <cub/device/dispatch/tuning/tuning_reduce.cuh>
struct alignas(16) cupar_state {
  char bytes[64];
};
extern "C" __device__ float cupar_op_f32(const char*, float, float);
extern "C" __device__ bool cupar_less_f32(const char*, float, float);
struct jit_op {
  cupar_state s;
  __device__ float operator()(float a, float b) const { return cupar_op_f32(s.bytes, a, b); }
};
struct jit_less {
  cupar_state s;
  __device__ bool operator()(float a, float b) const { return cupar_less_f32(s.bytes, a, b); }
};
using red_off = unsigned long long;
using ms_off = long long;
using red_hub = cub::detail::reduce::policy_hub<float, red_off, jit_op>;
using ms_hub = cub::detail::merge_sort::policy_hub<float*>;
