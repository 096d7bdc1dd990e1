#include "tests/unit/catch.hpp"

#include "hygiene/dream.hpp"
#include "hygiene/stats.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <set>

using namespace mem0;
using namespace mem0::hygiene;

namespace {

constexpr long long k_now = 1'780'000'000; // 2026-05-28

// "YYYY-MM-DDTHH:MM:SSZ", `days` before k_now.
std::string days_ago(double days) {
  const auto t = static_cast<std::time_t>(k_now - static_cast<long long>(days * 86400));
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Memory mem(std::string id, std::string type, std::string text, double age_days = 1,
           double updated_days = -1, bool pinned = false) {
  Memory m;
  m.id = std::move(id);
  m.type = std::move(type);
  m.text = std::move(text);
  m.created_at = days_ago(age_days);
  m.updated_at = days_ago(updated_days < 0 ? age_days : updated_days);
  m.metadata = pinned ? R"({"type":"x","pinned":true})" : R"({"type":"x"})";
  return m;
}

// The planted corpus: every case dream must tell apart, with what it should do.
struct Planted {
  DreamInput input;
  std::set<std::string> deletions;              // the ids a perfect dream deletes
  std::set<std::vector<std::string>> conflicts; // the pairs it lists, sorted
};

Planted planted() {
  Planted p;
  auto &m = p.input.memories;
  // Exact duplicates (case, punctuation, whitespace): the most recently updated is kept.
  m.push_back(mem("ex-old", "convention", "Use pnpm for every install in this repo.", 20, 20));
  m.push_back(mem("ex-new", "convention", "use PNPM for every install   in this repo", 10, 2));
  m.push_back(mem("ex-mid", "convention", "Use pnpm, for every install in this repo!", 15, 15));
  p.deletions.insert({"ex-old", "ex-mid"});
  // The same text of another type is no duplicate.
  m.push_back(mem("ex-other-type", "decision", "Use pnpm for every install in this repo.", 5));
  // Near duplicates (one word apart of 11): the newer is kept.
  m.push_back(mem("near-a", "convention",
                  "Run the unit tests with ctest before every commit to main", 30, 30));
  m.push_back(mem("near-b", "convention",
                  "Run the unit tests with ctest before each commit to main", 3, 3));
  p.deletions.insert("near-a");
  m.push_back(mem("near-c", "bug_fix",
                  "The API client retries 429 responses with exponential backoff and jitter", 9));
  m.push_back(mem("near-d", "bug_fix",
                  "The API client retries 429 responses with exponential backoff plus jitter", 8));
  p.deletions.insert("near-c");
  // Topics that merely overlap.
  m.push_back(
      mem("topic-a", "decision", "Deploy the docs site with GitHub Pages from the docs folder"));
  m.push_back(
      mem("topic-b", "decision", "Deploy the API with GitHub Actions on every push to main"));
  m.push_back(mem("topic-c", "decision", "Use PostgreSQL for the billing database"));
  m.push_back(mem("topic-d", "decision", "Back up the PostgreSQL billing database every night"));
  m.push_back(mem("topic-e", "task_learning",
                  "The invoice exporter writes CSV files into the exports folder", 2));
  m.push_back(mem("topic-f", "task_learning",
                  "The invoice importer reads CSV files from the uploads folder", 2));
  // Conflicts: numbers, versions, names; never duplicates, even when similar enough.
  m.push_back(mem("conf-pg15", "decision", "Use PostgreSQL 15 for the main database", 40));
  m.push_back(mem("conf-pg14", "decision", "Use PostgreSQL 14 for the main database", 50));
  p.conflicts.insert({"conf-pg14", "conf-pg15"});
  m.push_back(mem("conf-node20", "convention",
                  "Pin the Node.js version to 20 in CI, in the Dockerfile and in every service "
                  "of the billing platform",
                  4));
  m.push_back(mem("conf-node18", "convention",
                  "Pin the Node.js version to 18 in CI, in the Dockerfile and in every service "
                  "of the billing platform",
                  6));
  p.conflicts.insert({"conf-node18", "conf-node20"});
  m.push_back(
      mem("conf-jest", "convention", "Run the frontend tests with Jest in the web package"));
  m.push_back(
      mem("conf-vitest", "convention", "Run the frontend tests with Vitest in the web package"));
  p.conflicts.insert({"conf-jest", "conf-vitest"});
  // Pinned: an older pinned duplicate is kept over a newer one; a pinned memory never expires.
  m.push_back(
      mem("pin-old", "anti_pattern", "Never commit generated protobuf files", 60, 60, true));
  m.push_back(mem("pin-dup", "anti_pattern", "never commit generated protobuf files.", 1, 1));
  p.deletions.insert("pin-dup");
  m.push_back(
      mem("pin-expired", "session_state", "Pinned notes of the March release", 400, 400, true));
  // Expired, by each rule: retention_session_days (session_state, compact_summary) and mem0.md
  // (task_learning: 30d); `forever` and types without a rule never.
  m.push_back(mem("exp-session", "session_state", "Was half way through the refund flow", 91));
  m.push_back(mem("keep-session", "session_state", "Was half way through the payout flow", 89));
  m.push_back(mem("exp-compact", "compact_summary", "Summary of the long session on taxes", 120));
  m.push_back(mem("exp-learning", "task_learning", "The tax tables load lazily on first use", 31));
  m.push_back(mem("keep-learning", "task_learning", "The currency tables load eagerly", 29));
  m.push_back(mem("keep-forever", "decision", "Money is stored in integer cents", 2000));
  m.push_back(mem("keep-norule", "bug_fix", "Rounding used banker's rounding by mistake", 3000));
  p.deletions.insert({"exp-session", "exp-compact", "exp-learning"});
  // No type: compared with the untyped only, and said.
  m.push_back(mem("untyped-a", "", "Remember the staging password rotation on Fridays", 3));
  m.push_back(mem("untyped-b", "", "remember the staging password rotation on fridays"));
  p.deletions.insert("untyped-a");

  p.input.retention = parse_retention("## Retention\ntask_learning: 30d\ndecision: forever\n", 90);
  p.input.now = k_now;
  // Unused: often injected in several sessions, never used.
  p.input.uses["topic-a"] = {7, {"s1", "s2", "s3"}, false};
  p.input.uses["topic-b"] = {9, {"s1", "s2", "s3", "s4"}, true};  // used once: not unused
  p.input.uses["topic-c"] = {6, {"s1", "s2"}, false};             // in 2 sessions only
  p.input.uses["topic-d"] = {4, {"s1", "s2", "s3", "s4"}, false}; // 4 injections only
  return p;
}

std::set<std::string> set_of(const std::vector<std::string> &ids) {
  return {ids.begin(), ids.end()};
}

} // namespace

TEST_CASE("dream: the planted corpus, case by case") {
  const Planted p = planted();
  const DreamPlan plan = plan_dream(p.input);
  CHECK(plan.memories == p.input.memories.size());
  CHECK(set_of(plan.deletions()) == p.deletions);

  std::set<std::vector<std::string>> conflicts;
  for (const auto &c : plan.conflicts)
    conflicts.insert(c.ids);
  CHECK(conflicts == p.conflicts);

  // The kept ones.
  const auto group_of = [&](const std::string &dropped) -> const DuplicateGroup * {
    for (const auto &g : plan.duplicates)
      if (std::count(g.drop.begin(), g.drop.end(), dropped)) return &g;
    return nullptr;
  };
  REQUIRE(group_of("ex-old"));
  CHECK(group_of("ex-old")->keep == "ex-new");
  CHECK(group_of("ex-old")->reason == "exact");
  CHECK(group_of("ex-old")->similarity == 1.0);
  REQUIRE(group_of("near-a"));
  CHECK(group_of("near-a")->keep == "near-b");
  CHECK(group_of("near-a")->reason == "near");
  CHECK(group_of("near-a")->similarity == Approx(10.0 / 12.0));
  REQUIRE(group_of("pin-dup"));
  CHECK(group_of("pin-dup")->keep == "pin-old");
  CHECK(plan.pinned_skipped == 1); // pin-expired

  // Expired: the rule says which.
  std::map<std::string, std::string> rules;
  for (const auto &e : plan.expired)
    rules[e.id] = e.rule;
  CHECK(rules["exp-session"] == "retention_session_days: 90");
  CHECK(rules["exp-compact"] == "retention_session_days: 90");
  CHECK(rules["exp-learning"] == "mem0.md: task_learning: 30d");
  for (const auto &e : plan.expired)
    if (e.id == "exp-session") CHECK(e.age_days == 91);

  // Unused: listed, never deleted.
  REQUIRE(plan.unused.size() == 1);
  CHECK(plan.unused[0].id == "topic-a");
  CHECK(plan.unused[0].injected == 7);
  CHECK(plan.unused[0].sessions == 3);

  CHECK(plan.complete);
  CHECK(std::count_if(plan.problems.begin(), plan.problems.end(), [](const std::string &s) {
          return s.find("no type") != std::string::npos;
        }) == 1);
}

TEST_CASE("dream: precision and recall on the planted corpus, with paraphrases it cannot see") {
  Planted p = planted();
  // Two paraphrased duplicates a word-set rule does not catch (deliberately: no LLM).
  p.input.memories.push_back(
      mem("para-a", "convention", "Prefer pnpm over npm in this project", 3));
  p.input.memories.push_back(
      mem("para-b", "convention", "We install packages with pnpm, not npm", 2));
  p.deletions.insert("para-a");
  const DreamPlan plan = plan_dream(p.input);
  const auto found = set_of(plan.deletions());
  std::size_t hits = 0;
  for (const auto &id : found)
    hits += p.deletions.count(id);
  const double precision = static_cast<double>(hits) / static_cast<double>(found.size());
  const double recall = static_cast<double>(hits) / static_cast<double>(p.deletions.size());
  CHECK(precision == 1.0);
  CHECK(recall == Approx(9.0 / 10.0));
}

TEST_CASE("dream: pinned memories are never deleted, whichever rule") {
  DreamInput in;
  in.now = k_now;
  in.retention = parse_retention("", 90);
  in.memories = {mem("a", "session_state", "Same words here", 200, 200, true),
                 mem("b", "session_state", "same words here", 100, 100, true),
                 mem("c", "session_state", "same words here.", 1, 1, true)};
  const DreamPlan plan = plan_dream(in);
  CHECK(plan.deletions().empty());
  CHECK(plan.pinned_skipped == 2); // a and b: expired, and duplicates of c
}

TEST_CASE("dream: the near threshold is a setting") {
  DreamInput in;
  in.now = k_now;
  in.memories = {mem("a", "decision", "alpha beta gamma delta epsilon zeta eta theta"),
                 mem("b", "decision", "alpha beta gamma delta epsilon zeta eta iota", 2)};
  in.near = 0.8; // 7 of 9: 0.78
  CHECK(plan_dream(in).duplicates.empty());
  in.near = 0.75;
  REQUIRE(plan_dream(in).duplicates.size() == 1);
  CHECK(plan_dream(in).duplicates[0].drop == std::vector<std::string>{"b"});
  CHECK(similarity("alpha beta", "Beta, ALPHA!") == 1.0);
}

TEST_CASE("dream: bad input is reported, not guessed at") {
  DreamInput in;
  in.now = k_now;
  in.complete = false;
  in.problems = {"page 3 of the listing: server error"};
  Memory huge = mem("huge", "decision", std::string(k_max_compared_bytes + 1, 'x'));
  Memory undated = mem("undated", "session_state", "no date here");
  undated.created_at = "last tuesday";
  in.memories = {huge, huge, undated, mem("", "decision", "no id")};
  const DreamPlan plan = plan_dream(in);
  CHECK(plan.memories == 2); // the repeated id once, the one without an id not at all
  CHECK_FALSE(plan.complete);
  CHECK(plan.deletions().empty()); // the undated one never expires
  const auto said = [&](std::string_view what) {
    return std::any_of(plan.problems.begin(), plan.problems.end(),
                       [&](const std::string &s) { return s.find(what) != std::string::npos; });
  };
  CHECK(said("page 3"));
  CHECK(said("too long to compare"));
  CHECK(said("no readable created_at"));
}

TEST_CASE("dream: the JSON has the contract's keys") {
  const DreamPlan plan = plan_dream(planted().input);
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, dream_json(plan)));
  for (const char *key :
       {"memories", "duplicates", "expired", "conflicts", "unused", "pinned_skipped"})
    CHECK(doc.HasMember(key));
  const auto &d = doc["duplicates"][0];
  for (const char *key : {"keep", "drop", "reason", "similarity"})
    CHECK(d.HasMember(key));
  const auto &e = doc["expired"][0];
  for (const char *key : {"id", "type", "age_days", "rule"})
    CHECK(e.HasMember(key));
  CHECK(doc["conflicts"][0].HasMember("ids"));
  CHECK(doc["conflicts"][0].HasMember("why"));
  CHECK(doc["unused"][0]["injected"].GetInt() == 7);
  CHECK(doc["pinned_skipped"].GetInt() == 1);
  CHECK(std::string(doc["conflicts"][0]["why"].GetString()).find("`") != std::string::npos);
}

TEST_CASE("dream: blocking finds every pair an all-pairs comparison finds") {
  // A corpus of random word sets over a small vocabulary (many pairs near the threshold): the
  // planned duplicates and conflicts equal those of comparing every pair.
  std::uint64_t seed = 42;
  const auto next = [&] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<unsigned>(seed >> 33);
  };
  DreamInput in;
  in.now = k_now;
  for (int i = 0; i < 300; ++i) {
    std::string text;
    const int n = 4 + static_cast<int>(next() % 8);
    for (int k = 0; k < n; ++k)
      text += "w" + std::to_string(next() % 30) + " ";
    if (i % 3 == 0 && i > 0) text = in.memories[static_cast<std::size_t>(i - 1)].text + "extra";
    in.memories.push_back(mem("m" + std::to_string(i), i % 2 ? "a" : "b", text, 1 + i % 50));
  }
  const DreamPlan plan = plan_dream(in);
  // All pairs: every dropped one is near its kept one; no near pair of the same type is left
  // with both kept unless one is dropped elsewhere or they conflict.
  std::set<std::string> dropped = set_of(plan.deletions());
  std::map<std::string, const Memory *> by_id;
  for (const auto &m : in.memories)
    by_id[m.id] = &m;
  std::set<std::pair<std::string, std::string>> conflict_pairs;
  for (const auto &c : plan.conflicts)
    conflict_pairs.insert({c.ids[0], c.ids[1]});
  for (const auto &g : plan.duplicates)
    for (const auto &id : g.drop)
      CHECK(similarity(by_id[g.keep]->text, by_id[id]->text) >= in.near);
  std::size_t near_pairs = 0;
  for (std::size_t i = 0; i < in.memories.size(); ++i)
    for (std::size_t j = i + 1; j < in.memories.size(); ++j) {
      const Memory &a = in.memories[i], &b = in.memories[j];
      if (a.type != b.type || dropped.count(a.id) || dropped.count(b.id)) continue;
      const auto key = std::minmax(a.id, b.id);
      if (conflict_pairs.count({key.first, key.second})) continue;
      if (similarity(a.text, b.text) >= in.near) ++near_pairs;
    }
  CHECK(near_pairs == 0);
  CHECK(!plan.duplicates.empty());
}
