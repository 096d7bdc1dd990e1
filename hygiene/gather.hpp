#pragma once
#include "hygiene/dream.hpp"
#include "hygiene/stats.hpp"
#include "runtime/memory_service.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

// What feeds hygiene's pure functions (docs/hygiene.md): the memories through the memory
// service, the run logs and daily counts of this machine, the project's `mem0.md`. The CLI and
// the console call gather_stats and gather_dream and print what they return.

namespace mem0::hygiene {

// The most memories one reading takes.
inline constexpr std::size_t k_max_read = 20000;

// Every memory of a scope as read, and whether that is all of it (with what was not).
struct MemoryListing {
  std::vector<Memory> memories;
  bool complete = true;
  std::vector<std::string> problems;
};

// Page through `identity`'s memories of `scope`, newest first, keeping what was read when a page
// fails (complete false, the failure in problems). A page that repeats ids, a count the pages
// do not reach, a listing the server cut, or more than `most`, also leave it incomplete.
MemoryListing read_memories(const MemoryService &service, const ApiTarget &api,
                            const Identity &identity, Scope scope, std::size_t most = k_max_read,
                            int page_size = 100);

// The run log of every session stored on this machine.
std::vector<SessionRuns> read_run_logs(const StateStore &state);

// The daily counts of the `days` UTC days up to `now`'s, oldest first.
std::vector<std::pair<std::string, DailyUsage>> read_days(const StateStore &state, WallTime now,
                                                          int days);

// The retention of the project at `root`: its `mem0.md`'s `## Retention` section, and
// retention_session_days.
RetentionPolicy read_retention(const std::filesystem::path &root, long session_days);

// The stats of `scope` (project or global) over the last `days` days.
Stats gather_stats(const RunDeps &deps, const MemoryService &service, const ApiTarget &api,
                   const Identity &identity, Scope scope, int days);

// A dream's plan and the memories it read (for its report and its undo file).
struct Dream {
  DreamPlan plan;
  std::vector<Memory> memories;
};
// Read `scope`'s memories and the run logs, and plan (plan_dream) with the retention of the
// project at `root` and the dream_similarity setting.
Dream gather_dream(const RunDeps &deps, const MemoryService &service, const ApiTarget &api,
                   const Identity &identity, Scope scope, const std::filesystem::path &root);

} // namespace mem0::hygiene
