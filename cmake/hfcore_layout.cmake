# Where an installed hfcore puts things, and the relative run paths that make an install in any prefix run
# without LD_LIBRARY_PATH:
#   bin/hfcore, bin/hfcore-conformance      RPATH $ORIGIN/../lib
#   lib/libhfcore.so.MAJOR.MINOR             found by the programs through that RPATH
#   lib/hfcore/plugins/libhfcore-backend-*.so   RPATH $ORIGIN/../.. ; found by libhfcore relative to itself
#   lib/cmake/hfcore, lib/pkgconfig/hfcore.pc, share/hfcore/conformance (the runner's bundled models)
set(HFCORE_INSTALL_PLUGIN_DIR ${CMAKE_INSTALL_LIBDIR}/hfcore/plugins)
set(HFCORE_INSTALL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hfcore)
set(HFCORE_INSTALL_DATA_DIR ${CMAKE_INSTALL_DATADIR}/hfcore)

foreach(dir CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_DATADIR CMAKE_INSTALL_INCLUDEDIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "hfcore: ${dir}=${${dir}} must be relative to CMAKE_INSTALL_PREFIX (the install is "
                        "relocatable: programs, plugins and hfcore.pc find each other by relative paths)")
  endif()
endforeach()

# $ORIGIN-relative paths between install folders (a fake root stands for any prefix).
function(hfcore_relative_path out from to)
  file(RELATIVE_PATH rel /hfcore-prefix/${from} /hfcore-prefix/${to})
  string(REGEX REPLACE "/+$" "" rel "${rel}")
  if(rel STREQUAL "")
    set(rel ".")
  endif()
  set(${out} ${rel} PARENT_SCOPE)
endfunction()
hfcore_relative_path(HFCORE_RPATH_FROM_BIN ${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_LIBDIR})
hfcore_relative_path(HFCORE_RPATH_FROM_PLUGINS ${HFCORE_INSTALL_PLUGIN_DIR} ${CMAKE_INSTALL_LIBDIR})
# libhfcore looks for its plugins at this path relative to its own folder (core/plugin/loader.cpp).
hfcore_relative_path(HFCORE_PLUGIN_DIR_FROM_LIB ${CMAKE_INSTALL_LIBDIR} ${HFCORE_INSTALL_PLUGIN_DIR})
hfcore_relative_path(HFCORE_DATA_DIR_FROM_BIN ${CMAKE_INSTALL_BINDIR} ${HFCORE_INSTALL_DATA_DIR})

# A program installed into bin/ finds libhfcore beside it in lib/, wherever the prefix is.
function(hfcore_install_program target)
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${HFCORE_RPATH_FROM_BIN}")
  install(TARGETS ${target} EXPORT hfcoreTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endfunction()

# The plugin ABI version, read from the header that defines it (the one source of truth), and the rule that
# ties it to the package version: a plugin built against hfcore X.Y must load into every X.Y.z, so the ABI may
# change only with a new minor version (while the major version is 0; a new major version after 1.0).
# cmake/hfcore_abi_versions.cmake records the ABI of each minor version; a mismatch stops the configure.
file(GLOB_RECURSE _hf_abi_headers ${PROJECT_SOURCE_DIR}/include/hfcore/*.hpp)
foreach(h ${_hf_abi_headers})
  file(STRINGS ${h} _hf_abi_line REGEX "^#define HFCORE_PLUGIN_ABI_VERSION [0-9]+u?$")
  if(_hf_abi_line)
    string(REGEX REPLACE "^#define HFCORE_PLUGIN_ABI_VERSION ([0-9]+)u?$" "\\1" HFCORE_PLUGIN_ABI_VERSION
                         "${_hf_abi_line}")
  endif()
endforeach()
if(NOT HFCORE_PLUGIN_ABI_VERSION)
  message(FATAL_ERROR "hfcore: no '#define HFCORE_PLUGIN_ABI_VERSION N' found under include/hfcore")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/hfcore_abi_versions.cmake)
set(_hf_release ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
if(NOT DEFINED HFCORE_PLUGIN_ABI_OF_${_hf_release})
  message(FATAL_ERROR "hfcore: cmake/hfcore_abi_versions.cmake has no plugin ABI for version ${_hf_release}")
endif()
if(NOT HFCORE_PLUGIN_ABI_OF_${_hf_release} EQUAL HFCORE_PLUGIN_ABI_VERSION)
  message(FATAL_ERROR
    "hfcore: the plugin ABI is ${HFCORE_PLUGIN_ABI_VERSION} in the headers but "
    "${HFCORE_PLUGIN_ABI_OF_${_hf_release}} for version ${_hf_release} in cmake/hfcore_abi_versions.cmake. "
    "Plugins built against ${_hf_release}.x would stop loading: if ${_hf_release} is unreleased, record the new "
    "ABI there; otherwise raise the project's minor version and add a line for it.")
endif()
