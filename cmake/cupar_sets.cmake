# The JIT kernel sets the library precompiles (tools/cupar_precompile), read from the families'
# own rules: the lines "precompile <loops>: <key pattern>" of src/jit/families/*.cu and the
# domain lines of src/jit/core/family.cpp (the form: src/jit/core/precompiled_rules.hpp). The library reads
# the same lines (cupar_precompile list), and the test cupar_precompiled_set_list checks that both
# expansions agree. Other types (user structs of no class, mixed transform types, other sort
# payload sizes, the by-key "+wide" variants) are compiled from source at run time, once, then
# cached on disk.
#
# In:  CUPAR_JIT_STRUCT_CLASSES ("all", "none" or a list of s<size>a<align>) and
#      CUPAR_JIT_STRUCT_DP_CLASSES ("default", "none" or a list).
# Out: CUPAR_PRECOMPILED_SETS (every set of the rules, in family order), _struct_classes,
#      _struct_dp_classes, CUPAR_FAMILY_FILES (the family files), and
#      ${CUPAR_GENERATED_DIR}/cupar_families.inc: the lists of families and of operations
#      (CUPAR_JIT_FAMILIES, CUPAR_JIT_CALLS), read from the family files' records
#      ("extern const family_def <name>_family", "extern const jit_call <name>_jit_call"), so that
#      a new family file is the whole of a family's registration.

set(_cupar_jit_dir ${CMAKE_CURRENT_LIST_DIR}/../src/jit)
file(GLOB _cupar_family_files ${_cupar_jit_dir}/families/*.cu)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_cupar_family_files}
                                                               ${_cupar_jit_dir}/core/family.cpp)

# The domains: "domain <name>: <values>", a string that may go on in adjacent literals on the
# lines after it (clang-format breaks long ones).
file(STRINGS ${_cupar_jit_dir}/core/family.cpp _lines)
set(_domain "")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^ *\"domain ([a-z_]+):(.*)\"(,?)$")
    set(_domain ${CMAKE_MATCH_1})
    set(_cupar_domain_${_domain} "${CMAKE_MATCH_2}")
    if(CMAKE_MATCH_3)
      set(_domain "")
    endif()
  elseif(_domain AND _line MATCHES "^ *\"(.*)\"(,?)$")
    string(APPEND _cupar_domain_${_domain} "${CMAKE_MATCH_1}")
    if(CMAKE_MATCH_2)
      set(_domain "")
    endif()
  else()
    set(_domain "")
  endif()
endforeach()
foreach(_d IN ITEMS types classes structs dp_structs)
  string(STRIP "${_cupar_domain_${_d}}" _v)
  string(REGEX REPLACE " +" ";" _cupar_domain_${_d} "${_v}")
endforeach()
foreach(_d IN ITEMS types classes structs dp_structs)
  if(NOT _cupar_domain_${_d})
    message(FATAL_ERROR "cupar: no 'domain ${_d}:' line in src/jit/core/family.cpp")
  endif()
endforeach()

# A list of classes from a cache variable: "none" or s<size>a<align> words (checked).
function(_cupar_struct_class_list var value out)
  if(value STREQUAL "none")
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  string(REPLACE "," ";" _list "${value}")
  foreach(_c IN LISTS _list)
    if(NOT _c MATCHES "^s([0-9]+)a([0-9]+)$")
      message(FATAL_ERROR "${var}: '${_c}' is not a class s<size>a<align>")
    endif()
    set(_size ${CMAKE_MATCH_1})
    set(_align ${CMAKE_MATCH_2})
    math(EXPR _rem "${_size} % ${_align}")
    if(NOT _align MATCHES "^(1|2|4|8|16)$" OR _size GREATER 128 OR _size EQUAL 0 OR NOT _rem EQUAL 0)
      message(FATAL_ERROR "${var}: '${_c}': the size must be a multiple of the "
                          "alignment (1, 2, 4, 8 or 16), at most 128 bytes")
    endif()
  endforeach()
  set(${out} "${_list}" PARENT_SCOPE)
endfunction()

if(NOT DEFINED CUPAR_JIT_STRUCT_CLASSES OR CUPAR_JIT_STRUCT_CLASSES STREQUAL "all")
  set(_struct_classes ${_cupar_domain_structs})
else()
  _cupar_struct_class_list(CUPAR_JIT_STRUCT_CLASSES "${CUPAR_JIT_STRUCT_CLASSES}" _struct_classes)
endif()
if(NOT DEFINED CUPAR_JIT_STRUCT_DP_CLASSES OR CUPAR_JIT_STRUCT_DP_CLASSES STREQUAL "default")
  set(_struct_dp_classes ${_cupar_domain_dp_structs})
else()
  _cupar_struct_class_list(CUPAR_JIT_STRUCT_DP_CLASSES "${CUPAR_JIT_STRUCT_DP_CLASSES}"
                           _struct_dp_classes)
endif()

# The keys of one rule "precompile <loops>: <pattern>" into ${out}.
function(_cupar_expand_rule rule structs dp_structs out)
  if(NOT rule MATCHES "^precompile([^:]*): (.+)$")
    message(FATAL_ERROR "cupar: malformed precompile rule '${rule}'")
  endif()
  set(_keys "${CMAKE_MATCH_2}")
  string(STRIP "${CMAKE_MATCH_1}" _loops)
  if(_loops)
    string(REPLACE " " ";" _loops "${_loops}")
  endif()
  foreach(_loop IN LISTS _loops)
    if(NOT _loop MATCHES "^([a-z]+)=(.+)$")
      message(FATAL_ERROR "cupar: malformed loop '${_loop}' in precompile rule '${rule}'")
    endif()
    set(_var "$${CMAKE_MATCH_1}")
    set(_domain "${CMAKE_MATCH_2}")
    if(_domain STREQUAL "structs")
      set(_values ${structs})
    elseif(_domain STREQUAL "dp_structs")
      set(_values ${dp_structs})
    elseif(DEFINED _cupar_domain_${_domain})
      set(_values ${_cupar_domain_${_domain}})
    else()
      string(REPLACE "|" ";" _values "${_domain}")
    endif()
    set(_next "")
    foreach(_k IN LISTS _keys)
      foreach(_v IN LISTS _values)
        string(REPLACE "${_var}" "${_v}" _e "${_k}")
        list(APPEND _next "${_e}")
      endforeach()
    endforeach()
    set(_keys ${_next})
  endforeach()
  set(${out} ${_keys} PARENT_SCOPE)
endfunction()

# The families and operations, in the order of their files (sorted by name) and of their records
# in each file.
set(_family_names "")
set(_call_names "")
foreach(_file IN LISTS _cupar_family_files)
  file(STRINGS ${_file} _lines REGEX "^extern const (family_def [a-z_]+_family|jit_call [a-z_]+_jit_call)")
  foreach(_line IN LISTS _lines)
    if(_line MATCHES "^extern const family_def ([a-z_]+)_family")
      list(APPEND _family_names ${CMAKE_MATCH_1})
    elseif(_line MATCHES "^extern const jit_call ([a-z_]+)_jit_call")
      list(APPEND _call_names ${CMAKE_MATCH_1})
    endif()
  endforeach()
endforeach()
set(CUPAR_FAMILY_FILES ${_cupar_family_files})
string(CONCAT _text
       "// Generated by cmake/cupar_sets.cmake from src/jit/families/*.cu: the families (the enum\n"
       "// `family` and the table of records are made from it) and the library's operations.\n"
       "#pragma once\n\n#define CUPAR_JIT_FAMILIES(X)")
foreach(_n IN LISTS _family_names)
  string(APPEND _text " \\\n  X(${_n})")
endforeach()
string(APPEND _text "\n\n#define CUPAR_JIT_CALLS(X)")
foreach(_n IN LISTS _call_names)
  string(APPEND _text " \\\n  X(${_n})")
endforeach()
string(APPEND _text "\n")
set(CUPAR_GENERATED_DIR ${CMAKE_BINARY_DIR}/cupar_generated CACHE INTERNAL
    "Where cupar's generated headers are")
file(CONFIGURE OUTPUT ${CUPAR_GENERATED_DIR}/cupar_families.inc CONTENT "${_text}")
# Rule lines per family: a rule belongs to the family named in its key pattern.
set(_all_rules "")
foreach(_file IN LISTS _cupar_family_files)
  file(STRINGS ${_file} _lines REGEX "^ *\"precompile[^\"]*\",?$")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^ *\"(precompile[^\"]*)\",?$" "\\1" _rule "${_line}")
    list(APPEND _all_rules "${_rule}")
  endforeach()
endforeach()
function(_cupar_sets_of structs dp_structs out)
  set(_sets "")
  foreach(_f IN LISTS _family_names)
    foreach(_rule IN LISTS _all_rules)
      if(_rule MATCHES ": ${_f}<")
        _cupar_expand_rule("${_rule}" "${structs}" "${dp_structs}" _keys)
        list(APPEND _sets ${_keys})
      endif()
    endforeach()
  endforeach()
  set(${out} ${_sets} PARENT_SCOPE)
endfunction()

_cupar_sets_of("${_struct_classes}" "${_struct_dp_classes}" CUPAR_PRECOMPILED_SETS)
# The default list, for cupar_precompiled_set_list (the library's expansion of the same rules).
_cupar_sets_of("${_cupar_domain_structs}" "${_cupar_domain_dp_structs}" _cupar_default_sets)
string(REPLACE ";" "\n" _text "${_cupar_default_sets}")
file(WRITE ${CMAKE_BINARY_DIR}/cupar_precompile_rules_cmake.txt "${_text}\n")
