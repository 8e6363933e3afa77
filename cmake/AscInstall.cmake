# cmake --install: libraries, headers under include/asc/ (rooms kept: registry/, ops/, runtime/,
# importers/), and a package config so a separate project can find_package(asc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(ASC_INSTALL_INCLUDE ${CMAKE_INSTALL_INCLUDEDIR}/asc)
set(ASC_LIBS asc_registry asc_ops asc_runtime)
if(TARGET asc_onnx)
  list(APPEND ASC_LIBS asc_onnx_schemas asc_onnx)
endif()
foreach(lib ${ASC_LIBS})
  target_include_directories(${lib} INTERFACE $<INSTALL_INTERFACE:${ASC_INSTALL_INCLUDE}>)
endforeach()
install(TARGETS ${ASC_LIBS} EXPORT ascTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(room registry ops runtime runtime/devices/cpu runtime/devices/sim importers/onnx)
  file(GLOB headers ${CMAKE_CURRENT_SOURCE_DIR}/${room}/*.h)
  install(FILES ${headers} DESTINATION ${ASC_INSTALL_INCLUDE}/${room})
endforeach()
install(EXPORT ascTargets NAMESPACE asc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asc)
configure_package_config_file(cmake/ascConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/ascConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asc)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ascConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ascConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ascConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/asc)
