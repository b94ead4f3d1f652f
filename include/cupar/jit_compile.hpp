// cupar: compile-only builds of run-time operators. They run the whole pipeline up to, not
// including, loading (NVRTC, then nvJitLink to a cubin for the given architecture) and need no
// GPU: use them to validate operators ahead of time, or in tests on machines without a GPU. They
// throw cupar::jit_error exactly as the algorithms would.
#pragma once

// Every operation's compile-only overloads are declared beside its calls, in its header
// (compile_reduce in reduce.hpp, compile_select_if in select.hpp, ...); this header gathers them.
// Each takes the operation's types and operators (and expressions, whose arrays may be null),
// the architecture (sm_<arch>) and `optimized` (the inlined LTO build, else the quick out-of-line
// one), and returns a build_report (jit.hpp). Throws cupar::jit_error exactly as the algorithm
// would, std::invalid_argument for arguments the algorithm refuses.
#include <cupar/by_key.hpp>
#include <cupar/group_by.hpp>
#include <cupar/histogram.hpp>
#include <cupar/jit.hpp>
#include <cupar/jit_iterator.hpp>
#include <cupar/join.hpp>
#include <cupar/reduce.hpp>
#include <cupar/scan.hpp>
#include <cupar/search.hpp>
#include <cupar/segmented.hpp>
#include <cupar/select.hpp>
#include <cupar/sort_jit.hpp>
#include <cupar/transform.hpp>
#include <cupar/unique.hpp>
