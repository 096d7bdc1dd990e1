#pragma once
// What adapters share for reading an agent's stdin (docs/agents.md#adding-an-agent).
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/json.hpp"
#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace mem0::adapter {

// The string `name` of `object`; "" when missing or not a string.
std::string string_field(const rapidjson::Value &object, const char *name);

// The object `name` of `doc`; nullptr when missing or not an object.
const rapidjson::Value *object_member(const rapidjson::Value &doc, const char *name);

// `value` as JSON text.
std::string to_json(const rapidjson::Value &value);

// Parse `json` into `doc`: an error when it is not JSON, or not an object.
Result<void> parse_object(rapidjson::Document &doc, std::string_view json);

// The output object Claude Code, Codex and Gemini CLI share, each part only when not empty:
// {"hookSpecificOutput":{"hookEventName":<event>,"additionalContext":<context>,
//  "updatedInput":<updated_input, a JSON object>},"systemMessage":<message>} and a newline; ""
// when every part is empty.
std::string hook_specific_output(std::string_view event, std::string_view context,
                                 std::string_view message, std::string_view updated_input = {});

// What the JS hosts' adapters share (docs/agents.md#opencode, #pi).
// The output their shim applies, whatever the event: {"context":<output.context>} and a newline;
// "" when there is no context. Nothing else reaches those hosts.
std::string shim_output(std::string_view event, const HookOutput &output);
// Their tools' kinds: `read`, `bash`, `write` and `edit`, as both name them.
ToolKind js_tool_kind(std::string_view name);
// No transcript: their payloads carry what capture needs.
Transcript no_transcript(const std::filesystem::path &path, std::size_t window);

// The text parts of `parts` (an array of {"type":"text","text":…}), joined by newlines;
// `skip_synthetic` leaves out those marked "synthetic": true. "" when `parts` is not an array.
std::string text_parts(const rapidjson::Value *parts, bool skip_synthetic = false);

// An agent's reader of the fields every one of its events carries.
using CommonReader = void (*)(const rapidjson::Value &doc, HookInput &in);

// Parse `json` as the neutral `Input`: `common` reads the agent's common fields, then
// `own(doc, input)` the event's own.
template <class Input, class Own>
Result<Input> parse_event(std::string_view json, CommonReader common, Own own) {
  rapidjson::Document doc;
  if (auto ok = parse_object(doc, json); !ok) return unexpected(ok.error());
  Input in;
  common(doc, in);
  own(doc, in);
  return in;
}

} // namespace mem0::adapter
