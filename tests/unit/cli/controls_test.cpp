// The user's controls (docs/cli.md#pause-and-resume, docs/cli.md#log): the pause store, every hook
// run while paused (through the runner, with the real handlers and the fake HTTP client), the
// run log in the session state, and the pause, resume and log commands.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/install.hpp"
#include "cli/mcp.hpp"
#include "cli/memories.hpp"
#include "hooks/on_bash_output/on_bash_output.hpp"
#include "hooks/on_compact/on_compact.hpp"
#include "hooks/on_file_read/on_file_read.hpp"
#include "hooks/on_session_end/on_session_end.hpp"
#include "hooks/on_session_start/on_session_start.hpp"
#include "hooks/on_stop/on_stop.hpp"
#include "hooks/on_tool_guard/on_tool_guard.hpp"
#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "mem0/format.hpp"
#include "runtime/agents/claude_code.hpp"
#include "runtime/facts.hpp"
#include "runtime/remember.hpp"
#include "runtime/runner.hpp"
#include "runtime/sender.hpp"
#include "store/outbox.hpp"
#include "store/pause.hpp"
#include "util/utf8.hpp"

#include <functional>
#include <sstream>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

const std::string k_prompt = "How should we structure the retry logic for the sync worker?";
const std::string k_long_text(150, 'x');

// A JSON string literal of `s` (test texts have no quotes; a Windows path has backslashes).
std::string q(const std::string &s) { return "\"" + backslashes_escaped(s) + "\""; }

// The common fields of an event of session `session` in the fixture's project.
std::string common(HookFixture &f, const std::string &event, const std::string &session) {
  return "\"session_id\":" + q(session) + ",\"cwd\":" + q(f.project.string()) +
         ",\"hook_event_name\":" + q(event);
}

// One hook of the automatic set: its executable, handler and an input that would make it work.
struct Hook {
  std::string executable;
  RawHandler handler;
  std::string input;
};

std::vector<Hook> every_hook(HookFixture &f, const std::string &session) {
  const fs::path big = f.project / "src" / "billing.py";
  write_file(big, std::string(3000, 'a'));
  write_file(f.project / "CLAUDE.md", "## Conventions\n\n" + k_long_text + "\n");
  return {
      {"on_user_prompt", typed_handler(&Agent::prompt, &on_user_prompt::handle),
       "{" + common(f, "UserPromptSubmit", session) + ",\"prompt\":" + q(k_prompt) + "}"},
      {"on_file_read", typed_handler(&Agent::tool, &on_file_read::handle),
       "{" + common(f, "PreToolUse", session) +
           ",\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":" + q(big.string()) + "}}"},
      {"on_bash_output", typed_handler(&Agent::tool, &on_bash_output::handle),
       "{" + common(f, "PostToolUseFailure", session) +
           ",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"pytest\"},\"error\":\"Exit "
           "code 1\\nValueError: invalid literal for int() with base 10\"}"},
      {"on_stop", typed_handler(&Agent::stop, &on_stop::handle),
       "{" + common(f, "Stop", session) + ",\"last_assistant_message\":" + q(k_long_text) + "}"},
      {"on_session_start", typed_handler(&Agent::session_start, &on_session_start::handle),
       "{" + common(f, "SessionStart", session) + ",\"source\":\"startup\"}"},
      {"on_compact", typed_handler(&Agent::compact, &on_compact::handle),
       "{" + common(f, "PostCompact", session) + ",\"compact_summary\":" + q(k_long_text) + "}"},
      {"on_session_end", typed_handler(&Agent::session_end, &on_session_end::handle),
       "{" + common(f, "SessionEnd", session) + ",\"reason\":\"exit\"}"},
  };
}

long long at(const HookFixture &f, std::chrono::seconds later = {}) {
  return unix_seconds(f.now + later);
}

// A CLI run in the fixture's home.
struct Cli {
  explicit Cli(HookFixture &fixture) : f(fixture) {}
  HookFixture &f;
  std::ostringstream out, err;
  int run(const std::vector<std::string> &argv) {
    out.str("");
    err.str("");
    return cli::run(argv, cli::CliContext{f.deps(),
                                          out,
                                          err,
                                          f.project,
                                          f.home / "bin",
                                          SteadyClock::now() + std::chrono::seconds(5),
                                          {}});
  }
};

} // namespace

TEST_CASE("pause store: a project's pause, the global one, their ends and resume", "[controls]") {
  TempDir dir;
  PauseStore pauses(real_state_disk(), dir.path());
  const WallTime now = fixed_now();
  const auto project = [](std::string id) { return [id] { return id; }; };
  bool asked = false;
  const auto asking = [&] {
    asked = true;
    return std::string("acme");
  };

  CHECK_FALSE(pauses.active(now, asking));
  CHECK_FALSE(asked); // no file: the project id is not resolved
  REQUIRE(pauses.pause(now, "acme", unix_seconds(now) + 3600));
  CHECK(pauses.active(now, project("acme"))->until == unix_seconds(now) + 3600);
  CHECK(pauses.active(now, project("acme"))->project == "acme");
  CHECK_FALSE(pauses.active(now, project("other")));
  CHECK_FALSE(pauses.active(now + std::chrono::hours(1), project("acme"))); // ended by itself

  REQUIRE(pauses.pause(now, "", 0)); // everywhere, until resumed
  asked = false;
  CHECK(pauses.active(now, asking)->until == 0); // the global one ends last
  CHECK(pauses.active(now, project("other"))->project.empty());

  CHECK(pauses.resume(now, "acme").value());
  CHECK_FALSE(pauses.resume(now, "acme").value()); // nothing left to end
  asked = false;
  CHECK(pauses.active(now, asking)); // the global one holds, without asking for the project
  CHECK_FALSE(asked);
  CHECK(pauses.resume(now, "").value());
  CHECK_FALSE(pauses.active(now, project("acme")));

  write_file(pauses.file(), "not json");
  CHECK_FALSE(pauses.active(now, project("acme")));
}

TEST_CASE("pause store: durations", "[controls]") {
  CHECK(parse_duration("30m") == std::chrono::seconds(1800));
  CHECK(parse_duration("2h") == std::chrono::seconds(7200));
  CHECK(parse_duration("1d") == std::chrono::seconds(86400));
  CHECK(parse_duration("45s") == std::chrono::seconds(45));
  for (const char *bad : {"", "h", "0h", "2", "2w", "-1h", "1.5h", "366d", "99999999999d"})
    CHECK_FALSE(parse_duration(bad));
}

TEST_CASE("paused: no hook sends or queues anything, and the session is told once", "[controls]") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Retry the sync worker with exponential backoff")});
  queue_leftover(f);
  REQUIRE(pending(f) == 1);
  SECTION("this project, until a time") {
    REQUIRE(f.store().pauses.pause(f.now, "proj", at(f, std::chrono::hours(2))));
  }
  SECTION("everywhere, until resumed") { REQUIRE(f.store().pauses.pause(f.now, "", 0)); }
  const auto until = f.store().pauses.active(f.now, [] { return std::string("proj"); })->until;
  const std::string line = "mem0: paused by you until " +
                           (until == 0 ? std::string("you resume") : local_time(until)) +
                           " \xE2\x80\x94 mem0-hooks resume";

  std::size_t told = 0;
  for (const Hook &hook : every_hook(f, "s1")) {
    INFO(hook.executable);
    const Ran ran = run_hook_in(f, hook.executable, hook.handler, hook.input);
    CHECK(ran.result.status == 0);
    CHECK_FALSE(ran.result.detach); // no sender, no capture, no import
    CHECK(f.http.requests.empty());
    CHECK(pending(f) == 1);
    if (contains(ran.out, line)) ++told;
  }
  CHECK(told == 1); // the first run, once per session

  // Another session is told too; its every run again sends nothing.
  const Hook prompt = every_hook(f, "s2").front();
  CHECK(contains(run_hook_in(f, prompt.executable, prompt.handler, prompt.input).out, line));
  CHECK(f.http.requests.empty());
  // A session whose first run only captures is told by the runner.
  const Hook stop = every_hook(f, "s3")[3];
  CHECK(contains(run_hook_in(f, stop.executable, stop.handler, stop.input).out, line));
  CHECK_FALSE(contains(run_hook_in(f, stop.executable, stop.handler, stop.input).out, line));
  CHECK(pending(f) == 1);
  // The run log says why.
  const auto runs = f.store().sessions.runs("s1");
  REQUIRE_FALSE(runs.empty());
  CHECK(runs.front().hook == "on_user_prompt");
  REQUIRE_FALSE(runs.front().skipped.empty());
  CHECK(runs.front().skipped.front().reason == "paused");
}

TEST_CASE("paused: the guard still blocks native memory writes", "[controls]") {
  HookFixture f;
  REQUIRE(f.store().pauses.pause(f.now, "", 0));
  const std::string input =
      "{" + common(f, "PreToolUse", "s1") +
      ",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":" +
      q((f.home / ".claude" / "projects" / "x" / "memory" / "MEMORY.md").string()) +
      ",\"content\":\"remember this\"}}";
  const Ran ran =
      run_hook_in(f, "on_tool_guard", typed_handler(&Agent::tool, &on_tool_guard::handle), input);
  CHECK(ran.result.status == 2);
  CHECK(f.http.requests.empty());
}

TEST_CASE("paused: after resume, recall is back; an expired pause ends by itself", "[controls]") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Retry the sync worker with exponential backoff")});
  const Hook prompt = every_hook(f, "s1").front();
  REQUIRE(f.store().pauses.pause(f.now, "proj", at(f, std::chrono::minutes(30))));
  CHECK_FALSE(
      contains(run_hook_in(f, prompt.executable, prompt.handler, prompt.input).out, "Retry"));
  CHECK(f.http.requests.empty());

  SECTION("resumed") { REQUIRE(f.store().pauses.resume(f.now, "proj").value()); }
  SECTION("expired") { f.now += std::chrono::minutes(31); }
  CHECK(contains(run_hook_in(f, prompt.executable, prompt.handler, prompt.input).out, "Retry"));
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("run log: what a run injected, what it skipped and why", "[controls]") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Retry the sync worker with exponential backoff"),
                 memory(2, "convention", "Workers log one line per retry")});
  const Hook prompt = every_hook(f, "s1").front();
  run_hook_in(f, prompt.executable, prompt.handler, prompt.input);
  auto runs = f.store().sessions.runs("s1");
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].hook == "on_user_prompt");
  CHECK(runs[0].time == unix_seconds(f.now));
  REQUIRE(runs[0].memories.size() == 2);
  CHECK(runs[0].memories[0] == std::pair<std::string, std::string>(id_of(1), "decision"));
  CHECK(runs[0].memories[1] == std::pair<std::string, std::string>(id_of(2), "convention"));
  CHECK(runs[0].chars ==
        code_points(
            context_line(memory(1, "decision", "Retry the sync worker with exponential backoff"))) +
            code_points(context_line(memory(2, "convention", "Workers log one line per retry"))));

  // The same memories again: deduped. A short prompt: gated, stored by the runner.
  run_hook_in(f, prompt.executable, prompt.handler, prompt.input);
  const std::string short_prompt =
      "{" + common(f, "UserPromptSubmit", "s1") + ",\"prompt\":\"hi\"}";
  run_hook_in(f, prompt.executable, prompt.handler, short_prompt);
  runs = f.store().sessions.runs("s1");
  REQUIRE(runs.size() == 3);
  CHECK(runs[1].memories.empty());
  REQUIRE_FALSE(runs[1].skipped.empty());
  CHECK(runs[1].skipped[0].reason == "deduped");
  CHECK(runs[1].skipped[0].detail == "2 memories already shown in this session");
  REQUIRE(runs[2].skipped.size() == 1);
  CHECK(runs[2].skipped[0].reason == "gated");

  // A short reply: the stop hook's gate.
  const Hook stop = every_hook(f, "s1")[3];
  run_hook_in(f, stop.executable, stop.handler,
              "{" + common(f, "Stop", "s1") + ",\"last_assistant_message\":\"ok\"}");
  runs = f.store().sessions.runs("s1");
  REQUIRE(runs.size() == 4);
  CHECK(runs[3].hook == "on_stop");
  CHECK(runs[3].skipped.at(0).reason == "gated");
}

TEST_CASE("run log: bounded, and read back as written", "[controls]") {
  SessionState s;
  for (int i = 0; i < 60; ++i)
    s.log_run({i, "on_file_read", {{id_of(i), "decision"}}, 10, {{"gated", "why"}}});
  REQUIRE(s.runs.size() == k_max_runs);
  CHECK(s.runs.front().time == 10);
  const SessionState back = parse_session_state(serialize_session_state(s));
  REQUIRE(back.runs.size() == k_max_runs);
  CHECK(back.runs.back().time == 59);
  CHECK(back.runs.back().memories == s.runs.back().memories);
  CHECK(back.runs.back().chars == 10);
  CHECK(back.runs.back().skipped.at(0).detail == "why");
}

TEST_CASE("cli: pause, resume, and doctor's rows", "[controls][cli]") {
  HookFixture f;
  Cli cli(f);
  REQUIRE(cli.run({"pause", "--for", "2h"}) == cli::k_ok);
  CHECK(contains(cli.out.str(),
                 "paused for project proj until " + local_time(at(f, std::chrono::hours(2)))));
  CHECK(f.store().pauses.active(f.now, [] { return std::string("proj"); })->until ==
        at(f, std::chrono::hours(2)));
  CHECK(cli.run({"pause", "--for", "2x"}) == cli::k_usage);

  cli.run({"doctor"});
  CHECK(contains(cli.out.str(), "paused      by you for project proj until "));
  CHECK(contains(cli.out.str(), "(mem0-hooks resume)"));

  REQUIRE(cli.run({"pause", "--global"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "paused everywhere until you resume"));
  REQUIRE(cli.run({"resume"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "mem0: resumed for project proj"));
  CHECK(contains(cli.out.str(), "still paused by you everywhere until you resume"));
  REQUIRE(cli.run({"resume", "--global"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "mem0: resumed everywhere"));
  REQUIRE(cli.run({"resume"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "nothing was paused for project proj"));
  cli.run({"doctor"});
  CHECK_FALSE(contains(cli.out.str(), "paused      "));
}

TEST_CASE("cli: remember while paused sends its own memory; earlier captures wait",
          "[controls][cli]") {
  HookFixture f;
  queue_leftover(f);
  REQUIRE(pending(f) == 1);
  Cli cli(f);
  REQUIRE(cli.run({"pause"}) == cli::k_ok);
  REQUIRE(cli.run({"remember", "Invoices are retried at most five times"}) == cli::k_ok);
  REQUIRE(f.http.requests.size() == 1);
  CHECK(contains(f.http.requests[0].body, "five times"));
  CHECK(pending(f) == 1); // the automatic capture waits for resume
}

TEST_CASE("cli: with capture off, a remember its call left queued gets a sender of its own, which "
          "sends it and holds the automatic captures back",
          "[controls][cli]") {
  HookFixture f;
  queue_leftover(f); // an automatic capture from before capture was turned off
  f.set_env("MEM0_AUTO_SAVE", "false");
  std::vector<std::function<void()>> started;
  std::ostringstream out, err;
  // The call's budget is spent before its round sends anything.
  const cli::CliContext ctx{f.deps(),
                            out,
                            err,
                            f.project,
                            f.home / "bin",
                            SteadyClock::now(),
                            [&](const DetachedWork &work) -> Result<void> {
                              started.push_back(work);
                              return {};
                            }};
  REQUIRE(cli::run({"remember", "Invoices are retried at most five times"}, ctx) == cli::k_ok);
  CHECK(contains(out.str(), "queued"));
  CHECK(f.http.requests.empty());
  REQUIRE(pending(f) == 2);
  REQUIRE(started.size() == 1);
  started[0](); // the detached sender, run in place
  REQUIRE(f.http.requests.size() == 1);
  CHECK(contains(f.http.requests[0].body, "five times"));
  CHECK(pending(f) == 1); // the automatic capture waits until capture is on again

  SECTION("a later hook run starts a sender for such an add too, not for the captures alone") {
    CHECK_FALSE(sender_work_in(f)); // only the held-back capture is left
    REQUIRE(cli::run({"remember", "Refunds go through the ledger service"}, ctx) == cli::k_ok);
    REQUIRE(pending(f) == 2);
    const auto work = sender_work_in(f);
    REQUIRE(work);
    work();
    REQUIRE(f.http.requests.size() == 2);
    CHECK(contains(f.http.requests[1].body, "ledger service"));
    CHECK(pending(f) == 1);
  }
}

TEST_CASE("cli: log shows a session's runs and totals; doctor its last skip", "[controls][cli]") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Retry the sync worker with exponential backoff")});
  const Hook prompt = every_hook(f, "s1").front();
  run_hook_in(f, prompt.executable, prompt.handler, prompt.input);
  run_hook_in(f, prompt.executable, prompt.handler,
              "{" + common(f, "UserPromptSubmit", "s1") + ",\"prompt\":\"/clear\"}");
  Cli cli(f);

  REQUIRE(cli.run({"log"}) == cli::k_ok); // the session written last
  const std::string text = cli.out.str();
  CHECK(contains(text, "session s1"));
  CHECK(contains(text, "on_user_prompt"));
  CHECK(contains(text, "injected 1 memory"));
  CHECK(contains(text, id_of(1) + " [decision]"));
  CHECK(contains(text, "skipped gated: a prompt under 20 characters, or a slash command"));
  CHECK(contains(text, "totals: 2 runs, 1 memory injected"));

  REQUIRE(cli.run({"log", "--session", "s1", "--json"}) == cli::k_ok);
  rapidjson::Document doc;
  doc.Parse(cli.out.str().c_str());
  REQUIRE(doc.IsObject());
  CHECK(doc["runs"].Size() == 2);
  CHECK(std::string(doc["runs"][0]["memories"][0]["id"].GetString()) == id_of(1));
  CHECK(doc["totals"]["memories"].GetInt() == 1);
  CHECK(doc["totals"]["tokens"].GetInt() == (doc["totals"]["chars"].GetInt() + 3) / 4);

  REQUIRE(cli.run({"log", "--session", "nobody"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "No hook run logged in session nobody."));

  cli.run({"doctor"});
  CHECK(contains(cli.out.str(), "last skip   "));
  CHECK(contains(cli.out.str(), "on_user_prompt: gated: a prompt under 20 characters"));
}

TEST_CASE("cli: log's default session is one with a run log, not the memory tools' id map",
          "[controls][cli]") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Retry the sync worker with exponential backoff")});
  const Hook prompt = every_hook(f, "s1").front();
  run_hook_in(f, prompt.executable, prompt.handler, prompt.input);
  // The MCP server, run later outside a Claude Code session, registers the ids it showed.
  REQUIRE(f.state->sessions.update(std::string(mem0::k_tool_session),
                                   [](SessionState &s) { s.injected.push_back(id_of(2)); }));
  const fs::path later = f.state->dir / "sessions" / (std::string(mem0::k_tool_session) + ".json");
  f.memory.set_modified(later, f.disk().modified(later).value() + std::chrono::hours(1));
  Cli cli(f);
  REQUIRE(cli.run({"log"}) == cli::k_ok);
  CHECK(contains(cli.out.str(), "session s1"));
  CHECK(contains(cli.out.str(), "injected 1 memory"));
}

TEST_CASE("paused: what was said during the pause is not captured after resume", "[controls]") {
  HookFixture f;
  const fs::path transcript = f.home / "session.jsonl";
  auto line = [](const std::string &uuid, const std::string &role, const std::string &text) {
    return R"({"type":")" + role + R"(","uuid":")" + uuid + R"(","message":{"role":")" + role +
           R"(","content":")" + text + "\"}}\n";
  };
  PromptInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  in.transcript_path = transcript.string();
  in.prompt = "A prompt long enough to count as a prompt";
  auto third_prompt = [&] {
    HookOutput out;
    for (int i = 0; i < 3; ++i)
      out = handled(on_user_prompt::handle, in, f);
    return out;
  };
  Outbox outbox(f.disk(), f.config.state_dir);

  REQUIRE(f.store().pauses.pause(f.now, "", 0));
  write_file(transcript,
             line("u1", "user", "This is private: the staging password rotation plan") +
                 line("a1", "assistant", "Understood, here is the rotation plan in full detail."));
  third_prompt(); // paused: searched nothing, asked the session to pass this over
  REQUIRE(f.store().pauses.resume(f.now, "").value());

  const HookOutput after = third_prompt();
  REQUIRE(after.detached);
  after.detached();
  CHECK(outbox.pending().empty());

  write_file(transcript,
             read_file(transcript) +
                 line("u2", "user", "Now add a jittered backoff to the retry helper") +
                 line("a2", "assistant",
                      "Added full jitter with a 30 s ceiling, and a test for the helper."));
  const HookOutput next = third_prompt();
  REQUIRE(next.detached);
  next.detached();
  REQUIRE(outbox.pending().size() == 1);
  const std::string body = platform_body(outbox.load(outbox.pending()[0]));
  CHECK(contains(body, "jittered backoff"));
  CHECK_FALSE(contains(body, "private"));
}
