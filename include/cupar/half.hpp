// cupar: half-precision element types for run-time operators: __half (cuda_fp16.h) and
// __nv_bfloat16 (cuda_bf16.h), as word types (CUPAR_JIT_WORD_TYPE, jit.hpp): served by the u16
// kernel sets, the operators compiled against the toolkit's headers (their arithmetic, conversions
// and comparisons; the GPU must be sm_53 or newer for __half arithmetic, sm_80 for bfloat16's,
// which older GPUs emulate through float). Included by <cupar/cupar.hpp>.
//
// The kernels combine values with the caller's operator in the element type: a sum of halves
// accumulates in half. To accumulate in float, reduce an expression that converts the elements,
//   float sum = cupar::reduce_value(cupar::jit::transform<float>(d_h, cupar::jit::op("x")), n,
//                                   cupar::jit::plus, 0.0f, stream);
// (one pass: each element is converted where the kernels load it).
#pragma once

#include <cupar/jit.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

CUPAR_JIT_WORD_TYPE(__half, "__half", "#include <cuda_fp16.h>")
CUPAR_JIT_WORD_TYPE(__nv_bfloat16, "__nv_bfloat16", "#include <cuda_bf16.h>")
