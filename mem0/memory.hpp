#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// One memory as the API returns it.
struct Memory {
  std::string id;
  std::string text;
  std::string type; // metadata.type, else categories[0], else empty
  std::string created_at;
  std::optional<double> score;
  std::string user_id = {};    // whose it is, when the answer says (a get does)
  std::string metadata = {};   // its metadata object as JSON text, "" when it has none (export)
  std::string updated_at = {}; // "" when the answer does not say
};

// The memory types (`metadata.type`) the hooks search for and write.
namespace memory_type {
inline constexpr std::string_view decision = "decision";
inline constexpr std::string_view convention = "convention";
inline constexpr std::string_view anti_pattern = "anti_pattern";
inline constexpr std::string_view task_learning = "task_learning";
inline constexpr std::string_view session_state = "session_state";
inline constexpr std::string_view bug_fix = "bug_fix";
// What the hooks capture by themselves (docs/capture.md).
inline constexpr std::string_view auto_capture = "auto_capture";
inline constexpr std::string_view session_summary = "session_summary";
inline constexpr std::string_view compact_summary = "compact_summary";
inline constexpr std::string_view project_profile = "project_profile";
} // namespace memory_type

// Where a memory came from (`metadata.source`). Stored values, spelled as the memories already in
// Mem0 carry them: the project-file import's with a hyphen, the others with an underscore or as
// one word. Nothing reads them back; a new value should use an underscore.
namespace memory_source {
inline constexpr std::string_view auto_capture = "auto_capture"; // every third prompt
inline constexpr std::string_view stop = "stop";                 // the session summary
inline constexpr std::string_view compact = "compact";           // the compaction summary
inline constexpr std::string_view auto_import = "auto-import";   // a project file's section
} // namespace memory_source

} // namespace mem0
