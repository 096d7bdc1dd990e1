// The Codex CLI adapter (runtime/agents/codex.hpp, docs/agents.md#codex-cli) over the hook inputs
// recorded from the real client (tests/unit/fixtures/codex/README.md): parsing into the neutral
// inputs, and the rendered output checked against the fields of Codex's output schemas
// (output_fields.json, read from the client binary by tests/client/record_codex_hooks.py).
#include "runtime/agent.hpp"
#include "runtime/agents/codex.hpp"
#include "runtime/table.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"
#include "util/files.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <set>
#include <string>

using namespace mem0;
using namespace mem0::testing;

namespace {

std::string fixture_path(std::string_view name) {
  return std::string(testing::k_source_dir) + "/tests/unit/fixtures/codex/" + std::string(name);
}

std::string fixture(std::string_view name) {
  const auto text = read_small_file(fixture_path(name), 1 << 20);
  REQUIRE(text.has_value());
  return *text;
}

// The fixture `name` with its transcript_path pointing at the recorded rollout `rollout`.
std::string with_rollout(std::string_view name, std::string_view rollout) {
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, fixture(name)));
  const std::string path = fixture_path(rollout);
  doc["transcript_path"].SetString(path.c_str(), static_cast<rapidjson::SizeType>(path.size()),
                                   doc.GetAllocator());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  doc.Accept(w);
  return {buffer.GetString(), buffer.GetSize()};
}

const Agent &agent() {
  const Agent *a = find_agent("codex");
  REQUIRE(a != nullptr);
  return *a;
}

// The names of `object`'s members.
std::set<std::string> names(const rapidjson::Value &object) {
  std::set<std::string> out;
  for (const auto &m : object.GetObject())
    out.emplace(m.name.GetString());
  return out;
}

// "PreToolUse" -> "pre-tool-use", the name of its schema in output_fields.json.
std::string schema_name(std::string_view event) {
  std::string out;
  for (char c : event) {
    if (c >= 'A' && c <= 'Z') {
      if (!out.empty()) out += '-';
      c = static_cast<char>(c - 'A' + 'a');
    }
    out += c;
  }
  return out;
}

} // namespace

TEST_CASE("codex: the agent's names and wiring") {
  const Agent &a = agent();
  CHECK(&a == &codex());
  CHECK(a.name == "codex");
  CHECK(a.session_env.empty()); // Codex sets no session or project variable for its hooks
  CHECK(a.project_dir_env.empty());
  CHECK(agent_session(a, "01a2") == "codex-01a2");
  std::set<std::string> events;
  for (const HookSpec &h : hooks_of("codex")) {
    events.emplace(h.event);
    if (h.event == "SessionEnd") CHECK(h.timeout_seconds <= 3); // Codex clamps it to 3 s
    if (h.event == "PreToolUse" || h.event == "PostToolUse") CHECK(h.matcher == "Bash");
  }
  CHECK(events == std::set<std::string>{"SessionStart", "UserPromptSubmit", "PreToolUse",
                                        "PostToolUse", "PostCompact", "Stop", "SessionEnd"});
}

TEST_CASE("codex: the recorded prompt, session start and stop") {
  const auto prompt = agent().prompt(fixture("user_prompt_submit.json"));
  REQUIRE(prompt);
  CHECK(prompt->prompt == "Explain the notes file");
  CHECK(prompt->hook_event_name == "UserPromptSubmit");
  CHECK(prompt->cwd == "/tmp/mem0-codex/read/proj");
  CHECK(prompt->session_id.size() == 36);
  CHECK(prompt->transcript_path.ends_with(".jsonl"));
  CHECK(prompt->permission_mode == "bypassPermissions");

  const auto start = agent().session_start(fixture("session_start.json"));
  REQUIRE(start);
  CHECK(start->source == "startup");
  CHECK(agent().session_start(fixture("session_start_compact.json"))->source == "compact");

  const auto stop = agent().stop(fixture("stop.json"));
  REQUIRE(stop);
  CHECK(stop->last_assistant_message == "The notes say: integer cents.");
  CHECK(stop->agent_id.empty());

  const auto end = agent().session_end(fixture("session_end.json"));
  REQUIRE(end);
  CHECK(end->reason == "other");
  CHECK(end->session_id == prompt->session_id);
}

TEST_CASE("codex: a shell call is the shell tool, and the file it reads is the read's file") {
  const auto pre = agent().tool(fixture("pre_tool_use.json"));
  REQUIRE(pre);
  CHECK(pre->tool_name == "Bash");
  CHECK(pre->tool == ToolKind::shell);
  CHECK(pre->command == "cat notes.txt");
  CHECK(pre->file_path == "notes.txt");
  CHECK(pre->tool_use_id == "call_fake000003");

  const auto post = agent().tool(fixture("post_tool_use.json"));
  REQUIRE(post);
  CHECK(post->tool == ToolKind::shell);
  CHECK(post->stdout_text.starts_with("notes: invoices are kept in integer cents.\n"));
  CHECK(post->error.empty()); // its rollout is not there: no exit code known
}

TEST_CASE("codex: a failed command's exit code comes from the rollout") {
  const auto failed = agent().tool(with_rollout("post_tool_use_failed.json", "rollout_edit.jsonl"));
  REQUIRE(failed);
  CHECK(failed->stdout_text == "cat: missing.txt: No such file or directory\n");
  CHECK(failed->error == "Exit code 1");
  // The same command, a rollout where it exited 0 (the read session's call has the same id).
  const auto ok = agent().tool(with_rollout("post_tool_use_failed.json", "rollout.jsonl"));
  REQUIRE(ok);
  CHECK(ok->error.empty());
  // PreToolUse never looks.
  CHECK(agent().tool(with_rollout("pre_tool_use.json", "rollout_edit.jsonl"))->error.empty());
}

TEST_CASE("codex: apply_patch writes the files its patch names") {
  const auto pre = agent().tool(fixture("pre_tool_use_apply_patch.json"));
  REQUIRE(pre);
  CHECK(pre->tool_name == "apply_patch");
  CHECK(pre->tool == ToolKind::write);
  CHECK(pre->file_path == "docs/added.md");
  CHECK(pre->command.empty()); // the patch is not a command line
  CHECK(codex_shape::patched_files(
            "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b/c.py\n@@\n-y\n+z\n"
            "*** Delete File: d.txt\n*** End Patch\n") ==
        std::vector<std::string>{"a.txt", "b/c.py"});
  CHECK(codex_shape::patched_files("no patch").empty());
}

TEST_CASE("codex: file_read_by prefers a file that is there") {
  TempDir dir;
  write_file(dir.path() / "real.txt", "x");
  fs::create_directories(dir.path() / "src");
  CHECK(codex_shape::file_read_by("rg -n foo src real.txt", dir.path()) == "real.txt");
  CHECK(codex_shape::file_read_by("cat missing.txt", dir.path()) == "missing.txt");
  CHECK(codex_shape::file_read_by("ls", dir.path()).empty());
}

TEST_CASE("codex: the compaction summary is read from the rollout at PostCompact") {
  const auto post = agent().compact(with_rollout("post_compact.json", "rollout.jsonl"));
  REQUIRE(post);
  CHECK(post->compact_summary ==
        "Summary: the user asked about a file; it was read and explained.");
  CHECK(
      agent().compact(with_rollout("pre_compact.json", "rollout.jsonl"))->compact_summary.empty());
  CHECK(agent().compact(fixture("post_compact.json"))->compact_summary.empty()); // no rollout
}

TEST_CASE("codex: the transcript is the rollout's conversation") {
  const Transcript t = agent().transcript(fixture_path("rollout_edit.jsonl"), k_transcript_window);
  REQUIRE(t.messages.size() == 2);
  CHECK(t.messages[1].text == "Patched.");
  CHECK(t.files_touched.size() == 2);
}

TEST_CASE("codex: bad input is an error, not a crash") {
  CHECK_FALSE(agent().tool("not json"));
  CHECK_FALSE(agent().prompt("[1]"));
  const auto odd = agent().tool(R"({"tool_name":"Bash","tool_input":{"command":5}})");
  REQUIRE(odd);
  CHECK(odd->command.empty());
  CHECK(odd->file_path.empty());
}

TEST_CASE("codex: render writes only what Codex's output schema for the event has") {
  rapidjson::Document fields;
  REQUIRE(parse_json(fields, fixture("output_fields.json")));
  HookOutput full;
  full.context = "- [fact] a memory [mem0:12345678]";
  full.system_message = "mem0: a note";
  full.updated_input = R"({"x":1})";
  for (std::string_view event : {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                                 "Stop", "PreCompact", "PostCompact", "SessionEnd", "Interrupt"}) {
    CAPTURE(event);
    const std::string text = agent().render(event, full);
    const std::string schema = schema_name(event);
    if (!fields.HasMember(schema.c_str())) { // SessionEnd has no output schema
      CHECK(text.empty());
      continue;
    }
    const auto &f = fields[schema.c_str()];
    std::set<std::string> top, specific;
    for (const auto &n : f["top"].GetArray())
      top.emplace(n.GetString());
    if (f.HasMember("hookSpecificOutput"))
      for (const auto &n : f["hookSpecificOutput"].GetArray())
        specific.emplace(n.GetString());

    if (text.empty()) { // nothing printed: always valid, but not where we have something
      CHECK_FALSE(codex_shape::accepts_message(event));
      continue;
    }
    rapidjson::Document out;
    REQUIRE(parse_json(out, text));
    REQUIRE(out.IsObject());
    for (const auto &name : names(out))
      CHECK(top.contains(name));
    CHECK(top.contains("systemMessage"));
    CHECK(out["systemMessage"] == "mem0: a note");
    if (specific.contains("additionalContext")) {
      REQUIRE(out.HasMember("hookSpecificOutput"));
      const auto &hso = out["hookSpecificOutput"];
      CHECK(names(hso) == std::set<std::string>{"hookEventName", "additionalContext"});
      CHECK(hso["hookEventName"].GetString() == std::string(event));
      CHECK(hso["additionalContext"] == full.context.c_str());
    } else {
      CHECK_FALSE(out.HasMember("hookSpecificOutput"));
    }
  }
}

TEST_CASE("codex: render prints nothing when nothing is accepted, and one object per line") {
  CHECK(agent().render("UserPromptSubmit", HookOutput{}).empty());
  CHECK(agent().render("Stop", HookOutput{.context = "ctx"}).empty());
  const std::string only_context = agent().render("PostToolUse", HookOutput{.context = "a\n\"b\""});
  CHECK(only_context ==
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":"
        "\"a\\n\\\"b\\\"\"}}\n");
  CHECK(agent().render("PreToolUse", HookOutput{.updated_input = R"({"a":1})"}).empty());
}
