# Helpers every tests/ CMakeLists uses, so tests register the same way everywhere.
#
# gms_add_check_test(NAME SOURCES a.c b.c LIBS gms_sim ...): a Check unit-test executable run by
#   CTest. Tests find the shared data through the GMS_SHARED_DIR environment variable.
# gms_add_cli_test(NAME SCRIPT path.sh): an end-to-end shell test of the real CLI. The script
#   gets GMS_BIN (the gpumemsim binary), GMS_SHARED_DIR, GMS_SOURCE_DIR and a fresh GMS_TMP.
# Either takes NEEDS_SHARED for a test that reads the third-party data in ../shared (DTR logs,
#   PyTorch traces, reference numbers). Where that folder is missing (a user's fresh clone) such
#   a test is built but not registered, and its name lands in tests-not-run.txt in the build
#   folder, which scripts/test.sh prints, so nothing is skipped silently.

set(GMS_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" CACHE PATH
    "The shared test data (DTR logs, reference numbers) beside the checkout")

set(GMS_HAVE_SHARED OFF)
if(EXISTS "${GMS_SHARED_DIR}/traces/dtr-iclr21")
  set(GMS_HAVE_SHARED ON)
endif()

# Returns TRUE in ${out} when a test may be registered; records it as not run otherwise.
function(gms_shared_gate name needs_shared out)
  if(needs_shared AND NOT GMS_HAVE_SHARED)
    set_property(GLOBAL APPEND PROPERTY GMS_TESTS_NOT_RUN
      "${name}: needs the shared test data in ${GMS_SHARED_DIR}")
    set(${out} FALSE PARENT_SCOPE)
  else()
    set(${out} TRUE PARENT_SCOPE)
  endif()
endfunction()

# Writes tests-not-run.txt (one "name: reason" a line; empty when every test runs).
function(gms_write_tests_not_run)
  get_property(rows GLOBAL PROPERTY GMS_TESTS_NOT_RUN)
  list(JOIN rows "\n" text)
  if(text)
    set(text "${text}\n")
  endif()
  file(WRITE "${CMAKE_BINARY_DIR}/tests-not-run.txt" "${text}")
endfunction()

function(gms_add_check_test name)
  cmake_parse_arguments(T "NEEDS_SHARED" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/unit) # check_run.h
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CHECK)
  if(GMS_SANITIZE) # gms_test_rounds (tests/unit/check_run.h)
    target_compile_definitions(${name} PRIVATE GMS_TEST_SANITIZED)
  endif()
  gms_shared_gate(${name} "${T_NEEDS_SHARED}" ok)
  if(NOT ok)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "GMS_SHARED_DIR=${GMS_SHARED_DIR};GMS_SOURCE_DIR=${PROJECT_SOURCE_DIR};CK_DEFAULT_TIMEOUT=120"
    TIMEOUT 600)
endfunction()

function(gms_add_cli_test name)
  cmake_parse_arguments(T "NEEDS_SHARED" "SCRIPT" "" ${ARGN})
  gms_shared_gate(${name} "${T_NEEDS_SHARED}" ok)
  if(NOT ok)
    return()
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -E env
      GMS_BIN=$<TARGET_FILE:gpumemsim>
      GMS_SHARED_DIR=${GMS_SHARED_DIR}
      GMS_SOURCE_DIR=${PROJECT_SOURCE_DIR}
      GMS_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp-${name}
      bash ${T_SCRIPT})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600)
endfunction()
