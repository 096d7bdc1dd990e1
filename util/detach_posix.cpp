// util/detach.hpp on Linux and macOS (docs/contributing.md#platforms).
#include "util/detach.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace mem0 {

Result<void> run_detached(const DetachedWork &work) {
  // Buffered output would otherwise be written twice, by the parent and by the child.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0)
    return unexpected(
        make_error(ErrorKind::io, "cannot fork: " + std::string(std::strerror(errno))));
  if (child == 0) {
    // The child lets go of the hook's standard streams before anything else, so that they close
    // when the hook exits (the parent waits for this child, not for the worker), starts a new
    // session, and forks the worker, which no terminal or process group of Claude Code's
    // reaches; then it exits so that the worker is adopted by init.
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      if (null > STDERR_FILENO) ::close(null);
    }
    ::setsid();
    if (::fork() != 0) ::_exit(0);
    if (work.prepare) work.prepare();
    // The sender's long part leaves the caller's directory (the project), so that nothing of its
    // holds it; where the directory cannot be entered, it stays.
    if (!work.dir.empty() && ::chdir(work.dir.c_str()) != 0) {
      // It works where it was.
    }
    if (work.work) work.work();
    std::fflush(nullptr);
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return {};
}

} // namespace mem0
