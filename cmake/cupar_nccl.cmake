# NCCL for cupar::dist (src/dist). Looked for, in order: CUPAR_NCCL_ROOT (CMake or environment
# variable: a folder with include/nccl.h and lib/libnccl.so*), the nvidia-nccl-cu13 / -cu12 Python
# package of the Python 3 interpreters found (its nvidia/nccl folder), the system (nccl.h and
# libnccl in the usual places and the CUDA toolkit's). Sets CUPAR_NCCL_FOUND,
# CUPAR_NCCL_INCLUDE_DIR, CUPAR_NCCL_LIBRARY.
set(CUPAR_NCCL_ROOT "$ENV{CUPAR_NCCL_ROOT}" CACHE PATH
    "Folder of an NCCL with include/nccl.h and lib/libnccl.so (empty: look in the usual places)")

set(_cupar_nccl_hints "")
if(CUPAR_NCCL_ROOT)
  list(APPEND _cupar_nccl_hints "${CUPAR_NCCL_ROOT}")
endif()
# The Python packages (pip install nvidia-nccl-cu13): the GPU machines' image has one.
set(_cupar_pythons "")
find_program(_cupar_python3 NAMES python3 python)
foreach(_p IN ITEMS "${_cupar_python3}" /usr/bin/python3)
  if(_p AND EXISTS "${_p}")
    list(APPEND _cupar_pythons "${_p}")
  endif()
endforeach()
list(REMOVE_DUPLICATES _cupar_pythons)
foreach(_py IN LISTS _cupar_pythons)
  execute_process(
    COMMAND "${_py}" -c "import nvidia.nccl as m; print(list(m.__path__)[0])"
    OUTPUT_VARIABLE _cupar_pip_nccl RESULT_VARIABLE _cupar_pip_result
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_cupar_pip_result EQUAL 0 AND EXISTS "${_cupar_pip_nccl}/include/nccl.h")
    list(APPEND _cupar_nccl_hints "${_cupar_pip_nccl}")
  endif()
endforeach()

if(NOT CUPAR_NCCL_INCLUDE_DIR OR NOT EXISTS "${CUPAR_NCCL_INCLUDE_DIR}/nccl.h")
  unset(CUPAR_NCCL_INCLUDE_DIR CACHE)
  unset(CUPAR_NCCL_LIBRARY CACHE)
endif()
find_path(CUPAR_NCCL_INCLUDE_DIR nccl.h
          HINTS ${_cupar_nccl_hints} PATH_SUFFIXES include
          PATHS ${CUDAToolkit_INCLUDE_DIRS} /usr/include /usr/local/include)
if(CUPAR_NCCL_INCLUDE_DIR)
  get_filename_component(_cupar_nccl_root "${CUPAR_NCCL_INCLUDE_DIR}" DIRECTORY)
  find_library(CUPAR_NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
               HINTS "${_cupar_nccl_root}/lib" "${_cupar_nccl_root}/lib64" ${_cupar_nccl_hints}
               PATH_SUFFIXES lib lib64
               PATHS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu /usr/local/lib)
endif()
if(CUPAR_NCCL_INCLUDE_DIR AND CUPAR_NCCL_LIBRARY)
  file(STRINGS "${CUPAR_NCCL_INCLUDE_DIR}/nccl.h" _cupar_nccl_version_lines
       REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE ".*NCCL_MAJOR ([0-9]+).*NCCL_MINOR ([0-9]+).*NCCL_PATCH ([0-9]+).*" "\\1.\\2.\\3"
         CUPAR_NCCL_VERSION "${_cupar_nccl_version_lines}")
  set(CUPAR_NCCL_FOUND TRUE)
else()
  set(CUPAR_NCCL_FOUND FALSE)
endif()
