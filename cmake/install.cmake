# install.cmake - cmake --install rules: the plugins of this LLVM major, the
# zymase-clang wrapper, the user header, the docs and the CMake package.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Layout under the prefix (fixed, so that zymase-clang and ZymaseConfig.cmake
# find the plugins relative to themselves):
#   lib/zymase/Zymase-NN.so, ClangZymase-NN.so     component "plugin"
#   bin/zymase-clang-NN                            component "plugin"
#   bin/zymase-clang, include/zymase/enzyme.h,     component "common": the
#   lib/cmake/Zymase/, share/doc/zymase/,          same for every major
#   lib/zymase/zymase-gpu-on-cpu, libzymase-gpu.a, (GPU on CPU: the
#   zymase_gpu.h, zymase_cuda_api.h                pipeline, the runtime and
#                                                  what CUDA files include)
# Installs of several majors into one prefix add up; the Debian packages
# (cmake/package.cmake) are one per component, zymase-llvmNN and
# zymase-common, so that they co-install.
# cmake --install writes install_manifest.txt in the build folder:
# xargs rm < build/install_manifest.txt uninstalls.
include(CMakePackageConfigHelpers)

set(ZY_PLUGIN_DIR lib/zymase)
install(TARGETS Zymase LIBRARY DESTINATION ${ZY_PLUGIN_DIR} COMPONENT plugin)
if(TARGET ClangZymase)
  install(TARGETS ClangZymase LIBRARY DESTINATION ${ZY_PLUGIN_DIR}
          COMPONENT plugin)
endif()
install(PROGRAMS tools/zymase-clang DESTINATION bin
        RENAME zymase-clang-${LLVM_VERSION_MAJOR} COMPONENT plugin)

install(PROGRAMS tools/zymase-clang DESTINATION bin COMPONENT common)
install(PROGRAMS tools/zymase-gpu-on-cpu DESTINATION ${ZY_PLUGIN_DIR}
        COMPONENT common)
install(FILES include/zymase/enzyme.h DESTINATION include/zymase
        COMPONENT common)
install(FILES README.md LICENSE DESTINATION share/doc/zymase COMPONENT common)
install(DIRECTORY docs/ DESTINATION share/doc/zymase COMPONENT common)

write_basic_package_version_file(
  ${CMAKE_BINARY_DIR}/cmake/ZymaseConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES cmake/ZymaseConfig.cmake
        ${CMAKE_BINARY_DIR}/cmake/ZymaseConfigVersion.cmake
        DESTINATION lib/cmake/Zymase COMPONENT common)
