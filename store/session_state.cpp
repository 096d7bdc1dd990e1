#include "store/session_state.hpp"
#include "util/files.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include "util/json.hpp"
#include "util/json_writer.hpp"
#include <rapidjson/document.h>

#include <algorithm>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr auto k_session_lifetime = std::chrono::hours(24 * 7);

bool safe_name(std::string_view s) { return s.size() <= 128 && all_of_class(s, is_id_char); }

// A temporary file of write_file_atomic (`.<name>.XXXXXX`) that a killed process left behind.
bool is_leftover_temp(const std::string &name) {
  return name.size() > 8 && name.front() == '.' && name[name.size() - 7] == '.';
}

// Remove session files idle for longer than k_session_lifetime, and temporary files a killed
// process left (older than an hour) in the state dir, sessions/ and the outbox; at most once a
// day (the mtime of `.swept` says when), so a new session does not stat every stored one.
void sweep_state_dir(StateDisk &disk, const fs::path &state_dir) {
  const fs::path sessions = state_dir / "sessions";
  const auto now = fs::file_time_type::clock::now();
  const fs::path marker = sessions / ".swept";
  if (const auto last = disk.modified(marker); last && now - *last < std::chrono::hours(24)) return;
  const auto cutoff = now - k_session_lifetime;
  const auto temp_cutoff = now - std::chrono::hours(1); // older than any live writer's
  // Older than `before`; false when it cannot be told.
  const auto older = [&](const fs::path &path, fs::file_time_type before) {
    const auto written = disk.modified(path);
    return written && *written < before;
  };
  for (const auto &entry : disk.list(sessions)) {
    const fs::path path = sessions / entry.name;
    if (!entry.file || !older(path, is_leftover_temp(entry.name) ? temp_cutoff : cutoff)) continue;
    // A lock's mtime stays old while a live session holds it: only an unheld one goes.
    if (path.extension() == ".lock")
      (void)disk.remove_unheld_lock(path);
    else
      disk.remove(path);
  }
  // Items (`NNNNNNNNNNNN.json`) never start with a dot: only temporaries go.
  for (const fs::path &dir : {state_dir, state_dir / "outbox", state_dir / "outbox" / "rejected",
                              state_dir / "outbox" / "parked"})
    for (const auto &entry : disk.list(dir))
      if (entry.file && is_leftover_temp(entry.name) && older(dir / entry.name, temp_cutoff))
        disk.remove(dir / entry.name);
  // Best effort: without it, the next start sweeps again.
  (void)disk.write(marker, "", Durability::saves_work);
}

} // namespace

bool SessionState::was_injected(std::string_view id) const {
  return std::find(injected.begin(), injected.end(), id) != injected.end();
}

void SessionState::log_run(RunRecord run) {
  runs.push_back(std::move(run));
  if (runs.size() > k_max_runs)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(k_max_runs));
}

void SessionState::await_reply(std::string id, std::string_view text) {
  awaiting.push_back({std::move(id), std::string(utf8_prefix(text, k_max_awaiting_bytes))});
  if (awaiting.size() > k_max_awaiting)
    awaiting.erase(awaiting.begin(), awaiting.end() - static_cast<std::ptrdiff_t>(k_max_awaiting));
}

namespace {

std::optional<RunRecord> parse_run(const rapidjson::Value &v) {
  if (!v.IsObject()) return std::nullopt;
  RunRecord r;
  r.time = int64_member(v, "t").value_or(0);
  r.hook = std::string(string_member(v, "hook").value_or(""));
  const auto ids = strings_member(v, "ids"), types = strings_member(v, "types");
  for (std::size_t i = 0; i < ids.size(); ++i)
    r.memories.emplace_back(ids[i], i < types.size() ? types[i] : "");
  r.chars = static_cast<std::size_t>(std::max<long long>(int64_member(v, "chars").value_or(0), 0));
  if (const auto sk = v.FindMember("skipped"); sk != v.MemberEnd() && sk->value.IsArray())
    for (const auto &pair : sk->value.GetArray())
      if (pair.IsArray() && pair.Size() == 2 && pair[0].IsString() && pair[1].IsString())
        r.skipped.push_back({pair[0].GetString(), pair[1].GetString()});
  r.used = strings_member(v, "used");
  r.ms = int64_member(v, "ms").value_or(-1);
  return r;
}

void write_run(JsonWriter &w, const RunRecord &r) {
  w.begin_object().key("t").int64(r.time).member("hook", r.hook);
  w.key("ids").begin_array();
  for (const auto &m : r.memories)
    w.str(m.first);
  w.end_array().key("types").begin_array();
  for (const auto &m : r.memories)
    w.str(m.second);
  w.end_array().key("chars").int64(static_cast<long long>(r.chars));
  w.key("skipped").begin_array();
  for (const auto &skip : r.skipped)
    w.begin_array().str(skip.reason).str(skip.detail).end_array();
  w.end_array();
  if (r.ms >= 0) w.key("ms").int64(r.ms);
  if (!r.used.empty()) {
    w.key("used").begin_array();
    for (const auto &id : r.used)
      w.str(id);
    w.end_array();
  }
  w.end_object();
}

// The runs appended to `path` (SessionStore::append_run), the last k_max_runs; lines that do not
// parse (a torn last line) are skipped.
std::vector<RunRecord> appended_runs(const StateDisk &disk, const fs::path &path) {
  std::vector<RunRecord> runs;
  const auto text = disk.read(path, 4 * SessionStore::k_max_runs_bytes);
  if (!text) return runs;
  std::string_view rest(*text);
  while (!rest.empty()) {
    const auto nl = std::min(rest.find('\n'), rest.size());
    rapidjson::Document doc;
    if (parse_json(doc, rest.substr(0, nl)))
      if (auto r = parse_run(doc)) runs.push_back(std::move(*r));
    rest.remove_prefix(std::min(nl + 1, rest.size()));
  }
  if (runs.size() > k_max_runs)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(k_max_runs));
  return runs;
}

std::vector<RunRecord> parse_runs(const rapidjson::Value &doc) {
  std::vector<RunRecord> runs;
  const auto it = doc.FindMember("runs");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return runs;
  for (const auto &v : it->value.GetArray())
    if (auto r = parse_run(v)) runs.push_back(std::move(*r));
  if (runs.size() > k_max_runs)
    runs.erase(runs.begin(), runs.end() - static_cast<std::ptrdiff_t>(k_max_runs));
  return runs;
}

} // namespace

SessionState parse_session_state(std::string_view json) {
  SessionState s;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return s;
  s.injected = strings_member(doc, "injected");
  if (const auto it = doc.FindMember("files"); it != doc.MemberEnd() && it->value.IsObject())
    for (const auto &m : it->value.GetObject())
      if (m.value.IsString()) s.files[m.name.GetString()] = m.value.GetString();
  s.errors = strings_member(doc, "errors");
  if (const auto it = doc.FindMember("rubric_shown"); it != doc.MemberEnd() && it->value.IsBool())
    s.rubric_shown = it->value.GetBool();
  if (const auto it = doc.FindMember("limit_notice_shown");
      it != doc.MemberEnd() && it->value.IsBool())
    s.limit_notice_shown = it->value.GetBool();
  s.notices_shown = strings_member(doc, "notices_shown");
  s.prompts = int64_member(doc, "prompts").value_or(0);
  s.captured_until = std::string(string_member(doc, "captured_until").value_or(""));
  s.captured = strings_member(doc, "captured");
  s.runs = parse_runs(doc);
  if (const auto it = doc.FindMember("awaiting"); it != doc.MemberEnd() && it->value.IsArray())
    for (const auto &pair : it->value.GetArray())
      if (pair.IsArray() && pair.Size() == 2 && pair[0].IsString() && pair[1].IsString())
        s.await_reply(pair[0].GetString(), pair[1].GetString());
  if (const auto it = doc.FindMember("capture_resync"); it != doc.MemberEnd() && it->value.IsBool())
    s.capture_resync = it->value.GetBool();
  return s;
}

std::string serialize_session_state(const SessionState &s) {
  JsonWriter w;
  const auto strings = [&w](std::string_view key, const std::vector<std::string> &values) {
    w.key(key).begin_array();
    for (const auto &v : values)
      w.str(v);
    w.end_array();
  };
  w.begin_object();
  strings("injected", s.injected);
  w.key("files").begin_object();
  for (const auto &[path, version] : s.files)
    w.member(path, version);
  w.end_object();
  strings("errors", s.errors);
  w.key("rubric_shown").boolean(s.rubric_shown);
  w.key("limit_notice_shown").boolean(s.limit_notice_shown);
  strings("notices_shown", s.notices_shown);
  w.key("prompts").int64(s.prompts);
  w.member("captured_until", s.captured_until);
  strings("captured", s.captured);
  if (s.capture_resync) w.key("capture_resync").boolean(true);
  if (!s.awaiting.empty()) {
    w.key("awaiting").begin_array();
    for (const auto &a : s.awaiting)
      w.begin_array().str(a.id).str(a.text).end_array();
    w.end_array();
  }
  w.key("runs").begin_array();
  for (const auto &r : s.runs)
    write_run(w, r);
  w.end_array();
  w.end_object();
  return w.text();
}

SessionStore::SessionStore(StateDisk &disk, fs::path dir) : m_disk(&disk), m_dir(std::move(dir)) {}

fs::path SessionStore::session_path(std::string_view session) const {
  const std::string name =
      safe_name(session) ? std::string(session) : sha256_hex(session).substr(0, 32);
  return m_dir / "sessions" / (name + ".json");
}

SessionState SessionStore::load(std::string_view session) const {
  const auto text = m_disk->read(session_path(session), 16 << 20);
  return text ? parse_session_state(*text) : SessionState{};
}

Result<SessionState> SessionStore::update(std::string_view session,
                                          const std::function<void(SessionState &)> &change,
                                          std::chrono::milliseconds wait) {
  const fs::path path = session_path(session);
  const bool is_new = !m_disk->exists(path);
  if (!m_disk->make_dir(path.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + path.parent_path().string()));
  if (is_new) sweep_state_dir(*m_disk, m_dir);
  SessionState result;
  const FileChange apply = [&](const std::string &current) {
    result = parse_session_state(current);
    change(result);
    return std::optional<std::string>(serialize_session_state(result));
  };
  auto done = m_disk->update_locked(path, apply, Durability::saves_work, wait);
  if (!done) return unexpected(done.error());
  return result;
}

fs::path SessionStore::runs_path(std::string_view session) const {
  fs::path path = session_path(session);
  return path.replace_extension(".runs");
}

Result<void> SessionStore::append_run(std::string_view session, const RunRecord &run) {
  const fs::path path = runs_path(session);
  if (auto dir = m_disk->make_dir(path.parent_path()); !dir) return dir;
  // Bounded: past k_max_runs_bytes, only the runs that runs() would show are kept.
  const auto keep_shown = [&](const std::string &) {
    std::string text;
    for (const auto &r : appended_runs(*m_disk, path)) {
      JsonWriter w;
      write_run(w, r);
      text += w.text() + "\n";
    }
    return text;
  };
  JsonWriter w;
  write_run(w, run);
  // A shrink holds the file for a few milliseconds: waiting for one is waiting for that.
  return m_disk->append_bounded(path, w.text() + "\n", k_max_runs_bytes, keep_shown, k_lock_wait);
}

std::vector<RunRecord> SessionStore::runs(std::string_view session) const {
  std::vector<RunRecord> all = load(session).runs;
  for (auto &r : appended_runs(*m_disk, runs_path(session)))
    all.push_back(std::move(r));
  std::stable_sort(all.begin(), all.end(),
                   [](const RunRecord &a, const RunRecord &b) { return a.time < b.time; });
  if (all.size() > k_max_runs)
    all.erase(all.begin(), all.end() - static_cast<std::ptrdiff_t>(k_max_runs));
  return all;
}

std::optional<std::string> SessionStore::latest_session() const {
  std::vector<std::pair<fs::file_time_type, std::string>> written;
  for (const auto &entry : m_disk->list(m_dir / "sessions")) {
    const fs::path name = entry.name;
    const auto ext = name.extension();
    if ((ext != ".json" && ext != ".runs") || !entry.file) continue;
    if (const auto time = m_disk->modified(m_dir / "sessions" / name))
      written.emplace_back(*time, name.stem().string());
  }
  if (written.empty()) return std::nullopt;
  std::sort(written.begin(), written.end(), std::greater<>());
  // A session without a run log (the memory tools' id map) is passed over.
  for (const auto &[time, session] : written)
    if (!runs(session).empty()) return session;
  return written.front().second;
}

std::vector<SessionState> SessionStore::all_sessions() const {
  std::vector<SessionState> out;
  for (const auto &entry : m_disk->list(m_dir / "sessions"))
    if (fs::path(entry.name).extension() == ".json")
      if (const auto text = m_disk->read(m_dir / "sessions" / entry.name, 16 << 20))
        out.push_back(parse_session_state(*text));
  return out;
}

void write_run_json(JsonWriter &w, const RunRecord &run) {
  w.begin_object().key("time").int64(run.time).member("hook", run.hook);
  w.key("memories").begin_array();
  for (const auto &[id, type] : run.memories)
    w.begin_object().member("id", id).member("type", type).end_object();
  w.end_array();
  w.key("chars").int64(static_cast<long long>(run.chars));
  w.key("tokens").int64(static_cast<long long>(tokens_of(run.chars)));
  w.key("skipped").begin_array();
  for (const auto &skip : run.skipped)
    w.begin_object().member("reason", skip.reason).member("detail", skip.detail).end_object();
  w.end_array().key("used").begin_array();
  for (const auto &id : run.used)
    w.str(id);
  w.end_array();
  if (run.ms >= 0) w.key("ms").int64(run.ms);
  w.end_object();
}

} // namespace mem0
