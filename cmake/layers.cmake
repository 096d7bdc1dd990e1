# The core's layers (docs/contributing.md#layers): util < store < mem0 < runtime < hygiene <
# console (the memory console, which the CLI starts). Each layer is a static library of its
# folder's sources. Its include root, made in the build tree, holds links to itself and the layers
# below it only, so that an include of a higher layer does not compile.
function(mem0_layer name)
  set(root ${CMAKE_BINARY_DIR}/layers/${name})
  file(MAKE_DIRECTORY ${root})
  foreach(layer ${name} ${ARGN})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${layer} ${root}/${layer} SYMBOLIC)
  endforeach()
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${name}/*.cpp
    ${PROJECT_SOURCE_DIR}/${name}/*/*.cpp)
  # Platforms as files: *_windows.cpp and *_winhttp.cpp build for Windows only, *_posix.cpp and
  # *_curl.cpp everywhere else (docs/contributing.md#platforms).
  if(WIN32)
    list(FILTER sources EXCLUDE REGEX "_(posix|curl)\\.cpp$")
  else()
    list(FILTER sources EXCLUDE REGEX "_(windows|winhttp)\\.cpp$")
  endif()
  add_library(mem0_${name} STATIC ${sources})
  target_include_directories(mem0_${name} PUBLIC ${root})
  target_link_libraries(mem0_${name} PRIVATE mem0_warnings mem0_sanitizers)
  if(ARGN)
    list(GET ARGN 0 below)
    target_link_libraries(mem0_${name} PUBLIC mem0_${below})
  endif()
endfunction()
