# attnrt_add_firmware(): build a bare-metal image for the current board and run it as a
# CTest test under qemu-system-arm. Use with toolchains/cortex-m7.cmake or
# toolchains/cortex-m55.cmake, which set ATTNRT_BOARD, ATTNRT_QEMU_MACHINE and
# ATTNRT_QEMU_CPU.
#
#   include(toolchains/boards/firmware.cmake)
#   attnrt_add_firmware(sdpa_fw
#     SOURCES fw_main.cc               # defines int main()
#     LIBS attnrt::kernels attnrt::runtime
#     [STACK_SIZE 0x8000]             # bytes of main stack (default 64 KiB)
#     [EXPECT_EXIT_CODE 3]            # the test passes on this exit code (default 0)
#     [TIMEOUT 60]                    # seconds qemu may run (default 60)
#     [NO_TEST])                      # build only
#
# What the image gets: the vector table, Reset_Handler and fault handlers
# (boards/common/cortex_m_startup.c, sized by boards/<board>/board.h), the C runtime
# start and heap-free stubs
# (boards/common/board_runtime.c, cxx_stubs.cc), the semihosting console
# (boards/common/semihost.h) and the board's linker script (boards/<board>/memory.ld).
# After linking, the build prints the section sizes and fails if the image contains
# the heap (malloc, free, _sbrk, operator new, ...): firmware must not use it.
include_guard(GLOBAL)

set(_ATTNRT_BOARDS_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(_attnrt_board_support_library out_var)
  if(NOT ATTNRT_BOARD)
    message(FATAL_ERROR "attnrt_add_firmware: ATTNRT_BOARD is not set; configure with "
      "-DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m7.cmake or cortex-m55.cmake")
  endif()
  set(board_dir "${_ATTNRT_BOARDS_DIR}/${ATTNRT_BOARD}")
  if(NOT EXISTS "${board_dir}/board.h" OR NOT EXISTS "${board_dir}/memory.ld")
    message(FATAL_ERROR "attnrt_add_firmware: no board support in ${board_dir}")
  endif()
  set(lib attnrt_board_${ATTNRT_BOARD})
  string(REPLACE "-" "_" lib "${lib}")
  if(NOT TARGET ${lib})
    # An OBJECT library: every object goes into the image (the vector table and
    # Reset_Handler are referenced by nothing), and --gc-sections drops what is unused.
    add_library(${lib} OBJECT
      "${_ATTNRT_BOARDS_DIR}/common/cortex_m_startup.c"
      "${_ATTNRT_BOARDS_DIR}/common/board_runtime.c"
      "${_ATTNRT_BOARDS_DIR}/common/semihost.c"
      "${_ATTNRT_BOARDS_DIR}/common/cxx_stubs.cc")
    target_include_directories(${lib} PUBLIC "${_ATTNRT_BOARDS_DIR}/common"
      PRIVATE "${board_dir}")  # board.h
    set_target_properties(${lib} PROPERTIES POSITION_INDEPENDENT_CODE OFF)
    # cxx_stubs.cc provides hwy::Abort when Highway's headers are available.
    if(TARGET hwy::hwy)
      target_link_libraries(${lib} PRIVATE hwy::hwy)
    endif()
  endif()
  set(${out_var} ${lib} PARENT_SCOPE)
endfunction()

function(attnrt_add_firmware name)
  cmake_parse_arguments(PARSE_ARGV 1 FW "NO_TEST" "STACK_SIZE;EXPECT_EXIT_CODE;TIMEOUT"
    "SOURCES;LIBS")
  if(FW_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "attnrt_add_firmware(${name}): unknown arguments ${FW_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT FW_SOURCES)
    message(FATAL_ERROR "attnrt_add_firmware(${name}): SOURCES is required")
  endif()
  if(NOT DEFINED FW_EXPECT_EXIT_CODE)
    set(FW_EXPECT_EXIT_CODE 0)
  endif()
  if(NOT FW_TIMEOUT)
    set(FW_TIMEOUT 60)
  endif()

  _attnrt_board_support_library(board_lib)
  set(board_dir "${_ATTNRT_BOARDS_DIR}/${ATTNRT_BOARD}")
  set(linker_script "${board_dir}/memory.ld")

  add_executable(${name} ${FW_SOURCES})
  set_target_properties(${name} PROPERTIES
    SUFFIX ".elf"
    POSITION_INDEPENDENT_CODE OFF
    LINK_DEPENDS "${linker_script};${_ATTNRT_BOARDS_DIR}/common/sections.ld")
  target_link_libraries(${name} PRIVATE ${board_lib} ${FW_LIBS})
  target_link_options(${name} PRIVATE
    -nostartfiles
    "-T${linker_script}"
    "-L${_ATTNRT_BOARDS_DIR}/common"   # where the board script's INCLUDE sections.ld is
    "-Wl,--gc-sections"
    "-Wl,-Map=$<TARGET_FILE_DIR:${name}>/${name}.map"
    "-Wl,--print-memory-usage")
  # The toolchain files pass --specs=nano.specs with the compile flags (it also picks
  # newlib-nano's headers), and gcc refuses to read a specs file twice.
  string(FIND "${CMAKE_CXX_FLAGS} ${CMAKE_EXE_LINKER_FLAGS}" "nano.specs" nano_at)
  if(nano_at EQUAL -1)
    target_link_options(${name} PRIVATE --specs=nano.specs)
  endif()
  if(FW_STACK_SIZE)
    target_link_options(${name} PRIVATE "-Wl,--defsym=__stack_size=${FW_STACK_SIZE}")
  endif()

  # Tools from the same binutils as the compiler.
  get_filename_component(bin_dir "${CMAKE_C_COMPILER}" DIRECTORY)
  find_program(ATTNRT_ARM_SIZE NAMES arm-none-eabi-size HINTS "${bin_dir}" REQUIRED)
  find_program(ATTNRT_ARM_NM NAMES arm-none-eabi-nm HINTS "${bin_dir}" REQUIRED)
  add_custom_command(TARGET ${name} POST_BUILD
    COMMAND "${ATTNRT_ARM_SIZE}" "$<TARGET_FILE:${name}>"
    COMMAND "${CMAKE_COMMAND}" "-DNM=${ATTNRT_ARM_NM}" "-DELF=$<TARGET_FILE:${name}>"
            -P "${_ATTNRT_BOARDS_DIR}/check_no_heap.cmake"
    COMMENT "Size and heap check of ${name}.elf"
    VERBATIM)

  set(qemu_command
    timeout --kill-after=5 ${FW_TIMEOUT}
    qemu-system-arm -M ${ATTNRT_QEMU_MACHINE} -cpu ${ATTNRT_QEMU_CPU} -nographic
    -semihosting-config enable=on,target=native -kernel "$<TARGET_FILE:${name}>")
  # `cmake --build . --target run-NAME` runs the image by hand.
  add_custom_target(run-${name}
    COMMAND ${qemu_command}
    DEPENDS ${name}
    USES_TERMINAL
    VERBATIM)
  if(NOT FW_NO_TEST)
    if(FW_EXPECT_EXIT_CODE EQUAL 0)
      add_test(NAME ${name} COMMAND ${qemu_command})
    else()
      # Pass only on exactly the expected code: timeout's 124 or a fault's 24x fail.
      add_test(NAME ${name}
        COMMAND sh -c "\"$@\"; code=$?; echo \"exit code $code (expected ${FW_EXPECT_EXIT_CODE})\"; test $code -eq ${FW_EXPECT_EXIT_CODE}"
                sh ${qemu_command})
    endif()
    # Semihosting console output goes to qemu's stderr; ctest shows both streams.
    math(EXPR ctest_timeout "${FW_TIMEOUT} + 30")
    set_tests_properties(${name} PROPERTIES
      TIMEOUT ${ctest_timeout}
      LABELS "firmware;${ATTNRT_BOARD}")
  endif()
endfunction()
