// What every agent's transcript reader shares (runtime/transcript.cpp): read_jsonl's window and
// files, and messages_after. Claude Code's own format: agents/claude_code_transcript_test.cpp.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/transcript.hpp"

using namespace mem0;
using namespace mem0::testing;

namespace {

std::vector<std::string> uuids(const std::vector<TranscriptMessage> &messages) {
  std::vector<std::string> out;
  for (const auto &m : messages)
    out.push_back(m.uuid);
  return out;
}

// read_jsonl over `content`: the lines it gave, and the files it returned; each line names the
// file it touched.
struct Read {
  std::vector<std::string> lines, files;
};
Read read_lines(const TempDir &dir, std::string_view content, std::size_t window) {
  const auto path = dir / "t.jsonl";
  write_file(path, content);
  Read out;
  out.files = read_jsonl(path, window, [&](std::string_view line, std::vector<std::string> &files) {
    out.lines.emplace_back(line);
    files.emplace_back(line);
  });
  return out;
}

} // namespace

TEST_CASE("transcript: read_jsonl gives the window's whole lines; files newest first, distinct",
          "[transcript]") {
  TempDir dir;
  CHECK(read_lines(dir, "a\nbb\nc\n", 100).lines == std::vector<std::string>{"a", "bb", "c"});
  CHECK(read_lines(dir, "a\nbb\nc\n", 5).lines == std::vector<std::string>{"bb", "c"});
  CHECK(read_lines(dir, "a\nbb\nc\n", 4).lines == std::vector<std::string>{"c"});
  CHECK(read_lines(dir, "a\nb\na\nc", 100).files == std::vector<std::string>{"c", "a", "b"});
  std::string many;
  for (int i = 0; i < 30; ++i)
    many += std::to_string(i) + "\n";
  const auto files = read_lines(dir, many, many.size()).files;
  REQUIRE(files.size() == k_max_files_touched);
  CHECK(files.front() == "29");
}

TEST_CASE("transcript: messages_after the given uuid, the newest of them, truncated",
          "[transcript]") {
  Transcript t;
  for (const char *id : {"u1", "a1", "u2", "a2", "u3"})
    t.messages.push_back({id, id[0] == 'u' ? "user" : "assistant", std::string("text of ") + id});

  CHECK(uuids(messages_after(t, "a1", 10, 100)) == std::vector<std::string>{"u2", "a2", "u3"});
  CHECK(uuids(messages_after(t, "u3", 10, 100)).empty());
  CHECK(uuids(messages_after(t, "", 10, 100)) ==
        std::vector<std::string>{"u1", "a1", "u2", "a2", "u3"});
  CHECK(uuids(messages_after(t, "gone", 10, 100)) ==
        std::vector<std::string>{"u1", "a1", "u2", "a2", "u3"});
  CHECK(uuids(messages_after(t, "", 2, 100)) == std::vector<std::string>{"a2", "u3"});
  CHECK(uuids(messages_after(t, "u1", 3, 100)) == std::vector<std::string>{"u2", "a2", "u3"});
  CHECK(messages_after(t, "", 0, 100).empty());
  CHECK(messages_after(Transcript{}, "u1", 10, 100).empty());

  const auto all = messages_after(t, "", 10, 100);
  REQUIRE(all.size() == 5);
  CHECK(all[0].role == "user");
  CHECK(all[0].text == "text of u1");
  CHECK(all[1].role == "assistant");

  t.messages.push_back({"u4", "user", "h\xC3\xA9llo w\xC3\xB6rld"}); // héllo wörld
  const auto cut = messages_after(t, "u3", 10, 5);
  REQUIRE(cut.size() == 1);
  CHECK(cut[0].text == "h\xC3\xA9llo\xE2\x80\xA6"); // "héllo…"
  CHECK(messages_after(t, "u3", 10, 11)[0].text == "h\xC3\xA9llo w\xC3\xB6rld");
  CHECK(t.messages.back().text == "h\xC3\xA9llo w\xC3\xB6rld"); // the transcript is not changed
}
