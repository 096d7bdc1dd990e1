#include "hygiene/stats.hpp"
#include "hygiene/dream.hpp"
#include "hygiene/retention.hpp"
#include "hygiene/words.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace mem0::hygiene {
namespace {

// The value at `share` of sorted `values` (nearest rank); 0 for none.
long long percentile(const std::vector<long long> &values, double share) {
  if (values.empty()) return 0;
  const auto rank = ceil_of(share * static_cast<double>(values.size()));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

} // namespace

Stats compute_stats(const StatsInput &input) {
  Stats s;
  s.complete = input.memories_complete;
  s.problems = input.problems;
  for (const auto &m : input.memories) {
    ++s.memories.total;
    ++s.memories.by_type[m.type];
    if (is_pinned(m)) ++s.memories.pinned;
    if (const auto created = parse_time(m.created_at)) {
      const long long days = (input.now - *created) / 86400;
      ++s.memories.by_age[days < 7 ? 0 : days < 30 ? 1 : days < 90 ? 2 : 3];
    }
  }
  for (const auto &[date, counts] : input.days)
    s.days.push_back({date, counts.searches, counts.adds});

  const long long since = input.now - static_cast<long long>(input.days_back) * 86400;
  std::vector<long long> latencies;
  for (const auto &log : input.sessions) {
    Stats::PerAgent &agent = s.agents[agent_of_session(log.session)];
    for (const auto &run : log.runs) {
      if (run.time < since) continue;
      ++agent.runs;
      agent.injected += run.memories.size();
      agent.used += run.used.size();
      if (!run.memories.empty()) ++s.injected.runs;
      s.injected.memories += run.memories.size();
      s.injected.chars += run.chars;
      s.injected.used += run.used.size();
      if (run.ms >= 0) latencies.push_back(run.ms);
    }
  }
  std::erase_if(s.agents, [](const auto &a) { return a.second.runs == 0; });
  if (s.injected.runs > 0) s.injected.tokens = tokens_of(s.injected.chars / s.injected.runs);
  if (s.injected.memories > 0)
    s.injected.use_rate =
        static_cast<double>(s.injected.used) / static_cast<double>(s.injected.memories);
  std::sort(latencies.begin(), latencies.end());
  s.latency_ms = {percentile(latencies, 0.5), percentile(latencies, 0.95)};
  return s;
}

void write_stats_json(JsonWriter &w, const Stats &s) {
  const auto n = [](std::size_t v) { return static_cast<long long>(v); };
  w.begin_object().key("memories").begin_object().key("total").int64(n(s.memories.total));
  w.key("by_type").begin_object();
  for (const auto &[type, count] : s.memories.by_type)
    w.key(type).int64(n(count));
  w.end_object().key("by_age").begin_object();
  for (std::size_t i = 0; i < k_age_buckets.size(); ++i)
    w.key(k_age_buckets[i]).int64(n(s.memories.by_age[i]));
  w.end_object().key("pinned").int64(n(s.memories.pinned)).end_object();
  w.key("days").begin_array();
  for (const auto &d : s.days)
    w.begin_object()
        .member("date", d.date)
        .key("searches")
        .int64(d.searches)
        .key("adds")
        .int64(d.adds)
        .end_object();
  w.end_array().key("injected").begin_object();
  w.key("runs").int64(n(s.injected.runs)).key("memories").int64(n(s.injected.memories));
  w.key("chars").int64(n(s.injected.chars)).key("tokens").int64(n(s.injected.tokens));
  w.key("used").int64(n(s.injected.used));
  w.key("use_rate").number(thousandths(s.injected.use_rate)).end_object();
  w.key("latency_ms").begin_object().key("p50").int64(s.latency_ms.p50);
  w.key("p95").int64(s.latency_ms.p95).end_object();
  w.key("agents").begin_object();
  for (const auto &[name, a] : s.agents)
    w.key(name)
        .begin_object()
        .key("runs")
        .int64(n(a.runs))
        .key("injected")
        .int64(n(a.injected))
        .key("used")
        .int64(n(a.used))
        .end_object();
  w.end_object().end_object();
}

std::string stats_json(const Stats &stats) {
  JsonWriter w;
  write_stats_json(w, stats);
  return w.text();
}

std::string stats_report(const Stats &s) {
  std::string out = "memories: " + std::to_string(s.memories.total) +
                    (s.complete ? "" : " (not all could be read)") + ", " +
                    std::to_string(s.memories.pinned) + " pinned\n";
  for (const auto &[type, count] : s.memories.by_type)
    out += "  " + (type.empty() ? std::string("(no type)") : type) + ": " + std::to_string(count) +
           "\n";
  out += "  by age:";
  for (std::size_t i = 0; i < k_age_buckets.size(); ++i)
    out += " " + std::string(k_age_buckets[i]) + " " + std::to_string(s.memories.by_age[i]);
  out += "\nper day (automatic searches / delivered captures):\n";
  for (const auto &d : s.days)
    if (d.searches > 0 || d.adds > 0)
      out +=
          "  " + d.date + "  " + std::to_string(d.searches) + " / " + std::to_string(d.adds) + "\n";
  out += "injected: " + count_of(s.injected.memories, "memory", "memories") + " in " +
         count_of(s.injected.runs, "run", "runs") + ", " +
         count_of(s.injected.chars, "character", "characters") + " (~" +
         std::to_string(s.injected.tokens) + " tokens per prompt)\n";
  out += "used by the model: " + std::to_string(s.injected.used) + " (" +
         std::to_string(static_cast<int>(s.injected.use_rate * 100 + 0.5)) + "%)\n";
  out += "hook latency: p50 " + std::to_string(s.latency_ms.p50) + " ms, p95 " +
         std::to_string(s.latency_ms.p95) + " ms\n";
  for (const auto &[name, a] : s.agents)
    out += "  " + name + ": " + count_of(a.runs, "run", "runs") + ", " +
           std::to_string(a.injected) + " injected, " + std::to_string(a.used) + " used\n";
  for (const auto &p : s.problems)
    out += "could not read: " + p + "\n";
  return out;
}

} // namespace mem0::hygiene
