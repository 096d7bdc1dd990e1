#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// What agents' transcripts are read into, and the reading they share; each agent's own format is
// read in its adapter (runtime/agents/, docs/capture.md#the-transcript).

// One message of the conversation: the user's words or the agent's text, never tool output.
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

// Each line of at most the last `window` bytes of the JSONL file at `path` (a line cut by the
// window is skipped) given to `read(line, files)`, which appends the files the line writes or
// edits; those files, newest first, distinct, at most k_max_files_touched. Nothing is read from a
// file that is missing, not a regular file (a FIFO is never waited on) or unreadable.
using JsonlReader = std::function<void(std::string_view line, std::vector<std::string> &files)>;
std::vector<std::string> read_jsonl(const std::filesystem::path &path, std::size_t window,
                                    const JsonlReader &read);

// One line of a JSONL transcript added to `out.messages` and to `files` (written or edited,
// oldest first, repeats allowed); a line that is no message is ignored.
using TranscriptLineReader = void (*)(std::string_view line, Transcript &out,
                                      std::vector<std::string> &files);

// read_jsonl into a transcript: each line given to `read`.
Transcript read_jsonl_transcript(const std::filesystem::path &path, std::size_t window,
                                 TranscriptLineReader read);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD (RapidJSON does not validate).
std::string valid_utf8(std::string_view text);

// The messages after the one whose uuid is `after` (all of them when `after` is empty or not
// found), the newest `max_messages` of them, each cut to `max_chars` code points.
std::vector<TranscriptMessage> messages_after(const Transcript &transcript, std::string_view after,
                                              std::size_t max_messages, std::size_t max_chars);

} // namespace mem0
