# Included by the top CMakeLists in Cortex-M builds: the CTest test
# firmware_consumer_out_of_tree (out_of_tree_test.sh), which installs this build and
# builds and runs tests/firmware_consumer against the installed package. It needs the
# host attnrt that tests/firmware uses, so include this after tests/firmware.
# (CMake keeps CMAKE_TOOLCHAIN_FILE as an absolute path, usable from anywhere.)

# The path tests/firmware/CMakeLists.txt builds the host attnrt to when none is given.
if(ATTNRT_HOST_ATTNRT)
  set(_attnrt_consumer_host "${ATTNRT_HOST_ATTNRT}")
else()
  set(_attnrt_consumer_host "${CMAKE_BINARY_DIR}/host-attnrt/bin/attnrt")
endif()

add_test(NAME firmware_consumer_out_of_tree
  COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/out_of_tree_test.sh"
          "${CMAKE_BINARY_DIR}" "${PROJECT_SOURCE_DIR}" "${CMAKE_TOOLCHAIN_FILE}"
          "${ATTNRT_BOARD}" "${ATTNRT_QEMU_MACHINE}" "${ATTNRT_QEMU_CPU}"
          "${_attnrt_consumer_host}" "${ATTNRT_FW_PYTHON}")
# Configure + build of the consumer (a few seconds) and one qemu run (seconds).
set_tests_properties(firmware_consumer_out_of_tree PROPERTIES
  TIMEOUT 300
  LABELS "firmware;${ATTNRT_BOARD}")
unset(_attnrt_consumer_host)
