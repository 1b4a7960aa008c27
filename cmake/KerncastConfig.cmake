# find_package(Kerncast) config file: gives kerncast_add_kernels() (see Kerncast.cmake) and
# KERNCAST_EXECUTABLE. Found with -DKerncast_DIR=<kerncast>/cmake or with the kerncast checkout
# on CMAKE_PREFIX_PATH. The kerncast binary: KERNCAST_EXECUTABLE, $KERNCAST or PATH.

set(KERNCAST_FIND_QUIETLY_FROM_CONFIG TRUE)
include(${CMAKE_CURRENT_LIST_DIR}/Kerncast.cmake)
unset(KERNCAST_FIND_QUIETLY_FROM_CONFIG)
if(NOT KERNCAST_EXECUTABLE)
  set(Kerncast_FOUND FALSE)
  set(Kerncast_NOT_FOUND_MESSAGE
      "the kerncast binary was not found: set KERNCAST_EXECUTABLE or $KERNCAST, or put kerncast "
      "on PATH (cargo install --path cli, from a kerncast checkout)")
  return()
endif()
set(Kerncast_EXECUTABLE ${KERNCAST_EXECUTABLE})
