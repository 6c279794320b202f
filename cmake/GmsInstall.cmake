# Install rules (cmake --install): the gpumemsim CLI, libgpumemsim.so with the headers of its
# API (lib/gpumemsim.h and what it includes, nothing internal), and two pkg-config files:
#   gpumemsim.pc         programs that link the library: -I... -L... -lgpumemsim
#   gpumemsim-plugin.pc  policy plugins (docs/plugins.md): -I... -fPIC, -shared; a plugin
#                        resolves sim_view_* from the program that loads it and links nothing.
include(GNUInstallDirs)
install(TARGETS gpumemsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS gpumemsim_lib LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        NAMELINK_COMPONENT Unspecified)
install(FILES ${PROJECT_SOURCE_DIR}/lib/gpumemsim.h ${PROJECT_SOURCE_DIR}/sim/sim.h
              ${PROJECT_SOURCE_DIR}/sim/policy.h ${PROJECT_SOURCE_DIR}/sim/memory.h
              ${PROJECT_SOURCE_DIR}/heuristics/registry.h ${PROJECT_SOURCE_DIR}/heuristics/plugin.h
              ${PROJECT_SOURCE_DIR}/traces/gms_error.h ${PROJECT_SOURCE_DIR}/sim/link.h
              ${PROJECT_SOURCE_DIR}/sim/planner.h ${PROJECT_SOURCE_DIR}/sim/sim_plan_report.h
              ${PROJECT_SOURCE_DIR}/heuristics/planners.h ${PROJECT_SOURCE_DIR}/heuristics/catalog.h
              ${PROJECT_SOURCE_DIR}/sim/sim_peak.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpumemsim)
install(FILES ${PROJECT_SOURCE_DIR}/examples/policy-plugin/my_policy.c
              ${PROJECT_SOURCE_DIR}/examples/policy-plugin/my_fast_policy.c
              ${PROJECT_SOURCE_DIR}/examples/policy-plugin/Makefile
        DESTINATION ${CMAKE_INSTALL_DATADIR}/gpumemsim/examples/policy-plugin)
# prefix relative to the .pc file, so that `cmake --install --prefix P` works for any P
file(RELATIVE_PATH GMS_PC_TO_PREFIX "/x/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/x")
foreach(pc gpumemsim gpumemsim-plugin)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
