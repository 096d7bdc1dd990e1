// tests/unit/test_support.hpp on Windows (docs/contributing.md#platforms).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <fcntl.h>
#include <io.h>

namespace mem0::testing {

int file_mode_as_kept(int mode) { return (mode & 0222) ? 0666 : 0444; }
int dir_mode_as_kept(int) { return 0777; }
bool mode_denies_reading() { return false; }

std::string mem0_hooks_path() {
  return (platform::executable_path().value().parent_path() / "mem0-hooks.exe").generic_string();
}

Pipe::Pipe() {
  int fds[2];
  // Binary: the bytes pass unchanged, as the hooks' own stdin does (platform::binary_stdio).
  if (::_pipe(fds, 65536, _O_BINARY | _O_NOINHERIT) != 0)
    throw std::runtime_error("cannot make a pipe");
  read_fd = fds[0];
  write_fd = fds[1];
}

Pipe::~Pipe() {
  close_read();
  close_write();
}

void Pipe::close_read() {
  if (read_fd >= 0) ::_close(read_fd);
  read_fd = -1;
}

void Pipe::close_write() {
  if (write_fd >= 0) ::_close(write_fd);
  write_fd = -1;
}

std::size_t write_all(int fd, std::string_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const unsigned chunk =
        static_cast<unsigned>(std::min<std::size_t>(data.size() - done, 1 << 20));
    const int n = ::_write(fd, data.data() + done, chunk);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

bool finishes_within(std::function<bool()> work, std::chrono::milliseconds limit) {
  struct Shared {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false, ok = false;
  };
  auto shared = std::make_shared<Shared>();
  // The thread owns `work` and its share of the state: it may outlive this call.
  std::thread([shared, work = std::move(work)] {
    bool ok = false;
    try {
      ok = work();
    } catch (...) {
    }
    const std::lock_guard lock(shared->mutex);
    shared->done = true;
    shared->ok = ok;
    shared->done_cv.notify_all();
  }).detach();
  std::unique_lock lock(shared->mutex);
  return shared->done_cv.wait_for(lock, limit, [&] { return shared->done; }) && shared->ok;
}

} // namespace mem0::testing
