#include "hook/io.hpp"

#include "util/json.hpp"
#include "util/json_writer.hpp"
#include <rapidjson/document.h>

#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace mem0 {
namespace {

std::string string_field(const rapidjson::Value &object, const char *name) {
  return std::string(string_member(object, name).value_or(""));
}

} // namespace

std::string read_bounded(int fd, Deadline deadline, std::size_t cap) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const auto left = time_left(deadline);
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    // Past the cap, keep draining so the writer is never blocked, but keep nothing.
    const std::size_t room = cap > data.size() ? cap - data.size() : 0;
    data.append(buffer, std::min(room, static_cast<std::size_t>(n)));
  }
  return data;
}

namespace {

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

void read_common(const rapidjson::Value &doc, HookInput &in) {
  in.session_id = string_field(doc, "session_id");
  in.transcript_path = string_field(doc, "transcript_path");
  in.cwd = string_field(doc, "cwd");
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.permission_mode = string_field(doc, "permission_mode");
  in.prompt_id = string_field(doc, "prompt_id");
}

// Parse `json` as the event `Input`: the common fields, then `read_own`.
template <class Input, class ReadOwn>
Result<Input> parse_event(std::string_view json, ReadOwn read_own) {
  rapidjson::Document doc;
  if (auto ok = parse_object(doc, json); !ok) return unexpected(ok.error());
  Input in;
  read_common(doc, in);
  read_own(doc, in);
  return in;
}

std::string to_json(const rapidjson::Value &value) { return JsonWriter().value(value).text(); }

const rapidjson::Value *object_member(const rapidjson::Value &doc, const char *name) {
  const auto it = doc.FindMember(name);
  return it != doc.MemberEnd() && it->value.IsObject() ? &it->value : nullptr;
}

} // namespace

Result<HookInput> parse_hook_input(std::string_view json) {
  return parse_event<HookInput>(json, [](const rapidjson::Value &, HookInput &) {});
}

Result<PromptInput> parse_prompt_input(std::string_view json) {
  return parse_event<PromptInput>(json, [](const rapidjson::Value &doc, PromptInput &in) {
    in.prompt = string_field(doc, "prompt");
  });
}

Result<ToolInput> parse_tool_input(std::string_view json) {
  return parse_event<ToolInput>(json, [](const rapidjson::Value &doc, ToolInput &in) {
    in.tool_name = string_field(doc, "tool_name");
    in.tool_use_id = string_field(doc, "tool_use_id");
    in.error = string_field(doc, "error");
    if (const auto *tool_input = object_member(doc, "tool_input")) {
      in.tool_input = to_json(*tool_input);
      in.file_path = string_field(*tool_input, "file_path");
      in.command = string_field(*tool_input, "command");
    }
    if (const auto *response = object_member(doc, "tool_response")) {
      in.stdout_text = string_field(*response, "stdout");
      in.stderr_text = string_field(*response, "stderr");
    } else {
      in.stdout_text = string_field(doc, "tool_response");
    }
  });
}

Result<SessionStartInput> parse_session_start_input(std::string_view json) {
  return parse_event<SessionStartInput>(json,
                                        [](const rapidjson::Value &doc, SessionStartInput &in) {
                                          in.source = string_field(doc, "source");
                                        });
}

Result<StopInput> parse_stop_input(std::string_view json) {
  return parse_event<StopInput>(json, [](const rapidjson::Value &doc, StopInput &in) {
    in.last_assistant_message = string_field(doc, "last_assistant_message");
    in.agent_id = string_field(doc, "agent_id");
  });
}

Result<CompactInput> parse_compact_input(std::string_view json) {
  return parse_event<CompactInput>(json, [](const rapidjson::Value &doc, CompactInput &in) {
    in.compact_summary = string_field(doc, "compact_summary");
  });
}

Result<SessionEndInput> parse_session_end_input(std::string_view json) {
  return parse_event<SessionEndInput>(json, [](const rapidjson::Value &doc, SessionEndInput &in) {
    in.reason = string_field(doc, "reason");
  });
}

bool accepts_context(std::string_view event) {
  for (std::string_view e :
       {"UserPromptSubmit", "SessionStart", "PreToolUse", "PostToolUse", "PostToolUseFailure"})
    if (e == event) return true;
  return false;
}

std::string render_output(std::string_view event, const HookOutput &output) {
  const bool context = !output.context.empty() && accepts_context(event);
  const bool updated = !output.updated_input.empty() && event == "PreToolUse";
  if (!context && !updated && output.system_message.empty()) return {};
  JsonWriter w;
  w.begin_object();
  if (context || updated) {
    w.key("hookSpecificOutput").begin_object().member("hookEventName", event);
    if (context) w.member("additionalContext", output.context);
    if (updated) {
      // Already JSON (an object the hook built): written as it is.
      w.key("updatedInput");
      w.base().RawValue(output.updated_input.data(), output.updated_input.size(),
                        rapidjson::kObjectType);
    }
    w.end_object();
  }
  if (!output.system_message.empty()) w.member("systemMessage", output.system_message);
  w.end_object();
  return w.text() + "\n";
}

} // namespace mem0
