// cupar: everything in <cupar/cupar.hpp> plus the overloads taking C++ callables (extended
// __device__ lambdas, functors, cuda::std function objects), compiled by nvcc in the caller's
// translation unit. Compile with --extended-lambda (the cupar::cupar CMake target adds it).
#pragma once

#if !defined(__CUDACC__)
#error "<cupar/cupar.cuh> needs nvcc; from a host compiler include <cupar/cupar.hpp>"
#endif

#include <cupar/by_key.cuh>
#include <cupar/cupar.hpp>
#include <cupar/group_by.cuh>
#include <cupar/histogram.cuh>
#include <cupar/join.cuh>
#include <cupar/reduce.cuh>
#include <cupar/scan.cuh>
#include <cupar/search.cuh>
#include <cupar/segmented.cuh>
#include <cupar/select.cuh>
#include <cupar/sort.cuh>
#include <cupar/transform.cuh>
#include <cupar/unique.cuh>
