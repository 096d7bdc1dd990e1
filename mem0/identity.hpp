#pragma once
#include "mem0/config.hpp"
#include "util/git.hpp"
#include "util/log.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace mem0 {

struct ProjectId {
  std::string id;
  std::string source;  // where it came from, for `doctor`
  std::string problem; // bad input passed over (a broken project_map.json, a wildcard), or ""
};

// `text` as an id (docs/configuration.md#user-id): trimmed, not empty and not only `*`, which a
// filter would read as everyone; nullopt otherwise.
std::optional<std::string> id_value(std::string_view text);

// Resolve the project id (the app_id) for `cwd` as Mem0's 0.3 plugins do
// (docs/configuration.md#project-id): MEM0_PROJECT_ID; project_map.json under the cwd, the
// repository root, their real paths, then the hash of the origin url (then add the cwd key to the
// map, keeping every other entry); the origin's slug; the root's base name.
ProjectId resolve_project_id(const Config &config, const Environment &env,
                             const std::filesystem::path &cwd, const Log &log);
// The same with the repository around `cwd` from `repo` (asked unless MEM0_PROJECT_ID is set) and
// its origin url (as written) from `origin`, asked only when the map has no path key: a hook run
// passes the facts it has memoised, so that each is found once.
ProjectId resolve_project_id(const Config &config, const Environment &env,
                             const std::filesystem::path &cwd,
                             const std::function<const std::optional<GitRepo> &()> &repo,
                             const std::function<std::optional<std::string>()> &origin,
                             const Log &log);

// True when searches also cover the project's shared memory: shared memory on, platform server.
bool searches_shared_memory(const Config &config);

// Who searches from `cwd` in `session`: the configured user, the project id, and the project's
// shared-memory agent id unless shared memory is off or the server is self-hosted.
Identity project_identity(const Config &config, const Environment &env,
                          const std::filesystem::path &cwd, std::string session, const Log &log);
// The same for a project id already resolved.
Identity project_identity(const Config &config, std::string project_id,
                          const std::filesystem::path &cwd, std::string session);

// An origin URL as Mem0's newer plugin identifies a repository (docs/api.md#shared-memory): only
// `git@host:path` becomes `https://host/path`; a trailing `.git` goes, then trailing `/`; a URL
// with `://` loses its user info and has its scheme and host lowercased (the port stays).
std::string normalize_origin(std::string_view url);

// The agent id under which Mem0's newer plugin files the shared memory of project `app_id`:
// `<app_id>-<sha256(normalised origin)[:10]>`, or without an origin
// `local-<app_id>-<sha256(real path of the repository root, else of cwd)[:10]>`.
std::string shared_agent_id(std::string_view app_id, const std::filesystem::path &cwd);
// The same with the repository around `cwd` and its origin url (as written) already found.
std::string shared_agent_id(std::string_view app_id, const std::filesystem::path &cwd,
                            const std::optional<GitRepo> &repo,
                            const std::optional<std::string> &origin);

// The ids our releases before the 0.3-compatible ones gave for `cwd`, for doctor to name the ids
// that earlier memories were filed under (docs/cli.md#doctor).
struct PreviousIds {
  std::string user_id, project_id, shared_agent_id;
};
PreviousIds previous_ids(const Config &config, const Environment &env,
                         const std::filesystem::path &cwd);

} // namespace mem0
