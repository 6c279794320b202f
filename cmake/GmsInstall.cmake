# Install rules (cmake --install): the gpumemsim CLI, the public headers a policy plugin needs
# (policy.h and what it includes, nothing internal) and a pkg-config file, so that a plugin
# builds against an installed gpumemsim with `pkg-config --cflags --libs gpumemsim`
# (docs/plugins.md). Plugins resolve the sim_view_* functions from the gpumemsim executable
# that loads them, so they link against no library.
include(GNUInstallDirs)
install(TARGETS gpumemsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/sim/policy.h ${PROJECT_SOURCE_DIR}/traces/gms_error.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpumemsim)
install(FILES ${PROJECT_SOURCE_DIR}/examples/policy-plugin/my_policy.c
              ${PROJECT_SOURCE_DIR}/examples/policy-plugin/Makefile
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpumemsim/examples/policy-plugin)
# prefix relative to the .pc file, so that `cmake --install --prefix P` works for any P
file(RELATIVE_PATH GMS_PC_TO_PREFIX "/x/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/x")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gpumemsim.pc.in
               ${PROJECT_BINARY_DIR}/gpumemsim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/gpumemsim.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
