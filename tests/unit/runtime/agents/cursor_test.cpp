// The Cursor adapter (runtime/agents/cursor.cpp) over inputs written from Cursor's documented hook
// schema (tests/unit/fixtures/cursor/, docs/agents.md#cursor): no client runs here to record them.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_bash_output/on_bash_output.hpp"
#include "hooks/on_file_read/on_file_read.hpp"
#include "hooks/on_session_end/on_session_end.hpp"
#include "hooks/on_session_start/on_session_start.hpp"
#include "hooks/on_stop/on_stop.hpp"
#include "runtime/agent.hpp"
#include "runtime/runner.hpp"
#include "runtime/table.hpp"
#include "store/outbox.hpp"
#include "util/files.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;

namespace {

// The fixture `name`, its project placeholder replaced by `project` (inside a JSON string: a
// Windows path's backslashes escaped).
std::string fixture(std::string_view name, const fs::path &project = "/work/project") {
  const auto text = read_small_file(std::string(testing::k_source_dir) +
                                    "/tests/unit/fixtures/cursor/" + std::string(name) + ".json");
  REQUIRE(text.has_value());
  const std::string escaped = testing::backslashes_escaped(project.string());
  std::string out = *text;
  for (std::size_t at; (at = out.find("__PROJECT__")) != std::string::npos;)
    out.replace(at, 11, escaped);
  return out;
}

// A run as Cursor runs it.
Ran run(HookFixture &f, std::string_view executable, const RawHandler &handler,
        const std::string &input) {
  return run_hook_in(f, executable, handler, input, cursor());
}

// True when `out` is one JSON object whose only member is additional_context, a string.
bool only_additional_context(const std::string &out) {
  rapidjson::Document doc;
  if (!parse_json(doc, out) || !doc.IsObject() || doc.MemberCount() != 1) return false;
  return doc.HasMember("additional_context") && doc["additional_context"].IsString();
}

} // namespace

TEST_CASE("cursor: the common fields: conversation, event, transcript, first workspace root",
          "[cursor]") {
  const auto in = cursor().tool(fixture("post_tool_use_read"));
  REQUIRE(in.has_value());
  CHECK(in->session_id == "c0ffee00-1111-2222-3333-444455556666");
  CHECK(in->hook_event_name == "postToolUse");
  CHECK(in->cwd == "/work/project");
  CHECK(in->transcript_path == "/home/dev/.cursor/projects/p/agent-transcripts/c0ffee00.txt");

  SECTION("without workspace_roots, cwd; sessionStart's session_id without conversation_id") {
    const auto bare = cursor().session_start(
        R"({"session_id":"s-1","cwd":"/elsewhere","hook_event_name":"sessionStart"})");
    REQUIRE(bare.has_value());
    CHECK(bare->session_id == "s-1");
    CHECK(bare->cwd == "/elsewhere");
    CHECK(bare->source == "startup"); // a conversation created
  }
  SECTION("fields of the wrong type are empty; input that is not an object is an error") {
    const auto wrong = cursor().tool(
        R"({"conversation_id":7,"workspace_roots":[3],"tool_name":["Read"],"tool_output":5})");
    REQUIRE(wrong.has_value());
    CHECK(wrong->session_id.empty());
    CHECK(wrong->cwd.empty());
    CHECK(wrong->tool == ToolKind::other);
    CHECK(wrong->stdout_text.empty());
    CHECK_FALSE(cursor().tool("[1]").has_value());
    CHECK_FALSE(cursor().stop("not json").has_value());
  }
}

TEST_CASE("cursor: tools: Read's file, Shell's command, exit code and output", "[cursor]") {
  const auto read = cursor().tool(fixture("post_tool_use_read"));
  REQUIRE(read.has_value());
  CHECK(read->tool_name == "Read");
  CHECK(read->tool == ToolKind::read);
  CHECK(read->tool_use_id == "toolu_read_1");
  CHECK(read->file_path == "/work/project/src/billing.py");

  const auto shell = cursor().tool(fixture("post_tool_use_shell"));
  REQUIRE(shell.has_value());
  CHECK(shell->tool == ToolKind::shell);
  CHECK(shell->command == "pytest -q");
  CHECK(shell->error == "Exit code 1");
  CHECK(contains(shell->stdout_text, "AttributeError: 'NoneType' object has no attribute"));
  CHECK(shell->stderr_text == "1 failed in 0.12s");
  CHECK(shell->cwd == "/work/project"); // the workspace root, not the empty cwd

  SECTION("a success has no error; output under \"output\" is read as stdout") {
    const auto ok = cursor().tool(
        R"({"tool_name":"Shell","tool_input":{"command":"ls"},"tool_output":"{\"exitCode\":0,\"output\":\"a\\nb\"}"})");
    REQUIRE(ok.has_value());
    CHECK(ok->error.empty());
    CHECK(ok->stdout_text == "a\nb");
  }
  SECTION("tool_output that is not JSON is the output as it is") {
    const auto raw = cursor().tool(R"({"tool_name":"Shell","tool_output":"plain text"})");
    REQUIRE(raw.has_value());
    CHECK(raw->stdout_text == "plain text");
  }
  SECTION("other names of a read's file; Write is a write") {
    CHECK(cursor().tool(R"({"tool_input":{"path":"/a"}})").value().file_path == "/a");
    CHECK(cursor().tool(R"({"tool_input":{"target_file":"/b"}})").value().file_path == "/b");
    CHECK(cursor().tool(R"({"tool_name":"Write"})").value().tool == ToolKind::write);
    CHECK(cursor().tool(R"({"tool_name":"Grep"})").value().tool == ToolKind::other);
  }
}

TEST_CASE("cursor: afterAgentResponse's text is the turn's message; stop and preCompact carry none",
          "[cursor]") {
  const auto response = cursor().stop(fixture("after_agent_response"));
  REQUIRE(response.has_value());
  CHECK(response->last_assistant_message.starts_with("I fixed the failing billing test"));
  const auto stop = cursor().stop(fixture("stop"));
  REQUIRE(stop.has_value());
  CHECK(stop->last_assistant_message.empty());
  const auto compact = cursor().compact(fixture("pre_compact"));
  REQUIRE(compact.has_value());
  CHECK(compact->compact_summary.empty());
  CHECK(cursor().prompt(fixture("before_submit_prompt")).value().prompt ==
        "Why does the billing test fail?");
  CHECK(cursor().session_end(fixture("session_end")).value().reason == "completed");
}

TEST_CASE("cursor: render writes additional_context on sessionStart and postToolUse only",
          "[cursor]") {
  const HookOutput out{.context = "- [decision] \"round\" half-even\nnext",
                       .system_message = "mem0: shown to the user elsewhere"};
  CHECK(cursor().render("sessionStart", out) ==
        R"({"additional_context":"- [decision] \"round\" half-even\nnext"})"
        "\n");
  CHECK(only_additional_context(cursor().render("postToolUse", out)));
  for (std::string_view event :
       {"beforeSubmitPrompt", "beforeReadFile", "preToolUse", "stop", "afterAgentResponse",
        "preCompact", "sessionEnd", "SessionStart"}) {
    CAPTURE(event);
    CHECK(cursor().render(event, out).empty());
  }
  // A message for the user alone has no documented field: nothing is printed.
  CHECK(cursor().render("sessionStart", {.system_message = "no key"}).empty());
}

TEST_CASE("cursor: the table wires only events whose output cannot fail closed", "[cursor]") {
  std::set<std::string> events;
  for (const HookSpec &h : hooks_of("cursor"))
    events.emplace(h.event);
  CHECK(events ==
        std::set<std::string>{"sessionStart", "postToolUse", "afterAgentResponse", "sessionEnd"});
  REQUIRE(find_hook("cursor", "on_file_read") != nullptr);
  CHECK(find_hook("cursor", "on_file_read")->matcher == "Read");
  CHECK(find_hook("cursor", "on_bash_output")->matcher == "Shell");
  CHECK(find_hook("cursor", "on_user_prompt") == nullptr);
  CHECK(find_hook("cursor", "on_tool_guard") == nullptr);
}

TEST_CASE("cursor: each wired event exits 0 and prints nothing or additional_context alone",
          "[cursor]") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "Billing totals round half-even through Money")});

  SECTION("postToolUse Read: after-read recall") {
    fs::create_directories(f.project / "src");
    REQUIRE(write_file_atomic(f.project / "src" / "billing.py", std::string(2000, '#'),
                              Durability::saves_work));
    const Ran ran = run(f, "on_file_read", typed_handler(&Agent::tool, on_file_read::handle),
                        fixture("post_tool_use_read", f.project));
    CHECK(ran.result.status == 0);
    CHECK(only_additional_context(ran.out));
    CHECK(contains(ran.out, "Billing totals round half-even"));
  }
  SECTION("postToolUse Shell: error recall") {
    const Ran ran = run(f, "on_bash_output", typed_handler(&Agent::tool, on_bash_output::handle),
                        fixture("post_tool_use_shell", f.project));
    CHECK(ran.result.status == 0);
    CHECK(only_additional_context(ran.out));
    CHECK(contains(ran.out, "Prior errors like this"));
  }
  SECTION("sessionStart") {
    const Ran ran =
        run(f, "on_session_start", typed_handler(&Agent::session_start, on_session_start::handle),
            fixture("session_start", f.project));
    CHECK(ran.result.status == 0);
    CHECK((ran.out.empty() || only_additional_context(ran.out)));
  }
  SECTION("afterAgentResponse: the turn is captured once, tagged cursor") {
    const std::string input = fixture("after_agent_response", f.project);
    const Ran ran = run(f, "on_stop", typed_handler(&Agent::stop, on_stop::handle), input);
    CHECK(ran.result.status == 0);
    CHECK(ran.out.empty());
    const Outbox outbox(f.disk(), f.config.state_dir);
    const auto pending = outbox.pending();
    REQUIRE(pending.size() == 1);
    const auto item = outbox.load(pending[0]);
    REQUIRE(item.has_value());
    const auto &meta = item->add.metadata;
    CHECK(std::find(meta.begin(), meta.end(),
                    std::pair<std::string, std::string>("agent", "cursor")) != meta.end());
    CHECK(std::find(meta.begin(), meta.end(),
                    std::pair<std::string, std::string>(
                        "session_id", "cursor-c0ffee00-1111-2222-3333-444455556666")) !=
          meta.end());
    // The same text again (a second hook, a retried run) is not a second capture.
    CHECK(run(f, "on_stop", typed_handler(&Agent::stop, on_stop::handle), input).result.status ==
          0);
    CHECK(f.state->outbox.pending().size() == 1);
  }
  SECTION("sessionEnd") {
    const Ran ran =
        run(f, "on_session_end", typed_handler(&Agent::session_end, on_session_end::handle),
            fixture("session_end", f.project));
    CHECK(ran.result.status == 0);
    CHECK(ran.out.empty());
  }
  SECTION("no key: the notice has no Cursor field, so nothing is printed") {
    f.unset_env("MEM0_API_KEY");
    const Ran ran =
        run(f, "on_session_start", typed_handler(&Agent::session_start, on_session_start::handle),
            fixture("session_start", f.project));
    CHECK(ran.result.status == 0);
    CHECK(ran.out.empty());
  }
  SECTION("bad input: a log line, exit 0, nothing printed") {
    const Ran ran =
        run(f, "on_file_read", typed_handler(&Agent::tool, on_file_read::handle), "{not json");
    CHECK(ran.result.status == 0);
    CHECK(ran.out.empty());
  }
}
