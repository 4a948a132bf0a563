# libsits_rt: the runtime hook library for boards (sysfs and NVML capture with phase marks), libc
# only (NVML is dlopen()ed at run time): no HDF5, SUNDIALS, GSL, libconfig or FFTW. Included by the top-level CMakeLists.txt in every
# build; with -DSITS_RUNTIME_ONLY=ON it is all that is built (a C compiler and CMake: the
# board's own toolchain or a cross toolchain file, e.g. cmake/aarch64-linux-gnu.cmake).
# Installs: the library, its three headers, sitsenergy-rt.pc (relocatable) and the CMake
# package SITSEnergyRT (imported target SITSEnergy::sits_rt).
add_library(sits_rt SHARED ${PROJECT_SOURCE_DIR}/runtime/rt_capture.c ${PROJECT_SOURCE_DIR}/runtime/rt_nvml.c
                           ${PROJECT_SOURCE_DIR}/core/status.c ${PROJECT_SOURCE_DIR}/core/fail.c)
target_include_directories(sits_rt PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include/sitsenergy>
                                          $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/sitsenergy>
                                   PRIVATE ${PROJECT_SOURCE_DIR}/runtime ${PROJECT_SOURCE_DIR}/core)
target_link_libraries(sits_rt PRIVATE m ${CMAKE_DL_LIBS})
set_target_properties(sits_rt PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
                      LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
install(TARGETS sits_rt EXPORT SITSEnergyRTTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/sitsenergy/sits_rt.h
              ${PROJECT_SOURCE_DIR}/include/sitsenergy/sits_status.h
              ${PROJECT_SOURCE_DIR}/include/sitsenergy/sits_export.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sitsenergy)
install(EXPORT SITSEnergyRTTargets NAMESPACE SITSEnergy::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/SITSEnergyRT)
include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/SITSEnergyRTConfig.cmake.in
  ${PROJECT_BINARY_DIR}/SITSEnergyRTConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/SITSEnergyRT)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/SITSEnergyRTConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/SITSEnergyRTConfig.cmake
              ${PROJECT_BINARY_DIR}/SITSEnergyRTConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/SITSEnergyRT)
# pkg-config files find the prefix from where they are (${pcfiledir}): a --prefix install
# (or a copied tree) works as installed.
file(RELATIVE_PATH SITS_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" SITS_PC_TO_PREFIX "${SITS_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/sitsenergy-rt.pc.in ${PROJECT_BINARY_DIR}/sitsenergy-rt.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/sitsenergy-rt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
