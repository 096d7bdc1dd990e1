#pragma once
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "runtime/io.hpp"
#include "runtime/runner.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::on_bash_output {

inline constexpr std::size_t k_max_memories = 5;
inline constexpr std::size_t k_max_query_code_points = 200;
inline constexpr std::size_t k_output_window = 256 * 1024;  // bytes read of each output string
inline constexpr std::size_t k_max_errors_remembered = 256; // per session, the oldest dropped
inline constexpr std::string_view k_heading = "### Prior errors like this (mem0)";

// True when `command` runs `git commit`, `git merge` or `git rebase` anywhere in it (after git's
// own options such as `-C <dir>`): their output is about history, not a failure to look up.
bool skipped_command(std::string_view command);

// `text` without ANSI escape sequences (colours, cursor moves, terminal titles).
std::string strip_ansi(std::string_view text);

// The text the detectors read: the failure's `error` without its first line `Exit code N`, then
// `tool_response.stdout`, then the lines of `tool_response.stderr` that stdout does not hold; each
// string cut to its last 256 KiB (errors come last) on a character boundary; ANSI sequences
// removed. Never the JSON of the event (the command, its description).
std::string output_text(const ToolInput &input);

// What a Bash call's output asks to look up.
struct ErrorLookup {
  std::string query; // the most telling error line: redacted, cleaned, ≤ 200 code points; "" when
                     // the output shows no error
  std::string key;   // the line's hash, as the session records it
};

// Run the detectors on output_text(input) and pick the error line; no network.
ErrorLookup analyze(const ToolInput &input, bool redact);

// The searches for an error line (docs/hooks.md#bash-output-plans).
std::vector<SearchSpec> build_plan(const std::string &query, const Config &config);

// Handle one PostToolUse or PostToolUseFailure event of Bash: gate, analyse, plan, recall, format.
HookOutput handle(const ToolInput &input, const HookContext &ctx);

} // namespace mem0::on_bash_output
