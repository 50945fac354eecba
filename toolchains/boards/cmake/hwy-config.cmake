# Header-only Highway for bare-metal (CMAKE_SYSTEM_NAME Generic) builds.
#
# The bare-metal toolchain files point hwy_DIR here, so the project's ordinary
# `find_package(hwy)` works on firmware too. libhwy (dynamic dispatch, target
# detection) cannot be linked there, so hwy::hwy is an INTERFACE target with the
# headers and HWY_COMPILE_ONLY_STATIC; hwy::Abort comes from the board support
# (boards/common/cxx_stubs.cc). Highway's headers are architecture independent and
# come from the host's libhwy-dev; only the hwy/ folder is exposed, because the rest of
# the host's /usr/include (glibc) would shadow newlib's headers.
if(NOT TARGET hwy::hwy)
  find_path(ATTNRT_HWY_HEADERS_ROOT hwy/highway.h
    PATHS /usr/include /usr/local/include
    NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(NOT ATTNRT_HWY_HEADERS_ROOT)
    set(hwy_FOUND FALSE)
    set(hwy_NOT_FOUND_MESSAGE "Highway headers (hwy/highway.h) not found: install libhwy-dev")
    return()
  endif()
  set(_attnrt_hwy_include "${CMAKE_BINARY_DIR}/attnrt-hwy-include")
  file(MAKE_DIRECTORY "${_attnrt_hwy_include}")
  file(CREATE_LINK "${ATTNRT_HWY_HEADERS_ROOT}/hwy" "${_attnrt_hwy_include}/hwy" SYMBOLIC)

  add_library(hwy::hwy INTERFACE IMPORTED)
  set_target_properties(hwy::hwy PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_attnrt_hwy_include}"
    INTERFACE_COMPILE_DEFINITIONS "HWY_COMPILE_ONLY_STATIC=1")
  # contrib (math, sort, ...) is header-only as used here.
  add_library(hwy::hwy_contrib INTERFACE IMPORTED)
  set_target_properties(hwy::hwy_contrib PROPERTIES INTERFACE_LINK_LIBRARIES hwy::hwy)
  unset(_attnrt_hwy_include)
endif()
set(hwy_FOUND TRUE)
