# The options of cupar's own targets, set per target (not for the whole directory tree, so that
# a project which adds cupar with add_subdirectory keeps its own flags):
#   - warnings on host C++ sources: -Wall -Wextra, and -Werror with CUPAR_WERROR (the dev, ci,
#     asan and tsan presets set it; off by default, so that a build with another compiler than
#     the team's gcc is not stopped by a warning that compiler adds). CUB's and CUDA's headers come in as system headers
#     (imported targets), so their warnings do not count. Of the CUDA sources (.cu), nvcc passes
#     the same flags to the host compiler for the library's own files only (src/CMakeLists.txt:
#     the family files, the compiled path's hand-written units, cupar::dist's kernels); the
#     tests', the benchmarks' and the generated per-type units get none: CUB's and Thrust's host
#     code inlined there warns (-Wmaybe-uninitialized at -O1).
#   - CUPAR_SANITIZE (e.g. address,undefined or thread): -fsanitize=... on the C++ and CUDA host
#     compiles and links of the library, tests, examples and benchmarks; not on cupar_precompile,
#     a build tool (LeakSanitizer would fail the build on NVRTC's own allocations).
# cupar_apply_target_options() walks the targets defined under the project's directories once
# they all exist (the end of the top-level CMakeLists.txt).

option(CUPAR_WERROR "Treat warnings in cupar's own C++ sources as errors" OFF)
set(CUPAR_SANITIZE "" CACHE STRING "Sanitizers for host code, e.g. address,undefined or thread")

set(_cupar_san_compile "")
set(_cupar_san_link "")
if(CUPAR_SANITIZE)
  # One -fsanitize= per sanitizer: nvcc's -Xcompiler splits its argument at commas.
  string(REPLACE "," ";" _cupar_san_list "${CUPAR_SANITIZE}")
  foreach(_s IN LISTS _cupar_san_list)
    list(APPEND _cupar_san_link -fsanitize=${_s})
  endforeach()
  set(_cupar_san_compile ${_cupar_san_link} -fno-omit-frame-pointer -g)
  if(CUPAR_SANITIZE MATCHES "undefined")
    # Undefined behaviour fails the test instead of printing a line and going on.
    list(APPEND _cupar_san_compile -fno-sanitize-recover=undefined)
  endif()
  message(STATUS "cupar: host code built with ${_cupar_san_link}")
endif()

function(_cupar_targets_of dir out)
  get_property(_targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(_sub IN LISTS _subdirs)
    _cupar_targets_of(${_sub} _more)
    list(APPEND _targets ${_more})
  endforeach()
  set(${out} ${_targets} PARENT_SCOPE)
endfunction()

function(cupar_apply_target_options)
  _cupar_targets_of(${PROJECT_SOURCE_DIR} _targets)
  set(_warnings -Wall -Wextra)
  if(CUPAR_WERROR)
    list(APPEND _warnings -Werror)
  endif()
  string(REPLACE ";" "," _san_cuda "${_cupar_san_compile}")
  string(REPLACE ";" "," _san_link_cuda "${_cupar_san_link}")
  foreach(_t IN LISTS _targets)
    get_target_property(_type ${_t} TYPE)
    if(NOT _type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|STATIC_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      continue()
    endif()
    target_compile_options(${_t} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_warnings}>")
    if(NOT CUPAR_SANITIZE OR _t STREQUAL "cupar_precompile")
      continue()
    endif()
    target_compile_options(${_t} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:${_cupar_san_compile}>"
                                         "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_san_cuda}>")
    target_link_options(${_t} PRIVATE "$<$<LINK_LANGUAGE:CXX>:${_cupar_san_link}>"
                                      "$<$<LINK_LANGUAGE:CUDA>:-Xcompiler=${_san_link_cuda}>"
                        # Debian's and Ubuntu's gcc drop their default --as-needed when
                        # -fsanitize is given, and the driver stub (stubs/libcuda.so, which the
                        # CUDA targets bring) then becomes a dependency: without a driver the
                        # tests could not even start. cupar opens the driver itself.
                        "LINKER:--as-needed")
  endforeach()
endfunction()
