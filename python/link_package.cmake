# Links the package's pure-Python files (SRC) into the build tree's package folder (DST), keeping the folders.
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.py ${SRC}/*.pyi ${SRC}/py.typed)
foreach(f ${files})
  get_filename_component(dir ${DST}/${f} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  if(NOT IS_SYMLINK ${DST}/${f})
    file(CREATE_LINK ${SRC}/${f} ${DST}/${f} SYMBOLIC)
  endif()
endforeach()
