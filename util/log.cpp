#include "util/log.hpp"
#include "util/files.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace mem0 {
namespace {

// Past this size the log becomes `<file>.1` (replacing the previous one) and a new file starts.
constexpr std::uintmax_t k_log_max_bytes = 1 << 20;

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
  append_log(*m_file, line, k_log_max_bytes);
}

} // namespace mem0
