#pragma once
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "runtime/io.hpp"
#include "runtime/runner.hpp"
#include "util/git.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mem0::on_file_read {

inline constexpr std::size_t k_max_memories = 5;
inline constexpr std::uintmax_t k_min_file_bytes = 1500;

// Why `path` is never looked up by name alone (binary, generated or vendored:
// docs/hooks.md#read-gates), or nullopt when its name is fine.
std::optional<std::string> skipped_by_name(const std::filesystem::path &path);

// The version of a regular file of at least 1,500 bytes ("mtime_ns:size"), found with `stat`
// only; otherwise the reason it is gated (missing, not regular, too small, ...).
struct FileVersion {
  std::string version;
  std::string gated; // non-empty when gated
};
FileVersion stat_file(const std::filesystem::path &path);

// `file` relative to the project root (the top level of `repo`, the repository around `cwd`, else
// `cwd`), spelled with `/` on every system; the absolute path when the file lies outside both.
std::string relative_to_project(const std::filesystem::path &file, const std::filesystem::path &cwd,
                                const std::optional<GitRepo> &repo);

// The searches for a file (docs/hooks.md#read-plans): query "rel base" (just rel when equal).
std::vector<SearchSpec> build_plan(const std::string &rel, const Config &config);

// "Need details? Run `<mem0-hooks> peek <id8>` with the 8-character id a memory line ends with.",
// naming the mem0-hooks next to this hook by absolute path (mem0_hooks_command). (No literal
// `[mem0:` in it: only memory lines carry citations.) mem0-hooks is written for the shell `agent`
// runs commands in.
std::string details_line(const Agent &agent = claude_code());

// Handle one PreToolUse(Read) event: gate, plan, recall, format.
HookOutput handle(const ToolInput &input, const HookContext &ctx);

} // namespace mem0::on_file_read
