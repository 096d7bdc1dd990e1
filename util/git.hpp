#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// A repository found by reading git's own files; `git` is never spawned.
struct GitRepo {
  std::filesystem::path top;        // the work tree's top level
  std::filesystem::path git_dir;    // .git, or .git/worktrees/<name> for a worktree
  std::filesystem::path common_dir; // where `config` lives (the main .git for worktrees)
};

// Walk up from `start` to the nearest `.git` (a directory, or a `gitdir:` file).
std::optional<GitRepo> find_repo(const std::filesystem::path &start);

// The url of `[remote "<remote>"]` in git config text (the last one, as `git config --get`).
std::optional<std::string> parse_remote_url(std::string_view config_text,
                                            std::string_view remote = "origin");

// The origin url of `repo`, read from its config, without user-info: a credential written into
// it (`https://user:token@host/…`) never reaches a project id, a log or doctor's output.
std::optional<std::string> origin_url(const GitRepo &repo);
// The same as written, user-info included: only ever hashed (a project_map.json key, as Mem0's
// plugins hash it), never shown, logged or sent (docs/configuration.md#git-remote).
std::optional<std::string> origin_url_as_written(const GitRepo &repo);

// `url` without a user-info that may hold a credential: any of an http(s) url
// (`https://user:token@host/x`, `https://token@host/x` → `https://host/x`), and one with a
// password otherwise (`ssh://u:p@host/x` → `ssh://host/x`). An ssh user (`git@host:x`,
// `ssh://git@host/x`) is kept, and so are the keys hashed from such urls.
std::string without_user_info(std::string_view url);

// The checked-out branch from HEAD, or the short commit for a detached HEAD.
std::optional<std::string> current_branch(const GitRepo &repo);

// The commit HEAD names, in full (`git rev-parse HEAD`): a detached HEAD's own, else its branch's,
// from the ref's file (the worktree's, then the repository's) or packed-refs; nullopt for a
// branch with no commit yet or anything that is not a hex object name.
std::optional<std::string> head_commit(const GitRepo &repo);

// `owner-repo` from a remote url as Mem0's plugins derive it (docs/configuration.md#git-remote):
// `git@github.com:mem0ai/mem0.git` → `mem0ai-mem0`, `https://h/o/r.git/` → `o-r.git`; user-info
// that may hold a credential is left out (without_user_info).
std::string remote_slug(std::string_view url);

} // namespace mem0
