// cupar benchmarks: the struct element types of the struct rows (issue 11: a run-time operator on
// a struct is served by kernels precompiled for its size and alignment class, and must run at
// >= 0.97 of the same operator compiled by nvcc as a functor).
//
//   rec16  { float count, sum, min, max }           16 bytes, align 4 (class s16a4): a group-by
//          accumulator; reduced and scanned with `merge` (counts and sums added, min and max
//          kept), sorted by `sum`
//   rec32  { double key; long long id; double a, b } 32 bytes, align 8 (class s32a8): a record
//          sorted by `key`
//   rec28  { float count, sum, min, max, a, b, c }  28 bytes, align 4: an accumulator of seven
//          floats, of no class of its own (the run-time path pads it to the class s32a8);
//          merged as rec16 plus three sums
//   key16  { unsigned a, b, c, d }                   16 bytes, align 4: a composite key that no
//          by-key set takes (four u32 columns: a run's u32 key, a multiple of it, 1, 2), compared
//          field by field (the by-key rows' key16_f32 type)
//
// Values come from the same hash as every other benchmark input (data.hpp): rec16 is
// {1, v, v, v} with v uniform over [-1, 1), rec32's key uniform over [-1e6, 1e6). operator< is
// the sort order (count_unsorted checks the sort rows with it).
#pragma once

#include "data.hpp"

#include <cstdint>

namespace cupar_bench {

struct rec16 {
  float count, sum, min, max;

  CUPAR_BENCH_HD static rec16 from_hash(std::uint64_t h) {
    const float u = static_cast<float>(h >> 40) * (1.0f / 16777216.0f);  // [0, 1), exact
    const float v = add_rn(-1.0f, mul_rn(2.0f, u));
    return rec16{1.0f, v, v, v};
  }
  CUPAR_BENCH_HD friend bool operator<(const rec16& a, const rec16& b) { return a.sum < b.sum; }
};

struct rec28 {
  float count, sum, min, max, a, b, c;

  CUPAR_BENCH_HD static rec28 from_hash(std::uint64_t h) {
    const rec16 r = rec16::from_hash(h);
    return rec28{r.count, r.sum, r.min, r.max, r.sum, 1.0f, r.count};
  }
  CUPAR_BENCH_HD friend bool operator<(const rec28& a, const rec28& b) { return a.sum < b.sum; }
};

struct rec32 {
  double key;
  long long id;
  double a, b;

  CUPAR_BENCH_HD static rec32 from_hash(std::uint64_t h) {
    const double u = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    const std::uint64_t h2 = hash64(h, 1);
    return rec32{-1.0e6 + 2.0e6 * u, static_cast<long long>(h2 >> 1),
                 static_cast<double>(h2 & 0xffff), static_cast<double>(h2 >> 48)};
  }
  CUPAR_BENCH_HD friend bool operator<(const rec32& a, const rec32& b) { return a.key < b.key; }
};

struct key16 {
  unsigned a, b, c, d;

  CUPAR_BENCH_HD static key16 of(std::uint32_t k) { return key16{k, k * 2654435761u, 1u, 2u}; }
  // CUB's ReduceByKey compares keys with == (it takes no equality).
  CUPAR_BENCH_HD friend bool operator==(const key16& x, const key16& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
  }
};

static_assert(sizeof(rec16) == 16 && alignof(rec16) == 4, "rec16: class s16a4");
static_assert(sizeof(rec28) == 28 && alignof(rec28) == 4, "rec28: no class of its size");
static_assert(sizeof(key16) == 16 && alignof(key16) == 4, "key16: no by-key class");
static_assert(sizeof(rec32) == 32 && alignof(rec32) == 8, "rec32: class s32a8");

// The operators as a cupar or CUB user compiling with nvcc writes them (functors; the cupar_jit
// rows use the same expressions as snippets, jit_structs.cpp).
#if defined(__CUDACC__)
struct key16_equal {
  __host__ __device__ bool operator()(const key16& x, const key16& y) const {
    return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
  }
};
struct rec16_merge {
  __host__ __device__ rec16 operator()(const rec16& a, const rec16& b) const {
    return rec16{a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max)};
  }
};
struct rec28_merge {
  __host__ __device__ rec28 operator()(const rec28& a, const rec28& b) const {
    return rec28{
        a.count + b.count, a.sum + b.sum, fminf(a.min, b.min), fmaxf(a.max, b.max), a.a + b.a,
        a.b + b.b,         a.c + b.c};
  }
};
struct rec16_less {
  __host__ __device__ bool operator()(const rec16& a, const rec16& b) const {
    return a.sum < b.sum;
  }
};
struct rec32_less {
  __host__ __device__ bool operator()(const rec32& a, const rec32& b) const {
    return a.key < b.key;
  }
};
#endif

/// The identity of rec16_merge.
inline rec16 rec16_identity() {
  return rec16{0.0f, 0.0f, 3.0e38f, -3.0e38f};
}

}  // namespace cupar_bench
