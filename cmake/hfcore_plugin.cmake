# hfcore_add_plugin(NAME <name> SOURCES ...): a backend plugin as a MODULE library named
# libhfcore-backend-<name>.so, placed beside libhfcore.so and installed into the plugin directory.
function(hfcore_add_plugin)
  cmake_parse_arguments(P "" "NAME" "SOURCES" ${ARGN})
  set(target hfcore-backend-${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE hfcore_plugin_api)
  # -fno-gnu-unique: otherwise a plugin with inline statics can never be unloaded (DESIGN.md).
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${HFCORE_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  install(TARGETS ${target} LIBRARY DESTINATION ${HFCORE_INSTALL_PLUGIN_DIR})
  set_property(GLOBAL APPEND PROPERTY HFCORE_PLUGIN_TARGETS ${target})
endfunction()
