// cupar tests: the merge sort conformance suite with C++ comparators for the signed key types
// (split from merge_sort_test.cu to keep each translation unit's build short).
#include "ops.cuh"

#include <cupar/cupar.cuh>

namespace cupar::testing {
using Ops = compiled_ops;
}
#define CUPAR_SUITE_TYPES signed_integer_types
#define CUPAR_SUITE_UNTYPED 0
#include "../conformance/merge_sort_suite.hpp"
