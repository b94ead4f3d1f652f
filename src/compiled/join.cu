// cupar: the joins of two device arrays of keys (join.hpp): join.cuh's kernels instantiated for
// the key types of CUPAR_LIBRARY_TYPES with 4- and 8-byte positions, behind one type-free entry
// a host compiler's code calls.
#include "compiled/library_types.hpp"

#include <cupar/join.cuh>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace cupar::detail {
namespace {

template <class K, class Index>
std::size_t join_typed(const join_args& a, stream_ref stream, memory_resource& mr) {
  const auto* build = static_cast<const K*>(a.build);
  const auto* probe = static_cast<const K*>(a.probe);
  if (a.kind == 0) {
    return inner_join_to<Index>(
        a.function, build, a.nb, probe, a.np, stream, mr, [&](std::size_t total) {
          void* b = nullptr;
          void* p = nullptr;
          a.allocate(a.context, total, &b, &p);
          return std::make_pair(static_cast<Index*>(b), static_cast<Index*>(p));
        });
  }
  return semi_or_anti_join(a.function, build, a.nb, probe, a.np, a.kind == 1,
                           static_cast<Index*>(a.rows_out), stream, mr);
}

}  // namespace

std::size_t join_arrays(const join_args& a, stream_ref stream, memory_resource& mr) {
  if (a.kind == 0 && a.allocate == nullptr) throw_invalid_argument(a.function, "no outputs");
  std::size_t count = 0;
  visit_library_scalar(a.function, a.key, [&](auto v) {
    using K = decltype(v);
    count = a.index_size == 4 ? join_typed<K, std::uint32_t>(a, stream, mr)
                              : join_typed<K, std::uint64_t>(a, stream, mr);
  });
  return count;
}

}  // namespace cupar::detail
