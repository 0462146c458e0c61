# The installed package: CMake config (find_package(hfcore 0.2 CONFIG REQUIRED) -> hfcore::hfcore,
# hfcore::plugin_sdk, hfcore::cli, hfcore::conformance and hfcore_add_plugin()), pkg-config's hfcore.pc, and
# CPack (.tar.gz, .deb) of the same tree. The layout and run paths are in cmake/hfcore_layout.cmake.
include(CMakePackageConfigHelpers)

install(EXPORT hfcoreTargets NAMESPACE hfcore:: FILE hfcore-targets.cmake
        DESTINATION ${HFCORE_INSTALL_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/hfcore-config.cmake.in
  ${PROJECT_BINARY_DIR}/package/hfcore-config.cmake
  INSTALL_DESTINATION ${HFCORE_INSTALL_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR HFCORE_INSTALL_PLUGIN_DIR HFCORE_INSTALL_DATA_DIR)
# 0.x: a minor version may change the API and the plugin ABI (cmake/hfcore_abi_versions.cmake), so only the
# same major.minor is compatible: find_package(hfcore 0.2) takes 0.2.z, never 0.1 or 0.3.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/hfcore-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/hfcore-config.cmake
              ${PROJECT_BINARY_DIR}/package/hfcore-config-version.cmake
              ${CMAKE_CURRENT_LIST_DIR}/hfcore_plugin.cmake
        DESTINATION ${HFCORE_INSTALL_CMAKE_DIR})

# hfcore.pc finds its prefix relative to itself (${pcfiledir}), like the rest of the install.
hfcore_relative_path(HFCORE_PC_TO_PREFIX ${CMAKE_INSTALL_LIBDIR}/pkgconfig "")
configure_file(${CMAKE_CURRENT_LIST_DIR}/hfcore.pc.in ${PROJECT_BINARY_DIR}/package/hfcore.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/hfcore.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Binary packages of the same tree (`cpack -G TGZ` or `cpack -G DEB` in the build folder, after a full build):
# a .tar.gz that runs wherever it is unpacked, and a .deb for /usr whose Depends dpkg-shlibdeps reads from the
# binaries. cuBLAS comes with the CUDA toolkit, not from Debian, so the .deb does not require it; without it the
# cuda plugin is listed as broken with the loader's reason.
set(CPACK_PACKAGE_NAME hfcore)
set(CPACK_PACKAGE_VENDOR "hfcore")
set(CPACK_PACKAGE_CONTACT "hfcore developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HistFactory (pyhf JSON) likelihoods: fits, CLs, upper limits; backend plugins")
set(CPACK_GENERATOR TGZ)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
