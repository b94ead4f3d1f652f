// cupar: JOIN vocabulary: the row pairs cupar::inner_join returns. The overloads are in join.cuh.
#pragma once

#include <cupar/buffer.hpp>

#include <cstddef>

namespace cupar {

/// The matches of an inner join: build_rows[i] and probe_rows[i] for i < size() are the
/// positions of a build row and a probe row with equal keys, on the device.
template <class Index>
struct join_pairs {
  device_buffer<Index> build_rows;
  device_buffer<Index> probe_rows;
  std::size_t size() const noexcept { return probe_rows.size(); }
};

}  // namespace cupar
