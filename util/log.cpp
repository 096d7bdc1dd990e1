#include "util/log.hpp"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace mem0 {
namespace {

// Past this size the log becomes `<file>.1` (replacing the previous one) and a new file starts.
constexpr off_t k_log_max_bytes = 1 << 20;

// Move `file`, just written as `written`, to `<file>.1`; only while its name is still that file,
// so that of processes rotating at once one moves it and the others do not move the new file
// over it.
void rotate(const std::filesystem::path &file, const struct stat &written) {
  struct stat now {};
  if (::stat(file.c_str(), &now) != 0 || now.st_ino != written.st_ino ||
      now.st_dev != written.st_dev)
    return;
  (void)::rename(file.c_str(), (file.string() + ".1").c_str());
}

} // namespace

Log::Log(std::string component) : m_component(std::move(component)) {}

void Log::enable_file(std::filesystem::path path) { m_file = std::move(path); }

void Log::hide(std::string secret) { m_secret = std::move(secret); }

std::string Log::scrub(std::string_view message) const {
  std::string out(message);
  if (m_secret.empty()) return out;
  for (auto at = out.find(m_secret); at != std::string::npos; at = out.find(m_secret, at))
    out.replace(at, m_secret.size(), "[REDACTED]");
  return out;
}

void Log::warn(std::string_view message) const {
  const std::string line = scrub(message);
  std::fprintf(stderr, "mem0 %s: %s\n", m_component.c_str(), line.c_str());
  append("warn", line);
}

void Log::debug(std::string_view message) const { append("debug", message); }

void Log::append(std::string_view level, std::string_view message) const {
  if (!m_file) return;
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[80];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms.count() % 1000));
  std::string line = std::string(stamp) + " " + m_component + " " + std::string(level) + " ";
  for (char c : scrub(message))
    line += (c == '\n' || c == '\r') ? ' ' : c;
  line += '\n';
  // O_APPEND keeps lines of concurrent hook processes whole. O_NONBLOCK: a FIFO in its place
  // never makes the hook wait for a reader; only a regular file is written to.
  const int fd =
      ::open(m_file->c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    [[maybe_unused]] const auto n = ::write(fd, line.data(), line.size());
    if (st.st_size + static_cast<off_t>(line.size()) > k_log_max_bytes) rotate(*m_file, st);
  }
  ::close(fd);
}

} // namespace mem0
