#include "tests/unit/catch.hpp"

#include "hygiene/stats.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>

using namespace mem0;
using namespace mem0::hygiene;

namespace {

constexpr long long k_now = 1'780'000'000;

Memory aged(std::string id, std::string type, long long days, bool pinned = false) {
  Memory m;
  m.id = std::move(id);
  m.type = std::move(type);
  m.text = "text";
  const std::time_t t = static_cast<std::time_t>(k_now - days * 86400 - 60);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  m.created_at = buf;
  if (pinned) m.metadata = R"({"pinned":true})";
  return m;
}

RunRecord run(long long ago_days, std::vector<std::string> injected, std::size_t chars,
              std::vector<std::string> used, long long ms) {
  RunRecord r;
  r.time = k_now - ago_days * 86400;
  r.hook = "on_user_prompt";
  for (auto &id : injected)
    r.memories.emplace_back(std::move(id), "decision");
  r.chars = chars;
  r.used = std::move(used);
  r.ms = ms;
  return r;
}

StatsInput input() {
  StatsInput in;
  in.now = k_now;
  in.days_back = 30;
  in.memories = {aged("a", "decision", 1, true), aged("b", "decision", 10),
                 aged("c", "convention", 45), aged("d", "", 200)};
  in.days = {{"2026-05-27", {3, 1}}, {"2026-05-28", {5, 0}}};
  in.sessions = {{"s-claude",
                  {run(1, {"a", "b"}, 400, {"a"}, 10), run(2, {}, 0, {}, 30),
                   run(40, {"c"}, 100, {"c"}, 999)}}, // 40 days ago: outside the window
                 {"codex-s2", {run(3, {"b"}, 200, {}, 20), run(3, {}, 0, {"b"}, -1)}}};
  return in;
}

} // namespace

TEST_CASE("stats: memories by type, age and pin; days; injected and used; latency; agents") {
  const Stats s = compute_stats(input());
  CHECK(s.memories.total == 4);
  CHECK(s.memories.by_type.at("decision") == 2);
  CHECK(s.memories.by_type.at("") == 1);
  CHECK(s.memories.by_age == std::array<std::size_t, 4>{1, 1, 1, 1});
  CHECK(s.memories.pinned == 1);
  REQUIRE(s.days.size() == 2);
  CHECK(s.days[0].date == "2026-05-27");
  CHECK(s.days[0].searches == 3);
  CHECK(s.days[0].adds == 1);
  CHECK(s.injected.runs == 2);     // the runs that injected, within 30 days
  CHECK(s.injected.memories == 3); // a, b; b
  CHECK(s.injected.chars == 600);
  CHECK(s.injected.tokens == 75); // 300 characters per injecting run / 4
  CHECK(s.injected.used == 2);    // a; b
  CHECK(s.injected.use_rate == Approx(2.0 / 3.0));
  CHECK(s.latency_ms.p50 == 20); // of 10, 30, 20
  CHECK(s.latency_ms.p95 == 30);
  REQUIRE(s.agents.size() == 2);
  CHECK(s.agents.at("claude-code").runs == 2);
  CHECK(s.agents.at("claude-code").injected == 2);
  CHECK(s.agents.at("claude-code").used == 1);
  CHECK(s.agents.at("codex").runs == 2);
  CHECK(s.agents.at("codex").used == 1);
}

TEST_CASE("stats: the JSON has exactly the contract's keys") {
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, stats_json(compute_stats(input()))));
  const auto keys = [](const rapidjson::Value &v) {
    std::vector<std::string> out;
    for (const auto &m : v.GetObject())
      out.emplace_back(m.name.GetString());
    return out;
  };
  CHECK(keys(doc) ==
        std::vector<std::string>{"memories", "days", "injected", "latency_ms", "agents"});
  CHECK(keys(doc["memories"]) == std::vector<std::string>{"total", "by_type", "by_age", "pinned"});
  CHECK(keys(doc["memories"]["by_age"]) ==
        std::vector<std::string>{"<7d", "7-30d", "30-90d", ">90d"});
  CHECK(keys(doc["days"][0]) == std::vector<std::string>{"date", "searches", "adds"});
  CHECK(keys(doc["injected"]) ==
        std::vector<std::string>{"runs", "memories", "chars", "tokens", "used", "use_rate"});
  CHECK(keys(doc["latency_ms"]) == std::vector<std::string>{"p50", "p95"});
  CHECK(keys(doc["agents"]["codex"]) == std::vector<std::string>{"runs", "injected", "used"});
}

TEST_CASE("stats: nothing logged and no memories gives zeros, not a division by zero") {
  StatsInput in;
  in.now = k_now;
  const Stats s = compute_stats(in);
  CHECK(s.injected.use_rate == 0);
  CHECK(s.injected.tokens == 0);
  CHECK(s.latency_ms.p50 == 0);
  CHECK(s.agents.empty());
}
