// cupar::dist: distributed algorithms over several GPUs on NCCL, with run-time operators (any
// host compiler). Link cupar::dist (built when CMake finds NCCL). For C++ callables include
// <cupar/dist.cuh> from a .cu file instead. docs/DISTRIBUTED.md describes the algorithms, their
// costs and their measured scaling.
//
//   #include <cupar/dist.hpp>
//   auto comms = cupar::dist::communicator::local();            // one rank per visible GPU
//   cupar::dist::run_on_ranks(comms, [&](cupar::dist::communicator& c) {
//     // ... this rank's shard d_keys[0, n) on c.device(), a stream s of that device ...
//     cupar::device_buffer<unsigned> sorted = cupar::dist::sort_keys(c, d_keys, n, s);
//     double total = cupar::dist::reduce_value(c, d_x, n, cupar::jit::op("a + b"), 0.0, s);
//   });
#pragma once

#include <cupar/cupar.hpp>
#include <cupar/dist/algorithms.hpp>
#include <cupar/dist/communicator.hpp>
