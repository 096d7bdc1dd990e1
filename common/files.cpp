#include "common/files.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

Error io_error(std::string what, const fs::path &path) {
  return make_error(ErrorKind::io, what + " " + path.string() + ": " + std::strerror(errno));
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

} // namespace

std::optional<std::string> read_small_file(const fs::path &path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // Grow as data arrives: small files stay cheap however large the bound.
  std::string data;
  char buffer[16384];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    data.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (data.size() > max_bytes) return std::nullopt;
  }
  return data;
}

bool ensure_private_dir(const fs::path &dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return true;
  if (dir.has_parent_path() && dir.parent_path() != dir) ensure_private_dir(dir.parent_path());
  return ::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST;
}

Result<void> write_file_atomic(const fs::path &path, const std::string &content) {
  std::string tmp = (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  Fd out{::mkstemp(tmp.data())}; // mkstemp creates the file 0600
  if (out.fd < 0) return unexpected(io_error("cannot create temporary file for", path));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(out.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::unlink(tmp.c_str());
      return unexpected(io_error("cannot write", path));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return unexpected(io_error("cannot replace", path));
  }
  return {};
}

Result<void> update_file_locked(const fs::path &path, const FileChange &change,
                                std::chrono::milliseconds wait) {
  const fs::path lock_path = path.string() + ".lock";
  Fd lock{::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
  if (lock.fd < 0) return unexpected(io_error("cannot open lock", lock_path));
  const auto give_up = std::chrono::steady_clock::now() + wait;
  while (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR)
      return unexpected(io_error("cannot lock", lock_path));
    if (std::chrono::steady_clock::now() >= give_up)
      return unexpected(make_error(ErrorKind::timeout, "lock busy: " + lock_path.string()));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const std::string current = read_small_file(path, 16 << 20).value_or("");
  const auto next = change(current);
  if (!next || *next == current) return {}; // the lock is released when `lock` closes
  return write_file_atomic(path, *next);
}

} // namespace mem0
