# hfcore_add_plugin(NAME <name> SOURCES <file>...)
#
# A backend plugin: the MODULE library libhfcore-backend-<name>.so (target hfcore-backend-<name>) built against
# hfcore::plugin_sdk, with hidden visibility (only the entry points of HFCORE_DEFINE_PLUGIN are exported) and
# -fno-gnu-unique (otherwise a plugin with inline statics could never be unloaded; DESIGN.md). `cmake --install`
# puts it into <prefix>/lib/hfcore/plugins, the folder libhfcore searches when both share a prefix (otherwise
# add the folder to HFCORE_PLUGIN_PATH).
#
# The same file serves the hfcore source tree and, installed beside hfcore-config.cmake, any project that says
# find_package(hfcore CONFIG REQUIRED): an out-of-tree plugin is
#     find_package(hfcore 0.2 CONFIG REQUIRED)
#     hfcore_add_plugin(NAME mine SOURCES mine.cpp)
# and `hfcore-conformance --plugin $<TARGET_FILE:hfcore-backend-mine>` checks it (docs/plugins.md).
function(hfcore_add_plugin)
  cmake_parse_arguments(P "" "NAME" "SOURCES" ${ARGN})
  if(NOT P_NAME OR NOT P_SOURCES OR P_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "hfcore_add_plugin(NAME <name> SOURCES <file>...): got '${ARGN}'")
  endif()
  if(NOT P_NAME MATCHES "^[A-Za-z0-9_.-]+$")
    message(FATAL_ERROR "hfcore_add_plugin: the name '${P_NAME}' becomes a file name and a --backend value; "
                        "use letters, digits, '_', '.' and '-'")
  endif()
  set(target hfcore-backend-${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE hfcore::plugin_sdk)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)

  # In the hfcore tree these are set by cmake/hfcore_layout.cmake; elsewhere the plugin is installed into the
  # project's own prefix with the same layout, and also finds libhfcore where the package was found.
  if(DEFINED HFCORE_INSTALL_PLUGIN_DIR)
    set(plugin_dir ${HFCORE_INSTALL_PLUGIN_DIR})
    set(rpath "$ORIGIN/${HFCORE_RPATH_FROM_PLUGINS}")
  else()
    include(GNUInstallDirs)
    set(plugin_dir ${CMAKE_INSTALL_LIBDIR}/hfcore/plugins)
    set(rpath "$ORIGIN/../..;${hfcore_LIBRARY_DIR}")
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "${rpath}")
  if(DEFINED HFCORE_PLUGIN_OUTPUT_DIR)
    # In the hfcore tree plugins are built beside libhfcore.so, where the tests and the CLI find them.
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${HFCORE_PLUGIN_OUTPUT_DIR})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${plugin_dir})
  set_property(GLOBAL APPEND PROPERTY HFCORE_PLUGIN_TARGETS ${target})
endfunction()
