# ZymaseConfig.cmake - find_package(Zymase CONFIG): the installed Zymase
# plugins and Zymase::Flags, which loads the one of the project's clang.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Sets, for each installed LLVM major NN (lib/zymase/Zymase-NN.so):
#   ZYMASE_PLUGIN_<NN>        the pass plugin, Zymase-NN.so
#   ZYMASE_CLANG_PLUGIN_<NN>  the clang plugin, ClangZymase-NN.so, if installed
#   Zymase_LLVM_MAJORS        the installed majors
# and, for the major of the project's clang:
#   Zymase_LLVM_MAJOR, Zymase_PLUGIN, Zymase_CLANG_PLUGIN, Zymase_INCLUDE_DIRS
#   Zymase::Flags             an INTERFACE target whose compile options load
#                             the plugin(s) and whose include directory has
#                             zymase/enzyme.h
# A plugin only loads into the clang of the LLVM major it was built for, so
# a project whose compiler is not clang, or is a clang of a major that has
# no installed plugin, is refused here rather than crashing clang later.
# This file is the same for every major: packages of several majors share it.

get_filename_component(_zy_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(_zy_libdir "${_zy_prefix}/lib/zymase")

set(Zymase_LLVM_MAJORS)
file(GLOB _zy_plugins "${_zy_libdir}/Zymase-*.so")
foreach(_zy_p IN LISTS _zy_plugins)
  get_filename_component(_zy_n "${_zy_p}" NAME)
  if(_zy_n MATCHES "^Zymase-([0-9]+)\\.so$")
    set(_zy_m ${CMAKE_MATCH_1})
    list(APPEND Zymase_LLVM_MAJORS ${_zy_m})
    set(ZYMASE_PLUGIN_${_zy_m} "${_zy_p}")
    if(EXISTS "${_zy_libdir}/ClangZymase-${_zy_m}.so")
      set(ZYMASE_CLANG_PLUGIN_${_zy_m} "${_zy_libdir}/ClangZymase-${_zy_m}.so")
    endif()
  endif()
endforeach()
if(NOT Zymase_LLVM_MAJORS)
  message(FATAL_ERROR "Zymase: no plugin is installed in ${_zy_libdir} "
          "(expected Zymase-NN.so for an LLVM major NN)")
endif()

# The compilers of the project's C and C++ (whichever are enabled) must be
# clang, all of one major that has an installed plugin.
set(Zymase_LLVM_MAJOR)
get_property(_zy_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
foreach(_zy_l C CXX)
  if(NOT _zy_l IN_LIST _zy_langs)
    continue()
  endif()
  set(_zy_cc "${CMAKE_${_zy_l}_COMPILER}")
  set(_zy_id "${CMAKE_${_zy_l}_COMPILER_ID}")
  if(NOT _zy_id STREQUAL "Clang")
    message(FATAL_ERROR "Zymase: the ${_zy_l} compiler ${_zy_cc} is "
            "${_zy_id} ${CMAKE_${_zy_l}_COMPILER_VERSION}, not clang. Zymase is "
            "an LLVM plugin and needs the clang of an installed plugin's major "
            "(installed: LLVM ${Zymase_LLVM_MAJORS}); configure with, e.g., "
            "-DCMAKE_${_zy_l}_COMPILER=clang-${_zy_m}")
  endif()
  string(REGEX MATCH "^[0-9]+" _zy_cm "${CMAKE_${_zy_l}_COMPILER_VERSION}")
  if(NOT _zy_cm IN_LIST Zymase_LLVM_MAJORS)
    message(FATAL_ERROR "Zymase: the ${_zy_l} compiler ${_zy_cc} is clang "
            "${CMAKE_${_zy_l}_COMPILER_VERSION}, but Zymase is installed in "
            "${_zy_prefix} for LLVM ${Zymase_LLVM_MAJORS} only, and a plugin "
            "only loads into the clang of its own major. Use clang-${_zy_m} "
            "(-DCMAKE_${_zy_l}_COMPILER=clang-${_zy_m}), or install the Zymase "
            "built for LLVM ${_zy_cm}")
  endif()
  if(Zymase_LLVM_MAJOR AND NOT Zymase_LLVM_MAJOR STREQUAL _zy_cm)
    message(FATAL_ERROR "Zymase: the C compiler is clang ${Zymase_LLVM_MAJOR} "
            "and the C++ compiler clang ${_zy_cm}: one plugin cannot serve both")
  endif()
  set(Zymase_LLVM_MAJOR ${_zy_cm})
endforeach()
if(NOT Zymase_LLVM_MAJOR)
  message(FATAL_ERROR "Zymase: find_package(Zymase) needs the C or C++ "
          "language enabled first (project(... C) or enable_language(C))")
endif()

set(Zymase_PLUGIN "${ZYMASE_PLUGIN_${Zymase_LLVM_MAJOR}}")
set(Zymase_CLANG_PLUGIN "${ZYMASE_CLANG_PLUGIN_${Zymase_LLVM_MAJOR}}")
set(Zymase_INCLUDE_DIRS "${_zy_prefix}/include")

if(NOT TARGET Zymase::Flags)
  add_library(Zymase::Flags INTERFACE IMPORTED)
  set(_zy_opts "-fpass-plugin=${Zymase_PLUGIN}")
  if(Zymase_CLANG_PLUGIN)
    # Enzyme's attributes (enzyme_inactive, ...) for clang.
    list(APPEND _zy_opts "-fplugin=${Zymase_CLANG_PLUGIN}")
  endif()
  set_target_properties(Zymase::Flags PROPERTIES
    INTERFACE_COMPILE_OPTIONS "${_zy_opts}"
    INTERFACE_INCLUDE_DIRECTORIES "${Zymase_INCLUDE_DIRS}")
endif()

foreach(_zy_v _zy_prefix _zy_libdir _zy_plugins _zy_p _zy_n _zy_m _zy_langs
        _zy_l _zy_cc _zy_id _zy_cm _zy_opts)
  unset(${_zy_v})
endforeach()
