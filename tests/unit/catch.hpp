#pragma once
// Catch2 v3 where installed, else v2 (Debian ships 2.13).
#ifdef MEM0_CATCH3
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
