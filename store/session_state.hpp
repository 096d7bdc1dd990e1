#pragma once
#include "store/disk.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/json_writer.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mem0 {

inline constexpr std::size_t k_max_captured_keys = 64;
inline constexpr std::size_t k_max_runs = 50; // run log entries a session keeps
// The memories injected since the model's last reply that a session keeps for the use signal,
// and the bytes of each text kept (docs/hygiene.md#the-use-signal).
inline constexpr std::size_t k_max_awaiting = 40;
inline constexpr std::size_t k_max_awaiting_bytes = 2000;

// A memory injected since the model's last reply: its id and (the start of) its text.
struct AwaitingReply {
  std::string id;
  std::string text;
};

// Why a run left something out (docs/cli.md#log): a reason code (`deduped`, `gated`, `paused`,
// `budget`, `backoff`, `no_key`, `daily_limit`, `failed`, `none`) and a detail for people.
struct RunSkip {
  std::string reason;
  std::string detail;
};

// One hook run in a session's run log: what it injected and what it skipped, and why.
struct RunRecord {
  long long time = 0;                                        // unix seconds
  std::string hook;                                          // the executable
  std::vector<std::pair<std::string, std::string>> memories; // id and type, as injected
  std::size_t chars = 0; // code points of the memory lines injected
  std::vector<RunSkip> skipped;
  // The memories the model's reply used, of those injected since the previous reply
  // (docs/hygiene.md#the-use-signal): full ids, on the run that saw the reply.
  std::vector<std::string> used = {};
  long long ms = -1; // how long the run took, -1 when not known

  bool empty() const { return memories.empty() && skipped.empty() && used.empty(); }
};

// The tokens `chars` code points make, estimated as four to a token (log, stats, the console).
inline std::size_t tokens_of(std::size_t chars) { return (chars + 3) / 4; }

// Write `run` as one of `log --json`'s runs (docs/cli.md#log); the console's Sessions view reads
// the same object.
void write_run_json(JsonWriter &w, const RunRecord &run);

// What one agent session has seen (docs/state.md#session-files). The injected ids double as
// the id8 map: a `[mem0:id8]` citation resolves to the injected id it prefixes.
struct SessionState {
  std::vector<std::string> injected;        // full ids, in injection order
  std::map<std::string, std::string> files; // path → "mtime:size" of the version looked up
  std::vector<std::string> errors;          // error lines looked up (hashed), oldest first
  bool rubric_shown = false;
  bool limit_notice_shown = false;        // the daily-limit notice (kind daily_limit)
  std::vector<std::string> notices_shown; // the other user notice kinds shown (recall.hpp)
  std::int64_t prompts = 0;               // 64 bits on every system (`long` is 32 on Windows)
  std::string captured_until;             // uuid of the last transcript message auto-captured
  // The messages auto-captured lately (message_key), oldest first, at most
  // k_max_captured_keys: never sent again, whatever their uuids.
  std::vector<std::string> captured;
  // A run of this session met the user's pause: the next auto-capture skips what was said until
  // then instead of sending it (docs/cli.md#pause-and-resume).
  bool capture_resync = false;
  std::vector<RunRecord> runs; // the run log, oldest first, at most k_max_runs
  // The memories injected since the model's last reply, oldest first, at most k_max_awaiting:
  // what the reply is checked against (docs/hygiene.md#the-use-signal).
  std::vector<AwaitingReply> awaiting;

  bool was_injected(std::string_view id) const;
  // Keep `id` and the first k_max_awaiting_bytes of `text` until the next reply, dropping the
  // oldest beyond k_max_awaiting.
  void await_reply(std::string id, std::string_view text);
  // Append `run` to the run log, dropping the oldest beyond k_max_runs.
  void log_run(RunRecord run);
};

// Parse / serialise a session file; unreadable content gives an empty state.
SessionState parse_session_state(std::string_view json);
std::string serialize_session_state(const SessionState &state);

// The session files under `<state dir>/sessions/`, on `disk`.
class SessionStore {
public:
  SessionStore(StateDisk &disk, std::filesystem::path state_dir);

  // The state of `session` as stored now (empty when new or unreadable). No lock is taken.
  SessionState load(std::string_view session) const;

  // Apply `change` to the state of `session` under the session lock and store the result
  // atomically; returns the state as changed. Waits at most `wait` for the lock (a hook passes
  // what its deadline leaves). Also removes session files idle for 7 days when it creates a
  // new one.
  Result<SessionState> update(std::string_view session,
                              const std::function<void(SessionState &)> &change,
                              std::chrono::milliseconds wait = k_lock_wait);

  // Every stored session's state, for resolving citations across sessions.
  std::vector<SessionState> all_sessions() const;

  // Append `run` to the session's run log without the session lock or a read of its state: one
  // line in `sessions/<session>.runs` (docs/state.md#session-files), for runs that take no
  // session lock otherwise (a gate). Bounded: past k_max_runs_bytes the file is rewritten with
  // its last k_max_runs runs, under the file's own flock so that no append is lost to it
  // (append_bounded; waits at most k_lock_wait for a shrink).
  Result<void> append_run(std::string_view session, const RunRecord &run);
  static constexpr std::uintmax_t k_max_runs_bytes = 32 * 1024;

  // The session's run log: the runs of its state and the appended ones, oldest first, the last
  // k_max_runs.
  std::vector<RunRecord> runs(std::string_view session) const;

  // The session with a run log whose file was written last (the one written last when none has
  // a run log), as its file names it; nullopt when there is none.
  std::optional<std::string> latest_session() const;

private:
  std::filesystem::path session_path(std::string_view session) const;
  std::filesystem::path runs_path(std::string_view session) const;
  StateDisk *m_disk;
  std::filesystem::path m_dir;
};

} // namespace mem0
