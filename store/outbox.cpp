#include "store/outbox.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t k_name_digits = 12;

// A pending item's file name: twelve digits and ".json".
bool is_item_name(const std::string &name) {
  return name.size() == k_name_digits + 5 && name.ends_with(".json") &&
         std::all_of(name.begin(), name.begin() + k_name_digits,
                     [](char c) { return c >= '0' && c <= '9'; });
}

// A parked item's file name (Outbox::put): "i-" and its identity, or for an item without one
// "c-" and its content's hash (the same item twice is one request; an identity that is no file
// name too: a duplicate is better than a loss).
std::string parked_name(const std::string &identity, const std::string &content) {
  const bool named = !identity.empty() && all_of_class(identity, is_id_char);
  return (named ? "i-" + identity : "c-" + sha256_hex(content)) + ".json";
}

bool is_parked_name(const std::string &name) {
  return (name.starts_with("i-") || name.starts_with("c-")) && name.ends_with(".json") &&
         all_of_class(std::string_view(name).substr(0, name.size() - 5), is_id_char);
}

// The identity a parked item is deduplicated by; empty for none.
std::string parked_identity(const std::string &name) {
  const std::string file = name.substr(name.rfind('/') + 1);
  return file.starts_with("i-") ? file.substr(2, file.size() - 7) : std::string();
}

struct OutboxState {
  long long next = 1;
  long long last_delivery = 0;
  std::map<std::string, long long> seen; // identity → unix seconds when queued
};

OutboxState parse_state(std::string_view json) {
  OutboxState s;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return s;
  s.next = std::max<long long>(1, int64_member(doc, "next").value_or(1));
  s.last_delivery = int64_member(doc, "last_delivery").value_or(0);
  if (const auto it = doc.FindMember("seen"); it != doc.MemberEnd() && it->value.IsObject())
    for (const auto &m : it->value.GetObject())
      if (m.value.IsInt64()) s.seen[m.name.GetString()] = m.value.GetInt64();
  return s;
}

std::string serialize_state(const OutboxState &s) {
  JsonWriter w;
  w.begin_object().key("next").int64(s.next).key("last_delivery").int64(s.last_delivery);
  w.key("seen").begin_object();
  for (const auto &[identity, when] : s.seen)
    w.key(identity).int64(when);
  w.end_object().end_object();
  return w.text();
}

// Forget identities older than the window, then the oldest beyond the bound.
void trim_seen(OutboxState &s, long long now) {
  const long long cutoff =
      now - std::chrono::duration_cast<std::chrono::seconds>(Outbox::k_dedupe_window).count();
  std::erase_if(s.seen, [&](const auto &entry) { return entry.second < cutoff; });
  while (s.seen.size() > Outbox::k_max_identities)
    s.seen.erase(std::min_element(s.seen.begin(), s.seen.end(), [](const auto &a, const auto &b) {
      return a.second < b.second;
    }));
}

// The neutral capture of an add item (docs/capture.md#the-outbox).
void write_capture(JsonWriter &w, const QueuedAdd &add) {
  w.begin_object().key("messages").begin_array();
  for (const auto &m : add.messages)
    w.begin_object().member("role", m.role).member("content", m.content).end_object();
  w.end_array().member("user_id", add.user_id).member("project_id", add.project_id);
  w.key("metadata").begin_object();
  for (const auto &[key, value] : add.metadata)
    w.member(key, value);
  w.end_object().key("infer").boolean(add.infer);
  if (!add.expiration_date.empty()) w.member("expiration_date", add.expiration_date);
  if (!add.custom_instructions.empty()) w.member("custom_instructions", add.custom_instructions);
  if (!add.team.agent_id.empty()) {
    w.key("team").begin_object().member("agent_id", add.team.agent_id);
    if (add.team.shared_only) w.key("shared_only").boolean(true);
    if (!add.team.run_id.empty()) w.member("run_id", add.team.run_id);
    w.key("dirs").begin_array();
    for (const auto &dir : add.team.dirs)
      w.str(dir);
    w.end_array().end_object();
  }
  w.end_object();
}

std::string serialize_item(const OutboxItem &item) {
  JsonWriter w;
  w.begin_object().member("kind", item.kind == OutboxItem::Kind::add ? "add" : "remove");
  if (item.kind == OutboxItem::Kind::add) {
    w.key("capture");
    write_capture(w, item.add);
  } else {
    w.member("id", item.memory_id);
  }
  // `import_hash`: the name from before claims, when it held the file's hash.
  if (!item.import_file.empty())
    w.member("import_file", item.import_file).member("import_hash", item.import_claim);
  if (item.asked) w.key("asked").boolean(true);
  if (item.unanswered) w.key("unanswered").boolean(true);
  w.end_object();
  return w.text();
}

// The messages of a capture; nullopt when one is not an object of two strings.
std::optional<std::vector<QueuedAdd::Message>> read_messages(const rapidjson::Value &object) {
  std::vector<QueuedAdd::Message> out;
  const auto it = object.FindMember("messages");
  if (it == object.MemberEnd()) return out;
  if (!it->value.IsArray()) return std::nullopt;
  for (const auto &m : it->value.GetArray()) {
    const auto role = m.IsObject() ? string_member(m, "role") : std::nullopt;
    const auto content = m.IsObject() ? string_member(m, "content") : std::nullopt;
    if (!role || !content) return std::nullopt;
    out.push_back({std::string(*role), std::string(*content)});
  }
  return out;
}

// A capture from its neutral shape, or from the Platform add body that items queued before the
// neutral capture held (`project_key` "app_id"); missing members take their defaults.
std::optional<QueuedAdd> read_capture(const rapidjson::Value &v, const char *project_key) {
  if (!v.IsObject()) return std::nullopt;
  auto messages = read_messages(v);
  if (!messages) return std::nullopt;
  QueuedAdd add;
  add.messages = std::move(*messages);
  add.user_id = std::string(string_member(v, "user_id").value_or(""));
  add.project_id = std::string(string_member(v, project_key).value_or(""));
  if (const auto it = v.FindMember("metadata"); it != v.MemberEnd() && it->value.IsObject())
    for (const auto &m : it->value.GetObject())
      if (m.value.IsString())
        add.metadata.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()),
                                  std::string(m.value.GetString(), m.value.GetStringLength()));
  if (const auto it = v.FindMember("infer"); it != v.MemberEnd() && it->value.IsBool())
    add.infer = it->value.GetBool();
  add.expiration_date = std::string(string_member(v, "expiration_date").value_or(""));
  add.custom_instructions = std::string(string_member(v, "custom_instructions").value_or(""));
  // Items queued before team memory have none: the user's lane.
  if (const auto it = v.FindMember("team"); it != v.MemberEnd() && it->value.IsObject()) {
    const auto &t = it->value;
    add.team.agent_id = std::string(string_member(t, "agent_id").value_or(""));
    add.team.run_id = std::string(string_member(t, "run_id").value_or(""));
    if (const auto only = t.FindMember("shared_only");
        only != t.MemberEnd() && only->value.IsBool())
      add.team.shared_only = only->value.GetBool();
    if (const auto dirs = t.FindMember("dirs"); dirs != t.MemberEnd() && dirs->value.IsArray())
      for (const auto &dir : dirs->value.GetArray())
        if (dir.IsString()) add.team.dirs.emplace_back(dir.GetString(), dir.GetStringLength());
  }
  return add;
}

// The capture of an add item: `capture`, or a legacy `body`.
std::optional<QueuedAdd> read_add(const rapidjson::Document &doc) {
  if (const auto it = doc.FindMember("capture"); it != doc.MemberEnd())
    return read_capture(it->value, "project_id");
  if (const auto it = doc.FindMember("body"); it != doc.MemberEnd())
    return read_capture(it->value, "app_id");
  return std::nullopt;
}

std::optional<OutboxItem> parse_item(std::string_view json) {
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  OutboxItem item;
  const auto kind = string_member(doc, "kind").value_or("");
  if (kind == "add") {
    auto add = read_add(doc);
    if (!add) return std::nullopt;
    item.add = std::move(*add);
  } else if (kind == "remove") {
    item.kind = OutboxItem::Kind::remove;
    item.memory_id = std::string(string_member(doc, "id").value_or(""));
    if (!all_of_class(item.memory_id, is_id_char)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  item.import_file = std::string(string_member(doc, "import_file").value_or(""));
  item.import_claim = std::string(string_member(doc, "import_hash").value_or(""));
  if (const auto it = doc.FindMember("asked"); it != doc.MemberEnd() && it->value.IsBool())
    item.asked = it->value.GetBool();
  if (const auto it = doc.FindMember("unanswered"); it != doc.MemberEnd() && it->value.IsBool())
    item.unanswered = it->value.GetBool();
  return item;
}

} // namespace

Outbox::Outbox(StateDisk &disk, const fs::path &state_dir)
    : m_disk(&disk), m_dir(state_dir / "outbox") {}

Result<std::string> Outbox::put(const OutboxItem &item, const std::string &identity, WallTime now) {
  if (!m_disk->make_dir(m_dir)) return unexpected(make_error(ErrorKind::io, "outbox: io"));
  const std::string content = serialize_item(item);
  auto queued = queue(content, identity, now);
  if (queued || queued.error().kind != ErrorKind::timeout) return queued;
  // The lock stayed busy (a crowd of captures on a slow machine): parked, never lost to a wait.
  const std::string name = "parked/" + parked_name(identity, content);
  if (!m_disk->make_dir(m_dir / "parked") ||
      !m_disk->write(m_dir / name, content, Durability::durable))
    return unexpected(make_error(ErrorKind::io, "outbox: io"));
  return name;
}

Result<std::string> Outbox::queue(const std::string &content, const std::string &identity,
                                  WallTime now) {
  std::optional<ErrorKind> refused;
  std::string name;
  auto done = m_disk->update_locked(
      m_dir / "state.json",
      [&](const std::string &current) -> std::optional<std::string> {
        OutboxState s = parse_state(current);
        const long long t = unix_seconds(now);
        trim_seen(s, t);
        if (!identity.empty() && s.seen.count(identity)) {
          refused = ErrorKind::duplicate;
          return std::nullopt;
        }
        const auto names = pending();
        std::size_t bytes = content.size();
        for (const auto &n : names)
          bytes += static_cast<std::size_t>(m_disk->size(m_dir / n).value_or(0));
        if (names.size() >= k_max_items || bytes > k_max_bytes) {
          refused = ErrorKind::full;
          return std::nullopt;
        }
        // Never reuse a name, even if the state file was lost or is behind the directory.
        if (!names.empty()) s.next = std::max(s.next, std::stoll(names.back()) + 1);
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%012lld.json", s.next);
        name = buffer;
        if (!m_disk->write(m_dir / name, content, Durability::durable)) {
          refused = ErrorKind::io;
          return std::nullopt;
        }
        ++s.next;
        if (!identity.empty()) s.seen[identity] = t;
        return serialize_state(s);
      },
      Durability::saves_work, // the item is durable; the state only numbers and dedupes
      k_lock_wait);
  if (refused)
    return unexpected(make_error(*refused, "outbox: " + std::string(to_string(*refused))));
  // The item may be written while the state is not: keep it (a duplicate is better than a loss).
  if (!done && name.empty())
    return unexpected(
        make_error(done.error().kind == ErrorKind::timeout ? ErrorKind::timeout : ErrorKind::io,
                   "outbox: " + done.error().message));
  return name;
}

void Outbox::admit_parked(WallTime now) {
  for (const auto &name : parked()) {
    const auto content = m_disk->read(m_dir / name, k_max_bytes);
    if (!content) continue;
    const auto queued = queue(*content, parked_identity(name), now);
    if (!queued && queued.error().kind != ErrorKind::duplicate) return; // busy or full: it waits
    m_disk->remove(m_dir / name);
  }
}

std::vector<std::string> Outbox::parked() const {
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  for (auto &entry : m_disk->list(m_dir / "parked"))
    if (entry.file && is_parked_name(entry.name)) {
      std::string name = "parked/" + entry.name;
      found.emplace_back(m_disk->modified(m_dir / name).value_or(fs::file_time_type{}),
                         std::move(name));
    }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto &[when, name] : found)
    names.push_back(std::move(name));
  return names;
}

std::vector<std::string> Outbox::pending() const { return items(false); }

std::vector<std::string> Outbox::waiting() const { return items(true); }

std::vector<std::string> Outbox::items(bool with_parked) const {
  std::vector<std::string> names;
  bool parked_dir = false;
  for (auto &entry : m_disk->list(m_dir)) {
    if (is_item_name(entry.name))
      names.push_back(std::move(entry.name));
    else if (entry.name == "parked" && !entry.file)
      parked_dir = true;
  }
  std::sort(names.begin(), names.end());
  // Every hook run asks (RunFacts::outbox_has_pending): `parked/` is listed only when it exists.
  if (with_parked && parked_dir)
    for (auto &name : parked())
      names.push_back(std::move(name));
  return names;
}

bool Outbox::has_asked() const {
  const auto names = waiting();
  return std::any_of(names.rbegin(), names.rend(), [&](const std::string &name) {
    const auto item = load(name);
    return item && item->asked;
  });
}

std::optional<OutboxItem> Outbox::load(const std::string &name) const {
  const auto text = m_disk->read(m_dir / name, k_max_bytes);
  return text ? parse_item(*text) : std::nullopt;
}

void Outbox::remove(const std::string &name) { m_disk->remove(m_dir / name); }

void Outbox::mark_unanswered(const std::string &name) {
  auto item = load(name);
  if (!item || item->unanswered) return;
  item->unanswered = true;
  // Best effort: unmarked, a retry is only sent without looking first.
  (void)m_disk->write(m_dir / name, serialize_item(*item), Durability::durable);
}

void Outbox::reject(const std::string &name, long status, const std::string &message) {
  const std::string item = m_disk->read(m_dir / name, k_max_bytes).value_or("");
  JsonWriter w;
  w.begin_object().key("status").int64(status).member("error", message).member("item", item);
  w.end_object();
  // The item moves only once its copy is safely written: nothing is lost if this fails.
  if (m_disk->make_dir(m_dir / "rejected") &&
      m_disk->write(m_dir / "rejected" / name, w.text(), Durability::durable))
    remove(name);
}

void Outbox::delivered(WallTime now) {
  // Best effort: the last delivery only informs `doctor`.
  (void)m_disk->update_locked(
      m_dir / "state.json",
      [&](const std::string &current) {
        OutboxState s = parse_state(current);
        s.last_delivery = unix_seconds(now);
        return std::optional<std::string>(serialize_state(s));
      },
      Durability::saves_work, k_lock_wait);
}

Outbox::Stats Outbox::stats() const {
  Stats stats;
  for (const auto &name : waiting()) {
    ++stats.pending;
    stats.bytes += static_cast<std::size_t>(m_disk->size(m_dir / name).value_or(0));
  }
  for (const auto &entry : m_disk->list(m_dir / "rejected"))
    if (is_item_name(entry.name)) ++stats.rejected;
  if (const auto text = m_disk->read(m_dir / "state.json", 1 << 20))
    stats.last_delivery = parse_state(*text).last_delivery;
  return stats;
}

std::string capture_identity(std::string_view text, std::string_view type, std::string_view project,
                             std::string_view target) {
  std::string normalised;
  bool space = false;
  for (char c : trim(text)) {
    const bool is_space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (is_space) {
      space = true;
      continue;
    }
    if (space) normalised += ' ';
    space = false;
    normalised += ascii_lower(c);
  }
  return sha256_hex(normalised + '\0' + std::string(type) + '\0' + std::string(project) + '\0' +
                    std::string(target))
      .substr(0, 32);
}

} // namespace mem0
