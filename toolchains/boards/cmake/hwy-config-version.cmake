# Version of the header-only Highway config beside this file: read from hwy/highway.h.
find_path(ATTNRT_HWY_HEADERS_ROOT hwy/highway.h
  PATHS /usr/include /usr/local/include NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
set(PACKAGE_VERSION "0.0.0")
if(ATTNRT_HWY_HEADERS_ROOT AND EXISTS "${ATTNRT_HWY_HEADERS_ROOT}/hwy/highway.h")
  file(STRINGS "${ATTNRT_HWY_HEADERS_ROOT}/hwy/highway.h" _attnrt_hwy_ver
    REGEX "^#define HWY_(MAJOR|MINOR|PATCH) [0-9]+")
  foreach(_part MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define HWY_${_part} ([0-9]+).*" "\\1" _attnrt_hwy_${_part}
      "${_attnrt_hwy_ver}")
  endforeach()
  set(PACKAGE_VERSION "${_attnrt_hwy_MAJOR}.${_attnrt_hwy_MINOR}.${_attnrt_hwy_PATCH}")
endif()
if(PACKAGE_FIND_VERSION AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION AND PACKAGE_VERSION VERSION_EQUAL PACKAGE_FIND_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
