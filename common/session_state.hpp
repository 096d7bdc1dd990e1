#pragma once
#include "common/error.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {

// What one Claude Code session has seen (SPEC §6.3). The injected ids double as the id8 map:
// a `[mem0:id8]` citation resolves to the injected id it prefixes.
struct SessionState {
  std::vector<std::string> injected;        // full ids, in injection order
  std::map<std::string, std::string> files; // path → "mtime:size" of the version looked up
  bool rubric_shown = false;
  bool limit_notice_shown = false;
  long prompts = 0;

  bool was_injected(std::string_view id) const;
};

// Parse / serialise a session file; unreadable content gives an empty state.
SessionState parse_session_state(std::string_view json);
std::string serialize_session_state(const SessionState &state);

// Session files and the daily search counter under a private state dir.
class StateStore {
public:
  explicit StateStore(std::filesystem::path dir);

  // The state of `session` as stored now (empty when new or unreadable). No lock is taken.
  SessionState load(std::string_view session) const;

  // Apply `change` to the state of `session` under the session lock and store the result
  // atomically; returns the state as changed. Also removes session files idle for 7 days when
  // it creates a new one.
  Result<SessionState> update(std::string_view session,
                              const std::function<void(SessionState &)> &change);

  // Automatic searches counted for `day` ("YYYY-MM-DD", UTC).
  long searches_on(std::string_view day) const;

  // Add `count` searches to `day`; keeps the last 31 days.
  Result<void> add_searches(std::string_view day, long count);

  // Every stored session's state, for resolving citations across sessions.
  std::vector<SessionState> all_sessions() const;

  const std::filesystem::path &dir() const { return m_dir; }

private:
  std::filesystem::path session_path(std::string_view session) const;
  std::filesystem::path m_dir;
};

// "YYYY-MM-DD" of `t` in UTC.
std::string utc_day(std::chrono::system_clock::time_point t);

} // namespace mem0
