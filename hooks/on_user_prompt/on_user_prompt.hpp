#pragma once
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "runtime/io.hpp"
#include "runtime/runner.hpp"
#include "runtime/transcript.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mem0::on_user_prompt {

inline constexpr std::size_t k_max_memories = 6;

// What the detectors of docs/hooks.md#prompt-detectors found in a prompt, and the query to send for
// it.
struct PromptAnalysis {
  std::string query; // redacted, whitespace collapsed, cut to 2,000 bytes
  bool error = false;
  bool resume = false;
  bool remember = false;
  std::vector<std::string> paths;
};

// True when the prompt is too short (< 20 code points after trimming) or a slash command.
bool is_gated(std::string_view prompt);

// Run the detectors and build the query; no network.
PromptAnalysis analyze(std::string_view prompt, bool redact);

// The searches for a prompt (docs/hooks.md#prompt-plans): the resume plan, else lean or thorough;
// empty when prefetch is off and there is no resume intent.
std::vector<SearchSpec> build_plan(const PromptAnalysis &analysis, const Config &config);

inline constexpr long k_capture_every = 3;
inline constexpr std::size_t k_capture_messages = 8;
inline constexpr std::size_t k_capture_message_chars = 2000;
inline constexpr std::size_t k_capture_min_chars = 100;

// Queue the conversation added to the transcript since this session's last auto-capture (at most
// 8 messages of 2,000 characters, 100 characters in all at least), claimed under the session
// lock so that no message is captured twice, found by uuid or by message_key
// (docs/capture.md#what-is-captured).
void capture_conversation(const HookContext &ctx, const PromptInput &input);

// What names a captured message in the session file: 16 hex digits of the SHA-256 of its role
// and text (as sent).
std::string message_key(const TranscriptMessage &m);

// The notes for the model (docs/hooks.md#prompt-output). They name only what every install has:
// the mem0-hooks executable next to this hook, by absolute path (mem0_hooks_command). Mem0's MCP
// tools may or may not be configured, and a hook cannot tell; when they are, the model finds them
// in its tool list anyway.
// The rubric, once per session: when and how to search mem0, with mem0-hooks written for the
// shell `agent` runs commands in.
std::string rubric_line(const Agent &agent = claude_code());
// Remember intent: capture is automatic (or off, with auto_save false); no skill or tool to call.
std::string remember_line(bool auto_save);
// Error detected: where prior fixes may be, and the command that finds them, written for the
// shell `agent` runs commands in.
std::string error_line(const Agent &agent = claude_code());

// Handle one UserPromptSubmit event: gate, analyse, plan, recall, format; every third prompt of
// a session also asks for capture_conversation in the detached sender.
HookOutput handle(const PromptInput &input, const HookContext &ctx);

} // namespace mem0::on_user_prompt
