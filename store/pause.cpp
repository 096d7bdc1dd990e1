#include "store/pause.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <map>

namespace mem0 {
namespace {

// Every pause in force at `now`, by project ("" for the global one).
using Pauses = std::map<std::string, long long>;

Pauses parse_pauses(std::string_view json, long long now) {
  Pauses pauses;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return pauses;
  const auto take = [&](const std::string &project, const rapidjson::Value &v) {
    if (!v.IsObject()) return;
    const long long until = int64_member(v, "until").value_or(-1);
    if (until == 0 || until > now) pauses[project] = until;
  };
  if (const auto g = doc.FindMember("global"); g != doc.MemberEnd()) take("", g->value);
  if (const auto p = doc.FindMember("projects"); p != doc.MemberEnd() && p->value.IsObject())
    for (const auto &m : p->value.GetObject())
      if (m.name.GetStringLength() > 0)
        take(std::string(m.name.GetString(), m.name.GetStringLength()), m.value);
  return pauses;
}

std::string serialize_pauses(const Pauses &pauses) {
  JsonWriter w;
  w.begin_object();
  if (const auto g = pauses.find(""); g != pauses.end())
    w.key("global").begin_object().key("until").int64(g->second).end_object();
  w.key("projects").begin_object();
  for (const auto &[project, until] : pauses)
    if (!project.empty()) w.key(project).begin_object().key("until").int64(until).end_object();
  w.end_object();
  w.end_object();
  return w.text();
}

// Ends last: 0 (until resumed) after any time.
bool ends_later(long long a, long long b) { return a == 0 ? b != 0 : b != 0 && a > b; }

} // namespace

PauseStore::PauseStore(StateDisk &disk, std::filesystem::path state_dir)
    : m_disk(&disk), m_file(state_dir / "pause.json") {}

std::optional<PauseStore::UserPause>
PauseStore::active(WallTime now, const std::function<std::string()> &project) const {
  const auto text = m_disk->read(m_file, 1 << 20);
  if (!text) return std::nullopt;
  const Pauses pauses = parse_pauses(*text, unix_seconds(now));
  if (pauses.empty()) return std::nullopt;
  std::optional<UserPause> found;
  if (const auto g = pauses.find(""); g != pauses.end()) found = UserPause{"", g->second};
  if (pauses.size() > (found ? 1u : 0u)) {
    const std::string id = project();
    if (const auto p = pauses.find(id); !id.empty() && p != pauses.end())
      if (!found || ends_later(p->second, found->until)) found = UserPause{id, p->second};
  }
  return found;
}

Result<void> PauseStore::pause(WallTime now, const std::string &project, long long until) {
  if (auto dir = m_disk->make_dir(m_file.parent_path()); !dir) return dir;
  return m_disk->update_locked(
      m_file,
      [&](const std::string &current) {
        Pauses pauses = parse_pauses(current, unix_seconds(now));
        pauses[project] = until;
        return std::optional<std::string>(serialize_pauses(pauses));
      },
      Durability::durable, k_lock_wait);
}

Result<bool> PauseStore::resume(WallTime now, const std::string &project) {
  if (!m_disk->exists(m_file)) return false;
  bool ended = false;
  auto done = m_disk->update_locked(
      m_file,
      [&](const std::string &current) {
        Pauses pauses = parse_pauses(current, unix_seconds(now));
        ended = pauses.erase(project) > 0;
        return std::optional<std::string>(serialize_pauses(pauses));
      },
      Durability::durable, k_lock_wait);
  if (!done) return unexpected(done.error());
  return ended;
}

std::optional<std::chrono::seconds> parse_duration(std::string_view text) {
  if (text.size() < 2 || text.size() > 12) return std::nullopt;
  long long n = 0;
  for (const char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  long long unit = 0;
  switch (text.back()) {
  case 's': unit = 1; break;
  case 'm': unit = 60; break;
  case 'h': unit = 3600; break;
  case 'd': unit = 86400; break;
  default: return std::nullopt;
  }
  const long long seconds = n * unit;
  if (n <= 0 || seconds > 365LL * 86400) return std::nullopt;
  return std::chrono::seconds(seconds);
}

} // namespace mem0
