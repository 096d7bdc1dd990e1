#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_stop/on_stop.hpp"
#include "runtime/recall.hpp"

using namespace mem0;
using namespace mem0::testing;

namespace {

Memory memory(std::string id, std::string text) {
  Memory m;
  m.id = std::move(id);
  m.text = std::move(text);
  m.type = "decision";
  return m;
}

// What recall claims for the session, as a prompt's recall does.
void inject(HookFixture &f, const std::vector<Memory> &memories) {
  REQUIRE(f.state->sessions.update(
      "session-1", [&](SessionState &s) { (void)claim_new(s, memories, memories.size()); }));
}

const std::string k_pg = "11111111-aaaa-4bbb-8ccc-000000000001";
const std::string k_pnpm = "22222222-aaaa-4bbb-8ccc-000000000002";

} // namespace

TEST_CASE("use signal: recall keeps what it injects until the reply", "[use]") {
  HookFixture f;
  inject(f, {memory(k_pg, "Use PostgreSQL 15 for the billing database"),
             memory(k_pnpm, std::string(5000, 'p'))});
  const SessionState s = f.state->sessions.load("session-1");
  REQUIRE(s.awaiting.size() == 2);
  CHECK(s.awaiting[0].id == k_pg);
  CHECK(s.awaiting[0].text == "Use PostgreSQL 15 for the billing database");
  CHECK(s.awaiting[1].text.size() == k_max_awaiting_bytes); // bounded
  // And at most k_max_awaiting of them, the newest.
  SessionState many;
  for (std::size_t i = 0; i < k_max_awaiting + 5; ++i)
    many.await_reply("id" + std::to_string(i), "text");
  CHECK(many.awaiting.size() == k_max_awaiting);
  CHECK(many.awaiting.front().id == "id5");
  CHECK(parse_session_state(serialize_session_state(many)).awaiting.size() == k_max_awaiting);
}

TEST_CASE("use signal: a reply citing a memory marks it used in the run log", "[use]") {
  HookFixture f;
  inject(f, {memory(k_pg, "Use PostgreSQL 15 for the billing database"),
             memory(k_pnpm, "Use pnpm for every install in this repository")});
  const HookContext ctx = f.context();
  on_stop::mark_used(
      stop_input(f, "Done: the migration targets PostgreSQL 15 as [mem0:11111111] says."), ctx);
  CHECK(ctx.facts->run_record().used == std::vector<std::string>{k_pg});
  // What was checked is forgotten: the next reply is checked against what comes next.
  CHECK(f.state->sessions.load("session-1").awaiting.empty());
  const HookContext again = f.context();
  on_stop::mark_used(stop_input(f, "[mem0:22222222]"), again);
  CHECK(again.facts->run_record().used.empty());
}

TEST_CASE("use signal: an unrelated reply uses nothing", "[use]") {
  HookFixture f;
  inject(f, {memory(k_pg, "Use PostgreSQL 15 for the billing database")});
  const HookContext ctx = f.context();
  on_stop::mark_used(stop_input(f, "I renamed the CSS classes of the login page."), ctx);
  CHECK(ctx.facts->run_record().used.empty());
  CHECK(f.state->sessions.load("session-1").awaiting.empty());
}

TEST_CASE("use signal: a subagent's reply or an empty one leaves the memories waiting", "[use]") {
  HookFixture f;
  inject(f, {memory(k_pg, "Use PostgreSQL 15 for the billing database")});
  StopInput sub = stop_input(f, "[mem0:11111111]");
  sub.agent_id = "subagent-1";
  const HookContext ctx = f.context();
  on_stop::mark_used(sub, ctx);
  on_stop::mark_used(stop_input(f, ""), ctx);
  CHECK(ctx.facts->run_record().used.empty());
  CHECK(f.state->sessions.load("session-1").awaiting.size() == 1);
}

TEST_CASE("use signal: the used ids and the run's time survive the run log", "[use]") {
  HookFixture f;
  RunRecord r;
  r.time = 5;
  r.hook = "on_stop";
  r.used = {k_pg, k_pnpm};
  r.ms = 12;
  CHECK_FALSE(r.empty());
  REQUIRE(f.state->sessions.append_run("session-1", r));
  SessionState s;
  s.log_run(r);
  for (const auto &runs : {f.state->sessions.runs("session-1"),
                           parse_session_state(serialize_session_state(s)).runs}) {
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].used == r.used);
    CHECK(runs[0].ms == 12);
  }
  RunRecord old; // a run logged before either field existed
  old.time = 6;
  old.skipped = {{"gated", "x"}};
  s.log_run(old);
  CHECK(parse_session_state(serialize_session_state(s)).runs[1].ms == -1);
}

TEST_CASE("on_stop: Claude's last message and the files touched, or nothing", "[capture]") {
  HookFixture f;
  write_file(
      f.home / "t.jsonl",
      R"({"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/src/a.py"}}]}})"
      "\n");
  StopInput in = stop_input(f, long_text("We moved the retry logic into the worker."));
  in.transcript_path = (f.home / "t.jsonl").string();
  const auto c = on_stop::summary_capture(in, f.config, f.now);
  REQUIRE(c);
  CHECK(c->type == "session_summary");
  REQUIRE(c->messages.size() == 1);
  CHECK(c->messages[0].role == "assistant");
  CHECK(contains(c->messages[0].content, "Files touched: /p/src/a.py"));
  CHECK(c->expiration_date == "2025-06-08"); // 90 days after 2025-03-10

  CHECK_FALSE(on_stop::summary_capture(stop_input(f, "too short"), f.config, f.now));
  StopInput sub = in;
  sub.agent_id = "agent-7";
  CHECK_FALSE(on_stop::summary_capture(sub, f.config, f.now));
  CHECK_FALSE(on_stop::summary_capture(
      stop_input(f, "<system-reminder>" + long_text("x") + "</system-reminder>"), f.config, f.now));

  CHECK(handled(on_stop::handle, in, f).context.empty());
  CHECK(f.state->outbox.pending().size() == 1);
  CHECK(f.http.requests.empty()); // a capture hook never talks to the network itself
}
