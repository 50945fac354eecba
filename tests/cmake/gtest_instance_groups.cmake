# Script mode (cmake -P), run after a test program is built: lists its tests and
# writes one CTest test per test *name*, running all of that test's parameterized
# instances in one process (Registry/SdpaKvCacheTest.HugeLogits/* -> CTest test
# SdpaKvCacheTest.HugeLogits). The SDPA suites' instances (one per kernel variant and
# Highway target) check the same cases against the same oracles; in one process they
# compute each oracle once (SdpaRegistryTest::ReferenceResult / Float64Result).
# A plain TEST or TEST_F is one CTest test, as gtest_discover_tests makes it.
#
# -D TEST_EXECUTABLE=path  -D TEST_EXECUTOR=emulator arguments joined by '|' (may be empty)
# -D CTEST_FILE=path of the file to write  -D WORKING_DIRECTORY=dir
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" executor "${TEST_EXECUTOR}")
execute_process(
  COMMAND ${executor} "${TEST_EXECUTABLE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE errors
  RESULT_VARIABLE status
  TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${status}):\n${listing}${errors}")
endif()

set(script "")
set(seen "")
set(count 0)
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_/]+)\\.$")  # a suite: "Registry/SdpaKvCacheTest."
    set(suite "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^  ([A-Za-z0-9_]+)(/[A-Za-z0-9_]+)?")  # "  HugeLogits/hwy_flash_AVX2  # ..."
    set(test "${CMAKE_MATCH_1}")
    if(CMAKE_MATCH_2)
      set(filter "${suite}.${test}/*")
    else()
      set(filter "${suite}.${test}")
    endif()
    string(REGEX REPLACE "^[A-Za-z0-9_]+/" "" name "${suite}.${test}")  # drop "Registry/"
    if(NOT name IN_LIST seen)
      list(APPEND seen "${name}")
      math(EXPR count "${count} + 1")
      set(command "")
      foreach(arg IN LISTS executor)
        string(APPEND command " [==[${arg}]==]")
      endforeach()
      string(APPEND script
        "add_test([==[${name}]==]${command} [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${filter}]==])\n"
        "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==])\n")
    endif()
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no tests:\n${listing}")
endif()
file(WRITE "${CTEST_FILE}" "${script}")
