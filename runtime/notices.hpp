#pragma once
#include "runtime/agent.hpp"
#include "runtime/hook_context.hpp"
#include "store/pause.hpp"
#include "store/session_state.hpp"

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace mem0 {

// What a hook tells the user (systemMessage, docs/failures.md#recall-notices): the lines, and
// the kinds a session records once shown, so that each is said once per session.

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

// True when `s` has shown `kind`.
bool notice_shown(const SessionState &s, std::string_view kind);
// Mark `kind` as shown in `s`; false when it was already.
bool claim_notice(SessionState &s, std::string_view kind);

// A claim in the session state waits what the deadline leaves, and at least this long, so that a
// run whose searches took the whole budget can still claim while another hook holds the lock for a
// moment (docs/failures.md#time-budget: budget + 100 ms).
inline constexpr std::chrono::milliseconds k_claim_grace{50};

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

// `mem0: N memories recalled` (`1 memory`): the show_recall summary.
std::string recalled_line(std::size_t count);

// `mem0: daily search limit (N) reached — recall paused until tomorrow (UTC)`
std::string daily_limit_line(long limit);

// `mem0: daily add limit (N) reached — captures wait until tomorrow (UTC)`
std::string add_limit_line(long limit);

// `mem0: capture outbox full (1000 items or 20 MB) — new memories are not saved until it drains
// (run mem0-hooks doctor)`
std::string outbox_full_line();

// `mem0: N captures rejected by Mem0, kept in <outbox>/rejected (run mem0-hooks doctor)`
std::string outbox_rejected_line(std::size_t count, const std::filesystem::path &outbox_dir);

// The text for the model that names mem0-hooks.
// The mem0-hooks executable that sits next to the running hook, by absolute path (`mem0-hooks.exe`
// on Windows), written for the shell `agent` runs commands in here (hook_shell, render_command);
// plain `mem0-hooks` when the system does not say where the hook is. Text for the model names
// this, never a tool that may not be installed.
std::string mem0_hooks_command(const Agent &agent = claude_code());

} // namespace mem0
