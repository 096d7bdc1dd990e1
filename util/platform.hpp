#pragma once
// What differs between the systems, each behind one name here, so that generic code never asks
// which system it runs on: util/platform_posix.cpp (Linux and macOS) and
// util/platform_windows.cpp implement it (docs/contributing.md#platforms). util/files.hpp and
// util/detach.hpp have their own pairs of files the same way.
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::platform {

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

// The standard streams pass bytes unchanged (Windows: binary mode, no CRLF translation; POSIX:
// nothing to do).
void binary_stdio();

// Set up the standard streams of a hook or of the memory tools' server: binary_stdio, and a
// reader that went away must not turn exit 0 into a signal (POSIX: SIGPIPE ignored).
void prepare_stdio();

// The command line as UTF-8 words. POSIX: argv as given; Windows: the wide command line, converted
// (argv of main holds the ANSI code page's bytes).
std::vector<std::string> arguments(int argc, const char *const *argv);

// The process's environment as UTF-8 `NAME=value` entries.
std::vector<std::string> environment();

// The environment variables that name the user's home, in the order they are asked (POSIX:
// HOME; Windows: USERPROFILE, where Mem0's plugin keeps ~/.mem0, then HOME), and the home the
// system records when none is set (nullopt when it records none).
std::vector<std::string_view> home_variables();
std::optional<std::filesystem::path> system_home();

// The standard input's file descriptor (0 on every system, the C runtime's on Windows).
inline constexpr int k_stdin_fd = 0;

// A path a hook's input names (a file read, the working directory), as this system opens it.
// POSIX: as it is. Windows: any spelling of a drive path (`C:\x`, `C:/x`, `/c/x`, `/c:/x`) is
// `C:\x` (util/paths.hpp), so that each names one file for file recall, the once-per-version
// rule and the project root.
std::filesystem::path input_path(std::string_view path);

// This process's id.
long process_id();

// True when this system's agents run hook commands the Windows way (each agent's PowerShell, cmd
// or Git Bash: runtime/agent.hpp AgentFiles::windows_shell) and the executables end in `.exe`;
// false on POSIX, where every agent runs them with sh (docs/windows.md#how-each-agent-runs-a-hook).
bool windows_commands();

// The short (8.3) form of the existing `path`, which needs no quotes where the long one does.
// Windows: GetShortPathNameW; `path` itself when the volume keeps no short names, on an error,
// and on POSIX.
std::filesystem::path short_path(const std::filesystem::path &path);

// The version of the regular file at `path`: its modification time in nanoseconds since the
// epoch and its size. An error line when it is missing ("cannot stat: ...") or not a regular file.
struct FileStamp {
  std::int64_t mtime_ns = 0;
  std::uintmax_t size = 0;
};
struct FileStampResult {
  std::optional<FileStamp> stamp;
  std::string error;
};
FileStampResult file_stamp(const std::filesystem::path &path);

// The program `name` on `path_list` (the PATH variable's value), as the system's shell finds it:
// POSIX: ':'-separated absolute directories, an executable regular file; Windows:
// ';'-separated, with the extensions .exe, .cmd and .bat tried too.
std::optional<std::filesystem::path> find_on_path(std::string_view name,
                                                  std::string_view path_list);

// Read the file descriptor `fd` until end of file or `deadline`, keeping at most `cap` bytes (the
// rest is drained and dropped, so the writer is never blocked). A pipe that stays open is not
// waited on past the deadline.
std::string read_until(int fd, std::chrono::steady_clock::time_point deadline, std::size_t cap);

// Read what `fd` has, waiting for it: the count of bytes, 0 at end of file, -1 on an error.
long read_some(int fd, char *buffer, std::size_t size);

// The first line `program arg` prints on stdout within `limit` (read until it exits or the limit
// passes), trimmed; "" when it prints none, fails to start or is too slow (then it is killed).
// It runs without the API key's variables (util/detach.hpp's ChildEnvironment), with no input
// and no window.
std::string first_line_of(const std::filesystem::path &program, std::string_view arg,
                          std::chrono::milliseconds limit);

} // namespace mem0::platform
