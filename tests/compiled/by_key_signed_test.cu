// cupar tests: the by-key conformance suite with C++ callables for the signed integer types
// (split from by_key_test.cu to keep each translation unit's build short).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#define CUPAR_SUITE_UNTYPED 0
#include "../conformance/by_key_suite.hpp"
