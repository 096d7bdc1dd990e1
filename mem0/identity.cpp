#include "mem0/identity.hpp"
#include "mem0/dialect.hpp"
#include "util/files.hpp"
#include "util/git.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

std::string project_map_key(const std::string &url) {
  return "remote:" + sha256_hex(url).substr(0, 16);
}

// The heal is a convenience (any later run heals): it waits for the map's lock a quarter of the
// run's budget at most, and 1 s: enough for twenty concurrent heals even in a sanitizer build,
// little against a stuck holder when the budget is short.
constexpr std::chrono::milliseconds k_heal_wait{1000};

// Add `cwd → project` to project_map.json, keeping every other entry; never overwrite a map
// that does not parse. A symlinked map (dotfiles) stays a link: its target is updated in place.
// Waits at most `wait` for the map's lock.
void self_heal_project_map(const fs::path &map_path, const std::string &cwd,
                           const std::string &project, std::chrono::milliseconds wait,
                           const Log &log) {
  const FileChange change = [&](const std::string &current) -> std::optional<std::string> {
    rapidjson::Document doc;
    parse_json(doc, current);
    if (doc.HasParseError() || !doc.IsObject() || doc.HasMember(cwd.c_str())) return std::nullopt;
    doc.AddMember(rapidjson::Value(cwd.c_str(), doc.GetAllocator()),
                  rapidjson::Value(project.c_str(), doc.GetAllocator()), doc.GetAllocator());
    PrettyJsonWriter w;
    w.base().SetIndent(' ', 2);
    w.value(doc);
    return w.text() + "\n";
  };
  auto done = update_file_locked(map_path, change, Durability::durable, wait);
  if (!done) log.warn("project_map.json not updated: " + done.error().message);
}

// Of `s`, the part before `suffix` when it ends with it.
void strip_suffix(std::string &s, std::string_view suffix) {
  if (s.ends_with(suffix)) s.resize(s.size() - suffix.size());
}

void strip_slashes(std::string &s) {
  while (s.ends_with('/'))
    s.pop_back();
}

} // namespace

std::string normalize_origin(std::string_view url) {
  std::string s(trim(url));
  auto scheme = s.find("://");
  // scp-like `[user@]host:path`: a colon before any slash, and no scheme.
  if (const auto colon = s.find(':'); scheme == std::string::npos && colon != std::string::npos &&
                                      colon > 0 && s.find('/') > colon) {
    std::string host = s.substr(0, colon);
    if (const auto at = host.rfind('@'); at != std::string::npos) host.erase(0, at + 1);
    s = "https://" + host + "/" + s.substr(colon + 1);
    scheme = s.find("://");
  }
  if (scheme != std::string::npos) {
    const std::size_t host_start = scheme + 3;
    const std::size_t host_end = std::min(s.find('/', host_start), s.size());
    std::string authority = s.substr(host_start, host_end - host_start);
    if (const auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
    s = s.substr(0, host_start) + ascii_lower(authority) + s.substr(host_end);
  }
  strip_slashes(s);
  strip_suffix(s, ".git");
  strip_slashes(s);
  return s;
}

std::string shared_agent_id(std::string_view app_id, const fs::path &cwd) {
  const auto repo = find_repo(cwd);
  return shared_agent_id(app_id, cwd, repo, repo ? origin_url(*repo) : std::nullopt);
}

std::string shared_agent_id(std::string_view app_id, const fs::path &cwd,
                            const std::optional<GitRepo> &repo,
                            const std::optional<std::string> &url) {
  if (url && !url->empty())
    return std::string(app_id) + "-" + sha256_hex(normalize_origin(*url)).substr(0, 10);
  std::error_code ec;
  const fs::path root = repo ? repo->top : cwd;
  const fs::path real = fs::canonical(root, ec);
  return "local-" + std::string(app_id) + "-" +
         sha256_hex((ec ? root : real).string()).substr(0, 10);
}

bool searches_shared_memory(const Config &config) {
  return config.shared_memory && config.dialect->traits().shared_memory;
}

Identity project_identity(const Config &config, std::string project_id, const fs::path &cwd,
                          std::string session) {
  Identity identity{config.user_id, std::move(project_id), std::move(session), {}};
  if (searches_shared_memory(config))
    identity.shared_agent_id = shared_agent_id(identity.project_id, cwd);
  return identity;
}

Identity project_identity(const Config &config, const Environment &env, const fs::path &cwd,
                          std::string session, const Log &log) {
  return project_identity(config, resolve_project_id(config, env, cwd, log).id, cwd,
                          std::move(session));
}

ProjectId resolve_project_id(const Config &config, const Environment &env, const fs::path &cwd,
                             const Log &log) {
  const auto origin = [&]() -> std::optional<std::string> {
    const auto repo = find_repo(cwd);
    return repo ? origin_url(*repo) : std::nullopt;
  };
  return resolve_project_id(config, env, cwd, origin, log);
}

ProjectId resolve_project_id(const Config &config, const Environment &env, const fs::path &cwd,
                             const std::function<std::optional<std::string>()> &origin,
                             const Log &log) {
  if (auto v = env.get("MEM0_PROJECT_ID"); v && !trim(*v).empty())
    return {std::string(trim(*v)), "env MEM0_PROJECT_ID"};

  const fs::path map_path = config.mem0_dir / "project_map.json";
  rapidjson::Document map;
  if (const auto text = read_small_file(map_path)) parse_json(map, *text);
  const bool map_ok = !map.HasParseError() && map.IsObject();
  auto lookup = [&](const std::string &key) -> std::optional<std::string> {
    if (!map_ok) return std::nullopt;
    const auto id = string_member(map, key.c_str());
    if (!id || id->empty()) return std::nullopt;
    return std::string(*id);
  };

  const std::string cwd_key = cwd.string();
  if (auto id = lookup(cwd_key)) return {*id, "project_map.json (cwd)"};

  // Without user-info, whoever read it: a credential never becomes (part of) a key or an id.
  auto url = origin();
  if (url) *url = without_user_info(*url);
  if (url && !url->empty()) {
    if (auto id = lookup(project_map_key(*url))) {
      self_heal_project_map(map_path, cwd_key, *id, std::min(config.timeout / 4, k_heal_wait), log);
      return {*id, "project_map.json (remote)"};
    }
    if (auto slug = remote_slug(*url); !slug.empty()) return {slug, "git remote origin"};
  }
  const std::string base = cwd.filename().string();
  if (!base.empty()) return {base, "directory name"};
  return {"unknown", "default"};
}

} // namespace mem0
