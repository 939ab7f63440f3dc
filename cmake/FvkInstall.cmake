# Install rules and the CMake package: after `cmake --install build --prefix P`, a project with
# CMAKE_PREFIX_PATH=P writes find_package(fvk 0.1 REQUIRED) and links fvk::fvk (tests/consumer is one).
# Installed: lib/libfvk.a and lib/libfvk_core.a (static: the SPIR-V and the contracts are inside),
# include/fvk/*.hpp, bin/fvk, share/fvk/contracts/*.fkc.md (the contracts as data, for planners that
# read them), lib/cmake/fvk/.
include(CMakePackageConfigHelpers)

install(TARGETS fvk fvk_core EXPORT fvkTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/fvk DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS fvk_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB FVK_CONTRACT_DOCUMENTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/contracts/*.fkc.md)
install(FILES ${FVK_CONTRACT_DOCUMENTS} DESTINATION ${CMAKE_INSTALL_DATADIR}/fvk/contracts)

set(FVK_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/fvk)
install(EXPORT fvkTargets NAMESPACE fvk:: DESTINATION ${FVK_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/fvkConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/fvkConfig.cmake INSTALL_DESTINATION ${FVK_PACKAGE_DIR})
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/fvkConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/fvkConfig.cmake ${PROJECT_BINARY_DIR}/fvkConfigVersion.cmake
        DESTINATION ${FVK_PACKAGE_DIR})
