#pragma once
// What adapters share for reading an agent's stdin (docs/agents.md#adding-an-agent).
#include "hook/io.hpp"
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

// Parse `json` as the neutral `Input`: `read(doc, input)` fills it from the object.
template <class Input, class Read> Result<Input> parse_event(std::string_view json, Read read) {
  rapidjson::Document doc;
  if (auto ok = parse_object(doc, json); !ok) return unexpected(ok.error());
  Input in;
  read(doc, in);
  return in;
}

} // namespace mem0::adapter
