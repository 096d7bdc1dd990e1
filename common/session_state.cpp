#include "common/session_state.hpp"
#include "common/atomic_file.hpp"
#include "common/git.hpp"
#include "common/sha256.hpp"

#include "common/json.hpp"
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr auto k_session_lifetime = std::chrono::hours(24 * 7);

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_string(Writer &w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

bool safe_name(std::string_view s) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// A temporary file of write_file_atomic (`.<name>.XXXXXX`) that a killed process left behind.
bool is_leftover_temp(const fs::directory_entry &entry) {
  const std::string name = entry.path().filename().string();
  return name.size() > 8 && name.front() == '.' && name[name.size() - 7] == '.';
}

// Remove session files idle for longer than k_session_lifetime, and temporary files a killed
// process left in the state dir; at most once a day (the mtime of `.swept` says when), so a new
// session does not stat every stored one.
void sweep_state_dir(const fs::path &state_dir) {
  std::error_code ec;
  const fs::path sessions = state_dir / "sessions";
  const auto now = fs::file_time_type::clock::now();
  const fs::path marker = sessions / ".swept";
  if (const auto last = fs::last_write_time(marker, ec); !ec && now - last < std::chrono::hours(24))
    return;
  const auto cutoff = now - k_session_lifetime;
  for (const auto &entry : fs::directory_iterator(sessions, ec))
    if (entry.is_regular_file(ec) && entry.last_write_time(ec) < cutoff)
      fs::remove(entry.path(), ec);
  for (const auto &entry : fs::directory_iterator(state_dir, ec))
    if (entry.is_regular_file(ec) && is_leftover_temp(entry) &&
        entry.last_write_time(ec) < now - std::chrono::hours(1))
      fs::remove(entry.path(), ec);
  write_file_atomic(marker, "");
}

} // namespace

bool SessionState::was_injected(std::string_view id) const {
  return std::find(injected.begin(), injected.end(), id) != injected.end();
}

SessionState parse_session_state(std::string_view json) {
  SessionState s;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return s;
  if (const auto it = doc.FindMember("injected"); it != doc.MemberEnd() && it->value.IsArray())
    for (const auto &v : it->value.GetArray())
      if (v.IsString()) s.injected.emplace_back(v.GetString(), v.GetStringLength());
  if (const auto it = doc.FindMember("files"); it != doc.MemberEnd() && it->value.IsObject())
    for (const auto &m : it->value.GetObject())
      if (m.value.IsString()) s.files[m.name.GetString()] = m.value.GetString();
  if (const auto it = doc.FindMember("rubric_shown"); it != doc.MemberEnd() && it->value.IsBool())
    s.rubric_shown = it->value.GetBool();
  if (const auto it = doc.FindMember("limit_notice_shown");
      it != doc.MemberEnd() && it->value.IsBool())
    s.limit_notice_shown = it->value.GetBool();
  if (const auto it = doc.FindMember("prompts"); it != doc.MemberEnd() && it->value.IsInt64())
    s.prompts = static_cast<long>(it->value.GetInt64());
  return s;
}

std::string serialize_session_state(const SessionState &s) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("injected");
  w.StartArray();
  for (const auto &id : s.injected)
    write_string(w, id);
  w.EndArray();
  w.Key("files");
  w.StartObject();
  for (const auto &[path, version] : s.files) {
    w.Key(path.data(), static_cast<rapidjson::SizeType>(path.size()));
    write_string(w, version);
  }
  w.EndObject();
  w.Key("rubric_shown");
  w.Bool(s.rubric_shown);
  w.Key("limit_notice_shown");
  w.Bool(s.limit_notice_shown);
  w.Key("prompts");
  w.Int64(s.prompts);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

StateStore::StateStore(fs::path dir) : m_dir(std::move(dir)) {}

fs::path StateStore::session_path(std::string_view session) const {
  const std::string name =
      safe_name(session) ? std::string(session) : sha256_hex(session).substr(0, 32);
  return m_dir / "sessions" / (name + ".json");
}

SessionState StateStore::load(std::string_view session) const {
  const auto text = read_small_file(session_path(session), 16 << 20);
  return text ? parse_session_state(*text) : SessionState{};
}

Result<SessionState> StateStore::update(std::string_view session,
                                        const std::function<void(SessionState &)> &change) {
  const fs::path path = session_path(session);
  std::error_code ec;
  const bool is_new = !fs::exists(path, ec);
  if (!ensure_private_dir(path.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + path.parent_path().string()));
  if (is_new) sweep_state_dir(m_dir);
  SessionState result;
  auto done = update_file_locked(path, [&](const std::string &current) {
    result = parse_session_state(current);
    change(result);
    return std::optional<std::string>(serialize_session_state(result));
  });
  if (!done) return unexpected(done.error());
  return result;
}

long StateStore::searches_on(std::string_view day) const {
  const auto text = read_small_file(m_dir / "usage.json", 1 << 16);
  if (!text) return 0;
  rapidjson::Document doc;
  parse_json(doc, *text);
  if (doc.HasParseError() || !doc.IsObject()) return 0;
  const auto it = doc.FindMember(rapidjson::StringRef(day.data(), day.size()));
  return it != doc.MemberEnd() && it->value.IsInt64() ? static_cast<long>(it->value.GetInt64()) : 0;
}

Result<void> StateStore::add_searches(std::string_view day, long count) {
  if (!ensure_private_dir(m_dir))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_dir.string()));
  return update_file_locked(m_dir / "usage.json", [&](const std::string &current) {
    std::map<std::string, long> days;
    rapidjson::Document doc;
    parse_json(doc, current);
    if (!doc.HasParseError() && doc.IsObject())
      for (const auto &m : doc.GetObject())
        if (m.value.IsInt64()) days[m.name.GetString()] = static_cast<long>(m.value.GetInt64());
    days[std::string(day)] += count;
    while (days.size() > 31)
      days.erase(days.begin()); // "YYYY-MM-DD" sorts by date
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    for (const auto &[d, n] : days) {
      w.Key(d.data(), static_cast<rapidjson::SizeType>(d.size()));
      w.Int64(n);
    }
    w.EndObject();
    return std::optional<std::string>(std::string(buffer.GetString(), buffer.GetSize()));
  });
}

namespace {

struct BackoffState {
  long long until = 0; // unix seconds
  std::string reason;
  long failures = 0;
};

BackoffState parse_backoff(std::string_view json) {
  BackoffState b;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return b;
  if (const auto it = doc.FindMember("until"); it != doc.MemberEnd() && it->value.IsInt64())
    b.until = it->value.GetInt64();
  b.reason = string_member(doc, "reason").value_or("");
  if (const auto it = doc.FindMember("failures"); it != doc.MemberEnd() && it->value.IsInt64())
    b.failures = static_cast<long>(it->value.GetInt64());
  return b;
}

long long unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

} // namespace

std::optional<StateStore::Pause>
StateStore::active_pause(std::chrono::system_clock::time_point now) const {
  const auto text = read_small_file(m_dir / "backoff.json", 1 << 16);
  if (!text) return std::nullopt;
  const BackoffState b = parse_backoff(*text);
  const long long left = b.until - unix_seconds(now);
  if (left <= 0) return std::nullopt;
  return Pause{std::chrono::seconds(left), b.reason};
}

Result<void> StateStore::record_outcome(std::chrono::system_clock::time_point now, Outcome outcome,
                                        std::chrono::seconds retry_after) {
  if (!ensure_private_dir(m_dir))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_dir.string()));
  return update_file_locked(m_dir / "backoff.json", [&](const std::string &current) {
    BackoffState b = parse_backoff(current);
    if (outcome == Outcome::answered) {
      if (b.failures == 0 && b.until == 0) return std::optional<std::string>(); // nothing to clear
      b = {};
    } else if (outcome == Outcome::rate_limited) {
      b.until = unix_seconds(now) + std::clamp<long long>(retry_after.count(), 1, 3600);
      b.reason = "rate limited by Mem0";
    } else if (++b.failures >= k_failures_before_pause) {
      b.until = unix_seconds(now) + k_default_pause.count();
      b.reason = "Mem0 unreachable after " + std::to_string(b.failures) + " failed attempts";
    }
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    w.Key("until");
    w.Int64(b.until);
    w.Key("reason");
    write_string(w, b.reason);
    w.Key("failures");
    w.Int64(b.failures);
    w.EndObject();
    return std::optional<std::string>(std::string(buffer.GetString(), buffer.GetSize()));
  });
}

std::vector<SessionState> StateStore::all_sessions() const {
  std::vector<SessionState> out;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(m_dir / "sessions", ec))
    if (entry.path().extension() == ".json")
      if (const auto text = read_small_file(entry.path(), 16 << 20))
        out.push_back(parse_session_state(*text));
  return out;
}

std::string utc_day(std::chrono::system_clock::time_point t) {
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(t)};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

} // namespace mem0
