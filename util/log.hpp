#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace mem0 {

// Diagnostics: warnings go to stderr (Claude Code keeps it in its debug log); with debug on,
// every event is also appended as one timestamped line to the debug log file.
class Log {
public:
  explicit Log(std::string component);

  // Also append events to `path` (created private); past 1 MiB it becomes `<path>.1`, replacing
  // the one before, and a new file starts (docs/state.md#debug-log).
  void enable_file(std::filesystem::path path);

  // Replace `secret` (the API key) by [REDACTED] in every line, whatever echoed it.
  void hide(std::string secret);

  void warn(std::string_view message) const;  // stderr, and the file when enabled
  void debug(std::string_view message) const; // the file only, when enabled

  // Whether debug lines are written anywhere (the file is enabled); off in the common case.
  bool debugging() const { return m_file.has_value(); }
  // Build the line with `make` only when debugging, so that an off log costs no string:
  // `log.debug([&] { return "queued " + name; })`.
  template <class Make>
  requires std::is_invocable_r_v<std::string, Make &>
  void debug(Make &&make) const {
    if (debugging()) debug(std::string_view(make()));
  }

private:
  void append(std::string_view level, std::string_view message) const;
  std::string scrub(std::string_view message) const;
  std::string m_component;
  std::optional<std::filesystem::path> m_file;
  std::string m_secret;
};

} // namespace mem0
