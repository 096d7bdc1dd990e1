// Reading Codex CLI's rollout (runtime/agents/codex.cpp, read_codex_rollout) over the rollouts the
// real client wrote (tests/unit/fixtures/codex/README.md) and over hand-made lines.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/agents/codex.hpp"

#include <fstream>
#include <string>

using namespace mem0;
using namespace mem0::codex_shape;
using namespace mem0::testing;

namespace {

std::string fixture(std::string_view name) {
  return std::string(testing::k_source_dir) + "/tests/unit/fixtures/codex/" + std::string(name);
}

} // namespace

TEST_CASE("read_codex_rollout: the prompt and the agent's messages of a recorded session") {
  const CodexRollout r = read_codex_rollout(fixture("rollout.jsonl"));
  const auto &m = r.transcript.messages;
  REQUIRE(m.size() == 2);
  CHECK(m[0].role == "user");
  CHECK(m[0].text == "Explain the notes file"); // not the <environment_context> pseudo-message
  CHECK_FALSE(m[0].uuid.empty());
  CHECK(m[1].role == "assistant");
  CHECK(m[1].text == "The notes say: integer cents.");
  CHECK(m[1].uuid == "msg_fake000007");
  // The hooks' own context (developer messages) is not part of the conversation.
  for (const auto &msg : m)
    CHECK(msg.text.find("CONTEXT-MARKER") == std::string::npos);
}

TEST_CASE("read_codex_rollout: the compaction summary without Codex's preface") {
  const CodexRollout r = read_codex_rollout(fixture("rollout.jsonl"));
  CHECK(r.compaction_summary ==
        "Summary: the user asked about a file; it was read and explained."); // fake_openai.py
}

TEST_CASE("read_codex_rollout: exit codes of the shell commands by call id") {
  const CodexRollout ok = read_codex_rollout(fixture("rollout.jsonl"));
  CHECK(exit_code_of(ok, "call_fake000003") == 0);
  const CodexRollout failed = read_codex_rollout(fixture("rollout_edit.jsonl"));
  CHECK(exit_code_of(failed, "call_fake000003") == 1);              // cat missing.txt
  CHECK_FALSE(exit_code_of(failed, "call_fake000006").has_value()); // apply_patch: no command
  CHECK_FALSE(exit_code_of(failed, "nope").has_value());
}

TEST_CASE("read_codex_rollout: the files apply_patch added or updated, newest first") {
  const CodexRollout r = read_codex_rollout(fixture("rollout_edit.jsonl"));
  auto files = r.transcript.files_touched;
  std::sort(files.begin(), files.end()); // one FileChange item: its map's order is Codex's
  CHECK(files == std::vector<std::string>{"/tmp/mem0-codex/edit/proj/docs/added.md",
                                          "/tmp/mem0-codex/edit/proj/notes.txt"});
  CHECK(r.compaction_summary.empty());
}

TEST_CASE("read_codex_rollout: malformed, foreign and missing input") {
  TempDir dir;
  const auto path = dir.path() / "rollout.jsonl";
  {
    std::ofstream out(path);
    out << "not json\n"
        << "[1,2]\n"
        << R"({"type":"event_msg","payload":"x"})"
        << "\n"
        << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","id":"u1","content":[{"type":"text","text":"hello"}]}}})"
        << "\n"
        << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"a1","content":[{"type":"Text","text":"  "}]}}})"
        << "\n"
        << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","exit_code":"2"}}})"
        << "\n"
        << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c2","exit_code":7}}})"
        << "\n"
        << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"FileChange","id":"p","changes":{"/a":{"type":"delete"},"/b":{"type":"update"},"/c":3}}}})"
        << "\n"
        << R"({"type":"compacted","payload":{"message":"no preface here"}})"
        << "\n"
        << R"({"type":"user","message":{"role":"user","content":"a Claude Code line"}})";
  }
  const CodexRollout r = read_codex_rollout(path);
  REQUIRE(r.transcript.messages.size() == 1);
  CHECK(r.transcript.messages[0].text == "hello");
  CHECK(r.transcript.messages[0].uuid == "u1");
  CHECK_FALSE(exit_code_of(r, "c1").has_value());
  CHECK(exit_code_of(r, "c2") == 7);
  CHECK(r.transcript.files_touched == std::vector<std::string>{"/b"});
  CHECK(r.compaction_summary == "no preface here");

  const CodexRollout none = read_codex_rollout(dir.path() / "missing.jsonl");
  CHECK(none.transcript.messages.empty());
  CHECK(none.commands.empty());
}

TEST_CASE("read_codex_rollout: only the newest commands are kept") {
  TempDir dir;
  const auto path = dir.path() / "rollout.jsonl";
  {
    std::ofstream out(path);
    for (std::size_t i = 0; i < k_max_codex_commands + 10; ++i)
      out << R"({"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c)"
          << i << R"(","exit_code":1}}})"
          << "\n";
  }
  const CodexRollout r = read_codex_rollout(path);
  CHECK(r.commands.size() == k_max_codex_commands);
  CHECK_FALSE(exit_code_of(r, "c0").has_value());
  CHECK(exit_code_of(r, "c" + std::to_string(k_max_codex_commands + 9)) == 1);
}
