# ctest driver: install the built cupar into a prefix, then configure, build and run the
# consumer project against it with find_package(cupar).
#   cmake -DBUILD_DIR=<cupar build> -DSOURCE_DIR=<this dir> -DWORK_DIR=<scratch> -P run.cmake
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE r OUTPUT_QUIET)
if(r)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build
                        -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DCMAKE_BUILD_TYPE=Release
                        -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}
                RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the consumer failed")
endif()
foreach(p consumer_host consumer_device)
  execute_process(COMMAND ${WORK_DIR}/build/${p} RESULT_VARIABLE r OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${p}: ${out}${err}")
  if(r)
    file(GET_RUNTIME_DEPENDENCIES EXECUTABLES ${WORK_DIR}/build/${p}
         RESOLVED_DEPENDENCIES_VAR found UNRESOLVED_DEPENDENCIES_VAR missing)
    message(FATAL_ERROR "${p} failed (${r}); unresolved libraries: ${missing}")
  endif()
endforeach()
message(STATUS "consumer project built and ran against the installed cupar")
