#include "tests/unit/catch.hpp"

#include "hygiene/retention.hpp"

using namespace mem0::hygiene;

TEST_CASE("retention: mem0.md's section gives days or forever per type") {
  const auto p = parse_retention(R"(# Team memory policy

## Instructions
- decision: 1d is not read here

## Retention
- task_learning: 30d
* decision: forever
session_state: 14d
bug_fix: soon
: 3d

## Other
convention: 5d
)",
                                 90);
  CHECK(p.by_type.at("task_learning") == 30);
  CHECK_FALSE(p.by_type.at("decision").has_value());
  CHECK(p.by_type.at("session_state") == 14);
  CHECK(p.by_type.count("convention") == 0);
  CHECK(p.by_type.count("bug_fix") == 0);
  REQUIRE(p.problems.size() == 2);
  CHECK(p.problems[0] == "mem0.md: not a retention line: bug_fix: soon");

  CHECK(retention_of(p, "task_learning").days == 30);
  CHECK(retention_of(p, "task_learning").rule == "mem0.md: task_learning: 30d");
  CHECK_FALSE(retention_of(p, "decision").days);
  CHECK(retention_of(p, "decision").rule == "mem0.md: decision: forever");
  CHECK(retention_of(p, "session_state").days == 14); // mem0.md wins over the setting
  CHECK(retention_of(p, "compact_summary").days == 90);
  CHECK(retention_of(p, "compact_summary").rule == "retention_session_days: 90");
  CHECK_FALSE(retention_of(p, "bug_fix").days);
  CHECK_FALSE(retention_of(p, "").days);
}

TEST_CASE("retention: no mem0.md, or no section, leaves the setting only") {
  const auto p = parse_retention("", 7);
  CHECK(p.by_type.empty());
  CHECK(retention_of(p, "session_state").days == 7);
  CHECK(retention_of(p, "decision").rule == "never");
  CHECK(parse_retention("## Retention\n", 7).problems.empty());
}

TEST_CASE("retention: times in the shapes the backends write") {
  CHECK(parse_time("1970-01-02") == 86400);
  CHECK(parse_time("1970-01-01T00:01:00Z") == 60);
  CHECK(parse_time("1970-01-01T01:00:00+01:00") == 0);
  CHECK(parse_time("1970-01-01T00:00:00.123456-08:00") == 8 * 3600);
  CHECK(parse_time("2026-03-01T10:00:00.5") == parse_time("2026-03-01T10:00:00Z"));
  CHECK_FALSE(parse_time(""));
  CHECK_FALSE(parse_time("yesterday"));
  CHECK_FALSE(parse_time("2026-02-30"));
  CHECK_FALSE(parse_time("2026-01-01Tnoon"));
}
