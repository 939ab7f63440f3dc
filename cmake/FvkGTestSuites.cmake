# Registers a GoogleTest binary with CTest as one test per test suite (one process per suite), not
# one per case as gtest_discover_tests does. Each process pays for loading the Vulkan driver and the
# validation layer and builds its own pipelines; a suite's cases share them. On lavapipe this took
# the suite's time from about 420 s to about 240 s on two cores (the per-case form is still there:
# -DFVK_TEST_PER_CASE=ON).
#
# fvk_gtest_suites(TARGET target ENVIRONMENT env...) at configure time; after each build of the
# target, this file runs as a script (cmake -P) that lists the binary's suites into a CTest file.

function(fvk_gtest_suites)
  cmake_parse_arguments(ARG "" "TARGET" "ENVIRONMENT" ${ARGN})
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}_suites.cmake")
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}_suites_include.cmake")
  add_custom_command(
    TARGET ${ARG_TARGET} POST_BUILD
    COMMAND "${CMAKE_COMMAND}" -D "FVK_TEST_BINARY=$<TARGET_FILE:${ARG_TARGET}>" -D "FVK_TEST_NAME=${ARG_TARGET}"
            -D "FVK_TEST_LIST=${list_file}" -D "FVK_TEST_ENVIRONMENT=${ARG_ENVIRONMENT}"
            -P "${PROJECT_SOURCE_DIR}/cmake/FvkGTestSuites.cmake"
    BYPRODUCTS "${list_file}"
    COMMENT "Listing the test suites of ${ARG_TARGET}"
    VERBATIM)
  # CTest reads this; until the binary is built, one failing test says so.
  file(WRITE "${include_file}"
       "if(EXISTS [==[${list_file}]==])\n"
       "  include([==[${list_file}]==])\n"
       "else()\n"
       "  add_test(${ARG_TARGET}_NOT_BUILT ${ARG_TARGET}_NOT_BUILT)\n"
       "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND FVK_TEST_BINARY)
  execute_process(
    COMMAND "${FVK_TEST_BINARY}" --gtest_list_tests
    OUTPUT_VARIABLE listing
    RESULT_VARIABLE result
    TIMEOUT 120)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${FVK_TEST_BINARY} --gtest_list_tests failed (${result}):\n${listing}")
  endif()
  # Suite lines start in column 0 and end with '.' (a typed or parameterized suite may add a
  # comment); case lines are indented.
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(content "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
      set(suite "${CMAKE_MATCH_1}")
      string(APPEND content
             "add_test([==[${suite}]==] [==[${FVK_TEST_BINARY}]==] [==[--gtest_filter=${suite}.*]==])\n"
             "set_tests_properties([==[${suite}]==] PROPERTIES ENVIRONMENT [==[${FVK_TEST_ENVIRONMENT}]==])\n")
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  if(count EQUAL 0)
    message(FATAL_ERROR "${FVK_TEST_BINARY} lists no test suite:\n${listing}")
  endif()
  file(WRITE "${FVK_TEST_LIST}" "${content}")
endif()
