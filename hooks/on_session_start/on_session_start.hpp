#pragma once
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "mem0/memory.hpp"
#include "runtime/io.hpp"
#include "runtime/recall.hpp"
#include "runtime/runner.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::on_session_start {

// One list request at startup: the project's count and its newest memories, of which the first
// k_max_recent of the recent types are shown.
inline constexpr int k_list_page_size = 20;
inline constexpr std::size_t k_max_recent = 5;
// The resume plan's two searches bring at most 3 + 3 memories.
inline constexpr std::size_t k_max_resume = 6;

// Shown to the user once per session (the prompt, read and Bash hooks say it when this hook did
// not run): recall.hpp's k_no_key_notice.
inline constexpr std::string_view k_no_key = k_no_key_notice;
// True for the types shown at startup: decision, session_state, task_learning, convention.
bool is_recent_type(std::string_view type);

// `### mem0: <N> memories for <project> (user <U>, branch <B>)`; without a branch (not a git
// checkout, or an unreadable HEAD) `(user <U>)`. Each name is cleaned and cut to 100 code points.
// `<N>+` when the count is a lower bound (a self-hosted listing cut at its limit).
std::string header_line(long count, std::string_view project, std::string_view user,
                        const std::optional<std::string> &branch, bool at_least = false);

// Handle one SessionStart event: gate, then for startup and clear the project's count and recent
// memories (one list request), for resume and compact the resume plan (recall). Never forks: it
// declares the sender start (`send`, for what earlier sessions left), and for startup and clear,
// with a key and auto_save on, the output's `detached` queues the project-file import, which the
// runner runs in the detached sender after printing.
HookOutput handle(const SessionStartInput &input, const HookContext &ctx);

} // namespace mem0::on_session_start
