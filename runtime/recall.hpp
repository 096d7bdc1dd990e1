#pragma once
#include "mem0/api.hpp"
#include "mem0/search.hpp"
#include "runtime/runner.hpp"
#include "store/session_state.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// What a hook wants recalled: a plan of searches and how to select among the results.
struct RecallRequest {
  std::vector<SearchSpec> plan;              // may be empty: then only `also` runs
  Identity identity;                         // its session_id keys the session dedupe
  std::size_t cap = 0;                       // memories to show at most
  std::vector<std::string_view> types_first; // memory types moved to the front, in this order
  // Further changes to the session state, made under the same lock as the claim; `answered`
  // says whether any search got an answer.
  std::function<void(SessionState &, bool answered)> also;
  // Fetch the candidates another way than the plan's searches (one listing, say): the outcome
  // is gated, counted and fed to the back-off like a plan of `fetch_requests` searches.
  std::function<PlanOutcome(const ApiTarget &)> fetch;
  std::size_t fetch_requests = 1;
  // How a memory is shown to the model (context_line when empty): Recall::lines, and the
  // characters the run log counts.
  std::function<std::string(const Memory &)> line;
};

// What a hook shows: the memories claimed for this session, for the model's context, and the
// lines for the user (systemMessage): the problems the user must act on, each kind at most once
// per session (every run without a session), and with `show_recall` on the recall summary.
struct Recall {
  std::vector<Memory> memories;
  std::vector<std::string> lines; // the memories as RecallRequest::line shows them
  std::vector<std::string> user_notices;
};

// The read pipeline (docs/hooks.md#the-recall-pipeline): skip the searches while the shared
// back-off pauses recall or when the daily cap is reached; otherwise run the plan in parallel
// under the context's deadline, count it for today (UTC) and feed the back-off; merge in plan
// order, drop ids this session has seen, put `types_first` first; then claim up to `cap` under
// the session lock, so that no memory is injected twice in a session even by concurrent hooks.
// User notices (docs/failures.md#recall-notices): the pause, the recall problems, the daily
// limits and the outbox's state, each kind claimed under the same lock as the memories so that
// concurrent hooks of a session show it once. Without a session (or when its state cannot be
// saved) nothing is deduplicated. A request with no plan searches nothing but still claims its
// `also` changes and the notices about capture. What was injected, what was skipped and why go
// into the run's entry of the session's run log, which the runner stores (docs/cli.md#log).
Recall recall(const HookContext &ctx, const RecallRequest &request);

// The kinds of user notices, as a session records them once shown (SessionState::notices_shown;
// the daily search limit keeps its own flag, limit_notice_shown).
namespace notice_kind {
inline constexpr std::string_view no_key = "no_key";
inline constexpr std::string_view key_rejected = "key_rejected";
inline constexpr std::string_view no_libcurl = "no_libcurl";     // libcurl cannot be loaded here
inline constexpr std::string_view rate_limited = "rate_limited"; // a 429, or its pause
inline constexpr std::string_view unreachable = "unreachable";   // the outage pause
inline constexpr std::string_view daily_limit = "daily_limit";
inline constexpr std::string_view add_limit = "add_limit";
inline constexpr std::string_view outbox_full = "outbox_full";
inline constexpr std::string_view outbox_rejected = "outbox_rejected";
inline constexpr std::string_view no_space = "no_space";       // the state directory's disk is full
inline constexpr std::string_view user_paused = "user_paused"; // mem0-hooks pause
// Searches that failed otherwise: one kind per error class, "failed:<class>".
} // namespace notice_kind

// Mark `kind` as shown in `s`; false when it was already.
bool claim_notice(SessionState &s, std::string_view kind);

inline constexpr std::string_view k_no_key_notice =
    "mem0: no API key, recall and capture are off (run mem0-hooks doctor)";

// Said once per session while a capture's rejected key is paused (docs/failures.md#back-off).
inline constexpr std::string_view k_key_paused_line =
    "mem0: Mem0 rejected the API key \xE2\x80\x94 recall and capture are paused until it "
    "changes (run mem0-hooks doctor)";

// The no-key line for the user, once per session (the session-start hook usually says it first;
// the prompt, read and Bash hooks say it when it did not run): `k_no_key_notice`, or "" when this
// session has shown it. Without a session, always the line.
std::string no_key_notice(const HookContext &ctx, const std::string &session);

// `mem0: paused by you until <local time> — mem0-hooks resume` (`until you resume` for a pause
// without end): what a run the user's pause stopped says (docs/cli.md#pause-and-resume).
std::string user_pause_line(const PauseStore::UserPause &pause);

// The user-pause line for the user, once per session (recall claims it with its memories; a run
// that recalls nothing claims it here): the line, or "" when this session has shown it. Without
// a session, always the line.
std::string user_pause_notice(const HookContext &ctx, const PauseStore::UserPause &pause);

// The mem0-hooks executable that sits next to the running hook, by absolute path (`mem0-hooks.exe`
// on Windows), written for the shell `agent` runs commands in here (hook_shell, render_command);
// plain `mem0-hooks` when the system does not say where the hook is. Text for the model names
// this, never a tool that may not be installed.
std::string mem0_hooks_command(const Agent &agent = claude_code());

// `mem0: N memories recalled` (`1 memory`): the show_recall summary.
std::string recalled_line(std::size_t count);

// What a hook prints after a recall: `head`, the memory `lines` and `tail` for the model, fitted
// to the context budget (nothing when head and tail are empty), and the recall's notices for the
// user.
HookOutput recall_output(const Recall &found, const std::vector<std::string> &head,
                         const std::vector<std::string> &lines,
                         const std::vector<std::string> &tail = {});

// Take up to `cap` of `candidates` that `state` has not injected yet and record them as injected.
std::vector<Memory> claim_new(SessionState &state, const std::vector<Memory> &candidates,
                              std::size_t cap);

// The recall-problem lines for a plan's failures (docs/failures.md#recall-notices), in a
// fixed order: key rejected, rate limited, then the other failures counted.
std::vector<std::string> recall_problem_lines(const PlanOutcome &outcome, std::size_t searches);

// `mem0: daily search limit (N) reached — recall paused until tomorrow (UTC)`
std::string daily_limit_line(long limit);

// `mem0: daily add limit (N) reached — captures wait until tomorrow (UTC)`
std::string add_limit_line(long limit);

// `mem0: capture outbox full (1000 items or 20 MB) — new memories are not saved until it drains
// (run mem0-hooks doctor)`
std::string outbox_full_line();

// `mem0: N captures rejected by Mem0, kept in <outbox>/rejected (run mem0-hooks doctor)`
std::string outbox_rejected_line(std::size_t count, const std::filesystem::path &outbox_dir);

// The text around resumed memories (docs/hooks.md#prompt-output).
inline constexpr std::string_view k_resume_heading = "### Session context recovered from mem0";
inline constexpr std::string_view k_resume_footer =
    "These memories provide context for resuming work.";

} // namespace mem0
