#pragma once
#include "hygiene/logs.hpp"
#include "mem0/memory.hpp"
#include "store/usage.hpp"
#include "util/json_writer.hpp"

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

// Stats (docs/hygiene.md#stats): the memories of a scope, the daily counts and the run logs,
// summed. compute_stats makes the value; the CLI and the console print it with write_stats_json
// or stats_report.

namespace mem0::hygiene {

struct StatsInput {
  std::vector<Memory> memories;
  bool memories_complete = true;
  std::vector<std::string> problems;                    // what could not be read
  std::vector<std::pair<std::string, DailyUsage>> days; // "YYYY-MM-DD" → counts, oldest first
  std::vector<SessionRuns> sessions;
  long long now = 0;  // unix seconds
  int days_back = 30; // the runs of the last this many days count
};

// The age buckets of `memories.by_age`, in order.
inline constexpr std::array<std::string_view, 4> k_age_buckets{"<7d", "7-30d", "30-90d", ">90d"};

struct Stats {
  struct Memories {
    std::size_t total = 0;
    std::map<std::string, std::size_t> by_type; // "" for none
    std::array<std::size_t, 4> by_age{};        // k_age_buckets; undated memories in none
    std::size_t pinned = 0;
  } memories;
  struct Day {
    std::string date;
    long searches = 0;
    long adds = 0;
  };
  std::vector<Day> days;
  struct Injected {
    std::size_t runs = 0;     // runs that injected memories
    std::size_t memories = 0; // memories injected
    std::size_t chars = 0;    // code points of their lines
    std::size_t tokens = 0;   // estimated tokens per injecting run: chars / runs / 4
    std::size_t used = 0;     // memories the replies used
    double use_rate = 0;      // used / memories
  } injected;
  struct Latency {
    long long p50 = 0;
    long long p95 = 0;
  } latency_ms; // over the logged runs that timed themselves
  struct PerAgent {
    std::size_t runs = 0;
    std::size_t injected = 0;
    std::size_t used = 0;
  };
  std::map<std::string, PerAgent> agents;
  bool complete = true;
  std::vector<std::string> problems;
};

Stats compute_stats(const StatsInput &input);

// The stats as JSON: memories {total, by_type, by_age, pinned}, days [{date, searches, adds}],
// injected {runs, memories, chars, tokens, used, use_rate}, latency_ms {p50, p95}, agents
// {name: {runs, injected, used}}.
void write_stats_json(JsonWriter &w, const Stats &stats);
std::string stats_json(const Stats &stats);

// The stats for people.
std::string stats_report(const Stats &stats);

} // namespace mem0::hygiene
