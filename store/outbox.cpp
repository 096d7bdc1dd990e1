#include "store/outbox.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr std::size_t k_name_digits = 12;

// A pending item's file name: twelve digits and ".json".
bool is_item_name(const std::string &name) {
  return name.size() == k_name_digits + 5 && name.ends_with(".json") &&
         std::all_of(name.begin(), name.begin() + k_name_digits,
                     [](char c) { return c >= '0' && c <= '9'; });
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
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("next");
  w.Int64(s.next);
  w.Key("last_delivery");
  w.Int64(s.last_delivery);
  w.Key("seen");
  w.StartObject();
  for (const auto &[identity, when] : s.seen) {
    w.Key(identity.data(), static_cast<rapidjson::SizeType>(identity.size()));
    w.Int64(when);
  }
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
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

std::string serialize_item(const OutboxItem &item) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("kind");
  str(item.kind == OutboxItem::Kind::add ? "add" : "remove");
  if (item.kind == OutboxItem::Kind::add) {
    w.Key("body");
    w.RawValue(item.body.data(), item.body.size(), rapidjson::kObjectType);
  } else {
    w.Key("id");
    str(item.memory_id);
  }
  if (!item.import_file.empty()) {
    w.Key("import_file");
    str(item.import_file);
    w.Key("import_hash"); // the name from before claims, when it held the file's hash
    str(item.import_claim);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::optional<OutboxItem> parse_item(std::string_view json) {
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  OutboxItem item;
  const auto kind = string_member(doc, "kind").value_or("");
  if (kind == "add") {
    const auto body = doc.FindMember("body");
    if (body == doc.MemberEnd() || !body->value.IsObject()) return std::nullopt;
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    body->value.Accept(w);
    item.body.assign(buffer.GetString(), buffer.GetSize());
  } else if (kind == "remove") {
    item.kind = OutboxItem::Kind::remove;
    item.memory_id = std::string(string_member(doc, "id").value_or(""));
    if (!all_of_class(item.memory_id, is_id_char)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  item.import_file = std::string(string_member(doc, "import_file").value_or(""));
  item.import_claim = std::string(string_member(doc, "import_hash").value_or(""));
  return item;
}

} // namespace

Outbox::Outbox(const fs::path &state_dir) : m_dir(state_dir / "outbox") {}

Result<std::string> Outbox::put(const OutboxItem &item, const std::string &identity, WallTime now) {
  if (!ensure_private_dir(m_dir)) return unexpected(make_error(ErrorKind::io, "outbox: io"));
  const std::string content = serialize_item(item);
  std::optional<ErrorKind> refused;
  std::string name;
  auto done = update_file_locked(
      m_dir / "state.json", [&](const std::string &current) -> std::optional<std::string> {
        OutboxState s = parse_state(current);
        const long long t = unix_seconds(now);
        trim_seen(s, t);
        if (!identity.empty() && s.seen.count(identity)) {
          refused = ErrorKind::duplicate;
          return std::nullopt;
        }
        const auto names = pending();
        std::size_t bytes = content.size();
        std::error_code ec;
        for (const auto &n : names)
          bytes += static_cast<std::size_t>(fs::file_size(m_dir / n, ec));
        if (names.size() >= k_max_items || bytes > k_max_bytes) {
          refused = ErrorKind::full;
          return std::nullopt;
        }
        // Never reuse a name, even if the state file was lost or is behind the directory.
        if (!names.empty()) s.next = std::max(s.next, std::stoll(names.back()) + 1);
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%012lld.json", s.next);
        name = buffer;
        if (!write_file_atomic(m_dir / name, content)) {
          refused = ErrorKind::io;
          return std::nullopt;
        }
        ++s.next;
        if (!identity.empty()) s.seen[identity] = t;
        return serialize_state(s);
      });
  if (refused)
    return unexpected(make_error(*refused, "outbox: " + std::string(to_string(*refused))));
  if (!done) {
    // The item may be written while the state is not: keep it (a duplicate is better than a loss).
    if (name.empty()) return unexpected(make_error(ErrorKind::io, "outbox: io"));
  }
  return name;
}

std::vector<std::string> Outbox::pending() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(m_dir, ec)) {
    std::string name = entry.path().filename().string();
    if (is_item_name(name)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<OutboxItem> Outbox::load(const std::string &name) const {
  const auto text = read_small_file(m_dir / name, k_max_bytes);
  return text ? parse_item(*text) : std::nullopt;
}

void Outbox::remove(const std::string &name) {
  std::error_code ec;
  fs::remove(m_dir / name, ec);
}

void Outbox::reject(const std::string &name, long status, const std::string &message) {
  const std::string item = read_small_file(m_dir / name, k_max_bytes).value_or("");
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("status");
  w.Int64(status);
  w.Key("error");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.Key("item");
  w.String(item.data(), static_cast<rapidjson::SizeType>(item.size()));
  w.EndObject();
  // The item moves only once its copy is safely written: nothing is lost if this fails.
  if (ensure_private_dir(m_dir / "rejected") &&
      write_file_atomic(m_dir / "rejected" / name,
                        std::string(buffer.GetString(), buffer.GetSize())))
    remove(name);
}

void Outbox::delivered(WallTime now) {
  // Best effort: the last delivery only informs `doctor`.
  (void)update_file_locked(m_dir / "state.json", [&](const std::string &current) {
    OutboxState s = parse_state(current);
    s.last_delivery = unix_seconds(now);
    return std::optional<std::string>(serialize_state(s));
  });
}

Outbox::Stats Outbox::stats() const {
  Stats stats;
  std::error_code ec;
  for (const auto &name : pending()) {
    ++stats.pending;
    stats.bytes += static_cast<std::size_t>(fs::file_size(m_dir / name, ec));
  }
  for (const auto &entry : fs::directory_iterator(m_dir / "rejected", ec))
    if (is_item_name(entry.path().filename().string())) ++stats.rejected;
  if (const auto text = read_small_file(m_dir / "state.json"))
    stats.last_delivery = parse_state(*text).last_delivery;
  return stats;
}

std::string capture_identity(std::string_view text, std::string_view type,
                             std::string_view project) {
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
  return sha256_hex(normalised + '\0' + std::string(type) + '\0' + std::string(project))
      .substr(0, 32);
}

} // namespace mem0
