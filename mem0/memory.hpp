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
  std::string user_id = {};  // whose it is, when the answer says (a get does)
  std::string metadata = {}; // its metadata object as JSON text, "" when it has none (export)
};

// The memory types (`metadata.type`) the hooks search for and write.
namespace memory_type {
inline constexpr std::string_view decision = "decision";
inline constexpr std::string_view convention = "convention";
inline constexpr std::string_view anti_pattern = "anti_pattern";
inline constexpr std::string_view task_learning = "task_learning";
inline constexpr std::string_view session_state = "session_state";
inline constexpr std::string_view bug_fix = "bug_fix";
} // namespace memory_type

} // namespace mem0
