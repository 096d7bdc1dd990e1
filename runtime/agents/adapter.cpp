// What adapters share (runtime/agents/adapter.hpp).
#include "runtime/agents/adapter.hpp"
#include "util/json_writer.hpp"

namespace mem0 {

namespace adapter {

std::string string_field(const rapidjson::Value &object, const char *name) {
  return std::string(string_member(object, name).value_or(""));
}

const rapidjson::Value *object_member(const rapidjson::Value &doc, const char *name) {
  const auto it = doc.FindMember(name);
  return it != doc.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

std::string to_json(const rapidjson::Value &value) { return JsonWriter().value(value).text(); }

Result<void> parse_object(rapidjson::Document &doc, std::string_view json) {
  parse_json(doc, json);
  if (doc.HasParseError())
    return unexpected(
        make_error(ErrorKind::bad_response,
                   "hook input is not JSON (offset " + std::to_string(doc.GetErrorOffset()) + ")"));
  if (!doc.IsObject())
    return unexpected(make_error(ErrorKind::bad_response, "hook input is not a JSON object"));
  return {};
}

std::string hook_specific_output(std::string_view event, std::string_view context,
                                 std::string_view message, std::string_view updated_input) {
  if (context.empty() && updated_input.empty() && message.empty()) return {};
  JsonWriter w;
  w.begin_object();
  if (!context.empty() || !updated_input.empty()) {
    w.key("hookSpecificOutput").begin_object().member("hookEventName", event);
    if (!context.empty()) w.member("additionalContext", context);
    if (!updated_input.empty()) {
      // Already JSON (an object the hook built): written as it is.
      w.key("updatedInput");
      w.base().RawValue(updated_input.data(), updated_input.size(), rapidjson::kObjectType);
    }
    w.end_object();
  }
  if (!message.empty()) w.member("systemMessage", message);
  w.end_object();
  return w.text() + "\n";
}

std::string shim_output(std::string_view, const HookOutput &output) {
  if (output.context.empty()) return {};
  JsonWriter w;
  w.begin_object().member("context", output.context).end_object();
  return w.text() + "\n";
}

ToolKind js_tool_kind(std::string_view name) {
  if (name == "read") return ToolKind::read;
  if (name == "bash") return ToolKind::shell;
  if (name == "write" || name == "edit") return ToolKind::write;
  return ToolKind::other;
}

Transcript no_transcript(const std::filesystem::path &, std::size_t) { return {}; }

std::string text_parts(const rapidjson::Value *parts, bool skip_synthetic) {
  std::string text;
  if (!parts || !parts->IsArray()) return text;
  for (const auto &part : parts->GetArray()) {
    if (!part.IsObject() || string_field(part, "type") != "text") continue;
    const auto synthetic = part.FindMember("synthetic");
    if (skip_synthetic && synthetic != part.MemberEnd() && synthetic->value.IsTrue()) continue;
    const std::string piece = string_field(part, "text");
    if (piece.empty()) continue;
    if (!text.empty()) text += '\n';
    text += piece;
  }
  return text;
}

} // namespace adapter

} // namespace mem0
