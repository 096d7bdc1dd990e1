// tests/unit/test_support.hpp on Linux and macOS (docs/contributing.md#platforms).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include <csignal>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace mem0::testing {

int file_mode_as_kept(int mode) { return mode; }
int dir_mode_as_kept(int mode) { return mode; }
bool mode_denies_reading() { return ::geteuid() != 0; }

std::string mem0_hooks_path() {
  return (platform::executable_path().value().parent_path() / "mem0-hooks").string();
}

Pipe::Pipe() {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("cannot make a pipe");
  read_fd = fds[0];
  write_fd = fds[1];
}

Pipe::~Pipe() {
  close_read();
  close_write();
}

void Pipe::close_read() {
  if (read_fd >= 0) ::close(read_fd);
  read_fd = -1;
}

void Pipe::close_write() {
  if (write_fd >= 0) ::close(write_fd);
  write_fd = -1;
}

std::size_t write_all(int fd, std::string_view data) {
  std::signal(SIGPIPE, SIG_IGN);
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

bool finishes_within(std::function<bool()> work, std::chrono::milliseconds limit) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot fork");
  if (pid == 0) {
    // The child never returns into the test runner: every path ends in _exit.
    bool ok = false;
    try {
      ok = work();
    } catch (...) {
    }
    ::_exit(ok ? 0 : 1);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid)
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

} // namespace mem0::testing
