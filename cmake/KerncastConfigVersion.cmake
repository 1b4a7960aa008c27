# find_package(Kerncast X.Y) version check: compatible within a major version (0.x: within a
# minor version), as write_basic_package_version_file(SameMinorVersion) would write for 0.x.
# Kept equal to the workspace's version in Cargo.toml (checked by tests/tests/examples_cmake.rs).
set(PACKAGE_VERSION "0.1.0")
if(NOT PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
elseif(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "0")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(PACKAGE_FIND_VERSION_MINOR AND NOT PACKAGE_FIND_VERSION_MINOR STREQUAL "1")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
