// cupar tests: the reduce conformance suite with C++ callables for the unsigned integer types
// (split from reduce_test.cu to keep each translation unit's build short).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES unsigned_integer_types
#define CUPAR_SUITE_UNTYPED 0
#include "../conformance/reduce_suite.hpp"
