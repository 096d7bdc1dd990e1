#pragma once
#include <cstddef>
#include <filesystem>
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

} // namespace mem0
