# Installing and packaging (included by the top-level CMakeLists.txt).
#
# `cmake --install` puts the executables in <prefix>/bin (hooks/ and cli/ say so) and, here, a
# Claude Code plugin in <prefix>/share/mem0-native-hooks/plugin:
#   .claude-plugin/plugin.json      the repository's manifest (version, userConfig)
#   .claude-plugin/marketplace.json so `claude plugin marketplace add <that dir>` works too
#   hooks.json                      the repository's wiring, each command running libexec/<hook>
#   libexec/<hook>                  relative symlinks to <prefix>/bin/<hook> (not bin/: Claude
#                                   Code puts a plugin's bin/ on the PATH of the model's Bash),
#                                   and libexec/mem0-hooks
#   .mcp.json, commands/*.md        the memory tools' server and the slash commands, both
#   scripts/mem0-hooks.sh           run through this script, which finds libexec/mem0-hooks
#   LICENSE
# so `claude --plugin-dir <prefix>/share/mem0-native-hooks/plugin` runs the installed hooks from
# wherever the tree was unpacked. cpack makes a .tar.gz and a .deb of the same tree with
# stripped executables (scripts/package.sh; README "Installing into Claude Code").

set(mem0_plugin_dest share/mem0-native-hooks/plugin)

# hooks.json of the installed plugin: the repository's, with each command (which runs
# build/bin/<hook> or, before a build, scripts/first-run.sh) replaced by the plain
# exec "${CLAUDE_PLUGIN_ROOT}"/libexec/<hook>: a package always has its executables (with exec,
# /bin/sh does not stay to wait for the hook). The commands are found by parsing the file and
# replaced in its text, which keeps its order and layout.
function(mem0_plugin_hooks_json source out_json out_executables)
  file(READ ${source} text)
  set(json "${text}")
  set(executables)
  string(JSON events LENGTH "${json}" hooks)
  math(EXPR last_event "${events} - 1")
  foreach(e RANGE ${last_event})
    string(JSON event MEMBER "${json}" hooks ${e})
    string(JSON groups LENGTH "${json}" hooks ${event})
    math(EXPR last_group "${groups} - 1")
    foreach(g RANGE ${last_group})
      string(JSON entries LENGTH "${json}" hooks ${event} ${g} hooks)
      math(EXPR last_entry "${entries} - 1")
      foreach(h RANGE ${last_entry})
        string(JSON command GET "${json}" hooks ${event} ${g} hooks ${h} command)
        if(NOT command MATCHES "/build/bin/([A-Za-z0-9_-]+)")
          message(FATAL_ERROR "${source}: no build/bin/<executable> in the command '${command}'")
        endif()
        set(exe ${CMAKE_MATCH_1})
        if(exe IN_LIST executables) # the same command for another event: already replaced
          continue()
        endif()
        list(APPEND executables ${exe})
        string(REPLACE "\\" "\\\\" quoted "${command}") # the command as a JSON string
        string(REPLACE "\"" "\\\"" quoted "${quoted}")
        string(FIND "${text}" "\"${quoted}\"" at)
        if(at EQUAL -1)
          message(FATAL_ERROR "${source}: cannot find the command '${command}' in the text")
        endif()
        string(REPLACE "\"${quoted}\"" "\"exec \\\"\${CLAUDE_PLUGIN_ROOT}\\\"/libexec/${exe}\"" text
          "${text}")
      endforeach()
    endforeach()
  endforeach()
  set(${out_json} "${text}" PARENT_SCOPE)
  set(${out_executables} ${executables} PARENT_SCOPE)
endfunction()
mem0_plugin_hooks_json(${PROJECT_SOURCE_DIR}/hooks.json mem0_plugin_hooks mem0_plugin_executables)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/hooks.json)
file(WRITE ${CMAKE_BINARY_DIR}/plugin/hooks.json "${mem0_plugin_hooks}")

install(FILES ${PROJECT_SOURCE_DIR}/.claude-plugin/plugin.json
  ${PROJECT_SOURCE_DIR}/.claude-plugin/marketplace.json
  DESTINATION ${mem0_plugin_dest}/.claude-plugin)
install(FILES ${CMAKE_BINARY_DIR}/plugin/hooks.json ${PROJECT_SOURCE_DIR}/LICENSE
  DESTINATION ${mem0_plugin_dest})
install(FILES ${PROJECT_SOURCE_DIR}/.mcp.json DESTINATION ${mem0_plugin_dest})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/mem0-hooks.sh DESTINATION ${mem0_plugin_dest}/scripts)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/commands/ DESTINATION ${mem0_plugin_dest}/commands
  FILES_MATCHING PATTERN "*.md")
# libexec/<hook> -> ../../../../bin/<hook>: one copy of each executable, found relative to the
# plugin so the unpacked tree can live anywhere. DESTDIR is honoured (cpack, staged installs).
file(RELATIVE_PATH mem0_bin_from_plugin /p/${mem0_plugin_dest}/libexec /p/bin)
install(CODE "
  set(dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${mem0_plugin_dest}/libexec\")
  file(MAKE_DIRECTORY \"\${dir}\")
  foreach(exe ${mem0_plugin_executables} mem0-hooks)
    message(STATUS \"Installing: \${dir}/\${exe} -> ${mem0_bin_from_plugin}/\${exe}\")
    file(CREATE_LINK \"${mem0_bin_from_plugin}/\${exe}\" \"\${dir}/\${exe}\" SYMBOLIC)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${dir}/\${exe}\")
  endforeach()")

# cpack: TGZ and DEB of the install tree, executables stripped (CPACK_STRIP_FILES has the
# install rules strip them, as `cmake --install --strip` does).
set(CPACK_PACKAGE_NAME mem0-native-hooks)
set(CPACK_PACKAGE_VENDOR "mem0 native hooks contributors")
set(CPACK_PACKAGE_CONTACT "mem0 native hooks contributors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Native Claude Code hooks that recall and capture Mem0 memories")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR TGZ)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
  list(APPEND CPACK_GENERATOR DEB)
endif()
set(CPACK_STRIP_FILES ON)
string(TOLOWER "${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}" mem0_package_platform)
set(CPACK_PACKAGE_FILE_NAME ${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-${mem0_package_platform})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "mem0 native hooks contributors")
# libcurl is loaded at run time (mem0/http_curl.cpp), so dpkg-shlibdeps cannot see it; it finds the
# rest (libc, and libstdc++ where it is not linked statically).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 | libcurl4t64")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ca-certificates")
find_program(MEM0_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(MEM0_DPKG_SHLIBDEPS)
if(MEM0_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
include(CPack)
