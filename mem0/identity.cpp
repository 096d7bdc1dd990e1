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

// The host of an authority lower-cased, with its port as a number; an IPv6 host loses its
// brackets, a port 0 goes (as Python's urlsplit gives them to Mem0's plugins). A port that is no
// number (where the plugins fail) is kept, lower-cased.
std::string host_and_port(std::string_view authority) {
  std::string_view host = authority, port;
  if (authority.starts_with('[') && authority.find(']') != std::string_view::npos) {
    const auto close = authority.find(']');
    host = authority.substr(1, close - 1);
    if (authority.substr(close + 1).starts_with(':')) port = authority.substr(close + 2);
  } else if (const auto colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  std::string out = ascii_lower(host);
  const bool digits =
      !port.empty() && port.size() <= 9 &&
      std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    if (const long number = std::stol(std::string(port)); number != 0)
      out += ":" + std::to_string(number);
  } else if (!port.empty()) {
    out += ":" + ascii_lower(port);
  }
  return out;
}

// `path` as an absolute path without a trailing separator (as Python's os.path.abspath).
fs::path given_path(const fs::path &path) {
  std::error_code ec;
  fs::path p = (path.is_absolute() ? path : fs::absolute(path, ec)).lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

fs::path real_path(const fs::path &path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  return ec ? path : real;
}

// The directory a project's ids start from: the repository's top level (its real path, as
// `git rev-parse --show-toplevel` gives it), else the working directory as given.
fs::path project_root(const fs::path &cwd, const std::optional<GitRepo> &repo) {
  return repo ? real_path(given_path(repo->top)) : given_path(cwd);
}

// ~/.mem0/project_map.json read once; `problem` says why it is not used when it is not.
struct ProjectMap {
  rapidjson::Document doc;
  std::string problem;

  explicit ProjectMap(const fs::path &path) {
    const auto text = read_small_file(path);
    if (!text) {
      std::error_code ec;
      if (fs::exists(path, ec)) problem = path.string() + " is unreadable or larger than 1 MiB";
      return;
    }
    parse_json(doc, *text);
    if (doc.HasParseError())
      problem = path.string() + " is not valid JSON";
    else if (!doc.IsObject())
      problem = path.string() + " is not a JSON object";
  }

  // The value under the first of `keys` that holds a non-empty string, trimmed; which key.
  std::optional<std::pair<std::string, std::string>>
  first(const std::vector<std::pair<std::string, std::string>> &keys) const {
    if (!problem.empty() || !doc.IsObject()) return std::nullopt;
    for (const auto &[key, label] : keys)
      if (const auto v = string_member(doc, key.c_str()); v && !trim(*v).empty())
        return std::pair{std::string(trim(*v)), label};
    return std::nullopt;
  }
};

// An origin as our releases before the 0.3-compatible ids normalised it (every scp-like
// `[user@]host:path` became https, `/` and `.git` went in any order); for doctor only.
std::string previous_normalize_origin(std::string_view url) {
  std::string s(trim(url));
  auto scheme = s.find("://");
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

// The project id our releases before the 0.3-compatible ids gave: MEM0_PROJECT_ID, the map under
// the cwd and the hash of the url without user-info, the old slug, the cwd's base name. Kept only
// for doctor to name the id that earlier memories were filed under.
std::string previous_project_id(const Environment &env, const ProjectMap &map, const fs::path &cwd,
                                const std::optional<std::string> &clean) {
  if (auto v = env.get("MEM0_PROJECT_ID"); v && !trim(*v).empty()) return std::string(trim(*v));
  std::vector<std::pair<std::string, std::string>> keys{{cwd.string(), ""}};
  if (clean && !clean->empty()) keys.emplace_back(project_map_key(*clean), "");
  if (const auto mapped = map.first(keys)) return mapped->first;
  if (clean && !clean->empty()) {
    std::string s = *clean; // `/` then `.git` went, and `git@` even after a scheme
    strip_slashes(s);
    strip_suffix(s, ".git");
    if (const auto scheme = s.find("://"); scheme != std::string::npos) s.erase(0, scheme + 3);
    if (s.starts_with("git@")) s.erase(0, 4);
    if (auto slug = remote_slug(s); !slug.empty()) return slug;
  }
  const std::string base = cwd.filename().string();
  return base.empty() ? "unknown" : base;
}

} // namespace

std::optional<std::string> id_value(std::string_view text) {
  const std::string_view v = trim(text);
  if (v.empty() || v.find_first_not_of('*') == std::string_view::npos) return std::nullopt;
  return std::string(v);
}

std::string normalize_origin(std::string_view url) {
  std::string s(trim(url));
  if (s.starts_with("git@") && s.find(':') != std::string::npos) { // only git@, not user@
    s.erase(0, 4);
    s[s.find(':')] = '/';
    s = "https://" + s;
  }
  strip_suffix(s, ".git"); // before the slashes: `repo.git/` keeps its `.git`
  if (const auto scheme = s.find("://"); scheme != std::string::npos) {
    const std::size_t start = scheme + 3;
    const std::size_t end = std::min(s.find_first_of("/?#", start), s.size());
    std::string_view authority = std::string_view(s).substr(start, end - start);
    if (const auto at = authority.rfind('@'); at != std::string_view::npos)
      authority.remove_prefix(at + 1); // the user-info, maybe a credential
    s = ascii_lower(std::string_view(s).substr(0, scheme)) + "://" + host_and_port(authority) +
        s.substr(end);
  }
  strip_slashes(s);
  return s;
}

std::string shared_agent_id(std::string_view app_id, const fs::path &cwd) {
  const auto repo = find_repo(cwd);
  return shared_agent_id(app_id, cwd, repo, repo ? origin_url_as_written(*repo) : std::nullopt);
}

std::string shared_agent_id(std::string_view app_id, const fs::path &cwd,
                            const std::optional<GitRepo> &repo,
                            const std::optional<std::string> &url) {
  if (const std::string origin = url ? normalize_origin(*url) : ""; !origin.empty())
    return std::string(app_id) + "-" + sha256_hex(origin).substr(0, 10);
  return "local-" + std::string(app_id) + "-" +
         sha256_hex(real_path(project_root(cwd, repo)).string()).substr(0, 10);
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
  std::optional<std::optional<GitRepo>> found;
  const auto repo = [&]() -> const std::optional<GitRepo> & {
    if (!found) found = find_repo(cwd);
    return *found;
  };
  const auto origin = [&] { return repo() ? origin_url_as_written(*repo()) : std::nullopt; };
  return resolve_project_id(config, env, cwd, repo, origin, log);
}

ProjectId resolve_project_id(const Config &config, const Environment &env, const fs::path &cwd,
                             const std::function<const std::optional<GitRepo> &()> &repo,
                             const std::function<std::optional<std::string>()> &origin,
                             const Log &log) {
  std::string problem;
  if (const auto v = env.get("MEM0_PROJECT_ID")) {
    if (auto id = id_value(*v)) return {*id, "env MEM0_PROJECT_ID", ""};
    if (!trim(*v).empty()) problem = "MEM0_PROJECT_ID=* ignored (a wildcard is no project id)";
  }
  const auto noted = [&](ProjectId id) {
    if (!problem.empty()) log.debug("project id: " + problem);
    id.problem = problem;
    return id;
  };

  const fs::path map_path = config.mem0_dir / "project_map.json";
  const ProjectMap map(map_path);
  if (!map.problem.empty()) problem += (problem.empty() ? "" : "; ") + map.problem + ": skipped";
  const fs::path given = given_path(cwd);
  const fs::path root = project_root(given, repo());
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto &[path, label] : {std::pair{given, "cwd"},
                                    {root, "root"},
                                    {real_path(given), "real path of cwd"},
                                    {real_path(root), "real path of root"}})
    if (std::none_of(keys.begin(), keys.end(), [&](const auto &k) { return k.first == path; }))
      keys.emplace_back(path.string(), label);
  auto mapped = map.first(keys);

  // The origin is asked only when no path key answers. Its url as written is only hashed; a
  // credential in it never becomes (part of) an id (docs/configuration.md#git-remote).
  std::optional<std::string> url = mapped ? std::nullopt : origin();
  if (url && trim(*url).empty()) url.reset();
  if (!mapped && url) {
    // Mem0's plugins hash the url as written; our releases before hashed it without user-info.
    const std::string clean = without_user_info(*url);
    mapped = map.first({{project_map_key(*url), "remote"}, {project_map_key(clean), "remote"}});
    if (mapped && id_value(mapped->first))
      self_heal_project_map(map_path, given.string(), mapped->first,
                            std::min(config.timeout / 4, k_heal_wait), log);
  }
  if (mapped) {
    if (auto id = id_value(mapped->first))
      return noted({*id, "project_map.json (" + mapped->second + ")", ""});
    problem += (problem.empty() ? "" : "; ") +
               std::string("project_map.json's value * ignored (a wildcard is no project id)");
    if (!url) url = origin();
  }
  if (url)
    if (auto slug = remote_slug(*url); !slug.empty()) return noted({slug, "git remote origin", ""});
  const std::string base = root.filename().string();
  if (!base.empty()) return noted({base, "directory name", ""});
  return noted({"unknown", "default", ""});
}

PreviousIds previous_ids(const Config &config, const Environment &env, const fs::path &cwd) {
  PreviousIds was;
  was.user_id = "default";
  for (const char *variable : {"MEM0_USER_ID", "USER", "USERNAME"})
    if (const auto v = env.get(variable); v && !trim(*v).empty()) {
      was.user_id = std::string(trim(*v));
      break;
    }
  const auto repo = find_repo(cwd);
  const auto url = repo ? origin_url(*repo) : std::nullopt;
  was.project_id =
      previous_project_id(env, ProjectMap(config.mem0_dir / "project_map.json"), cwd, url);
  std::error_code ec;
  const fs::path real = fs::canonical(repo ? repo->top : cwd, ec);
  was.shared_agent_id =
      url && !url->empty()
          ? was.project_id + "-" + sha256_hex(previous_normalize_origin(*url)).substr(0, 10)
          : "local-" + was.project_id + "-" +
                sha256_hex((ec ? (repo ? repo->top : cwd) : real).string()).substr(0, 10);
  return was;
}

} // namespace mem0
