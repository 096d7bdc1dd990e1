# Cross-build for Windows x64 with Debian's mingw-w64 (scripts/build.sh --windows; the POSIX
# threads variant, whose libstdc++ has std::thread and std::mutex). GCC 12: std::expected, no
# <format>. The executables are static (no libstdc++, libgcc or libwinpthread DLL beside them)
# and carry a manifest (packaging/windows/manifest.rc); HTTP goes through WinHTTP, so libcurl is
# not needed. RapidJSON, Catch2 and Boost (the console's Beast) are headers only: the build machine's are used, by their own
# directories (not all of /usr/include, whose Linux headers would shadow mingw's). The tests run
# under wine (scripts/wine-run.sh; docs/windows.md#testing-under-wine).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static -static-libgcc -static-libstdc++")
# localtime_r and gmtime_r (util/clock.hpp), which mingw's <time.h> declares only on request.
set(CMAKE_CXX_FLAGS_INIT "-D_POSIX_THREAD_SAFE_FUNCTIONS=200112L")
set(MEM0_HOST_HEADERS /usr/include/rapidjson /usr/include/catch2 /usr/include/boost CACHE INTERNAL "")
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../scripts/wine-run.sh)
