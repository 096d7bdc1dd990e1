#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Retention (docs/hygiene.md#dream): how long a memory of each type is kept, from the
// project's `mem0.md` and the settings.

namespace mem0::hygiene {

struct RetentionPolicy {
  // `mem0.md`'s `## Retention` lines: type → days, nullopt for `forever`.
  std::map<std::string, std::optional<long>, std::less<>> by_type;
  long session_days = 90;            // retention_session_days: session_state and compact_summary
  std::vector<std::string> problems; // lines of the section that could not be read
};

// Read the `## Retention` section of a `mem0.md` text: lines `<type>: <N>d` or
// `<type>: forever` (a leading `-` or `*` and spaces allowed); others are noted in `problems`.
RetentionPolicy parse_retention(std::string_view mem0_md, long session_days);

// How long a memory of `type` is kept: nullopt for ever; and the rule that says so
// (`mem0.md: decision: 30d`, `retention_session_days: 90`).
struct Retention {
  std::optional<long> days;
  std::string rule;
};
Retention retention_of(const RetentionPolicy &policy, std::string_view type);

// Seconds since the Unix epoch of an ISO 8601 time ("2026-01-02T03:04:05.123456-08:00", "…Z",
// no zone read as UTC, or a bare date); nullopt when it is not one.
std::optional<long long> parse_time(std::string_view iso);

} // namespace mem0::hygiene
