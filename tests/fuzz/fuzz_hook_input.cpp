// Hook input and output (docs/hooks.md#hook-input): every event parser on any bytes;
// claude_code_shape::render of what it found must be one JSON object that reads back to the same
// strings.
#include "mem0/format.hpp"
#include "runtime/agents/claude_code.hpp"
#include "runtime/io.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

std::string member(const rapidjson::Value &object, const char *name) {
  const auto it = object.FindMember(name);
  fuzz::check(it != object.MemberEnd() && it->value.IsString(),
              "claude_code_shape::render: missing member");
  return {it->value.GetString(), it->value.GetStringLength()};
}

void check_output(std::string_view event, std::string_view context) {
  const std::string out = mem0::claude_code_shape::render(event, {.context = std::string(context)});
  if (context.empty()) {
    fuzz::check(out.empty(), "claude_code_shape::render: nothing to say prints nothing", out);
    return;
  }
  fuzz::check(out.size() >= 2 && out.front() == '{' && out.back() == '\n',
              "claude_code_shape::render: one object and a newline", out);
  fuzz::check(out.find('\n') == out.size() - 1, "claude_code_shape::render: one line", out);
  if (fuzz::valid_utf8(event) && fuzz::valid_utf8(context))
    fuzz::check(fuzz::valid_utf8(out), "claude_code_shape::render: valid UTF-8 in, valid UTF-8 out",
                out);
  rapidjson::Document doc;
  doc.Parse(out.data(), out.size() - 1);
  fuzz::check(!doc.HasParseError() && doc.IsObject(), "claude_code_shape::render: parses back",
              out);
  const auto hso = doc.FindMember("hookSpecificOutput");
  fuzz::check(hso != doc.MemberEnd() && hso->value.IsObject(), "claude_code_shape::render: shape",
              out);
  fuzz::check(member(hso->value, "hookEventName") == event,
              "claude_code_shape::render: event round trip");
  fuzz::check(member(hso->value, "additionalContext") == context,
              "claude_code_shape::render: context round trip");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char *>(data), size);
  const auto common = mem0::claude_code_shape::parse_session_end(json);
  const auto prompt = mem0::claude_code_shape::parse_prompt(json);
  const auto read = mem0::claude_code_shape::parse_tool(json);
  fuzz::check(common.has_value() == prompt.has_value() && common.has_value() == read.has_value(),
              "event parsers: all accept the same objects");
  if (!common) {
    fuzz::check(!common.error().message.empty(),
                "claude_code_shape::parse_session_end: an error says why");
    return 0;
  }
  fuzz::check(prompt->session_id == common->session_id && read->cwd == common->cwd &&
                  read->transcript_path == common->transcript_path,
              "event parsers: the same common fields");
  // What the hooks would print about this input: raw strings (escaping) and cleaned text.
  check_output("UserPromptSubmit", prompt->prompt);
  const std::string cleaned = mem0::clean_text(prompt->prompt + " " + read->file_path);
  check_output("UserPromptSubmit", cleaned);
  check_output("PreToolUse", common->session_id + "\n" + common->cwd + "\n" + read->tool_name);
  return 0;
}
