// cupar tests: code examples of include/cupar/jit.hpp (CUPAR_JIT_TYPE), compiled (see
// doc_examples.cpp).
#include <cupar/cupar.hpp>

// The examples keep the documents' layout: not reformatted.
// clang-format off

#include <cmath>
#include <cstddef>

namespace jit = cupar::jit;

// doc-example: include/cupar/jit.hpp
struct point { float x, y; };
CUPAR_JIT_TYPE(point, "point", "struct point { float x, y; };")
// doc-example end

[[maybe_unused]] void use_point(const point* d_in, point* d_out, std::size_t n,
                                cupar::stream_ref s) {
  cupar::reduce(d_in, d_out, n, jit::op("point{a.x + b.x, a.y + b.y}"), point{0.0f, 0.0f}, s);
}
// clang-format on
