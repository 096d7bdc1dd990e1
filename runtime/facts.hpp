#pragma once
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "runtime/agent.hpp"
#include "runtime/io.hpp"
#include "runtime/runtime.hpp"
#include "store/outbox.hpp"
#include "store/state.hpp"
#include "util/clock.hpp"
#include "util/git.hpp"
#include "util/log.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace mem0 {

// The session a hook of `agent` belongs to: the input's session_id, else the agent's session
// variable (CLAUDE_CODE_SESSION_ID), as agent_session keys it.
std::string session_of(const HookInput &input, const Environment &env, const Agent &agent);

// The working directory: the input's cwd, else the agent's project variable
// (CLAUDE_PROJECT_DIR), else the process cwd.
std::filesystem::path cwd_of(const HookInput &input, const Environment &env, const Agent &agent);

// What one hook run knows about its world (docs/contributing.md#a-runs-facts): where it runs,
// who it is, the API target, and the back-off, today's counts and the outbox as the run first
// found them. Each is computed at most once, when first asked, so a gated-out run reads nothing;
// the run's own later writes do not change them.
class RunFacts {
public:
  RunFacts(const Environment &env, const Config &config, const Log &log, const StateStore &state,
           WallClock now, const Agent &agent = claude_code());
  // The facts of a run of `agent` over `deps`.
  RunFacts(const RunDeps &deps, const Agent &agent);

  // The agent that runs.
  const Agent &agent() const { return m_agent; }

  // Take the working directory and session from `input`; the facts that follow from them are
  // forgotten when they change. Unbound facts are those of an input without cwd and session.
  RunFacts &bind(const HookInput &input);

  const std::string &session();         // session_of
  const std::filesystem::path &cwd();   // cwd_of
  const std::optional<GitRepo> &repo(); // the repository around cwd
  // its origin url as written, user-info included: only hashed, never shown or logged
  const std::optional<std::string> &origin();
  const std::optional<std::string> &branch();  // its checked-out branch
  const std::filesystem::path &project_root(); // the repository's top level, else cwd
  const std::string &project_id();             // resolve_project_id
  // Who writes: the user, the project and the session (no shared agent id).
  Identity identity();
  // Who searches: the same, with the project's shared-memory agent when searched.
  const Identity &search_identity();

  const Result<ApiTarget> &api(); // api_target(config)
  // The back-off in force for the target's server and key (not the user's pause, below); none
  // without a target.
  const std::optional<BackoffStore::Pause> &backoff();
  const DailyUsage &usage_today(); // today's counts (UTC)
  const Outbox::Stats &outbox_stats();
  // True when the outbox holds pending items: one this run queued, else as outbox_stats found
  // it when known, else from one listing.
  bool outbox_has_pending();
  // Note that this run queued an outbox item.
  void note_queued();

  // The user's own pause (docs/cli.md#pause-and-resume) in force for this project, as the run
  // first found it: recall, remember, the project-file import and the sender start obey it.
  const std::optional<PauseStore::UserPause> &user_pause();
  // Note that the user's pause kept this run from searching, queueing, importing or starting the
  // sender: the runner then marks the session and tells the user (docs/cli.md#pause-and-resume).
  void note_paused_work() { m_paused_work = true; }
  bool paused_work() const { return m_paused_work; }

  // This run's entry in the session's run log (docs/cli.md#log). The handlers and pipelines note
  // what they skip and inject; the runner stores the entry at the end of the run.
  RunRecord &run_record() { return m_record; }
  // Note a skip: its reason code and a detail (an identical note is kept once).
  void note_skip(std::string reason, std::string detail);

private:
  void forget_place();

  const Environment &m_env;
  const Config &m_config;
  const Log &m_log;
  const StateStore &m_state;
  WallClock m_now;
  const Agent &m_agent;
  HookInput m_input; // cwd and session_id only

  std::optional<std::string> m_session;
  std::optional<std::filesystem::path> m_cwd;
  std::optional<std::optional<GitRepo>> m_repo;
  std::optional<std::optional<std::string>> m_origin;
  std::optional<std::optional<std::string>> m_branch;
  std::optional<std::filesystem::path> m_project_root;
  std::optional<std::string> m_project_id;
  std::optional<Identity> m_search_identity;
  std::optional<Result<ApiTarget>> m_api;
  std::optional<std::optional<BackoffStore::Pause>> m_backoff;
  std::optional<DailyUsage> m_usage;
  std::optional<Outbox::Stats> m_outbox;
  std::optional<bool> m_pending;
  bool m_queued = false;
  std::optional<std::optional<PauseStore::UserPause>> m_user_pause;
  bool m_paused_work = false;
  RunRecord m_record;
};

} // namespace mem0
