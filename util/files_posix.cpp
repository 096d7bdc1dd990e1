// util/files.hpp on Linux and macOS (docs/contributing.md#platforms).
#include "util/files.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

std::optional<std::string> read_small_file(const fs::path &path, std::size_t max_bytes,
                                           Links links) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer. Then only a regular file is read
  // (never a FIFO, a socket, a device or a directory), and reading one never blocks.
  const int no_link = links == Links::refuse ? O_NOFOLLOW : 0;
  const Fd in{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | no_link)};
  struct stat st {};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) return std::nullopt;
  // Grow as data arrives: small files stay cheap however large the bound.
  std::string data;
  char buffer[16384];
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return data;
    data.append(buffer, static_cast<std::size_t>(n));
    if (data.size() > max_bytes) return std::nullopt; // it grew while being read
  }
}

std::optional<FileTail> read_file_tail(const fs::path &path, std::size_t bytes) {
  const Fd in{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  struct stat st {};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  const std::uintmax_t start = size > bytes ? size - bytes : 0;
  std::string data(static_cast<std::size_t>(size - start), '\0');
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n =
        ::pread(in.fd, data.data() + done, data.size() - done, static_cast<off_t>(start + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break; // the file shrank meanwhile
    done += static_cast<std::size_t>(n);
  }
  data.resize(done);
  return FileTail{std::move(data), size};
}

void append_log(const fs::path &path, const std::string &line, std::uintmax_t max_bytes) {
  // O_APPEND keeps lines of concurrent processes whole. O_NONBLOCK: a FIFO in its place never
  // makes the caller wait for a reader; only a regular file is written to.
  const Fd fd{::open(path.c_str(),
                     O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW, 0600)};
  struct stat written {};
  if (fd.fd < 0 || ::fstat(fd.fd, &written) != 0 || !S_ISREG(written.st_mode)) return;
  [[maybe_unused]] const auto n = ::write(fd.fd, line.data(), line.size());
  if (static_cast<std::uintmax_t>(written.st_size) + line.size() <= max_bytes) return;
  // Moved only while its name is still the file written, so that of processes rotating at once
  // one moves it and the others do not move the new file over it.
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_ino != written.st_ino ||
      now.st_dev != written.st_dev)
    return;
  (void)::rename(path.c_str(), (path.string() + ".1").c_str());
}

TryLock::TryLock(const fs::path &path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  m_handle = fd;
  m_held = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
}

TryLock::~TryLock() {
  if (m_handle >= 0) ::close(static_cast<int>(m_handle));
}

Result<void> ensure_private_dir(const fs::path &dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return {};
  // A parent that cannot be made fails the mkdir below, which reports it.
  if (dir.has_parent_path() && dir.parent_path() != dir)
    (void)ensure_private_dir(dir.parent_path());
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return {};
  return unexpected(make_error(ErrorKind::io, "cannot create " + dir.string()));
}

std::optional<std::string> unsafe_dir_problem(const fs::path &dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return std::nullopt; // missing: created private
  if (st.st_uid != ::geteuid())
    return "state directory " + dir.string() + " is owned by another user (uid " +
           std::to_string(st.st_uid) + ")";
  if ((st.st_mode & S_IWOTH) != 0)
    return "state directory " + dir.string() + " is writable by others";
  return std::nullopt;
}

Result<void> write_file_atomic(const fs::path &requested, const std::string &content,
                               Durability durability) {
  // A symlink of ours (a map kept with the dotfiles) is written through: its final target is
  // replaced, keeping its mode, and the link stays. One that does not end at a regular file, or
  // that another user planted (a shared directory), is left alone.
  fs::path path = requested;
  std::optional<mode_t> target_mode;
  struct stat st {};
  if (::lstat(requested.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    if (st.st_uid == ::geteuid()) path = fs::canonical(requested, ec);
    if (st.st_uid != ::geteuid() || ec || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      return unexpected(make_error(ErrorKind::io, "not replacing symlink " + requested.string() +
                                                      ": not ours, or not to a regular file"));
    target_mode = st.st_mode & 07777;
  }
  std::string tmp = (path.parent_path() / ("." + path.filename().string() + ".XXXXXX")).string();
  Fd out{::mkstemp(tmp.data())}; // mkstemp creates the file 0600
  if (out.fd < 0) return unexpected(io_error("cannot create temporary file for", path));
  if (target_mode && ::fchmod(out.fd, *target_mode) != 0) {
    ::unlink(tmp.c_str());
    return unexpected(io_error("cannot set the mode of", path));
  }
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
  const bool durable = durability == Durability::durable;
  if (durable && ::fsync(out.fd) != 0) {
    ::unlink(tmp.c_str());
    return unexpected(io_error("cannot sync", path));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return unexpected(io_error("cannot replace", path));
  }
  // The new name lives in the directory: without its fsync, a power cut may forget the rename.
  if (durable) {
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    const Fd dir{::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (dir.fd < 0 || ::fsync(dir.fd) != 0)
      return unexpected(io_error("cannot sync the directory of", path));
  }
  return {};
}

Result<void> write_new_file(const fs::path &path, const std::string &content, bool replace) {
  // Looked at first for a clear error; the link or rename below never goes through a link that
  // appears meanwhile (each works on the name itself).
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode))
      return unexpected(
          make_error(ErrorKind::io, path.string() + " is a symbolic link; not written through it"));
    if (!replace || !S_ISREG(st.st_mode))
      return unexpected(make_error(ErrorKind::io, path.string() + " exists"));
  }
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::string tmp = (parent / ("." + path.filename().string() + ".XXXXXX")).string();
  const Fd out{::mkstemp(tmp.data())}; // created 0600
  if (out.fd < 0) return unexpected(io_error("cannot create temporary file for", path));
  const auto fail = [&](std::string what) {
    const Error e = io_error(std::move(what), path);
    ::unlink(tmp.c_str());
    return unexpected(e);
  };
  for (std::size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(out.fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("cannot write");
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(out.fd) != 0) return fail("cannot sync");
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot replace");
  } else if (::link(tmp.c_str(), path.c_str()) == 0) { // never replaces anything, a link included
    ::unlink(tmp.c_str());
  } else if (errno == EEXIST) {
    return fail("something appeared at");
  } else {
    // A filesystem without hard links: created exclusively in place instead.
    ::unlink(tmp.c_str());
    const Fd direct{
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
    if (direct.fd < 0) return unexpected(io_error("cannot create", path));
    for (std::size_t done = 0; done < content.size();) {
      const ssize_t n = ::write(direct.fd, content.data() + done, content.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return unexpected(io_error("cannot write", path));
      done += static_cast<std::size_t>(n);
    }
    if (::fsync(direct.fd) != 0) return unexpected(io_error("cannot sync", path));
  }
  const Fd dir{::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0 || ::fsync(dir.fd) != 0)
    return unexpected(io_error("cannot sync the directory of", path));
  return {};
}

bool nearly_full(const fs::path &dir, std::uintmax_t bytes) {
  fs::path at = dir;
  struct statvfs vfs {};
  while (::statvfs(at.c_str(), &vfs) != 0) {
    if (!at.has_relative_path()) return false;
    at = at.parent_path();
  }
  return static_cast<std::uintmax_t>(vfs.f_bavail) * vfs.f_frsize < bytes;
}

bool create_marker(const fs::path &path) {
  const Fd fd{::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)};
  return fd.fd >= 0;
}

namespace {

// flock `fd` (`how`: LOCK_EX or LOCK_SH) for the file `name`, trying until `give_up`.
Result<void> flock_until(int fd, int how, const fs::path &name,
                         std::chrono::steady_clock::time_point give_up) {
  while (::flock(fd, how | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) return unexpected(io_error("cannot lock", name));
    if (std::chrono::steady_clock::now() >= give_up)
      return unexpected(make_error(ErrorKind::timeout, "lock busy: " + name.string()));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return {};
}

// Whether `path` still names the file open as `fd`: a lock file removed, or a file replaced,
// while we waited for its lock is not the one to hold any more.
bool still_named(int fd, const fs::path &path) {
  struct stat held {};
  struct stat named {};
  return ::fstat(fd, &held) == 0 && ::stat(path.c_str(), &named) == 0 &&
         held.st_ino == named.st_ino && held.st_dev == named.st_dev;
}

} // namespace

Result<void> update_file_locked(const fs::path &path, const FileChange &change,
                                Durability durability, std::chrono::milliseconds wait) {
  const fs::path lock_path = path.string() + ".lock";
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    Fd lock{::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)};
    if (lock.fd < 0) return unexpected(io_error("cannot open lock", lock_path));
    if (auto locked = flock_until(lock.fd, LOCK_EX, lock_path, give_up); !locked) return locked;
    if (!still_named(lock.fd, lock_path)) continue; // removed by its holder: lock the new one
    const std::string current = read_small_file(path, 16 << 20).value_or("");
    const auto next = change(current);
    if (!next || *next == current) return {}; // the lock is released when `lock` closes
    return write_file_atomic(path, *next, durability);
  }
}

bool remove_unheld_lock(const fs::path &lock_path) {
  const Fd lock{::open(lock_path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW)};
  if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX | LOCK_NB) != 0 || !still_named(lock.fd, lock_path))
    return false;
  return ::unlink(lock_path.c_str()) == 0; // while holding it: a waiter sees it gone
}

Result<void> append_bounded(const fs::path &path, const std::string &line, std::uintmax_t limit,
                            const std::function<std::string(const std::string &)> &shrink,
                            std::chrono::milliseconds wait) {
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const Fd file{::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)};
    struct stat st {};
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0) return unexpected(io_error("cannot open", path));
    // One process shrinks, when the file is free at once; the others append meanwhile (the
    // file is over its bound for a moment) instead of waiting in turn, up to twice the bound.
    const auto size = static_cast<std::uintmax_t>(st.st_size);
    const bool shrinks =
        size > limit && (::flock(file.fd, LOCK_EX | LOCK_NB) == 0 ||
                         (size > 2 * limit && flock_until(file.fd, LOCK_EX, path, give_up)));
    if (shrinks) {
      if (!still_named(file.fd, path)) continue; // shrunk meanwhile: look at the new file
      const std::string current = read_small_file(path, 16 << 20).value_or("");
      return write_file_atomic(path, shrink(current) + line, Durability::saves_work);
    }
    if (auto locked = flock_until(file.fd, LOCK_SH, path, give_up); !locked) return locked;
    if (!still_named(file.fd, path)) continue; // shrunk while we waited: append to the new file
    if (::write(file.fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      return unexpected(io_error("cannot append to", path));
    return {};
  }
}

bool append_line(const std::filesystem::path &path, const std::string &line) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  return ::close(fd) == 0 && ok;
}

} // namespace mem0
