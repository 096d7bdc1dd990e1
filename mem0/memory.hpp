#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// One memory as the API returns it.
struct Memory {
  std::string id;
  std::string text;
  std::string type; // metadata.type, else the first of 0.3's categories, else categories[0]
  std::string created_at;
  std::optional<double> score;
  std::string user_id = {};  // whose it is, when the answer says (a get does)
  std::string agent_id = {}; // the project's lane it is filed under, when the answer says
  std::string app_id = {};
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

// The categories Mem0's 0.3 plugins ask the Platform to file memories under
// (`custom_categories`; docs/api.md#two-layouts). Their memories carry no `metadata.type`: the
// category stands for it, shown by name and ranked with the type it pairs with.
namespace memory_category {
inline constexpr std::string_view project_knowledge = "project_knowledge";
inline constexpr std::string_view decisions_and_constraints = "decisions_and_constraints";
inline constexpr std::string_view workflows = "workflows";
inline constexpr std::string_view problems_and_fixes = "problems_and_fixes";
inline constexpr std::string_view results = "results";

struct Category {
  std::string_view name;
  std::string_view description; // as 0.3 sends it
  std::string_view type;        // the memory type it ranks with, or empty
};
inline constexpr Category all[] = {
    {project_knowledge,
     "What the project is and how its code, APIs, data, files, and components work.", ""},
    {decisions_and_constraints,
     "Why an approach was chosen, what must remain true, and rules future work must follow.",
     memory_type::decision},
    {workflows, "How to run, test, debug, deploy, configure, or otherwise work on the project.",
     memory_type::convention},
    {problems_and_fixes,
     "Bugs, failures, known pitfalls, their causes, and how to fix or avoid them.",
     memory_type::anti_pattern},
    {results, "Outcomes and measurements from tests, benchmarks, experiments, or investigations.",
     ""},
};

// Whether `name` is one of the five.
constexpr bool known(std::string_view name) {
  for (const auto &c : all)
    if (c.name == name) return true;
  return false;
}
// The memory type `type_or_category` ranks as: a category's paired type, else itself.
constexpr std::string_view ranked_type(std::string_view type_or_category) {
  for (const auto &c : all)
    if (c.name == type_or_category && !c.type.empty()) return c.type;
  return type_or_category;
}
} // namespace memory_category

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
