# Test cupar_precompiled_set_list: the library's expansion of the families' precompile rules
# (cupar_precompile list) equals CMake's (cmake/cupar_sets.cmake), key for key and in order, and
# the count docs/JIT.md gives ("... prints them, N per architecture") is its length.
# -DTOOL=<cupar_precompile> -DEXPECTED=<CMake's list> -DACTUAL=<output file> -DDOC=<docs/JIT.md>
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
if(DEFINED DOC)
  file(READ ${DOC} _doc)
  string(REGEX REPLACE "[ \n]+" " " _doc "${_doc}")
  if(NOT _doc MATCHES "prints them, ([0-9,]+) per architecture")
    message(FATAL_ERROR "${DOC} no longer says how many sets the default build precompiles "
                        "(\"prints them, N per architecture\")")
  endif()
  string(REPLACE "," "" _said "${CMAKE_MATCH_1}")
  if(NOT _said EQUAL _na)
    message(FATAL_ERROR "${DOC} says the default build precompiles ${_said} sets a "
                        "architecture; the rules give ${_na}: update the document")
  endif()
endif()
