#pragma once
#include "common/config.hpp"
#include "common/hook_io.hpp"
#include "common/http.hpp"
#include "common/log.hpp"
#include "common/search.hpp"
#include "common/session_state.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// Everything a hook handler may touch, passed in so tests can substitute fakes.
struct HookContext {
  const Environment &env;
  const Config &config;
  HttpClient &http;
  const Log &log;
  Deadline deadline;
  std::function<std::chrono::system_clock::time_point()> now = std::chrono::system_clock::now;
};

// A handler returns the additionalContext text; empty means "print nothing".
using HookHandler = std::function<std::string(const HookInput &, const HookContext &)>;

// The one place that turns a handler into process behaviour: read stdin, load the
// configuration, run `handler`, print at most one JSON object for `event`, and exit 0 whatever
// happens (bad input, no key, network, internal errors are logged, never raised). After a run
// it ends the process itself, skipping library teardown (not in AddressSanitizer builds).
int run_hook(std::string_view component, std::string_view event, const HookHandler &handler);

// The session a hook belongs to: the input's session_id, else CLAUDE_CODE_SESSION_ID.
std::string session_of(const HookInput &input, const Environment &env);

// The working directory: the input's cwd, else CLAUDE_PROJECT_DIR, else the process cwd.
std::filesystem::path cwd_of(const HookInput &input, const Environment &env);

// Outcome of the automatic searches of one hook invocation.
struct AutoSearch {
  PlanOutcome outcome;
  std::size_t planned = 0;           // searches in the plan
  bool limit_reached = false;        // the daily cap stopped the searches
  std::optional<std::string> paused; // the shared back-off stopped them: the line to show
};

// Run `plan` as automatic searches: skipped while the shared back-off pauses recall or when the
// daily cap is reached; otherwise run under the context's deadline, counted for today (UTC), and
// fed to the back-off.
AutoSearch run_automatic(const HookContext &ctx, StateStore &store, const Identity &identity,
                         const std::vector<SearchSpec> &plan);

// What an automatic hook shows: the memories claimed for this session and the lines to add.
struct Recall {
  std::vector<Memory> memories;
  std::vector<std::string> notices;
};

// Claim up to `cap` of `candidates` under the session lock, so that no memory is injected twice
// in a session even by concurrent hooks, and apply `also` to the session state in the same
// update. Collects the notices of `run`: recall problems, the pause, and the daily-limit line
// once per session. Without a session (or when its state cannot be saved) nothing is
// deduplicated and `also` sees an empty state.
Recall finish_recall(const HookContext &ctx, StateStore &store, std::string_view session,
                     const AutoSearch &run, const std::vector<Memory> &candidates, std::size_t cap,
                     const std::function<void(SessionState &)> &also = {});

// `mem0: daily search limit (N) reached — recall paused until tomorrow (UTC)`
std::string daily_limit_line(long limit);

} // namespace mem0
