# Helpers every tests/ CMakeLists uses, so tests register the same way everywhere.
#
# gms_add_check_test(NAME SOURCES a.c b.c LIBS gms_sim ...): a Check unit-test executable run by
#   CTest. Tests find the shared data through the GMS_SHARED_DIR environment variable.
# gms_add_cli_test(NAME SCRIPT path.sh): an end-to-end shell test of the real CLI. The script
#   gets GMS_BIN (the gpumemsim binary), GMS_SHARED_DIR, GMS_SOURCE_DIR and a fresh GMS_TMP.

set(GMS_SHARED_DIR "${PROJECT_SOURCE_DIR}/../shared" CACHE PATH
    "The shared test data (DTR logs, reference numbers) beside the checkout")

function(gms_add_check_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CHECK)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "GMS_SHARED_DIR=${GMS_SHARED_DIR};GMS_SOURCE_DIR=${PROJECT_SOURCE_DIR};CK_DEFAULT_TIMEOUT=120"
    TIMEOUT 600)
endfunction()

function(gms_add_cli_test name)
  cmake_parse_arguments(T "" "SCRIPT" "" ${ARGN})
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -E env
      GMS_BIN=$<TARGET_FILE:gpumemsim>
      GMS_SHARED_DIR=${GMS_SHARED_DIR}
      GMS_SOURCE_DIR=${PROJECT_SOURCE_DIR}
      GMS_TMP=${CMAKE_CURRENT_BINARY_DIR}/tmp-${name}
      bash ${T_SCRIPT})
  set_tests_properties(${name} PROPERTIES TIMEOUT 600)
endfunction()
