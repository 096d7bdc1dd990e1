#include "hooks/on_file_read/on_file_read.hpp"
#include "mem0/format.hpp"
#include "runtime/recall.hpp"
#include "util/git.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <array>

namespace mem0::on_file_read {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 19> k_skipped_extensions{
    "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "pdf", "woff", "woff2",
    "ttf", "eot", "zip",  "gz",  "tar", "jar", "lock", "sum", "map"};
constexpr std::array<std::string_view, 6> k_skipped_dirs{"node_modules", ".git", "__pycache__",
                                                         ".venv",        "dist", "build"};

// `path` relative to `root` when it lies inside it.
std::optional<fs::path> inside(const fs::path &path, const fs::path &root) {
  const fs::path rel = path.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  return rel;
}

} // namespace

std::optional<std::string> skipped_by_name(const fs::path &path) {
  const std::string name = ascii_lower(path.filename().string());
  if (name.ends_with(".min.js") || name.ends_with(".min.css")) return "minified file";
  const auto dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size()) {
    const std::string_view ext = std::string_view(name).substr(dot + 1);
    if (std::find(k_skipped_extensions.begin(), k_skipped_extensions.end(), ext) !=
        k_skipped_extensions.end())
      return "binary or generated file (." + std::string(ext) + ")";
  }
  for (const auto &part : path.parent_path())
    if (std::find(k_skipped_dirs.begin(), k_skipped_dirs.end(), part.string()) !=
        k_skipped_dirs.end())
      return "inside " + part.string() + "/";
  return std::nullopt;
}

FileVersion stat_file(const fs::path &path) {
  const auto found = platform::file_stamp(path);
  if (!found.stamp) return {"", found.error};
  if (found.stamp->size < k_min_file_bytes)
    return {"", "smaller than " + std::to_string(k_min_file_bytes) + " bytes"};
  return {std::to_string(found.stamp->mtime_ns) + ":" + std::to_string(found.stamp->size), ""};
}

std::string relative_to_project(const fs::path &file, const fs::path &cwd,
                                const std::optional<GitRepo> &repo) {
  // `/` on every system, as git spells a path in a repository: the query and the heading name
  // src/app.py alike whichever system a memory of it was made on.
  if (repo)
    if (const auto rel = inside(file, repo->top)) return rel->generic_string();
  if (const auto rel = inside(file, cwd)) return rel->generic_string();
  return file.string();
}

std::vector<SearchSpec> build_plan(const std::string &rel, const Config &config) {
  const std::string base = fs::path(rel).filename().string();
  const std::string query = base == rel || base.empty() ? rel : rel + " " + base;
  const Scope scope = config.global_search ? Scope::global : Scope::project;
  std::vector<SearchSpec> plan{{query, std::nullopt, 10, scope}};
  if (config.search_plan == SearchPlan::thorough) {
    plan.push_back({query, std::string(memory_type::convention), 5, scope});
    plan.push_back({query, std::string(memory_type::decision), 3, scope});
  }
  return plan;
}

std::string details_line(const Agent &agent) {
  return "Need details? Run `" + mem0_hooks_command(agent) +
         " peek <id8>` with the 8-character id a memory line ends with.";
}

HookOutput handle(const ToolInput &input, const HookContext &ctx) {
  const Config &config = ctx.config;
  auto gated = [&](std::string_view why, std::string_view reason = "gated") {
    ctx.log.debug([&] { return "read gated: " + std::string(why); });
    ctx.facts->note_skip(std::string(reason),
                         "read of " + input.file_path + ": " + std::string(why));
    return HookOutput{};
  };
  if (input.file_path.empty()) return gated("no file_path");
  RunFacts &facts = *ctx.facts;
  if (!has_access(config)) {
    ctx.log.debug("read gated: no API key");
    ctx.facts->note_skip("no_key", "no API key");
    return {.system_message = no_key_notice(ctx, facts.session())};
  }
  if (!config.auto_search) return gated("auto_search is off");

  const fs::path &cwd = facts.cwd();
  fs::path file = platform::input_path(input.file_path);
  if (file.is_relative()) file = cwd / file;
  file = file.lexically_normal();
  // Judge the path within the project: a checkout under ~/build/ is not a build directory.
  const std::string rel = relative_to_project(file, cwd, facts.repo());
  if (const auto why = skipped_by_name(rel)) return gated(*why);
  const FileVersion version = stat_file(file);
  if (!version.gated.empty()) return gated(version.gated);

  const std::string &session = facts.session();
  const std::string key = file.string();
  if (!session.empty()) {
    const SessionState seen = ctx.state.sessions.load(session);
    if (const auto it = seen.files.find(key);
        it != seen.files.end() && it->second == version.version)
      return gated("already looked up in this session", "deduped");
  }

  const std::string shown_rel = clean_text(rel); // the path as query and heading
  RecallRequest request;
  request.plan = build_plan(shown_rel, config);
  request.identity = facts.search_identity();
  request.cap = k_max_memories;
  request.types_first = {memory_type::convention, memory_type::decision};
  request.line = [now = ctx.now()](const Memory &m) { return file_line(m, now); };
  // Remember this version only when a search answered, so a failed lookup is tried again.
  request.also = [&](SessionState &s, bool answered) {
    if (answered) s.files[key] = version.version;
  };
  const Recall found = recall(ctx, request);

  std::vector<std::string> head, lines;
  if (!found.memories.empty()) {
    head = {"Prior work on `" + shown_rel + "` \xE2\x80\x94 " +
                std::to_string(found.memories.size()) + " memories found.",
            details_line(*ctx.agent), ""};
    lines = found.lines;
  }
  return recall_output(found, head, lines);
}

} // namespace mem0::on_file_read
