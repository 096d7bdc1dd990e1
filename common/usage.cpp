#include "common/usage.hpp"
#include "common/files.hpp"
#include "common/json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <map>
#include <string>

namespace mem0 {
namespace {

long count_member(const rapidjson::Value &object, const char *name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsInt64() ? static_cast<long>(it->value.GetInt64())
                                                         : 0;
}

// One day's entry: {"searches": N, "adds": M}, or the bare search count of older files.
DailyUsage parse_day(const rapidjson::Value &v) {
  if (v.IsInt64()) return {static_cast<long>(v.GetInt64()), 0};
  if (!v.IsObject()) return {};
  return {count_member(v, "searches"), count_member(v, "adds")};
}

std::map<std::string, DailyUsage> parse_usage(std::string_view json) {
  std::map<std::string, DailyUsage> days;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (!doc.HasParseError() && doc.IsObject())
    for (const auto &m : doc.GetObject())
      days[m.name.GetString()] = parse_day(m.value);
  return days;
}

} // namespace

UsageStore::UsageStore(std::filesystem::path state_dir) : m_file(state_dir / "usage.json") {}

DailyUsage UsageStore::on(std::string_view day) const {
  const auto text = read_small_file(m_file, 1 << 16);
  if (!text) return {};
  const auto days = parse_usage(*text);
  const auto it = days.find(std::string(day));
  return it == days.end() ? DailyUsage{} : it->second;
}

Result<void> UsageStore::add(std::string_view day, DailyUsage counts) {
  if (!ensure_private_dir(m_file.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_file.parent_path().string()));
  return update_file_locked(m_file, [&](const std::string &current) {
    auto days = parse_usage(current);
    DailyUsage &today = days[std::string(day)];
    today.searches += counts.searches;
    today.adds += counts.adds;
    while (days.size() > 31)
      days.erase(days.begin()); // "YYYY-MM-DD" sorts by date
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartObject();
    for (const auto &[d, n] : days) {
      w.Key(d.data(), static_cast<rapidjson::SizeType>(d.size()));
      w.StartObject();
      w.Key("searches");
      w.Int64(n.searches);
      w.Key("adds");
      w.Int64(n.adds);
      w.EndObject();
    }
    w.EndObject();
    return std::optional<std::string>(std::string(buffer.GetString(), buffer.GetSize()));
  });
}

} // namespace mem0
