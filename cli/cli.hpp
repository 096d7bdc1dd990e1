#pragma once
#include "common/config.hpp"
#include "common/http.hpp"
#include "common/log.hpp"
#include "common/search.hpp"
#include "common/state.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::cli {

inline constexpr int k_ok = 0;
inline constexpr int k_failure = 1;
inline constexpr int k_usage = 2;

// Everything a command may touch, passed in so tests can substitute fakes.
struct CliContext {
  const Environment &env;
  const Config &config;
  HttpClient &http;
  const Log &log;
  StateStore &state;
  std::ostream &out;
  std::ostream &err;
  std::filesystem::path cwd;
  std::filesystem::path exe_dir; // where the hook executables are installed
  Deadline deadline;
  std::function<std::chrono::system_clock::time_point()> now = std::chrono::system_clock::now;
};

// The command line after the command name: positional words and `--name [value]` options.
struct Args {
  std::vector<std::string> words;
  std::vector<std::pair<std::string, std::string>> options; // value "" for flags

  bool has(std::string_view name) const;
  std::optional<std::string> value(std::string_view name) const;
  std::string joined_words() const;
};

// Run `mem0-hooks <argv...>` (without the program name); returns the exit status.
int run(const std::vector<std::string> &argv, const CliContext &ctx);

// The commands (docs/cli.md), one file each.
int peek(const Args &args, const CliContext &ctx);
int context(const Args &args, const CliContext &ctx);
int doctor(const Args &args, const CliContext &ctx);
int install(const Args &args, const CliContext &ctx, bool uninstall);

// Shared by the commands (cli.cpp).

// Who is asking: the configured user, the project of the working directory, `session`.
Identity identity_for(const CliContext &ctx, std::string session);

// --session, else CLAUDE_CODE_SESSION_ID, else "".
std::string session_for(const Args &args, const CliContext &ctx);

// The API target, or nullopt after saying on stderr why there is none.
std::optional<ApiTarget> target_or_explain(const CliContext &ctx);

// Print memories as a JSON array of {id, type, memory, created_at, score}.
void write_json(std::ostream &out, const std::vector<Memory> &memories);

// Report the failures of a plan on stderr; true when every search failed.
bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx);

// What `peek` should look up: a full id, a short id, or nothing (plain search).
struct IdQuery {
  std::string hex;
  bool is_uuid = false;
};
std::optional<IdQuery> detect_id(std::string_view query);

// Resolve a short id to the one full id it prefixes among the injected ids of `sessions`;
// nullopt when none or several match.
std::optional<std::string> resolve_short_id(std::string_view short_id,
                                            const std::vector<SessionState> &sessions);

// Merge or remove this project's hook entries (the hook table) in Claude Code settings JSON;
// `exe_dir` holds the executables. Returns the new text, or an error message when `current` is
// not a JSON object.
expected<std::string, std::string>
merge_settings(std::string_view current, const std::filesystem::path &exe_dir, bool remove);

// The settings files where hooks may be wired, most specific first.
std::vector<std::filesystem::path> settings_candidates(const Config &config,
                                                       const std::filesystem::path &cwd);

// Mask a key for display: `m0-…abcd`.
std::string mask_key(std::string_view key);

} // namespace mem0::cli
