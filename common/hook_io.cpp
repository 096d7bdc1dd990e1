#include "common/hook_io.hpp"

#include "common/json.hpp"
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

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
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
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

Result<HookInput> parse_hook_input(std::string_view json) {
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError())
    return unexpected(
        make_error(ErrorKind::bad_response,
                   "hook input is not JSON (offset " + std::to_string(doc.GetErrorOffset()) + ")"));
  if (!doc.IsObject())
    return unexpected(make_error(ErrorKind::bad_response, "hook input is not a JSON object"));
  HookInput in;
  in.session_id = string_field(doc, "session_id");
  in.cwd = string_field(doc, "cwd");
  in.hook_event_name = string_field(doc, "hook_event_name");
  in.prompt = string_field(doc, "prompt");
  in.tool_name = string_field(doc, "tool_name");
  if (const auto it = doc.FindMember("tool_input"); it != doc.MemberEnd() && it->value.IsObject())
    in.file_path = string_field(it->value, "file_path");
  return in;
}

std::string render_output(std::string_view event, std::string_view context) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("hookSpecificOutput");
  w.StartObject();
  w.Key("hookEventName");
  w.String(event.data(), static_cast<rapidjson::SizeType>(event.size()));
  w.Key("additionalContext");
  w.String(context.data(), static_cast<rapidjson::SizeType>(context.size()));
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

} // namespace mem0
