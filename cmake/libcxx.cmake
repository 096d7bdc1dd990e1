# Initial cache for a Clang + libc++ build: cmake -S . -B build-libcxx -C cmake/libcxx.cmake
# (`scripts/test.sh --libcxx` does this). Debian 12: clang-16, libc++-16-dev, libc++abi-16-dev
# (`scripts/setup.sh --libcxx`). libc++ 16 has std::expected in C++23 mode (clang 16's -std=c++2b),
# so the build is C++23 as with GCC; tests/unit compiles Catch2 v2's main against libc++.
set(CMAKE_CXX_COMPILER clang++-16 CACHE STRING "")
set(CMAKE_CXX_FLAGS "-stdlib=libc++" CACHE STRING "")
set(CMAKE_EXE_LINKER_FLAGS "-stdlib=libc++" CACHE STRING "")
set(MEM0_WERROR ON CACHE BOOL "")
