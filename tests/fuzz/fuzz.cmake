# Initial cache for the libFuzzer build: cmake -S . -B build-fuzz -C tests/fuzz/fuzz.cmake
# (scripts/fuzz.sh and `scripts/test.sh --sanitize` do this).
#
# libFuzzer needs clang; the project needs C++23 <expected>. Debian 12's clang 14 cannot use GCC
# 12's <expected>: libstdc++ only declares it when __cpp_concepts >= 202002L, and clang 14 lacks
# the conditionally trivial special members (P0848) it relies on. Clang 16 implements P0848 but
# still reports __cpp_concepts as 201907L, so the fuzz build uses clang 16 and raises that one
# feature macro; std::expected then compiles and behaves as under GCC. The configure check is
# pre-answered because clang 16 spells the standard -std=c++2b (CMake picks that itself).
set(CMAKE_CXX_COMPILER clang++-16 CACHE STRING "")
set(CMAKE_CXX_FLAGS "-Wno-builtin-macro-redefined -U__cpp_concepts -D__cpp_concepts=202002L"
    CACHE STRING "")
set(MEM0_HAVE_STD_EXPECTED ON CACHE BOOL "")
set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "")
set(MEM0_SANITIZE "address,undefined" CACHE STRING "")
set(MEM0_WERROR ON CACHE BOOL "")
set(MEM0_BUILD_TESTS OFF CACHE BOOL "")
set(MEM0_FUZZ ON CACHE BOOL "")
