#pragma once
#include "mem0/api.hpp"
#include "util/utf8.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// Make stored text safe to show on one line: whitespace runs become one space, other control
// characters are dropped, invalid UTF-8 becomes U+FFFD and `system-reminder` tags are defused.
std::string clean_text(std::string_view text);

// Cut `text` (valid UTF-8) to at most `max_code_points`, appending "…" when it cut.
std::string truncate_code_points(std::string_view text, std::size_t max_code_points);

// Return the first 8 characters of `id`, lower-cased.
std::string id8(std::string_view id);

// Parse ISO 8601 (`Z` or ±hh:mm offset, any number of fraction digits) to whole seconds, which
// cover any four-digit year (nanosecond time points overflow past 2262); nullopt when invalid.
std::optional<std::chrono::sys_seconds> parse_iso8601(std::string_view text);

// Format a non-negative age: "Nm ago", "Nh ago", "1d ago", "Nd ago", "Nmo ago".
std::string format_age(std::chrono::seconds age);

// `- [type] text200 [mem0:id8]`
std::string context_line(const Memory &memory);

// `- [type] (age) text150 [mem0:id8]`; the age is omitted when `created_at` is unusable.
std::string file_line(const Memory &memory, std::chrono::system_clock::time_point now);

// `N. [type] text80 (YYYY-MM-DD) [mem0:id8]`; the date is omitted when missing.
std::string peek_line(std::size_t number, const Memory &memory);

inline constexpr std::size_t k_context_budget = 9500;

// Join `head` (fixed lines), `memory_lines` and `tail` with newlines, dropping memory lines from
// the end (and noting how many) until the text fits in `budget` bytes.
std::string fit_budget(const std::vector<std::string> &head,
                       const std::vector<std::string> &memory_lines,
                       const std::vector<std::string> &tail, std::size_t budget = k_context_budget);

// One memory as a line of `export` (docs/cli.md#export-and-import), which `import` reads back:
// id, text, type, metadata (an object, {} when none), created_at, and a newline.
std::string export_line(const Memory &m);

} // namespace mem0
