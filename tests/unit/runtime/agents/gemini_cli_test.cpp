// Gemini CLI's adapter over the payloads a real Gemini CLI 0.61.0 sent
// (tests/unit/fixtures/gemini-cli, docs/agents.md#gemini-cli).
#include "runtime/agent.hpp"
#include "runtime/agents/adapter.hpp"
#include "runtime/agents/gemini_cli.hpp"
#include "runtime/table.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"
#include "util/files.hpp"

#include <rapidjson/document.h>

#include <set>
#include <string>
#include <tuple>

using namespace mem0;
using namespace mem0::gemini_cli_shape;

namespace {

const std::string k_fixtures =
    std::string(testing::k_source_dir) + "/tests/unit/fixtures/gemini-cli/";

std::string fixture(const std::string &name) {
  auto text = read_small_file(k_fixtures + name, 1 << 20);
  REQUIRE(text.has_value());
  return *text;
}

// The fixture `name` with its transcript_path pointing at `transcript` (a fixture too).
std::string with_transcript(const std::string &name, const std::string &transcript) {
  rapidjson::Document doc;
  doc.Parse(fixture(name).c_str());
  REQUIRE(doc.IsObject());
  const std::string path = k_fixtures + transcript;
  doc["transcript_path"].SetString(path.c_str(), static_cast<rapidjson::SizeType>(path.size()),
                                   doc.GetAllocator());
  return adapter::to_json(doc);
}

} // namespace

TEST_CASE("gemini-cli: the common fields of every event", "[agents][gemini]") {
  const auto in = parse_session_start(fixture("SessionStart.json"));
  REQUIRE(in.has_value());
  CHECK(in->session_id == "c6104aa0-1e35-4130-a3d3-47369b7dd0e9");
  CHECK(in->cwd == "/home/dev/project");
  CHECK(in->hook_event_name == "SessionStart");
  CHECK(in->transcript_path.starts_with("/home/dev/.gemini/tmp/project/chats/session-"));
  CHECK(in->transcript_path.ends_with(".jsonl"));
  CHECK(in->source == "startup");
  const auto end = parse_session_end(fixture("SessionEnd.json"));
  REQUIRE(end.has_value());
  CHECK(end->reason == "exit");
  const auto compact = parse_compact(fixture("PreCompress.json"));
  REQUIRE(compact.has_value());
  CHECK(compact->hook_event_name == "PreCompress");
  CHECK(compact->compact_summary.empty()); // only `trigger`: nothing to capture
}

TEST_CASE("gemini-cli: BeforeAgent's prompt, without the text of @-named files",
          "[agents][gemini]") {
  const auto plain = parse_prompt(fixture("BeforeAgent.json"));
  REQUIRE(plain.has_value());
  CHECK(plain->prompt == "Explain how partial refund rounding works");
  const auto at_file = parse_prompt(fixture("BeforeAgent-at-file.json"));
  REQUIRE(at_file.has_value());
  CHECK(at_file->prompt == "Explain @src/billing/invoice.py briefly");
  CHECK(typed_prompt("no files") == "no files");
  // Headless, SessionStart's context comes before the prompt (seen in 0.61.0).
  const auto after_start = parse_prompt(
      R"({"hook_event_name":"BeforeAgent","prompt":"<hook_context>### mem0: 3 memories for p)"
      R"( &lt;x&gt;</hook_context>\n\nExplain refunds"})");
  REQUIRE(after_start.has_value());
  CHECK(after_start->prompt == "Explain refunds");
  CHECK(typed_prompt("<hook_context>unclosed") == "<hook_context>unclosed");
}

TEST_CASE("gemini-cli: read_file before and after, with the path as the model wrote it",
          "[agents][gemini]") {
  for (const char *name : {"BeforeTool-read_file.json", "AfterTool-read_file.json"}) {
    CAPTURE(name);
    const auto in = parse_tool(fixture(name));
    REQUIRE(in.has_value());
    CHECK(in->tool_name == "read_file");
    CHECK(in->tool == ToolKind::read);
    CHECK(in->file_path == "src/billing/invoice.py"); // relative: on_file_read resolves it
    CHECK(in->cwd == "/home/dev/project");
    CHECK(in->tool_input == R"({"file_path":"src/billing/invoice.py"})");
    CHECK(in->error.empty());
    CHECK(in->stdout_text.empty()); // a file's text is not a shell's output
  }
}

TEST_CASE("gemini-cli: read_many_files names its first plain path", "[agents][gemini]") {
  const auto in =
      parse_tool(R"({"hook_event_name":"AfterTool","tool_name":"read_many_files",)"
                 R"("tool_input":{"include":["src/**/*.ts","docs/api.md","README.md"]}})");
  REQUIRE(in.has_value());
  CHECK(in->tool == ToolKind::read);
  CHECK(in->file_path == "docs/api.md");
}

TEST_CASE("gemini-cli: a failed shell command's exit code and output", "[agents][gemini]") {
  const auto in = parse_tool(fixture("AfterTool-run_shell_command-failed.json"));
  REQUIRE(in.has_value());
  CHECK(in->tool == ToolKind::shell);
  CHECK(in->command == "ls missing-dir");
  CHECK(in->error == "Exit code 2\nls: cannot access 'missing-dir': No such file or directory");
  CHECK(in->stdout_text.empty());
  const auto ok = parse_tool(fixture("AfterTool-run_shell_command.json"));
  REQUIRE(ok.has_value());
  CHECK(ok->error.empty());
  CHECK(ok->stdout_text == "hello");
}

TEST_CASE("gemini-cli: run_shell_command's llmContent, section by section", "[agents][gemini]") {
  const auto r = parse_shell_result("<untrusted_context>\nOutput: a\nError: b\nline\n"
                                    "Error: spawn bash ENOENT\nExit Code: 127\nSignal: 9\n"
                                    "Background PIDs: 1, 2\nProcess Group PGID: 3\n"
                                    "</untrusted_context>");
  CHECK(r.output == "a\nError: b\nline"); // an output line like a section stays output
  CHECK(r.error == "spawn bash ENOENT");
  CHECK(r.exit_code == 127);
  const auto empty = parse_shell_result("Output: (empty)\nProcess Group PGID: 9");
  CHECK(empty.output.empty());
  CHECK_FALSE(empty.exit_code.has_value());
  CHECK(parse_shell_result("Command was cancelled by user before it could complete.").output ==
        "Command was cancelled by user before it could complete.");
}

TEST_CASE("gemini-cli: AfterAgent's answer from the transcript, else prompt_response",
          "[agents][gemini]") {
  // prompt_response repeats the streamed pieces; the fixture's transcript path does not exist.
  const auto raw = parse_stop(fixture("AfterAgent-after-tool.json"));
  REQUIRE(raw.has_value());
  CHECK(raw->last_assistant_message ==
        "Let me look. \nDone: invoice.py computes invoice totals in integer cents. oice totals "
        "in integer cents.");
  const auto in =
      parse_stop(with_transcript("AfterAgent-after-tool.json", "transcript-read.jsonl"));
  REQUIRE(in.has_value());
  CHECK(in->last_assistant_message ==
        "Let me look.\nDone: invoice.py computes invoice totals in integer cents.");
  CHECK(in->agent_id.empty());
}

TEST_CASE("gemini-cli: the transcript's messages, a rewritten record once", "[agents][gemini]") {
  const Transcript t =
      read_gemini_transcript(k_fixtures + "transcript-read.jsonl", k_transcript_window);
  REQUIRE(t.messages.size() == 3);
  CHECK(t.messages[0].role == "user");
  CHECK(t.messages[0].text == "How are invoice totals rounded?");
  CHECK(t.messages[1].role == "assistant");
  CHECK(t.messages[1].text == "Let me look.");
  CHECK(t.messages[2].text == "Done: invoice.py computes invoice totals in integer cents.");
  CHECK(t.files_touched.empty());
  CHECK(last_answer(t) ==
        "Let me look.\nDone: invoice.py computes invoice totals in integer cents.");
  CHECK(read_gemini_transcript(k_fixtures + "no-such.jsonl", k_transcript_window).messages.empty());
}

TEST_CASE("gemini-cli: output has only the fields the event accepts", "[agents][gemini]") {
  const HookOutput both{.context = "ctx", .system_message = "note"};
  CHECK(render("BeforeAgent", both) ==
        R"({"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"},)"
        R"("systemMessage":"note"})"
        "\n");
  CHECK(render("AfterTool", {.context = "c"}) ==
        R"({"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"c"}})"
        "\n");
  CHECK(render("SessionStart", {.context = "c"}).find("additionalContext") != std::string::npos);
  // No context where Gemini CLI ignores it; a message still shows.
  CHECK(render("AfterAgent", both) == R"({"systemMessage":"note"})"
                                      "\n");
  CHECK(render("BeforeTool", {.context = "c"}).empty());
  CHECK(render("SessionEnd", {}).empty());
  // Never a decision (AfterAgent's deny forces another answer), never an updated input.
  const HookOutput guard{.block_reason = "no", .updated_input = R"({"a":1})"};
  CHECK(render("AfterAgent", guard).empty());
}

TEST_CASE("gemini-cli: the agent and its rows in the hook table", "[agents][gemini]") {
  REQUIRE(find_agent("gemini-cli") == &gemini_cli());
  CHECK(gemini_cli().session_env == "GEMINI_SESSION_ID");
  CHECK(gemini_cli().project_dir_env == "GEMINI_PROJECT_DIR");
  CHECK(agent_session(gemini_cli(), "abc") == "gemini-cli-abc");
  CHECK(tool_kind("write_file") == ToolKind::write);
  CHECK(tool_kind("replace") == ToolKind::write);
  CHECK(tool_kind("grep_search") == ToolKind::other);
  CHECK(hook_handles("gemini-cli", "on_user_prompt", "BeforeAgent"));
  CHECK(hook_handles("gemini-cli", "on_file_read", "AfterTool"));
  CHECK(hook_handles("gemini-cli", "on_bash_output", "AfterTool"));
  CHECK(hook_handles("gemini-cli", "on_stop", "AfterAgent"));
  CHECK(hook_handles("gemini-cli", "on_session_start", "SessionStart"));
  CHECK(hook_handles("gemini-cli", "on_session_end", "SessionEnd"));
  CHECK_FALSE(hook_handles("gemini-cli", "on_file_read", "BeforeTool")); // no context there
  CHECK(find_hook("gemini-cli", "on_compact") == nullptr);
  CHECK(find_hook("gemini-cli", "on_tool_guard") == nullptr);
}

TEST_CASE("gemini-cli: the extension wires the table's rows", "[agents][gemini]") {
  // gemini-extension/hooks/hooks.json (docs/agents.md#gemini-cli): one hook per row, timeouts in
  // milliseconds, a name each, the executable started by the extension's hooks/run.cjs.
  const auto text =
      read_small_file(std::string(testing::k_source_dir) + "/gemini-extension/hooks/hooks.json");
  REQUIRE(text.has_value());
  rapidjson::Document doc;
  doc.Parse(text->c_str());
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("hooks"));
  using Row = std::tuple<std::string, std::string, std::string, int>;
  std::set<Row> wired;
  for (const auto &event : doc["hooks"].GetObject())
    for (const auto &group : event.value.GetArray()) {
      const std::string matcher = group.HasMember("matcher") ? group["matcher"].GetString() : "";
      for (const auto &hook : group["hooks"].GetArray()) {
        const std::string command = hook["command"].GetString();
        constexpr std::string_view prefix = "node \"${extensionPath}/hooks/run.cjs\" ";
        REQUIRE(command.starts_with(prefix));
        const std::string exe =
            command.substr(prefix.size(), command.find(' ', prefix.size()) - prefix.size());
        CHECK(command == std::string(prefix) + exe + " --agent gemini-cli");
        CHECK(std::string(hook["name"].GetString()) == "mem0-" + exe);
        CHECK(std::string(hook["type"].GetString()) == "command");
        wired.emplace(exe, event.name.GetString(), matcher, hook["timeout"].GetInt());
      }
    }
  std::set<Row> table;
  for (const HookSpec &h : hooks_of("gemini-cli"))
    table.emplace(h.executable, h.event, h.matcher, h.timeout_seconds * 1000);
  CHECK(wired == table);
  // The extension's version is the project's (.claude-plugin/plugin.json).
  const auto manifest = read_small_file(std::string(testing::k_source_dir) +
                                        "/gemini-extension/gemini-extension.json");
  const auto plugin =
      read_small_file(std::string(testing::k_source_dir) + "/.claude-plugin/plugin.json");
  REQUIRE((manifest && plugin));
  rapidjson::Document m, p;
  m.Parse(manifest->c_str());
  p.Parse(plugin->c_str());
  REQUIRE((m.IsObject() && p.IsObject()));
  CHECK(std::string(m["version"].GetString()) == p["version"].GetString());
  CHECK(std::string(m["name"].GetString()) == "mem0-native-hooks");
}
