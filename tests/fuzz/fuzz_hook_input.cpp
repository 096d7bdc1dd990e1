// Hook input (SPEC §2) and output (§3): parse_hook_input on any bytes; render_output of what it
// found must be one JSON object that reads back to the same strings.
#include "common/format.hpp"
#include "common/hook_io.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

std::string member(const rapidjson::Value &object, const char *name) {
  const auto it = object.FindMember(name);
  fuzz::check(it != object.MemberEnd() && it->value.IsString(), "render_output: missing member");
  return {it->value.GetString(), it->value.GetStringLength()};
}

void check_output(std::string_view event, std::string_view context) {
  const std::string out = mem0::render_output(event, context);
  fuzz::check(out.size() >= 2 && out.front() == '{' && out.back() == '\n',
              "render_output: one object and a newline", out);
  fuzz::check(out.find('\n') == out.size() - 1, "render_output: one line", out);
  if (fuzz::valid_utf8(event) && fuzz::valid_utf8(context))
    fuzz::check(fuzz::valid_utf8(out), "render_output: valid UTF-8 in, valid UTF-8 out", out);
  rapidjson::Document doc;
  doc.Parse(out.data(), out.size() - 1);
  fuzz::check(!doc.HasParseError() && doc.IsObject(), "render_output: parses back", out);
  const auto hso = doc.FindMember("hookSpecificOutput");
  fuzz::check(hso != doc.MemberEnd() && hso->value.IsObject(), "render_output: shape", out);
  fuzz::check(member(hso->value, "hookEventName") == event, "render_output: event round trip");
  fuzz::check(member(hso->value, "additionalContext") == context,
              "render_output: context round trip");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view json(reinterpret_cast<const char *>(data), size);
  const auto input = mem0::parse_hook_input(json);
  if (!input) {
    fuzz::check(!input.error().message.empty(), "parse_hook_input: an error says why");
    return 0;
  }
  // What the hooks would print about this input: raw strings (escaping) and cleaned text.
  check_output(input->hook_event_name, input->prompt);
  const std::string cleaned = mem0::clean_text(input->prompt + " " + input->file_path);
  check_output("UserPromptSubmit", cleaned);
  check_output("PreToolUse", input->session_id + "\n" + input->cwd + "\n" + input->tool_name);
  return 0;
}
