# Kerncast.cmake: predict GPU kernel time, power and energy as part of a CMake build.
#
#   find_package(Kerncast REQUIRED)          # -DKerncast_DIR=<kerncast>/cmake, or
#                                            # CMAKE_PREFIX_PATH=<kerncast checkout>
#   # or: include(<kerncast>/cmake/Kerncast.cmake)
#   kerncast_add_kernels(TARGET app SOURCES kernels/a.cu kernels/b.cl
#                        [DEVICE gtx-titan-x] [MODEL auto]
#                        [BASELINE kerncast-baseline.json] [CONFIG kerncast.toml]
#                        [INCLUDE_DIRECTORIES dir…] [COMPILE_DEFINITIONS NAME[=VALUE]…]
#                        [PARAMS NAME=VALUE…] [NO_TARGET_FLAGS])
#
# adds a custom command that runs `kerncast analyze` on the sources whenever one changes
# (reports in ${CMAKE_CURRENT_BINARY_DIR}/kerncast/<TARGET>/), makes TARGET depend on it, and
# adds a `kerncast-check` target that runs the regression gate against BASELINE (exit 1 on a
# regression, 2 on an analysis error, which fails the build step) and a
# `kerncast-update-baseline` target.
#
# The kernels are lowered with TARGET's own include folders and compile definitions (its
# INCLUDE_DIRECTORIES and COMPILE_DEFINITIONS, with what it inherits from the targets it
# links), as the project's compiler sees them; INCLUDE_DIRECTORIES and COMPILE_DEFINITIONS add
# to those (NO_TARGET_FLAGS: only those). PARAMS gives sizes the host code leaves to run time
# (`--param`). Workloads come from CONFIG, the sources' `// kerncast: workload` annotations or
# the host code's launches. The kerncast binary comes from KERNCAST_EXECUTABLE, $KERNCAST or
# PATH.

if(NOT KERNCAST_EXECUTABLE)
  if(DEFINED ENV{KERNCAST})
    set(KERNCAST_EXECUTABLE "$ENV{KERNCAST}" CACHE FILEPATH "the kerncast binary")
  else()
    find_program(KERNCAST_EXECUTABLE kerncast)
  endif()
endif()
if(NOT KERNCAST_EXECUTABLE AND NOT KERNCAST_FIND_QUIETLY_FROM_CONFIG)
  message(FATAL_ERROR "kerncast not found: set KERNCAST_EXECUTABLE or $KERNCAST, or put kerncast "
                      "on PATH (cargo install --path cli, from a kerncast checkout)")
endif()

function(kerncast_add_kernels)
  cmake_parse_arguments(KC "NO_TARGET_FLAGS" "TARGET;DEVICE;BASELINE;MODEL;CONFIG"
                        "SOURCES;INCLUDE_DIRECTORIES;COMPILE_DEFINITIONS;PARAMS" ${ARGN})
  if(KC_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kerncast_add_kernels: unknown arguments: ${KC_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT KC_TARGET OR (NOT KC_SOURCES AND NOT KC_CONFIG))
    message(FATAL_ERROR "kerncast_add_kernels: TARGET and SOURCES (or CONFIG) are required")
  endif()
  if(NOT TARGET ${KC_TARGET})
    message(FATAL_ERROR "kerncast_add_kernels: ${KC_TARGET} is not a target (define it first)")
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
  set(deps)
  foreach(s ${KC_SOURCES})
    if(IS_ABSOLUTE ${s})
      file(RELATIVE_PATH s ${CMAKE_CURRENT_SOURCE_DIR} ${s})
    endif()
    list(APPEND srcs ${s})
    list(APPEND deps ${CMAKE_CURRENT_SOURCE_DIR}/${s})
  endforeach()

  set(flags --model ${KC_MODEL})
  if(KC_DEVICE)
    list(APPEND flags --device ${KC_DEVICE})
  elseif(NOT KC_CONFIG)
    list(APPEND flags --device gtx-titan-x)
  endif()
  if(KC_CONFIG)
    if(NOT IS_ABSOLUTE ${KC_CONFIG})
      set(KC_CONFIG ${CMAKE_CURRENT_SOURCE_DIR}/${KC_CONFIG})
    endif()
    list(APPEND flags --config ${KC_CONFIG})
    list(APPEND deps ${KC_CONFIG})
  endif()
  foreach(d ${KC_INCLUDE_DIRECTORIES})
    if(NOT IS_ABSOLUTE ${d})
      set(d ${CMAKE_CURRENT_SOURCE_DIR}/${d})
    endif()
    list(APPEND flags -I${d})
  endforeach()
  foreach(d ${KC_COMPILE_DEFINITIONS})
    list(APPEND flags -D${d})
  endforeach()
  if(NOT KC_NO_TARGET_FLAGS)
    # The target's own, evaluated at generation time (with what its linked targets give it);
    # COMMAND_EXPAND_LISTS turns each into its own argument, and an empty list into none.
    set(incs "$<TARGET_PROPERTY:${KC_TARGET},INCLUDE_DIRECTORIES>")
    set(defs "$<TARGET_PROPERTY:${KC_TARGET},COMPILE_DEFINITIONS>")
    list(APPEND flags "$<$<BOOL:${incs}>:-I$<JOIN:${incs},$<SEMICOLON>-I>>"
                      "$<$<BOOL:${defs}>:-D$<JOIN:${defs},$<SEMICOLON>-D>>")
  endif()
  foreach(p ${KC_PARAMS})
    list(APPEND flags --param ${p})
  endforeach()

  add_custom_command(
    OUTPUT ${out}/kerncast-report.json
    COMMAND ${CMAKE_COMMAND} -E env CI=true
            ${KERNCAST_EXECUTABLE} analyze ${srcs} ${flags} --out ${out}
    DEPENDS ${deps}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "kerncast: predicting ${KC_TARGET}'s kernels"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(${KC_TARGET}-kerncast DEPENDS ${out}/kerncast-report.json)
  add_dependencies(${KC_TARGET} ${KC_TARGET}-kerncast)
  set(gate ${KERNCAST_EXECUTABLE} check ${srcs} ${flags}
           --baseline ${KC_BASELINE} --out ${out} --sarif ${out}/kerncast.sarif)
  if(NOT TARGET kerncast-check)
    add_custom_target(kerncast-check)
    add_custom_target(kerncast-update-baseline)
  endif()
  add_custom_target(${KC_TARGET}-kerncast-check
    COMMAND ${CMAKE_COMMAND} -E env CI=true ${gate}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMENT "kerncast: gating ${KC_TARGET} against ${KC_BASELINE}"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_custom_target(${KC_TARGET}-kerncast-update-baseline
    COMMAND ${CMAKE_COMMAND} -E env CI=true ${gate} --update-baseline
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    COMMAND_EXPAND_LISTS
    VERBATIM)
  add_dependencies(kerncast-check ${KC_TARGET}-kerncast-check)
  add_dependencies(kerncast-update-baseline ${KC_TARGET}-kerncast-update-baseline)
endfunction()
