// cupar: GPU parallel algorithms on CUB. The host-only umbrella header: compiles with any C++17
// host compiler (g++, clang) and gives the runtime (errors, streams, memory, buffers), the
// precompiled radix sorts, segmented sorts and histograms, and the algorithms with run-time (JIT)
// operators.
// For C++ callables (lambdas, functors) include <cupar/cupar.cuh> from a .cu file instead.
#pragma once

#include <cupar/buffer.hpp>
#include <cupar/by_key.hpp>
#include <cupar/config.hpp>
#include <cupar/device.hpp>
#include <cupar/error.hpp>
#include <cupar/gather.hpp>
#include <cupar/group_by.hpp>
#include <cupar/half.hpp>
#include <cupar/histogram.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_compile.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/join.hpp>
#include <cupar/memory.hpp>
#include <cupar/plan.hpp>
#include <cupar/reduce.hpp>
#include <cupar/scan.hpp>
#include <cupar/search.hpp>
#include <cupar/segmented.hpp>
#include <cupar/select.hpp>
#include <cupar/sort.hpp>
#include <cupar/sort_jit.hpp>
#include <cupar/stream.hpp>
#include <cupar/top_k.hpp>
#include <cupar/transform.hpp>
#include <cupar/types.hpp>
#include <cupar/unique.hpp>
