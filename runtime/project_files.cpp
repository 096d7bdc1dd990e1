#include "runtime/project_files.hpp"
#include "mem0/memory.hpp"
#include "runtime/remember.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <rapidjson/document.h>

#include <array>
#include <chrono>
#include <functional>
#include <map>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 5> k_project_files{"CLAUDE.md", "AGENTS.md", ".cursorrules",
                                                          ".windsurfrules", "mem0.md"};
constexpr std::size_t k_max_file_bytes = 100 * 1024;

// A project file as written, when it is a regular file: a repository's symbolic link (to
// ~/.config/app/.env, say) is never read, so never stored.
std::optional<std::string> read_project_file(const fs::path &path) {
  return read_small_file(path, k_max_file_bytes, Links::refuse);
}
constexpr std::size_t k_min_section = 50;
constexpr std::size_t k_max_section = 10000;

// An import that has not queued all of its items after this long was abandoned (its process
// was killed): the next start takes it over. Queueing takes milliseconds.
constexpr long long k_abandoned_after_s = 60;

struct Import {
  std::string hash;  // the content hash of the file imported
  std::string claim; // what its outbox items carry: the hash and a unique suffix (older files:
                     // empty, and the items carry the hash)
  std::vector<std::string> ids;      // the memories its delivered items got
  std::vector<std::string> replaced; // while queueing: the memories of the import it replaces
  long long queueing_since = 0;      // unix seconds; 0 once every item is queued

  std::string_view items_carry() const { return claim.empty() ? hash : claim; }
  bool abandoned(long long now) const {
    return queueing_since != 0 && now - queueing_since > k_abandoned_after_s;
  }
};
using Imports = std::map<std::string, Import>; // "<project>/<file>" → the last import

Imports parse_imports(std::string_view json) {
  Imports imports;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return imports;
  for (const auto &m : doc.GetObject()) {
    if (!m.value.IsObject()) continue;
    Import &i = imports[m.name.GetString()];
    i.hash = std::string(string_member(m.value, "hash").value_or(""));
    i.claim = std::string(string_member(m.value, "claim").value_or(""));
    i.ids = strings_member(m.value, "ids");
    i.replaced = strings_member(m.value, "replaced");
    i.queueing_since = int64_member(m.value, "queueing_since").value_or(0);
  }
  return imports;
}

std::string serialize_imports(const Imports &imports) {
  JsonWriter w;
  auto strings = [&](std::string_view name, const std::vector<std::string> &list) {
    w.key(name).begin_array();
    for (const auto &s : list)
      w.str(s);
    w.end_array();
  };
  w.begin_object();
  for (const auto &[key, i] : imports) {
    w.key(key).begin_object().member("hash", i.hash).member("claim", i.claim);
    strings("ids", i.ids);
    if (i.queueing_since != 0) {
      strings("replaced", i.replaced);
      w.key("queueing_since").int64(i.queueing_since);
    }
    w.end_object();
  }
  w.end_object();
  return w.text();
}

fs::path imports_path(const fs::path &state_dir) { return state_dir / "imports.json"; }

} // namespace

std::vector<std::string> markdown_sections(std::string_view text) {
  std::vector<std::string> sections;
  auto keep = [&](std::string_view section) {
    section = trim(section);
    if (code_points(section) < k_min_section) return;
    sections.emplace_back(utf8_prefix(section, k_max_section));
  };
  std::size_t start = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    if (text.substr(at, 3) == "## " && at > start) {
      keep(text.substr(start, at - start));
      start = at;
    }
    at = eol + 1;
  }
  keep(text.substr(start));
  return sections;
}

namespace {

// Change the entry `key` of imports.json with `change` (given the entry, true when it changed it).
Result<void> update_import(StateStore &state, const std::string &key,
                           const std::function<bool(Import &)> &change) {
  return state.disk->update_locked(
      imports_path(state.dir),
      [&](const std::string &current) {
        Imports imports = parse_imports(current);
        if (!change(imports[key])) return std::optional<std::string>();
        return std::optional<std::string>(serialize_imports(imports));
      },
      Durability::saves_work, k_lock_wait);
}

// Take back an import that could not queue all of its items: its queued items leave the outbox,
// and unless a newer import took over, its hash is forgotten (so a later start imports the file
// again) and the memories it was to replace are listed again for deletion. An item a sender
// already holds gets its ids listed too, and the next import deletes them with the rest.
void withdraw_import(const RunDeps &deps, Outbox &outbox, const std::string &key,
                     const std::string &claim, const std::vector<std::string> &queued) {
  for (const auto &name : queued)
    outbox.remove(name);
  auto done = update_import(deps.state, key, [&](Import &entry) {
    if (entry.claim != claim) return false;
    entry.hash.clear();
    entry.ids.insert(entry.ids.begin(), entry.replaced.begin(), entry.replaced.end());
    entry.replaced.clear();
    entry.queueing_since = 0;
    return true;
  });
  deps.log.warn("import of " + key + " withdrawn: the outbox refused it; a later start retries" +
                (done ? std::string() : " (not recorded: " + done.error().message + ")"));
}

// What one import queues under: the file's name, its key in imports.json, and its claim.
struct ImportOf {
  std::string_view name;
  const std::string &key;
  const std::string &claim;
};

// Queue the sections of `text` first, then the deletion of `old_ids` (the last import's
// memories), adding the names of the items queued to `queued`; false at the first refusal (a
// full or unwritable outbox), which withdraws the whole import.
bool queue_import(const RunDeps &deps, RunFacts &facts, Outbox &outbox, const ImportOf &import,
                  const std::string &text, const std::vector<std::string> &old_ids,
                  std::vector<std::string> &queued) {
  for (auto &section : markdown_sections(text)) {
    Capture c;
    c.messages = {{"user", std::move(section)}};
    c.type = memory_type::project_profile;
    c.source = memory_source::auto_import;
    c.metadata = {{"file", std::string(import.name)}};
    c.infer = false;
    c.import_file = import.key;
    c.import_claim = import.claim;
    const auto put = remember(deps, facts, std::move(c));
    if (put)
      queued.push_back(*put);
    else if (put.error().kind != ErrorKind::empty)
      return false;
  }
  for (const auto &id : old_ids) {
    OutboxItem remove;
    remove.kind = OutboxItem::Kind::remove;
    remove.memory_id = id;
    const auto put = outbox.put(remove, "", deps.now());
    if (!put) return false;
    queued.push_back(*put);
  }
  return true;
}

// A claim no other import shares, even of the same content.
std::string new_claim(const std::string &hash) {
  return hash + "-" + std::to_string(platform::process_id()) + "-" +
         std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
}

} // namespace

bool project_files_changed(const RunDeps &deps, RunFacts &facts) {
  const fs::path &root = facts.project_root();
  const std::string &project = facts.project_id();
  const Imports imports =
      parse_imports(deps.state.disk->read(imports_path(deps.state.dir), 1 << 20).value_or(""));
  const auto changed = [&] {
    for (const auto name : k_project_files)
      if (const auto text = read_project_file(root / name)) {
        const auto last = imports.find(project + "/" + std::string(name));
        if (last == imports.end() || last->second.hash != sha256_hex(*text).substr(0, 32) ||
            last->second.abandoned(unix_seconds(deps.now())))
          return true;
      }
    return false;
  };
  if (!changed()) return false;
  if (!facts.user_pause()) return true;
  facts.note_paused_work(); // the import waits until the user resumes
  return false;
}

void import_project_files(const RunDeps &deps, RunFacts &facts) {
  const fs::path root = facts.project_root();
  const std::string project = facts.project_id();
  Outbox &outbox = deps.state.outbox;
  for (const auto name : k_project_files) {
    const auto text = read_project_file(root / name);
    if (!text) continue;
    const std::string key = project + "/" + std::string(name);
    const std::string hash = sha256_hex(*text).substr(0, 32);
    const std::string claim = new_claim(hash);
    const long long now = unix_seconds(deps.now());
    std::vector<std::string> old_ids;
    bool claimed = false;
    if (!deps.state.disk->make_dir(deps.state.dir)) return;
    // Claimed under the lock, so that concurrent starts import a file once. What the last
    // import stored, and what an abandoned one was to replace, is replaced by this one. A failed
    // update leaves `claimed` false: the file waits for the next start.
    (void)update_import(deps.state, key, [&](Import &last) {
      if (last.hash == hash && !last.abandoned(now)) return false;
      old_ids = std::move(last.replaced);
      old_ids.insert(old_ids.end(), last.ids.begin(), last.ids.end());
      last = {hash, claim, {}, old_ids, now};
      return claimed = true;
    });
    if (!claimed) continue;
    deps.log.debug([&] {
      return "importing " + std::string(name) + " (" + std::to_string(old_ids.size()) +
             " memories of its last import to delete)";
    });
    std::vector<std::string> queued;
    if (!queue_import(deps, facts, outbox, {name, key, claim}, *text, old_ids, queued)) {
      withdraw_import(deps, outbox, key, claim, queued);
      continue;
    }
    // Every item is queued: the import is complete (unless a newer one took over meanwhile).
    // Best effort: an import left queueing is taken over by the next start.
    (void)update_import(deps.state, key, [&](Import &entry) {
      if (entry.claim != claim) return false;
      entry.replaced.clear();
      entry.queueing_since = 0;
      return true;
    });
  }
}

void record_import_ids(StateStore &state, const OutboxItem &item,
                       const std::vector<std::string> &ids) {
  if (item.import_file.empty() || ids.empty()) return;
  bool superseded = false;
  // Best effort: ids that cannot be recorded are not deleted by the next import.
  (void)update_import(state, item.import_file, [&](Import &entry) {
    // Replaced (or withdrawn) while this item waited in the outbox?
    superseded = entry.items_carry() != item.import_claim;
    if (!superseded) entry.ids.insert(entry.ids.end(), ids.begin(), ids.end());
    return !superseded;
  });
  // The newer import could not delete what this one stored (it was not delivered yet): delete
  // it now, or it would stay in the project for good.
  if (!superseded) return;
  for (const auto &id : ids) {
    OutboxItem remove;
    remove.kind = OutboxItem::Kind::remove;
    remove.memory_id = id;
    // Best effort: a deletion the outbox refuses leaves the memory, and no caller is waiting.
    (void)state.outbox.put(remove, "", std::chrono::system_clock::now());
  }
}

} // namespace mem0
