# Test cupar_precompiled_set_list: the library's expansion of the families' precompile rules
# (cupar_precompile list) equals CMake's (cmake/cupar_sets.cmake), key for key and in order.
# -DTOOL=<cupar_precompile> -DEXPECTED=<CMake's list> -DACTUAL=<output file>
execute_process(COMMAND ${TOOL} list ${ACTUAL} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cupar_precompile list failed (${_rc})")
endif()
file(STRINGS ${EXPECTED} _expected)
file(STRINGS ${ACTUAL} _actual)
list(LENGTH _expected _ne)
list(LENGTH _actual _na)
if(NOT _expected STREQUAL _actual)
  message(FATAL_ERROR "the library names ${_na} precompiled sets and CMake ${_ne}, or in another "
                      "order; compare ${ACTUAL} with ${EXPECTED}")
endif()
message(STATUS "${_na} sets, the same in the library and in CMake")
if(_na LESS 100)
  message(FATAL_ERROR "only ${_na} sets: the rules were not read")
endif()
