# Cross-build for linux-arm64 with Debian's g++-aarch64-linux-gnu (scripts/build.sh --arm64).
# libcurl's headers come from Debian's multiarch libcurl4-openssl-dev:arm64 (the hooks load the
# library at run time), RapidJSON and Catch2 are headers; the tests run the executables under
# qemu-user-static (docs/install.md#linux-arm64).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/aarch64-linux-gnu)
# pkg-config (FindCURL asks it first) must answer for arm64, not for the build machine.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
