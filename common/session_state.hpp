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

  // The shared back-off of automatic searches (SPEC §5): after a 429, or after
  // `k_failures_before_pause` invocations in a row whose searches all failed to reach the
  // server, every hook process skips the network until the pause ends.
  struct Pause {
    std::chrono::seconds remaining;
    std::string reason;
  };
  std::optional<Pause> active_pause(std::chrono::system_clock::time_point now) const;

  // Record how an invocation's searches went: `rate_limited` pauses for `retry_after`,
  // `unreachable` counts towards a pause, `answered` clears the count.
  enum class Outcome { answered, unreachable, rate_limited };
  Result<void> record_outcome(std::chrono::system_clock::time_point now, Outcome outcome,
                              std::chrono::seconds retry_after = k_default_pause);

  static constexpr int k_failures_before_pause = 3;
  static constexpr std::chrono::seconds k_default_pause{30};

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
