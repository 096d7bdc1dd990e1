#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// Claude Code's session transcript (a JSONL file, `transcript_path` of the hook input), read
// for capture (docs/capture.md#the-transcript).

// One message of the conversation: the user's words or Claude's text, never tool output.
struct TranscriptMessage {
  std::string uuid;
  std::string role; // "user" or "assistant"
  std::string text;
};

struct Transcript {
  std::vector<TranscriptMessage> messages; // in order
  std::vector<std::string> files_touched;  // files written or edited, newest first, distinct
};

inline constexpr std::size_t k_transcript_window = 2 * 1024 * 1024;
inline constexpr std::size_t k_max_files_touched = 20;

// Read at most the last `window` bytes of the transcript at `path`, line by line (a line cut by
// the window is skipped), tolerating any malformed line. Skips sidechain (subagent) entries,
// compact summaries, meta entries, tool results and assistant text that starts with `{`;
// collects the `file_path` of Write, Edit, MultiEdit and NotebookEdit tool calls. A missing or
// unreadable file gives an empty transcript.
Transcript read_transcript(const std::filesystem::path &path,
                           std::size_t window = k_transcript_window);

// One line of a JSONL transcript added to `out.messages` and to `files` (written or edited,
// oldest first, repeats allowed); a line that is no message is ignored.
using TranscriptLineReader = void (*)(std::string_view line, Transcript &out,
                                      std::vector<std::string> &files);

// read_transcript over any agent's JSONL transcript: the last `window` bytes of `path`, each line
// given to `read`; files_touched is then newest first, distinct, at most k_max_files_touched.
Transcript read_jsonl_transcript(const std::filesystem::path &path, std::size_t window,
                                 TranscriptLineReader read);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD (RapidJSON does not validate).
std::string valid_utf8(std::string_view text);

// The messages after the one whose uuid is `after` (all of them when `after` is empty or not
// found), the newest `max_messages` of them, each cut to `max_chars` code points.
std::vector<TranscriptMessage> messages_after(const Transcript &transcript, std::string_view after,
                                              std::size_t max_messages, std::size_t max_chars);

// Codex CLI's rollout (the `transcript_path` Codex gives its hooks, a JSONL file of
// `{"type":…,"payload":…}` entries), read into the same shapes (docs/agents.md#codex-cli).
struct CodexCommand {
  std::string id; // the call id: `tool_use_id` of the hook input
  int exit_code = 0;
};

struct CodexRollout {
  // The user's prompts and the agent's messages (`item_completed` UserMessage / AgentMessage
  // events, their `id` as uuid); the files `apply_patch` added or updated (FileChange items).
  Transcript transcript;
  std::vector<CodexCommand> commands; // finished shell commands, in order (the newest 64)
  std::string compaction_summary;     // the latest compaction's summary, Codex's preface removed
};

inline constexpr std::size_t k_max_codex_commands = 64;

// Read at most the last `window` bytes of the rollout at `path` like read_transcript: a line
// cut by the window and any malformed line are skipped; a missing file gives an empty rollout.
CodexRollout read_codex_rollout(const std::filesystem::path &path,
                                std::size_t window = k_transcript_window);

// The exit code of the command `id` in `rollout`; nullopt when it is not there.
std::optional<int> exit_code_of(const CodexRollout &rollout, std::string_view id);

} // namespace mem0
