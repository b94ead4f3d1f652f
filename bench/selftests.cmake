# cupar benchmarks: self-tests of scripts/bench_report.py, bench_repeats.py, peer_report.py and
# gpu-evidence.sh's tiers, profile and ctest-rest stages, included from bench/CMakeLists.txt, or
# from the top-level CMakeLists.txt when the benchmarks are not built (CUPAR_BUILD_BENCHMARKS=OFF,
# as scripts/test.sh does on machines without a GPU).
# Self-test of scripts/bench_report.py on a synthetic Google Benchmark JSON file. Needs a Python 3
# with matplotlib (Debian: python3-matplotlib); skipped (exit code 77) where none has it.
find_package(Python3 COMPONENTS Interpreter)
set(_cupar_report_python "")
foreach(_py IN ITEMS "${Python3_EXECUTABLE}" /usr/bin/python3)
  if(_py AND EXISTS "${_py}" AND NOT _cupar_report_python)
    execute_process(COMMAND "${_py}" -c "import matplotlib" RESULT_VARIABLE _has_mpl
                    OUTPUT_QUIET ERROR_QUIET)
    if(_has_mpl EQUAL 0)
      set(_cupar_report_python "${_py}")
    endif()
  endif()
endforeach()
if(NOT _cupar_report_python)
  if(Python3_EXECUTABLE)
    set(_cupar_report_python "${Python3_EXECUTABLE}")
  else()
    set(_cupar_report_python python3)
  endif()
  message(STATUS "cupar bench: no Python with matplotlib; bench_report_selftest will be skipped")
endif()
add_test(NAME bench_report_selftest
         COMMAND "${_cupar_report_python}" ${PROJECT_SOURCE_DIR}/bench/testdata/report_selftest.py
                 --script ${PROJECT_SOURCE_DIR}/scripts/bench_report.py
                 --fixture ${PROJECT_SOURCE_DIR}/bench/testdata/fixture.json
                 --workdir ${PROJECT_BINARY_DIR}/bench/report_selftest)
set_tests_properties(bench_report_selftest PROPERTIES SKIP_RETURN_CODE 77 LABELS "cpu" TIMEOUT 300)
# scripts/bench_repeats.py (standard library only) on synthetic runs with known ratios.
add_test(NAME bench_repeats_selftest
         COMMAND "${_cupar_report_python}" ${PROJECT_SOURCE_DIR}/bench/testdata/repeats_selftest.py
                 --script ${PROJECT_SOURCE_DIR}/scripts/bench_repeats.py)
set_tests_properties(bench_repeats_selftest PROPERTIES LABELS "cpu" TIMEOUT 60)
# scripts/peer_report.py (standard library and bench_report's reader) on synthetic runs: the
# tier-1, peer and latency columns of a known table.
add_test(NAME peer_report_selftest
         COMMAND "${_cupar_report_python}" ${PROJECT_SOURCE_DIR}/bench/testdata/peer_report_selftest.py
                 --script ${PROJECT_SOURCE_DIR}/scripts/peer_report.py)
set_tests_properties(peer_report_selftest PROPERTIES LABELS "cpu" TIMEOUT 60)
# scripts/gpu-evidence.sh's `tiers` stage with stand-ins for cupar_bench and cupar_jit_latency:
# the rows in both modes, each case's three latency measures, one table.
add_test(NAME gpu_evidence_tiers_selftest
         COMMAND bash ${PROJECT_SOURCE_DIR}/bench/testdata/gpu_evidence_tiers_selftest.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/bench/gpu_evidence_tiers_selftest)
set_tests_properties(gpu_evidence_tiers_selftest PROPERTIES LABELS "cpu" TIMEOUT 60)
# scripts/gpu-evidence.sh's `profile` stage with a stand-in for ncu: tier 1 then the default mode,
# the row's filter, the kernels, the launches skipped and counted, a log each.
add_test(NAME gpu_evidence_profile_selftest
         COMMAND bash ${PROJECT_SOURCE_DIR}/bench/testdata/gpu_evidence_profile_selftest.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/bench/gpu_evidence_profile_selftest)
set_tests_properties(gpu_evidence_profile_selftest PROPERTIES LABELS "cpu" TIMEOUT 60)
# scripts/run-benchmarks.sh --part (the suite in two runs that each fit a 10-minute limit), with a
# stand-in cupar_bench: the filters, the JSON each part keeps, the report made from both.
add_test(NAME run_benchmarks_parts_selftest
         COMMAND bash ${PROJECT_SOURCE_DIR}/bench/testdata/run_benchmarks_selftest.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/bench/run_benchmarks_selftest)
set_tests_properties(run_benchmarks_parts_selftest PROPERTIES LABELS "cpu" TIMEOUT 120
                     ENVIRONMENT "PYTHON=${_cupar_report_python}")
# scripts/gpu-evidence.sh's `ctest` and `ctest-rest` stages with a stand-in for ctest: the suites
# that failed or never started (a call cut by its time) run again, and only those.
add_test(NAME gpu_evidence_ctest_rest_selftest
         COMMAND bash ${PROJECT_SOURCE_DIR}/bench/testdata/gpu_evidence_ctest_rest_selftest.sh
                 ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/bench/gpu_evidence_ctest_rest_selftest)
set_tests_properties(gpu_evidence_ctest_rest_selftest PROPERTIES LABELS "cpu" TIMEOUT 60)
