// The hook runner without a process: input from a pipe, output to temporary files, the fakes of
// test_support.hpp for the rest (docs/hooks.md#hook-output, docs/capture.md#the-sender).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/agents/claude_code.hpp"
#include "runtime/facts.hpp"
#include "runtime/remember.hpp"
#include "runtime/runner.hpp"
#include "store/outbox.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <stdexcept>
#include <sys/types.h>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;

namespace {

// A handler that names `event` and returns `output`, whatever the input.
RawHandler returning(HookOutput output, std::string event = "") {
  return [output = std::move(output),
          event = std::move(event)](std::string_view, const HookContext &, std::string &named) {
    named = event;
    return output;
  };
}

} // namespace

TEST_CASE("runner: a handler's context reaches stdout in the event's shape", "[runner]") {
  HookFixture f;
  const Ran ran = run_hook_in(f, "on_user_prompt",
                              returning({.context = "- [decision] Invoices round half-even.",
                                         .system_message = "mem0: 1 memory recalled"},
                                        "UserPromptSubmit"));
  CHECK(ran.result.status == 0);
  CHECK(ran.out == R"({"hookSpecificOutput":{"hookEventName":"UserPromptSubmit",)"
                   R"("additionalContext":"- [decision] Invoices round half-even."},)"
                   R"("systemMessage":"mem0: 1 memory recalled"})"
                   "\n");
  CHECK(ran.err.empty());
  CHECK_FALSE(ran.result.detach);

  SECTION("an event the table does not wire for the executable takes the table's") {
    const Ran other = run_hook_in(f, "on_file_read", returning({.context = "x"}, "Stop"));
    CHECK(contains(other.out, R"("hookEventName":"PreToolUse")"));
  }
  SECTION("nothing to show prints nothing") {
    CHECK(run_hook_in(f, "on_user_prompt", returning({}, "UserPromptSubmit")).out.empty());
  }
}

TEST_CASE("runner: a block goes to stderr with status 2", "[runner]") {
  HookFixture f;
  const Ran ran = run_hook_in(
      f, "on_tool_guard",
      returning({.context = "ignored", .block_reason = "use mem0, not MEMORY.md"}, "PreToolUse"));
  CHECK(ran.result.status == 2);
  CHECK(ran.err == "use mem0, not MEMORY.md\n");
  CHECK(ran.out.empty());
}

TEST_CASE("runner: a handler that throws yields status 0, no output and a log line", "[runner]") {
  HookFixture f;
  const fs::path log_file = f.home / "hooks.log";
  f.log.enable_file(log_file);
  const RawHandler throwing = [](std::string_view, const HookContext &,
                                 std::string &) -> HookOutput {
    throw std::runtime_error("the handler broke");
  };
  const Ran ran = run_hook_in(f, "on_user_prompt", throwing);
  CHECK(ran.result.status == 0);
  CHECK(ran.out.empty());
  CHECK_FALSE(ran.result.detach);
  CHECK(contains(read_file(log_file), "internal error: the handler broke"));
}

TEST_CASE("runner: the typed handler reads the event's input and binds the run's facts",
          "[runner]") {
  HookFixture f;
  HookOutput (*handle)(const SessionEndInput &, const HookContext &) = [](const SessionEndInput &,
                                                                          const HookContext &ctx) {
    return HookOutput{.context = ctx.facts->session() + " " + ctx.facts->cwd().string()};
  };
  const std::string cwd = backslashes_escaped(f.project.string()); // in a JSON string
  const std::string input =
      R"({"session_id":"s-7","cwd":")" + cwd + R"(","hook_event_name":"UserPromptSubmit"})";
  const Ran ran =
      run_hook_in(f, "on_user_prompt", typed_handler(&Agent::session_end, handle), input);
  CHECK(contains(ran.out, "s-7 " + cwd));

  SECTION("input that is not JSON prints nothing") {
    CHECK(run_hook_in(f, "on_user_prompt", typed_handler(&Agent::session_end, handle), "not json")
              .out.empty());
  }
}

TEST_CASE("runner: a run that finds items pending and no pause starts the sender",
          "[runner][capture]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(200, R"({"event_id":"e","status":"PENDING"})");
  };
  queue_leftover(f);
  REQUIRE(pending(f) == 1);

  SECTION("any hook: the detached work delivers what is pending") {
    const Ran ran = run_hook_in(f, "on_file_read", returning({.context = "x"}, "PreToolUse"));
    REQUIRE(ran.result.detach);
    CHECK(f.http.requests.empty()); // nothing is sent before the process runs it
    ran.result.detach();
    CHECK(f.http.requests.size() == 1);
    CHECK(pending(f) == 0);
  }
  SECTION("with work of its own: the work runs first, then the round") {
    std::vector<std::string> steps;
    HookOutput output;
    output.detached = [&] { steps.push_back("work, " + std::to_string(pending(f)) + " pending"); };
    const Ran ran = run_hook_in(f, "on_session_start", returning(output, "SessionStart"));
    REQUIRE(ran.result.detach);
    ran.result.detach();
    CHECK(steps == std::vector<std::string>{"work, 1 pending"});
    CHECK(pending(f) == 0);
  }
  SECTION("capture off, or a pause in force: nothing to detach") {
    SECTION("capture off") { f.set_env("MEM0_AUTO_SAVE", "off"); }
    SECTION("paused") {
      REQUIRE(f.store().backoff.record_outcome(f.now, server_of(f.config),
                                               BackoffStore::Outcome::rate_limited));
    }
    CHECK_FALSE(run_hook_in(f, "on_session_end", returning({}, "SessionEnd")).result.detach);
    CHECK(pending(f) == 1);
  }
  SECTION("a pause the run itself started: nothing to detach") {
    const auto handler = [&](std::string_view, const HookContext &ctx, std::string &event) {
      event = "UserPromptSubmit";
      (void)ctx.facts->backoff(); // the run read its facts before the pause began
      REQUIRE(ctx.state.backoff.record_outcome(ctx.now(), server_of(f.config),
                                               BackoffStore::Outcome::rate_limited));
      return HookOutput{};
    };
    CHECK_FALSE(run_hook_in(f, "on_user_prompt", handler).result.detach);
  }
}

TEST_CASE("runner: an empty outbox starts nothing", "[runner][capture]") {
  HookFixture f;
  CHECK_FALSE(run_hook_in(f, "on_session_end", returning({}, "SessionEnd")).result.detach);
}

TEST_CASE("runner: the command line names the agent", "[runner][agents]") {
  auto agent = [](std::initializer_list<const char *> args) {
    std::array<const char *, 4> argv{"on_stop"};
    std::copy(args.begin(), args.end(), argv.begin() + 1);
    return agent_of_args(static_cast<int>(args.size() + 1), argv.data());
  };
  CHECK(agent({}).value() == &claude_code());
  CHECK(agent({"--agent", "claude-code"}).value() == &claude_code());
  for (const Agent *a : agents())
    CHECK(agent({"--agent", a->name.data()}).value() == a);
  CHECK(agent({"--agent", "nope"}).error().message == "unknown agent 'nope'");
  CHECK(agent({"--agent"}).error().message == "unknown argument '--agent'");
  CHECK(agent({"extra"}).error().message == "unknown argument 'extra'");
}

TEST_CASE("runner: the agent renders the output", "[runner][agents]") {
  HookFixture f;
  Agent other = claude_code();
  other.render = [](std::string_view event, const HookOutput &output) {
    return std::string(event) + ":" + output.context;
  };
  const Ran ran = run_hook_in(f, "on_user_prompt",
                              returning({.context = "ctx"}, "UserPromptSubmit"), "{}", other);
  CHECK(ran.out == "UserPromptSubmit:ctx");
}
