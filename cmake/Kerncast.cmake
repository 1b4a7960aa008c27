# Kerncast.cmake: predict GPU kernel time, power and energy as part of a CMake build.
#
#   include(/path/to/kerncast/cmake/Kerncast.cmake)
#   kerncast_add_kernels(TARGET app SOURCES kernels/a.cu kernels/b.cl DEVICE gtx-titan-x
#                        [BASELINE kerncast-baseline.json] [MODEL auto])
#
# adds a custom command that runs `kerncast analyze` on the sources whenever one changes
# (reports in ${CMAKE_CURRENT_BINARY_DIR}/kerncast/<TARGET>/), makes TARGET depend on it, and
# adds a `kerncast-check` target that runs the regression gate against BASELINE (exit 1 on a
# regression, 2 on an analysis error, which fails the build step) and a
# `kerncast-update-baseline` target. The kerncast binary comes from KERNCAST_EXECUTABLE, $KERNCAST
# or PATH. Workloads come from the sources' `// kerncast: workload` annotations.

if(NOT KERNCAST_EXECUTABLE)
  if(DEFINED ENV{KERNCAST})
    set(KERNCAST_EXECUTABLE "$ENV{KERNCAST}")
  else()
    find_program(KERNCAST_EXECUTABLE kerncast)
  endif()
endif()
if(NOT KERNCAST_EXECUTABLE)
  message(FATAL_ERROR "kerncast not found: set KERNCAST_EXECUTABLE or $KERNCAST, or put kerncast on PATH")
endif()

function(kerncast_add_kernels)
  cmake_parse_arguments(KC "" "TARGET;DEVICE;BASELINE;MODEL" "SOURCES" ${ARGN})
  if(NOT KC_TARGET OR NOT KC_SOURCES)
    message(FATAL_ERROR "kerncast_add_kernels: TARGET and SOURCES are required")
  endif()
  if(NOT KC_DEVICE)
    set(KC_DEVICE gtx-titan-x)
  endif()
  if(NOT KC_MODEL)
    set(KC_MODEL auto)
  endif()
  if(NOT KC_BASELINE)
    set(KC_BASELINE ${CMAKE_CURRENT_SOURCE_DIR}/kerncast-baseline.json)
  elseif(NOT IS_ABSOLUTE ${KC_BASELINE})
    set(KC_BASELINE ${CMAKE_CURRENT_SOURCE_DIR}/${KC_BASELINE})
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/kerncast/${KC_TARGET})
  # Sources relative to the source dir, so reports and baselines name them the same everywhere.
  set(srcs)
  foreach(s ${KC_SOURCES})
    if(IS_ABSOLUTE ${s})
      file(RELATIVE_PATH s ${CMAKE_CURRENT_SOURCE_DIR} ${s})
    endif()
    list(APPEND srcs ${s})
  endforeach()
  add_custom_command(
    OUTPUT ${out}/kerncast-report.json
    COMMAND ${CMAKE_COMMAND} -E env CI=true
            ${KERNCAST_EXECUTABLE} analyze ${srcs} --device ${KC_DEVICE} --model ${KC_MODEL} --out ${out}
    DEPENDS ${KC_SOURCES}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "kerncast: predicting ${KC_TARGET}'s kernels on ${KC_DEVICE}"
    VERBATIM)
  add_custom_target(${KC_TARGET}-kerncast DEPENDS ${out}/kerncast-report.json)
  add_dependencies(${KC_TARGET} ${KC_TARGET}-kerncast)
  set(gate ${KERNCAST_EXECUTABLE} check ${srcs} --device ${KC_DEVICE} --model ${KC_MODEL}
           --baseline ${KC_BASELINE} --out ${out} --sarif ${out}/kerncast.sarif)
  if(NOT TARGET kerncast-check)
    add_custom_target(kerncast-check)
    add_custom_target(kerncast-update-baseline)
  endif()
  add_custom_target(${KC_TARGET}-kerncast-check
    COMMAND ${CMAKE_COMMAND} -E env CI=true ${gate}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "kerncast: gating ${KC_TARGET} against ${KC_BASELINE}"
    VERBATIM)
  add_custom_target(${KC_TARGET}-kerncast-update-baseline
    COMMAND ${CMAKE_COMMAND} -E env CI=true ${gate} --update-baseline
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    VERBATIM)
  add_dependencies(kerncast-check ${KC_TARGET}-kerncast-check)
  add_dependencies(kerncast-update-baseline ${KC_TARGET}-kerncast-update-baseline)
endfunction()
