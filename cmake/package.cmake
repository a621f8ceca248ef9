# package.cmake - cpack -G DEB: two Debian packages, installing under /usr.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#   zymase-llvmNN   the plugins for LLVM NN and zymase-clang-NN; depends on
#                   clang-NN, libllvmNN and zymase-common.  One per major,
#                   with no file in common, so majors co-install.
#   zymase-common   what every major shares (zymase-clang, the header, the
#                   CMake package, the docs): the same package whichever
#                   build makes it.
# cd build && cpack -G DEB    (or cpack -G DEB --config build/CPackConfig.cmake)
set(CPACK_PACKAGE_NAME zymase)
set(CPACK_PACKAGE_VENDOR "Zymase")
set(CPACK_PACKAGE_CONTACT "Zymase maintainers <zymase@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "reverse-mode automatic differentiation of LLVM IR (Enzyme's interface)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)             # the plugin without its debug info
set(CPACK_COMPONENTS_ALL plugin common)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME zymase-llvm${LLVM_VERSION_MAJOR})
set(CPACK_DEBIAN_PLUGIN_PACKAGE_DEPENDS
    "clang-${LLVM_VERSION_MAJOR}, libllvm${LLVM_VERSION_MAJOR}")
set(CPACK_COMPONENT_PLUGIN_DESCRIPTION
    "Zymase plugins for LLVM ${LLVM_VERSION_MAJOR}
Zymase-${LLVM_VERSION_MAJOR}.so, the pass plugin of reverse-mode automatic
differentiation (__enzyme_autodiff), ClangZymase-${LLVM_VERSION_MAJOR}.so,
the clang plugin, and zymase-clang-${LLVM_VERSION_MAJOR}, which runs
clang-${LLVM_VERSION_MAJOR} with them.")

set(CPACK_DEBIAN_COMMON_PACKAGE_NAME zymase-common)
set(CPACK_DEBIAN_COMMON_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_COMMON_DESCRIPTION
    "Zymase files shared by every LLVM major
zymase-clang (runs clang with the newest installed Zymase plugin), the user
header zymase/enzyme.h, the CMake package (find_package(Zymase)) and the
documentation.")

include(CPack)
cpack_add_component(common DISPLAY_NAME "Zymase (common files)")
cpack_add_component(plugin DISPLAY_NAME "Zymase plugins" DEPENDS common)
