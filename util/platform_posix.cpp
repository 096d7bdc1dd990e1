// util/platform.hpp on Linux and macOS (docs/contributing.md#platforms).
#include "util/detach.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <mach-o/dyld.h> // _NSGetExecutablePath
#endif

extern char **environ;

namespace mem0::platform {

std::optional<std::filesystem::path> executable_path() {
  std::error_code ec;
#if defined(__APPLE__)
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size); // sets the size needed
  std::string raw(size, '\0');
  if (_NSGetExecutablePath(raw.data(), &size) != 0) return std::nullopt;
  // The path it gives may hold symlinks and `..`; Linux's /proc/self/exe never does.
  auto path = std::filesystem::canonical(raw.c_str(), ec);
#else
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
#endif
  if (ec || path.empty()) return std::nullopt;
  return path;
}

void binary_stdio() {}

void prepare_stdio() { std::signal(SIGPIPE, SIG_IGN); }

std::vector<std::string> arguments(int argc, const char *const *argv) {
  return std::vector<std::string>(argv, argv + argc);
}

std::vector<std::string> environment() {
  std::vector<std::string> out;
  for (char **e = environ; e && *e; ++e)
    out.emplace_back(*e);
  return out;
}

std::vector<std::string_view> home_variables() { return {"HOME"}; }

std::optional<std::filesystem::path> system_home() {
  if (const passwd *pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return std::nullopt;
}

std::filesystem::path input_path(std::string_view path) { return std::string(path); }

long process_id() { return static_cast<long>(::getpid()); }

bool windows_commands() { return false; }

std::filesystem::path short_path(const std::filesystem::path &path) { return path; }

FileStampResult file_stamp(const std::filesystem::path &path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return {std::nullopt, std::string("cannot stat: ") + std::strerror(errno)};
  if (!S_ISREG(st.st_mode)) return {std::nullopt, "not a regular file"};
#if defined(__APPLE__)
  const struct timespec &t = st.st_mtimespec;
#else
  const struct timespec &t = st.st_mtim;
#endif
  const auto ns =
      static_cast<std::int64_t>(t.tv_sec) * 1000000000 + static_cast<std::int64_t>(t.tv_nsec);
  return {FileStamp{ns, static_cast<std::uintmax_t>(st.st_size)}, ""};
}

std::optional<std::filesystem::path> find_on_path(std::string_view name,
                                                  std::string_view path_list) {
  for (std::size_t start = 0; start <= path_list.size();) {
    const std::size_t end = std::min(path_list.find(':', start), path_list.size());
    const std::filesystem::path dir = path_list.substr(start, end - start);
    start = end + 1;
    if (dir.empty() || !dir.is_absolute()) continue; // "" and relative entries mean a cwd
    const std::filesystem::path candidate = dir / name;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(candidate, ec))
      return candidate;
  }
  return std::nullopt;
}

std::string read_until(int fd, std::chrono::steady_clock::time_point deadline, std::size_t cap) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    // Past the cap, keep draining so the writer is never blocked, but keep nothing.
    const std::size_t room = cap > data.size() ? cap - data.size() : 0;
    data.append(buffer, std::min(room, static_cast<std::size_t>(n)));
  }
  return data;
}

long read_some(int fd, char *buffer, std::size_t size) {
  for (;;) {
    const ssize_t n = ::read(fd, buffer, size);
    if (n < 0 && errno == EINTR) continue;
    return static_cast<long>(n);
  }
}

std::string first_line_of(const std::filesystem::path &program, std::string_view arg,
                          std::chrono::milliseconds limit) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const std::string path = program.string(), argument(arg);
  char *argv[] = {const_cast<char *>(path.c_str()), const_cast<char *>(argument.c_str()), nullptr};
  pid_t pid = 0;
  const ChildEnvironment env(environ);
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, env.get());
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out =
      spawned == 0 ? read_until(fds[0], std::chrono::steady_clock::now() + limit, 4096) : "";
  ::close(fds[0]);
  if (spawned != 0) return {};
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  return std::string(trim(std::string_view(out).substr(0, out.find('\n'))));
}

} // namespace mem0::platform
