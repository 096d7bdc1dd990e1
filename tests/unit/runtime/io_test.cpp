// Hook input parsing, bounded stdin reading and the output object (docs/hooks.md#hook-input,
// #hook-output).
#include "runtime/agents/claude_code.hpp"
#include "runtime/io.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace mem0;
using mem0::testing::Pipe;
using mem0::testing::write_all;
using namespace std::chrono_literals;

namespace {

std::string pattern(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i)
    s[i] = static_cast<char>('a' + i % 26);
  return s;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// claude_code_shape::parse_session_end

const char *const k_every_field = R"({
    "session_id": "abc-123",
    "transcript_path": "/home/u/.claude/projects/x/abc-123.jsonl",
    "cwd": "/work/project",
    "hook_event_name": "PreToolUse",
    "permission_mode": "default",
    "prompt_id": "p-1",
    "prompt": "Fix the \"bug\" in\nsrc/app.py \u00e9",
    "tool_name": "Read",
    "tool_use_id": "toolu_01",
    "tool_input": {"file_path": "/work/project/src/app.py", "offset": 10, "limit": 50},
    "something_new": {"nested": [1, 2, {"x": null}]}
  })";

TEST_CASE("claude_code_shape::parse_session_end reads every common field") {
  const auto in = claude_code_shape::parse_session_end(k_every_field);
  REQUIRE(in.has_value());
  CHECK(in->session_id == "abc-123");
  CHECK(in->transcript_path == "/home/u/.claude/projects/x/abc-123.jsonl");
  CHECK(in->cwd == "/work/project");
  CHECK(in->hook_event_name == "PreToolUse");
  CHECK(in->permission_mode == "default");
  CHECK(in->prompt_id == "p-1");
}

TEST_CASE("each event's parser reads the common fields and its own") {
  const auto prompt = claude_code_shape::parse_prompt(k_every_field);
  REQUIRE(prompt.has_value());
  CHECK(prompt->session_id == "abc-123");
  CHECK(prompt->transcript_path == "/home/u/.claude/projects/x/abc-123.jsonl");
  CHECK(prompt->prompt == "Fix the \"bug\" in\nsrc/app.py \xC3\xA9");

  const auto read = claude_code_shape::parse_tool(k_every_field);
  REQUIRE(read.has_value());
  CHECK(read->cwd == "/work/project");
  CHECK(read->tool_name == "Read");
  CHECK(read->tool_use_id == "toolu_01");
  CHECK(read->file_path == "/work/project/src/app.py");
}

TEST_CASE("claude_code_shape::parse_session_end leaves missing fields empty") {
  const auto in = claude_code_shape::parse_tool("{}");
  REQUIRE(in.has_value());
  CHECK(in->session_id.empty());
  CHECK(in->transcript_path.empty());
  CHECK(in->cwd.empty());
  CHECK(in->hook_event_name.empty());
  CHECK(in->tool_name.empty());
  CHECK(in->file_path.empty());
  CHECK(claude_code_shape::parse_prompt("{}").value().prompt.empty());

  const auto prompt_only = claude_code_shape::parse_prompt(R"({"prompt":"hello there"})");
  REQUIRE(prompt_only.has_value());
  CHECK(prompt_only->prompt == "hello there");
  CHECK(prompt_only->session_id.empty());
}

TEST_CASE("claude_code_shape::parse_session_end ignores fields of the wrong type") {
  const char *const wrong =
      R"({"session_id":5,"cwd":null,"hook_event_name":true,"prompt":["x"],"tool_name":{"a":1},)"
      R"("transcript_path":7,"tool_input":"not an object"})";
  const auto in = claude_code_shape::parse_tool(wrong);
  REQUIRE(in.has_value());
  CHECK(in->session_id.empty());
  CHECK(in->cwd.empty());
  CHECK(in->hook_event_name.empty());
  CHECK(in->transcript_path.empty());
  CHECK(in->tool_name.empty());
  CHECK(in->file_path.empty());
  CHECK(claude_code_shape::parse_prompt(wrong).value().prompt.empty());

  SECTION("a wrong-typed file_path inside tool_input") {
    const auto bad = claude_code_shape::parse_tool(R"({"tool_input":{"file_path":42},"cwd":"ok"})");
    REQUIRE(bad.has_value());
    CHECK(bad->file_path.empty());
    CHECK(bad->cwd == "ok");
  }
  SECTION("tool_input present without file_path") {
    const auto none = claude_code_shape::parse_tool(R"({"tool_input":{"path":"/x"}})");
    REQUIRE(none.has_value());
    CHECK(none->file_path.empty());
  }
}

TEST_CASE("claude_code_shape::parse_session_end accepts a relative file_path as given") {
  const auto in =
      claude_code_shape::parse_tool(R"({"cwd":"/w","tool_input":{"file_path":"src/a.py"}})");
  REQUIRE(in.has_value());
  CHECK(in->file_path == "src/a.py");
  CHECK(in->cwd == "/w");
}

TEST_CASE("claude_code_shape::parse_session_end rejects input that is not a JSON object") {
  for (const std::string text :
       {"", "   ", "[]", "[{\"prompt\":\"x\"}]", "\"string\"", "42", "null", "true", "garbage",
        "{\"prompt\":", "{\"prompt\":\"x\"} trailing", "{'prompt':'x'}"}) {
    INFO("input: " << text);
    CHECK_FALSE(claude_code_shape::parse_session_end(text).has_value());
    CHECK_FALSE(claude_code_shape::parse_prompt(text).has_value());
    CHECK_FALSE(claude_code_shape::parse_tool(text).has_value());
  }
}

// ---------------------------------------------------------------------------------------------
// claude_code_shape::render

TEST_CASE("claude_code_shape::render is one JSON object with the hook fields") {
  const std::string context = "line one\nline \"two\"\ttab\\back\x01\x1F ctl caf\xC3\xA9 </script>";
  const std::string out = claude_code_shape::render("UserPromptSubmit", {.context = context});

  REQUIRE_FALSE(out.empty());
  CHECK(out.front() == '{');
  CHECK(out.back() == '\n');
  // The newline is the only raw control byte: everything inside the JSON is escaped.
  for (std::size_t i = 0; i + 1 < out.size(); ++i)
    CHECK(static_cast<unsigned char>(out[i]) >= 0x20);
  CHECK(out.find("permissionDecision") == std::string::npos);

  rapidjson::Document doc;
  doc.Parse(out.data(), out.size()); // fails on trailing garbage after the object
  REQUIRE_FALSE(doc.HasParseError());
  REQUIRE(doc.IsObject());
  CHECK(doc.MemberCount() == 1);
  REQUIRE(doc.HasMember("hookSpecificOutput"));
  const auto &hso = doc["hookSpecificOutput"];
  REQUIRE(hso.IsObject());
  CHECK(hso.MemberCount() == 2);
  REQUIRE(hso.HasMember("hookEventName"));
  REQUIRE(hso.HasMember("additionalContext"));
  REQUIRE(hso["hookEventName"].IsString());
  REQUIRE(hso["additionalContext"].IsString());
  CHECK(std::string(hso["hookEventName"].GetString()) == "UserPromptSubmit");
  CHECK(std::string(hso["additionalContext"].GetString(),
                    hso["additionalContext"].GetStringLength()) == context);
}

TEST_CASE("claude_code_shape::render escapes quotes and newlines") {
  const std::string out = claude_code_shape::render("PreToolUse", {.context = "a\"b\nc"});
  CHECK(out == "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
               "\"additionalContext\":\"a\\\"b\\nc\"}}\n");
}

TEST_CASE("claude_code_shape::render writes only the fields the event accepts") {
  SECTION("a user-visible message goes at the top level, next to the context") {
    CHECK(claude_code_shape::render("SessionStart", {.context = "ctx", .system_message = "look"}) ==
          "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\","
          "\"additionalContext\":\"ctx\"},\"systemMessage\":\"look\"}\n");
    CHECK(claude_code_shape::render("UserPromptSubmit", {.system_message = "only this"}) ==
          "{\"systemMessage\":\"only this\"}\n");
  }
  SECTION("events without additionalContext keep only the message") {
    for (const char *event : {"Stop", "SessionEnd", "PostCompact"}) {
      CAPTURE(event);
      CHECK_FALSE(claude_code_shape::accepts_context(event));
      CHECK(claude_code_shape::render(event, {.context = "dropped"}).empty());
      CHECK(claude_code_shape::render(event, {.context = "dropped", .system_message = "m"}) ==
            "{\"systemMessage\":\"m\"}\n");
    }
  }
  SECTION("nothing to say prints nothing") {
    CHECK(claude_code_shape::render("UserPromptSubmit", {}).empty());
  }
  for (const char *event :
       {"UserPromptSubmit", "SessionStart", "PreToolUse", "PostToolUse", "PostToolUseFailure"})
    CHECK(claude_code_shape::accepts_context(event));
}

// ---------------------------------------------------------------------------------------------
// read_bounded

TEST_CASE("read_bounded reads to EOF") {
  Pipe p;
  REQUIRE(write_all(p.write_fd, "{\"prompt\":\"hi\"}") == 15);
  p.close_write();
  const auto started = SteadyClock::now();
  const std::string data = read_bounded(p.read_fd, started + 5s);
  CHECK(data == "{\"prompt\":\"hi\"}");
  CHECK(SteadyClock::now() - started < 2s); // returned at EOF, not at the deadline
}

TEST_CASE("read_bounded returns empty input at EOF") {
  Pipe p;
  p.close_write();
  CHECK(read_bounded(p.read_fd, SteadyClock::now() + 5s).empty());
}

TEST_CASE("read_bounded reads more than a pipe buffer", "[no-qemu]") {
  Pipe p;
  const std::string sent = pattern(300 * 1024);
  std::size_t written = 0;
  std::thread writer([&] {
    written = write_all(p.write_fd, sent);
    p.close_write();
  });
  const std::string data = read_bounded(p.read_fd, SteadyClock::now() + 10s);
  p.close_read(); // a reader that gave up early must not leave the writer blocked
  writer.join();
  CHECK(written == sent.size());
  CHECK(data.size() == sent.size());
  CHECK(data == sent);
}

TEST_CASE("read_bounded keeps at most cap bytes and drains the rest", "[no-qemu]") {
  Pipe p;
  const std::string sent = pattern(300 * 1024);
  std::size_t written = 0;
  std::thread writer([&] {
    written = write_all(p.write_fd, sent);
    p.close_write();
  });
  const auto started = SteadyClock::now();
  const std::string data = read_bounded(p.read_fd, started + 10s, 1000);
  p.close_read();
  writer.join();
  CHECK(data.size() == 1000);
  CHECK(data == sent.substr(0, 1000));
  CHECK(written == sent.size()); // the writer was never left blocked
  CHECK(SteadyClock::now() - started < 5s);
}

TEST_CASE("read_bounded returns at the deadline when the writer keeps the pipe open") {
  Pipe p;
  REQUIRE(write_all(p.write_fd, "partial") == 7);
  const auto started = SteadyClock::now();
  const std::string data = read_bounded(p.read_fd, started + 200ms);
  const auto elapsed = SteadyClock::now() - started;
  CHECK(data == "partial");
  CHECK(elapsed >= 150ms);
  CHECK(elapsed < 1500ms);
}

TEST_CASE("read_bounded with a deadline already past returns at once") {
  Pipe p;
  const auto started = SteadyClock::now();
  const std::string data = read_bounded(p.read_fd, started - 1s);
  CHECK(data.empty());
  CHECK(SteadyClock::now() - started < 500ms);
}
