// GitHub Copilot CLI's adapter over the payloads a real Copilot CLI 1.0.102 sent
// (tests/unit/fixtures/copilot, docs/agents.md#github-copilot-cli).
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "runtime/agents/copilot.hpp"
#include "runtime/table.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"
#include "util/files.hpp"

#include <rapidjson/document.h>

#include <filesystem>
#include <string>

using namespace mem0;
using namespace mem0::copilot_shape;

namespace {

const std::string k_fixtures = std::string(testing::k_source_dir) + "/tests/unit/fixtures/copilot/";

std::string fixture(const std::string &name) {
  auto text = read_small_file(k_fixtures + name, 1 << 20);
  REQUIRE(text.has_value());
  return *text;
}

// The fixture `name` with its transcriptPath set to `path`.
std::string with_transcript(const std::string &name, const std::string &path) {
  rapidjson::Document doc;
  doc.Parse(fixture(name).c_str());
  REQUIRE(doc.IsObject());
  doc["transcriptPath"].SetString(path.c_str(), static_cast<rapidjson::SizeType>(path.size()),
                                  doc.GetAllocator());
  return adapter::to_json(doc);
}

// A scratch copy of events.jsonl with `extra` lines appended.
std::filesystem::path events_with(const std::string &extra, const std::string &name) {
  const auto path = std::filesystem::temp_directory_path() / name;
  REQUIRE(write_file_atomic(path, fixture("events.jsonl") + extra, Durability::saves_work));
  return path;
}

} // namespace

TEST_CASE("copilot: the common fields and the prompt", "[copilot]") {
  const auto in = parse_prompt(fixture("userPromptSubmitted.json"));
  REQUIRE(in);
  CHECK(in->session_id == "67c4a266-d58c-4074-b289-5e7c4afd1312");
  CHECK(in->cwd == "/home/dev/proj");
  CHECK(in->prompt == "read notes.txt");
  CHECK(in->hook_event_name.empty()); // no payload names its event
  CHECK_FALSE(parse_prompt("[1]"));
}

TEST_CASE("copilot: view is a read of its absolute path", "[copilot]") {
  const auto in = parse_tool(fixture("postToolUse-view.json"));
  REQUIRE(in);
  CHECK(in->tool == ToolKind::read);
  CHECK(in->file_path == "/home/dev/proj/notes.txt");
  CHECK(in->command.empty());
  CHECK(in->error.empty());
}

TEST_CASE("copilot: an edit is a write, with no path for the read recall", "[copilot]") {
  const auto in =
      parse_tool(R"({"sessionId":"s","cwd":"/p","toolName":"edit","toolArgs":{"path":"/p/a.py"}})");
  REQUIRE(in);
  CHECK(in->tool == ToolKind::write);
  CHECK(in->file_path.empty());
}

TEST_CASE("copilot: a failing bash command is a successful tool with exit code 2", "[copilot]") {
  const auto in = parse_tool(fixture("postToolUse-bash-failed.json"));
  REQUIRE(in);
  CHECK(in->tool == ToolKind::shell);
  CHECK(in->file_path.empty());
  CHECK(in->command == "ls /nonexistent; exit 2");
  CHECK(in->error == "Exit code 2\nls: cannot access '/nonexistent': No such file or directory");
  CHECK(in->stdout_text.empty());
}

TEST_CASE("copilot: the shell result's trailer", "[copilot]") {
  auto ok = parse_shell_result("hello\n<shellId: 3 completed with exit code 0>");
  CHECK(ok.output == "hello");
  CHECK(ok.exit_code == 0);
  auto bare = parse_shell_result("no trailer here");
  CHECK(bare.output == "no trailer here");
  CHECK_FALSE(bare.exit_code);
  auto broken = parse_shell_result("x\n<shellId: 3 completed with exit code two>");
  CHECK_FALSE(broken.exit_code);
}

TEST_CASE("copilot: session start's source 'new' is a startup", "[copilot]") {
  const auto in = parse_session_start(fixture("sessionStart.json"));
  REQUIRE(in);
  CHECK(in->source == "startup");
}

TEST_CASE("copilot: agentStop's reply from events.jsonl once the hook's own line is there",
          "[copilot]") {
  // The fixture's transcript lacks agentStop's hook.start line: append it, as Copilot does.
  const auto events = events_with(
      R"({"type":"hook.start","data":{"hookType":"agentStop","input":{"timestamp":1796180790299}}})"
      "\n",
      "mem0-copilot-events.jsonl");
  const auto in = parse_stop(with_transcript("agentStop.json", events.string()));
  REQUIRE(in);
  CHECK(in->last_assistant_message == "All done here.");
  const Transcript t = read_events(events, k_transcript_window);
  REQUIRE(t.messages.size() == 2); // the prompt and the reply: tool requests are not text
  CHECK(t.messages.front().role == "user");
  CHECK(t.messages.front().text == "read notes.txt");
  std::filesystem::remove(events);
}

TEST_CASE("copilot: waiting for a line gives up after its patience", "[copilot]") {
  const auto events = events_with("", "mem0-copilot-wait.jsonl");
  CHECK_FALSE(wait_for_line(events, "\"timestamp\":1", std::chrono::milliseconds(50)));
  CHECK(wait_for_line(events, "All done here.", std::chrono::milliseconds(50)));
  CHECK_FALSE(wait_for_line("/nonexistent/events.jsonl", "x", std::chrono::milliseconds(10)));
  std::filesystem::remove(events);
}

TEST_CASE("copilot: the latest compaction's summary", "[copilot]") {
  const auto events = events_with(
      R"({"type":"session.compaction_complete","data":{"summaryContent":"first"}})"
      "\n"
      R"({"type":"session.compaction_complete","data":{"summaryContent":"second summary"}})"
      "\n",
      "mem0-copilot-compact.jsonl");
  const auto in = parse_compact(with_transcript("preCompact.json", events.string()));
  REQUIRE(in);
  CHECK(in->compact_summary == "second summary");
  CHECK(latest_compaction_summary(k_fixtures + "events.jsonl").empty());
  std::filesystem::remove(events);
}

TEST_CASE("copilot: only top-level additionalContext, where it reaches the model", "[copilot]") {
  const HookOutput out{.context = "remember \"this\"", .system_message = "shown"};
  CHECK(render("userPromptSubmitted", out) ==
        "{\"additionalContext\":\"remember \\\"this\\\"\"}\n");
  CHECK(render("postToolUse", out) == "{\"additionalContext\":\"remember \\\"this\\\"\"}\n");
  CHECK(render("agentStop", out).empty());
  CHECK(render("sessionStart", HookOutput{.system_message = "only a message"}).empty());
}

TEST_CASE("copilot: registered, with its rows", "[copilot]") {
  REQUIRE(find_agent("copilot") == &copilot());
  CHECK(copilot().files.format.command_key == "bash");
  CHECK(copilot().files.format.powershell_key == "powershell");
  CHECK(find_hook("copilot", "on_file_read")->event == "postToolUse");
  CHECK(hook_handles("copilot", "on_compact", "agentStop"));
}
