// Reading Claude Code's JSONL transcript (runtime/agents/claude_code.cpp, read_transcript):
// which entries are messages, which files were touched, the read window, malformed input, and
// messages_after over what it read.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/agents/claude_code.hpp"
#include "runtime/transcript.hpp"
#include "util/utf8.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

// The transcript of a test's `content`, written to a fresh file.
struct TranscriptFile {
  TempDir dir;
  std::filesystem::path path = dir / "session.jsonl";
  Transcript read(std::string_view content, std::size_t window = k_transcript_window) {
    write_file(path, content);
    return claude_code_shape::read_transcript(path, window);
  }
};

// `text` as a JSON string literal.
std::string quoted(std::string_view text) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  return {buffer.GetString(), buffer.GetSize()};
}

// One transcript line of `type` whose message content is the JSON `content`; `extra` adds
// top-level members (`,"isMeta":true`). Main-conversation entries say `"isSidechain":false`.
std::string entry(std::string_view type, std::string_view uuid, std::string_view content,
                  std::string_view extra = "") {
  const std::string sidechain =
      extra.find("isSidechain") == std::string_view::npos ? R"(,"isSidechain":false)" : "";
  return R"({"type":")" + std::string(type) + R"(","uuid":")" + std::string(uuid) +
         R"(","parentUuid":null,"sessionId":"s1")" + sidechain + std::string(extra) +
         R"(,"message":{"role":")" + std::string(type) + R"(","content":)" + std::string(content) +
         "}}\n";
}
std::string text_block(std::string_view text) {
  return R"({"type":"text","text":)" + quoted(text) + "}";
}
std::string user(std::string_view uuid, std::string_view text, std::string_view extra = "") {
  return entry("user", uuid, quoted(text), extra);
}
std::string assistant(std::string_view uuid, std::string_view text, std::string_view extra = "") {
  return entry("assistant", uuid, "[" + text_block(text) + "]", extra);
}
std::string tool_use(std::string_view name, std::string_view path,
                     std::string_view key = "file_path") {
  return R"({"type":"tool_use","id":"toolu_1","name":")" + std::string(name) + R"(","input":{")" +
         std::string(key) + R"(":)" + quoted(path) + R"(,"old_string":"a","new_string":"b"}})";
}
std::string tool_result(std::string_view text) {
  return R"({"type":"tool_result","tool_use_id":"toolu_1","content":)" + quoted(text) + "}";
}
// An assistant entry that only calls tools.
std::string tools(std::string_view uuid, const std::vector<std::string> &blocks,
                  std::string_view extra = "") {
  std::string content = "[";
  for (const auto &b : blocks)
    content += (content.size() > 1 ? "," : "") + b;
  return entry("assistant", uuid, content + "]", extra);
}

struct Said {
  std::string uuid, role, text;
  bool operator==(const Said &) const = default;
};
std::ostream &operator<<(std::ostream &os, const Said &s) {
  return os << "{" << s.uuid << ", " << s.role << ", " << s.text << "}";
}
std::vector<Said> said(const std::vector<TranscriptMessage> &messages) {
  std::vector<Said> out;
  for (const auto &m : messages)
    out.push_back({m.uuid, m.role, m.text});
  return out;
}
std::vector<std::string> uuids(const std::vector<TranscriptMessage> &messages) {
  std::vector<std::string> out;
  for (const auto &m : messages)
    out.push_back(m.uuid);
  return out;
}

} // namespace

TEST_CASE("transcript: user and assistant messages in order with their roles", "[transcript]") {
  TranscriptFile f;
  const auto t = f.read(user("u1", "first question") + assistant("a1", "first answer") +
                        user("u2", "second question") + assistant("a2", "second answer"));
  CHECK(said(t.messages) == std::vector<Said>{{"u1", "user", "first question"},
                                              {"a1", "assistant", "first answer"},
                                              {"u2", "user", "second question"},
                                              {"a2", "assistant", "second answer"}});
  CHECK(t.files_touched.empty());
}

TEST_CASE("transcript: text blocks are joined and tool results are not the user's words",
          "[transcript]") {
  TranscriptFile f;
  const auto t = f.read(
      entry("user", "u1", "[" + text_block("line one") + "," + text_block("line two") + "]") +
      entry("assistant", "a1",
            "[" + text_block("I will edit") + "," + tool_use("Edit", "/p/a.py") + "," +
                text_block("done") + "]") +
      entry("user", "u2", "[" + tool_result("file contents") + "]") +
      entry("user", "u3", "[" + tool_result("output") + "," + text_block("and my note") + "]") +
      entry("user", "u4", "[" + text_block("") + "," + text_block("after an empty block") + "]") +
      entry("assistant", "a2",
            R"([{"type":"thinking","thinking":"hmm","text":"not a text block"},)" +
                text_block("only text blocks count") + "]"));
  CHECK(said(t.messages) == std::vector<Said>{{"u1", "user", "line one\nline two"},
                                              {"a1", "assistant", "I will edit\ndone"},
                                              {"u3", "user", "and my note"},
                                              {"u4", "user", "after an empty block"},
                                              {"a2", "assistant", "only text blocks count"}});
}

TEST_CASE("transcript: sidechain, compact summary, meta, summary and system entries are skipped",
          "[transcript]") {
  TranscriptFile f;
  const auto t = f.read(
      user("u1", "kept") + user("s1", "subagent prompt", R"(,"isSidechain":true)") +
      assistant("s2", "subagent answer", R"(,"isSidechain":true)") +
      user("c1", "This session is being continued...", R"(,"isCompactSummary":true)") +
      user("m1", "<local-command-caveat>", R"(,"isMeta":true)") +
      R"({"type":"summary","summary":"A summary","leafUuid":"a1"})"
      "\n"
      R"({"type":"system","uuid":"y1","content":"system note","message":{"role":"user","content":"x"}})"
      "\n"
      R"({"type":"file-history-snapshot","messageId":"x","snapshot":{}})"
      "\n" +
      // Flags that are false or not booleans do not skip.
      user("u2", "flags false", R"(,"isMeta":false,"isCompactSummary":false)") +
      user("u3", "flag not a bool", R"(,"isMeta":"true")") + assistant("a1", "kept too"));
  CHECK(uuids(t.messages) == std::vector<std::string>{"u1", "u2", "u3", "a1"});
}

TEST_CASE("transcript: assistant JSON blobs and empty text are skipped, user braces are not",
          "[transcript]") {
  TranscriptFile f;
  const auto t = f.read(
      assistant("a1", R"({"result": 1})") + assistant("a2", " \n\t{\"also\": \"json\"}") +
      entry("assistant", "a3", quoted(R"({"string content": true})")) +
      entry("assistant", "a4", "[" + text_block("{blob}") + "," + text_block("prose") + "]") +
      user("u1", "{ a user may type braces }") + assistant("a5", "") + user("u2", "   \n ") +
      tools("a6", {tool_use("Bash", "ls")}) + entry("user", "u3", "[]") +
      assistant("a7", "the end"));
  CHECK(said(t.messages) == std::vector<Said>{{"a4", "assistant", "prose"},
                                              {"u1", "user", "{ a user may type braces }"},
                                              {"a7", "assistant", "the end"}});
}

TEST_CASE("transcript: files touched are the written files, newest first, distinct, bounded",
          "[transcript]") {
  TranscriptFile f;
  SECTION("the four writing tools, nothing else") {
    const auto t = f.read(
        tools("a1", {tool_use("Write", "/p/new.py"), tool_use("Read", "/p/read.py")}) +
        tools("a2", {tool_use("Edit", "/p/a.py"), tool_use("Bash", "/p/bash.py")}) +
        tools("a3", {tool_use("MultiEdit", "/p/b.py")}) +
        tools("a4", {tool_use("NotebookEdit", "/p/n.ipynb", "notebook_path")}) +
        tools("a5", {tool_use("Glob", "/p/glob.py"), tool_use("Write", "")}) +
        // A JSON blob of an assistant entry is skipped, its tool calls still count.
        entry("assistant", "a6", "[" + text_block("{}") + "," + tool_use("Edit", "/p/c.py") + "]") +
        // A user entry does not call tools; a subagent's calls are not this session's.
        entry("user", "u1", "[" + tool_use("Write", "/p/user.py") + "]") +
        tools("s1", {tool_use("Write", "/p/sidechain.py")}, R"(,"isSidechain":true)"));
    CHECK(t.files_touched ==
          std::vector<std::string>{"/p/c.py", "/p/n.ipynb", "/p/b.py", "/p/a.py", "/p/new.py"});
    CHECK(t.messages.empty());
  }
  SECTION("a file edited again moves to the front, once") {
    const auto t = f.read(tools("a1", {tool_use("Edit", "/p/a.py"), tool_use("Edit", "/p/b.py")}) +
                          tools("a2", {tool_use("Edit", "/p/a.py")}) +
                          tools("a3", {tool_use("Write", "/p/c.py"), tool_use("Edit", "/p/a.py")}));
    CHECK(t.files_touched == std::vector<std::string>{"/p/a.py", "/p/c.py", "/p/b.py"});
  }
  SECTION("at most k_max_files_touched, the newest") {
    std::string content;
    for (int i = 0; i < 30; ++i)
      content += tools("a" + std::to_string(i), {tool_use("Edit", "/p/f" + std::to_string(i))});
    const auto t = f.read(content);
    REQUIRE(t.files_touched.size() == k_max_files_touched);
    CHECK(t.files_touched.front() == "/p/f29");
    CHECK(t.files_touched.back() == "/p/f10");
  }
}

TEST_CASE("transcript: only the last window bytes are read, without the line the window cuts",
          "[transcript]") {
  TranscriptFile f;
  const std::string first = user("u1", "first"), second = user("u2", "second"),
                    third = assistant("a1", "third");
  const std::string content = first + second + third;
  const std::size_t tail = second.size() + third.size();
  CHECK(uuids(f.read(content, content.size()).messages) ==
        std::vector<std::string>{"u1", "u2", "a1"});
  CHECK(uuids(f.read(content, content.size() - 1).messages) ==
        std::vector<std::string>{"u2", "a1"});
  // A window that starts right at a line keeps that line; one byte less cuts it.
  CHECK(uuids(f.read(content, tail).messages) == std::vector<std::string>{"u2", "a1"});
  CHECK(uuids(f.read(content, tail - 1).messages) == std::vector<std::string>{"a1"});
  CHECK(uuids(f.read(content, third.size() - 1).messages).empty());
  CHECK(f.read(content, 0).messages.empty());
  CHECK(uuids(f.read(content, 1 << 30).messages) == std::vector<std::string>{"u1", "u2", "a1"});

  SECTION("a transcript bigger than the default window keeps its tail") {
    std::string big = tools("a0", {tool_use("Edit", "/p/old.py")});
    const std::string filler(1000, 'x');
    for (int i = 0; big.size() < 3 * k_transcript_window; ++i)
      big += user("u" + std::to_string(i), filler + std::to_string(i));
    big += assistant("last", "the newest");
    const auto t = f.read(big);
    REQUIRE(t.messages.size() > 1000);
    CHECK(t.messages.size() < k_transcript_window / 1000);
    CHECK(t.files_touched.empty()); // the old edit lies before the window
    CHECK(t.messages.back().uuid == "last");
    // The first message kept is whole: the cut line was dropped, not half read.
    const auto &oldest = t.messages.front();
    CHECK(oldest.text == filler + oldest.uuid.substr(1));
    std::size_t kept_bytes = 0;
    for (const auto &m : t.messages)
      kept_bytes += m.role == "user" ? user(m.uuid, m.text).size() : 0;
    CHECK(kept_bytes <= k_transcript_window);
  }
}

TEST_CASE("transcript: malformed lines are skipped, the good ones around them kept",
          "[transcript]") {
  TranscriptFile f;
  const std::string deep = std::string(200, '[') + std::string(200, ']');
  const std::string huge(1 << 20, 'h');
  const std::string content =
      "not json at all\n" + user("u1", "one") + "[1,2,3]\n42\n\"a string\"\nnull\n{\"type\":\n" +
      "\n\n   \n" + R"({"type":"user"})" + "\n" + R"({"type":"user","message":"text"})" + "\n" +
      R"({"type":"user","message":{"content":5}})" + "\n" +
      R"({"type":"assistant","message":{"content":[5,"x",null,{"type":"text","text":7}]}})" + "\n" +
      R"({"type":5,"message":{"content":"typed five"}})" + "\n" +
      R"({"type":"assistant","uuid":"a1","message":{"content":[{"type":"tool_use","name":"Edit","input":"/p/x"},{"type":"tool_use","name":"Edit","input":{"file_path":5}},{"type":"tool_use","name":7}]}})" +
      "\n" + R"({"type":"user","uuid":7,"message":{"content":"uuid is a number"}})" + "\n" + deep +
      "\n" + R"({"a":)" + deep + "}\n" +
      user("u2", "crlf line").substr(0, user("u2", "crlf line").size() - 1) + "\r\n" +
      std::string("\0\0\0\n", 4) + user("u3", huge) + user("u4", "bad \xC3\x28 utf8 \xFF") +
      user("u5", "no newline at the end").substr(0, user("u5", "no newline at the end").size() - 1);
  const auto t = f.read(content);
  REQUIRE(uuids(t.messages) == std::vector<std::string>{"u1", "", "u2", "u3", "u4", "u5"});
  CHECK(t.messages[1].text == "uuid is a number");
  CHECK(t.messages[2].text == "crlf line");
  CHECK(t.messages[3].text == huge);
  CHECK(t.messages[4].text == "bad \xEF\xBF\xBD( utf8 \xEF\xBF\xBD");
  CHECK(is_valid_utf8(t.messages[4].text));
  CHECK(t.messages[5].text == "no newline at the end");
  CHECK(t.files_touched.empty());
}

TEST_CASE("transcript: read and messages_after together", "[transcript]") {
  TranscriptFile f;
  const auto t = f.read(user("u1", "old") + assistant("a1", "old answer") + user("u2", "new") +
                        assistant("a2", "new answer"));
  CHECK(said(messages_after(t, "a1", 10, 3)) ==
        std::vector<Said>{{"u2", "user", "new"}, {"a2", "assistant", "new\xE2\x80\xA6"}});
}
