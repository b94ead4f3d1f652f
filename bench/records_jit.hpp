// cupar benchmarks: the JIT descriptions of the record structs of records.hpp and the merge
// operators of rec16 and rec28 as snippets, for the host-compiled files that use them
// (jit_structs.cpp, jit_latency.cpp): one description, as the nvcc rows (structs.cu) have one
// functor.
#pragma once

#include "records.hpp"

#include <cupar/cupar.hpp>

#include <string>

CUPAR_JIT_TYPE(cupar_bench::rec16, "rec16", "struct rec16 { float count, sum, min, max; };")
CUPAR_JIT_TYPE(cupar_bench::rec32, "rec32",
               "struct rec32 { double key; long long id; double a, b; };")
CUPAR_JIT_TYPE(cupar_bench::rec28, "rec28",
               "struct rec28 { float count, sum, min, max, a, b, c; };")
CUPAR_JIT_TYPE(cupar_bench::key16, "key16", "struct key16 { unsigned a, b, c, d; };")

namespace cupar_bench {

/// rec16_merge as a snippet; `max_tail` is appended to the max field (jit_latency makes
/// distinct operators of the same meaning with " + 0.0f * i").
inline std::string rec16_merge_source(const std::string& max_tail = std::string()) {
  return "rec16{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)" +
         max_tail + "}";
}

/// rec28_merge as a snippet; `tail` is appended to the sum field (distinct operators).
inline std::string rec28_merge_source(const std::string& tail = std::string()) {
  return "rec28{a.count + b.count, a.sum + b.sum" + tail +
         ", fminf(a.min, b.min), fmaxf(a.max, b.max), a.a + b.a, a.b + b.b, a.c + b.c}";
}

}  // namespace cupar_bench
