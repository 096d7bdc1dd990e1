#include "hygiene/gather.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"

#include <set>

namespace mem0::hygiene {

MemoryListing read_memories(const MemoryService &service, const ApiTarget &api,
                            const Identity &identity, Scope scope, std::size_t most,
                            int page_size) {
  MemoryListing out;
  std::set<std::string, std::less<>> ids;
  std::size_t repeated = 0;
  long counted = -1;
  for (int page = 1;; ++page) {
    auto listed = service.list(api, identity, ListSpec{scope, std::nullopt, page, page_size});
    if (!listed) {
      out.complete = false;
      out.problems.push_back("page " + std::to_string(page) +
                             " of the listing: " + failure_line(listed.error()));
      break;
    }
    if (listed->paged && !listed->at_least) counted = listed->count;
    std::size_t fresh = 0;
    for (auto &m : listed->memories) {
      if (!ids.insert(m.id).second) {
        ++repeated;
        continue;
      }
      ++fresh;
      out.memories.push_back(std::move(m));
    }
    if (listed->at_least) {
      out.complete = false;
      out.problems.push_back("the server lists at most " + std::to_string(listed->count) +
                             " memories at once: the rest were not read");
      break;
    }
    if (out.memories.size() > most) {
      out.complete = false;
      out.problems.push_back("more than " + std::to_string(most) +
                             " memories: the rest were not read");
      break;
    }
    const bool short_page = listed->memories.size() < static_cast<std::size_t>(page_size);
    const bool counted_all = listed->count > 0 && !listed->at_least &&
                             static_cast<long>(page) * page_size >= listed->count;
    if (short_page || counted_all || fresh == 0) break;
  }
  if (repeated > 0) {
    out.problems.push_back(count_of(repeated, "memory was", "memories were") +
                           " listed twice by the pages");
    out.complete = false;
  }
  if (counted >= 0 && out.complete && static_cast<long>(out.memories.size()) < counted) {
    out.complete = false;
    out.problems.push_back("the server counts " + std::to_string(counted) + " memories, " +
                           std::to_string(out.memories.size()) + " could be read");
  }
  return out;
}

std::vector<SessionRuns> read_run_logs(const StateStore &state) {
  std::set<std::string> names;
  for (const auto &entry : state.disk->list(state.dir / "sessions")) {
    const std::filesystem::path name = entry.name;
    if (entry.file && (name.extension() == ".json" || name.extension() == ".runs") &&
        entry.name.front() != '.')
      names.insert(name.stem().string());
  }
  std::vector<SessionRuns> logs;
  for (const auto &session : names)
    if (auto runs = state.sessions.runs(session); !runs.empty())
      logs.push_back({session, std::move(runs)});
  return logs;
}

std::vector<std::pair<std::string, DailyUsage>> read_days(const StateStore &state, WallTime now,
                                                          int days) {
  std::vector<std::pair<std::string, DailyUsage>> out;
  for (int back = days - 1; back >= 0; --back) {
    const std::string day = utc_day(now - std::chrono::days(back));
    out.emplace_back(day, state.usage.on(day));
  }
  return out;
}

RetentionPolicy read_retention(const std::filesystem::path &root, long session_days) {
  const auto text = read_small_file(root / "mem0.md", 256 * 1024);
  return parse_retention(text.value_or(""), session_days);
}

Stats gather_stats(const RunDeps &deps, const MemoryService &service, const ApiTarget &api,
                   const Identity &identity, Scope scope, int days) {
  const WallTime now = deps.now();
  StatsInput input;
  MemoryListing listing = read_memories(service, api, identity, scope);
  input.memories = std::move(listing.memories);
  input.memories_complete = listing.complete;
  input.problems = std::move(listing.problems);
  input.days = read_days(deps.state, now, days);
  input.sessions = read_run_logs(deps.state);
  input.now = unix_seconds(now);
  input.days_back = days;
  return compute_stats(input);
}

Dream gather_dream(const RunDeps &deps, const MemoryService &service, const ApiTarget &api,
                   const Identity &identity, Scope scope, const std::filesystem::path &root) {
  DreamInput input;
  MemoryListing listing = read_memories(service, api, identity, scope);
  input.memories = std::move(listing.memories);
  input.complete = listing.complete;
  input.problems = std::move(listing.problems);
  input.retention = read_retention(root, deps.config.retention_session_days);
  input.uses = use_counts(read_run_logs(deps.state));
  input.now = unix_seconds(deps.now());
  input.near = deps.config.dream_similarity;
  Dream dream;
  const auto start = SteadyClock::now();
  dream.plan = plan_dream(input);
  deps.log.debug([&] { // scripts/bench.py reads this line
    return "dream: analysed " + std::to_string(dream.plan.memories) + " memories in " +
           std::to_string(
               std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - start)
                   .count()) +
           " us";
  });
  dream.memories = std::move(input.memories);
  return dream;
}

} // namespace mem0::hygiene
