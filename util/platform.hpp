#pragma once
// The few calls that differ between Linux and macOS, each behind one name here, so that a port
// touches this file pair only. The rest of the code uses what both systems have alike: open with
// O_CLOEXEC and O_NONBLOCK, pread, mkstemp, flock (BSD's own call, on macOS too), fork and setsid
// (util/detach.cpp), dlopen and `environ` in an executable.
#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>

namespace mem0::platform {

// The modification time of `st` in nanoseconds since the epoch.
inline std::int64_t mtime_ns(const struct stat &st) {
#if defined(__APPLE__)
  const struct timespec &t = st.st_mtimespec;
#else
  const struct timespec &t = st.st_mtim;
#endif
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + static_cast<std::int64_t>(t.tv_nsec);
}

// The names dlopen tries, in order, for libcurl (mem0/http.cpp loads it on first use). On macOS
// the bare name finds the system's /usr/lib/libcurl.4.dylib; Homebrew's keg-only curl follows.
#if defined(__APPLE__)
inline constexpr std::array k_libcurl_names{
    "libcurl.4.dylib", "/usr/lib/libcurl.4.dylib", "/opt/homebrew/opt/curl/lib/libcurl.4.dylib",
    "/usr/local/opt/curl/lib/libcurl.4.dylib", "libcurl.dylib"};
#else
inline constexpr std::array k_libcurl_names{"libcurl.so.4", "libcurl.so"};
#endif
// What to install when none of them loads (the prebuilt binaries do not carry libcurl).
#if defined(__APPLE__)
inline constexpr const char *k_libcurl_package = "Homebrew's curl (brew install curl)";
#else
inline constexpr const char *k_libcurl_package =
    "the libcurl4 package (Debian/Ubuntu: apt install libcurl4; Fedora/RHEL: dnf install libcurl)";
#endif

// The absolute path of the running executable, or nullopt when the system does not tell.
std::optional<std::filesystem::path> executable_path();

} // namespace mem0::platform
