// cupar tests: the histogram conformance suite with C++ sample operators for the floating-point
// types (split from histogram_test.cu to keep each translation unit's build short).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES floating_types
#define CUPAR_SUITE_UNTYPED 0
#include "../conformance/histogram_suite.hpp"
