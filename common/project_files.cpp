#include "common/project_files.hpp"
#include "common/files.hpp"
#include "common/git.hpp"
#include "common/identity.hpp"
#include "common/json.hpp"
#include "common/remember.hpp"
#include "common/sha256.hpp"
#include "common/strings.hpp"
#include "common/utf8.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <chrono>
#include <map>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 5> k_project_files{"CLAUDE.md", "AGENTS.md", ".cursorrules",
                                                          ".windsurfrules", "mem0.md"};
constexpr std::size_t k_max_file_bytes = 100 * 1024;
constexpr std::size_t k_min_section = 50;
constexpr std::size_t k_max_section = 10000;

struct Import {
  std::string hash;
  std::vector<std::string> ids;
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
    if (const auto ids = m.value.FindMember("ids");
        ids != m.value.MemberEnd() && ids->value.IsArray())
      for (const auto &id : ids->value.GetArray())
        if (id.IsString()) i.ids.emplace_back(id.GetString(), id.GetStringLength());
  }
  return imports;
}

std::string serialize_imports(const Imports &imports) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  for (const auto &[key, i] : imports) {
    str(key);
    w.StartObject();
    w.Key("hash");
    str(i.hash);
    w.Key("ids");
    w.StartArray();
    for (const auto &id : i.ids)
      str(id);
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
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

// The project root (git top level, else the working directory) and the project id of `input`.
std::pair<fs::path, std::string> project_of(const HookContext &ctx, const HookInput &input) {
  const fs::path cwd = cwd_of(input, ctx.env);
  const auto repo = find_repo(cwd);
  return {repo ? repo->top : cwd, resolve_project_id(ctx.config, ctx.env, cwd, ctx.log).id};
}

// Take back an import that could not queue all of its items: its queued items leave the outbox,
// its claim is dropped (so a later start imports the file again) and the last import's memories
// stay listed for deletion. An item a sender already holds is deleted after delivery, as a
// superseded import's is (record_import_ids). Nothing is lost and nothing is stored twice.
void withdraw_import(const HookContext &ctx, Outbox &outbox, const std::string &key,
                     const std::string &hash, const std::vector<std::string> &old_ids,
                     const std::vector<std::string> &queued) {
  for (const auto &name : queued)
    outbox.remove(name);
  auto done = update_file_locked(imports_path(ctx.state.dir), [&](const std::string &current) {
    Imports imports = parse_imports(current);
    Import &entry = imports[key];
    if (entry.hash == hash) entry.hash.clear();
    entry.ids.insert(entry.ids.begin(), old_ids.begin(), old_ids.end());
    return std::optional<std::string>(serialize_imports(imports));
  });
  ctx.log.warn("import of " + key + " withdrawn: the outbox refused it; a later start retries" +
               (done ? std::string() : " (not recorded: " + done.error().message + ")"));
}

} // namespace

bool project_files_changed(const HookContext &ctx, const HookInput &input) {
  const auto [root, project] = project_of(ctx, input);
  const Imports imports = parse_imports(read_small_file(imports_path(ctx.state.dir)).value_or(""));
  for (const auto name : k_project_files)
    if (const auto text = read_small_file(root / name, k_max_file_bytes)) {
      const auto last = imports.find(project + "/" + std::string(name));
      if (last == imports.end() || last->second.hash != sha256_hex(*text).substr(0, 32))
        return true;
    }
  return false;
}

void import_project_files(const HookContext &ctx, const HookInput &input) {
  const auto [root, project] = project_of(ctx, input);
  Outbox outbox(ctx.state.dir);
  for (const auto name : k_project_files) {
    const auto text = read_small_file(root / name, k_max_file_bytes);
    if (!text) continue;
    const std::string key = project + "/" + std::string(name);
    const std::string hash = sha256_hex(*text).substr(0, 32);
    std::vector<std::string> old_ids;
    bool changed = false;
    if (!ensure_private_dir(ctx.state.dir)) return;
    update_file_locked(imports_path(ctx.state.dir), [&](const std::string &current) {
      Imports imports = parse_imports(current);
      Import &last = imports[key];
      if (last.hash == hash) return std::optional<std::string>();
      changed = true;
      old_ids = std::move(last.ids);
      last = {hash, {}};
      return std::optional<std::string>(serialize_imports(imports));
    });
    if (!changed) continue;
    ctx.log.debug("importing " + std::string(name) + " (" + std::to_string(old_ids.size()) +
                  " memories of its last import to delete)");
    // The new sections first, then the deletion of the last import's memories; one refusal (a
    // full or unwritable outbox) withdraws the whole import.
    std::vector<std::string> queued;
    bool refused = false;
    for (auto &section : markdown_sections(*text)) {
      Capture c;
      c.messages = {{"user", std::move(section)}};
      c.type = "project_profile";
      c.source = "auto-import";
      c.metadata = {{"file", std::string(name)}};
      c.infer = false;
      c.import_file = key;
      c.import_hash = hash;
      const auto put = remember(ctx, input, std::move(c));
      if (put) queued.push_back(*put);
      refused = !put && put.error() != NotQueued::empty;
      if (refused) break;
    }
    for (std::size_t i = 0; !refused && i < old_ids.size(); ++i) {
      OutboxItem remove;
      remove.kind = OutboxItem::Kind::remove;
      remove.memory_id = old_ids[i];
      const auto put = outbox.put(remove, "", ctx.now());
      if (put) queued.push_back(*put);
      refused = !put;
    }
    if (refused) withdraw_import(ctx, outbox, key, hash, old_ids, queued);
  }
}

void record_import_ids(const fs::path &state_dir, const OutboxItem &item,
                       const std::vector<std::string> &ids) {
  if (item.import_file.empty() || ids.empty()) return;
  bool superseded = false;
  update_file_locked(imports_path(state_dir), [&](const std::string &current) {
    Imports imports = parse_imports(current);
    const auto it = imports.find(item.import_file);
    if (it == imports.end() || it->second.hash != item.import_hash) {
      superseded = true; // a newer import replaced it while this item waited in the outbox
      return std::optional<std::string>();
    }
    it->second.ids.insert(it->second.ids.end(), ids.begin(), ids.end());
    return std::optional<std::string>(serialize_imports(imports));
  });
  // The newer import could not delete what this one stored (it was not delivered yet): delete
  // it now, or it would stay in the project for good.
  if (!superseded) return;
  Outbox outbox(state_dir);
  for (const auto &id : ids) {
    OutboxItem remove;
    remove.kind = OutboxItem::Kind::remove;
    remove.memory_id = id;
    outbox.put(remove, "", std::chrono::system_clock::now());
  }
}

} // namespace mem0
