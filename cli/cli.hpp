#pragma once
#include "hook/agent.hpp"
#include "hook/runtime.hpp"
#include "hook/table.hpp"
#include "mem0/config.hpp"
#include "mem0/http.hpp"
#include "mem0/search.hpp"
#include "store/state.hpp"
#include "util/detach.hpp"
#include "util/json_writer.hpp"
#include "util/log.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mem0::cli {

inline constexpr int k_ok = 0;
inline constexpr int k_failure = 1;
inline constexpr int k_usage = 2;

// Everything a command may touch, passed in so tests can substitute fakes.
struct CliContext : RunDeps {
  std::ostream &out;
  std::ostream &err;
  std::filesystem::path cwd;
  std::filesystem::path exe_dir; // where the hook executables are installed
  Deadline deadline;
  // Starts a sender for what a call left queued (util/detach.hpp's run_detached); none when
  // empty, as in tests.
  std::function<Result<void>(const DetachedWork &)> detach;
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
int mcp(const Args &args, const CliContext &ctx);
int remember(const Args &args, const CliContext &ctx);
int forget(const Args &args, const CliContext &ctx);
int pause(const Args &args, const CliContext &ctx);
int resume(const Args &args, const CliContext &ctx);
int log(const Args &args, const CliContext &ctx);

// The MCP server (cli/mcp.cpp, docs/cli.md#mcp).

// Serve newline-delimited JSON-RPC from `in` to ctx.out until EOF; each tool call gets its own
// budget (config.timeout). Returns the exit status: 0 at EOF.
int serve_mcp(int in, const CliContext &ctx);

// What the server learns of its client: the agent its `initialize` names in clientInfo
// (claude-code, codex-mcp-client, gemini-cli-mcp-client, ...; Claude Code when none is known),
// recorded in the memories it adds as metadata.agent.
struct McpSession {
  const Agent *agent = &claude_code();
};
// The agent a client's clientInfo.name belongs to: the first agent whose name's first word is a
// word of it (`gemini-cli-mcp-client` → gemini-cli); nullptr when none.
const Agent *agent_of_client(std::string_view client_name);

// The answer to one line of the client (without its newline), or nullopt when it gets none (a
// notification). `ctx`'s deadline is not used: a tool call starts its own.
std::optional<std::string> mcp_answer(std::string_view line, const CliContext &ctx,
                                      McpSession &session);

// The answer to a line longer than k_max_mcp_line: an invalid request, id null.
std::string mcp_overlong_answer();
inline constexpr std::size_t k_max_mcp_line = 1024 * 1024;

// The memory operations `mcp`, `remember` and `forget` share (cli/memories.cpp). Each runs under
// ctx.deadline; a back-off pause of the server is an error without sending, and what the server
// answered feeds the back-off. failure_line gives an error's one line to show.

// Where the MCP server registers the ids it shows: the session of the agent that started it
// (session_in_env), else this key.
inline constexpr std::string_view k_tool_session = "mcp";
std::string tool_session(const CliContext &ctx);

// The API target; a no_key error (saying how to set one) or the reason there is none.
Result<ApiTarget> api_for(const CliContext &ctx);
// An error (rate_limited, or unauthorized for a rejected key) while the server is paused.
Result<void> not_paused(const CliContext &ctx, const ApiTarget &api);
// One line for `e`, never the key: no key, key rejected, rate limited, timed out, not found, ...
std::string failure_line(const Error &e);

// The scope `name` names ("project", "session" or "global"); without a name the configured
// default (global when global_search is on, else project); nullopt for any other name.
std::optional<Scope> scope_named(const std::optional<std::string> &name, const Config &config);

// The search of peek (docs/cli.md#peek): broad top `top_k` and decision-typed top 5; with `type`,
// one search of that type.
std::vector<SearchSpec> search_plan(const std::string &query, int top_k, Scope scope,
                                    const std::optional<std::string> &type = std::nullopt);
// Run `plan`, merged, at most the first search's top_k; an error when every search failed.
Result<std::vector<Memory>> search_memories(const CliContext &ctx, const ApiTarget &api,
                                            const Identity &identity,
                                            const std::vector<SearchSpec> &plan);
// The memory `id_text` names (full id, id8 or [mem0:id8], short ids through the sessions' id
// maps); "not found" is a client error.
Result<Memory> fetch_memory(const CliContext &ctx, const ApiTarget &api, std::string_view id_text);
// One page of `identity`'s memories, newest first.
Result<MemoryPage> list_memories(const CliContext &ctx, const ApiTarget &api,
                                 const Identity &identity, const ListSpec &spec);
// Replace the text of a memory of `identity`'s user with `text`, redacted; returns it as updated.
Result<Memory> update_memory(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                             std::string_view id_text, std::string_view text);
// Delete a memory of `identity`'s user (a get checks whose it is first); returns it.
Result<Memory> delete_memory(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                             std::string_view id_text);

// What storing a memory did: delivered (with its id when the server gave one), or queued in the
// outbox for the sender, and why.
struct Stored {
  bool delivered = false;
  std::string id;
  std::string reason; // queued: why it was not delivered, when known
};
// Store `text` verbatim (infer off), redacted, through the outbox (hook/remember.hpp), then one
// sender round under ctx.deadline, and a detached sender for it when that round did not deliver
// it (sender_work's rules); a delivered memory's id goes into the id map. An error when
// nothing was queued (no key, nothing left, a duplicate, the outbox full). `agent` is the one
// named in metadata.agent.
Result<Stored> store_memory(const CliContext &ctx, std::string_view text, std::string type,
                            std::string source, const Agent &agent = claude_code());
// What `stored` says to the user or the model: `stored as <id> [mem0:id8]`, `stored`, or
// `queued: …` with the reason when known.
std::string stored_line(const Stored &stored);

// Add the ids of `memories` to the id map of `session`, so `peek <id8>` resolves them.
void register_ids(const CliContext &ctx, const std::string &session,
                  const std::vector<Memory> &memories);

// Shared by the commands (cli.cpp).

// Who is asking: the configured user, the project of the working directory, `session`.
Identity identity_for(const CliContext &ctx, std::string session);

// The session key of --session (an agent's own id finds its `<agent>-<id>` key), else of the
// agent whose session variable is set (session_in_env), else "".
std::string session_for(const Args &args, const CliContext &ctx);

// The API target, or nullopt after saying on stderr why there is none.
std::optional<ApiTarget> target_or_explain(const CliContext &ctx);

// Print memories as a JSON array of {id, type, memory, created_at, cite ("[mem0:id8]"), score}.
void write_json(std::ostream &out, const std::vector<Memory> &memories);
// Write that array to `w`.
void write_memories(JsonWriter &w, const std::vector<Memory> &memories);

// Run `plan` like a hook does: in parallel under the command's deadline, its outcome recorded in
// the back-off of this server and key (an answer ends a pause; a 429 starts one).
PlanOutcome run_searches(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                         const std::vector<SearchSpec> &plan);

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

// True when `file` registers a server named mem0: `mcpServers.mem0` in a JSON file (`mcp.mem0` in
// OpenCode's opencode.json), `[mcp_servers.mem0]` in a TOML one.
bool registers_memory_tools(const std::filesystem::path &file);

// Register (or, with `remove`, unregister) the memory tools' server, `<exe_dir>/mem0-hooks mcp`,
// as `mem0` in an agent's `file`: `[mcp_servers.mem0]` in a .toml file, `mcpServers.mem0` in a
// JSON one, `mcp.mem0` ({"type":"local","command":[…]}) in an opencode.json
// (docs/cli.md#memory-tools). The rest of `current` is kept as it is. Returns the new
// text (`current` itself when nothing changes); an io error saying why when `current` cannot be
// read as that format; a duplicate error when a server named mem0 that does not run mem0-hooks
// is registered there (never changed).
Result<std::string> merge_memory_tools(std::string_view current, const std::filesystem::path &file,
                                       const std::filesystem::path &exe_dir, bool remove);

// Register (or unregister) the memory tools in `file`, saying what it did on ctx.out; k_ok, or
// k_failure when the file cannot be read or written.
int install_memory_tools(const std::filesystem::path &file, const CliContext &ctx, bool uninstall);

// install/uninstall for an agent that loads a shim (docs/cli.md#install): the shim at its user
// file, or its project file with --project, written with the executables' directory and the
// agent's hook rows; its memory tools registered where the agent reads them.
int install_shim(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall);

// True when `text` is a shim this project wrote for `agent` (it names its own install command).
bool is_our_shim(std::string_view text, const Agent &agent);

// The shim the project ships for `agent`: shims/core.js, then shims/<agent>/mem0.js, as text; ""
// for none.
std::string shim_source(std::string_view agent);

// The shim for `agent` with its CONFIG line written: the executables in `exe_dir` and the
// agent's rows of the hook table.
std::string configured_shim(const Agent &agent, const std::filesystem::path &exe_dir);

// Merge or remove this project's hook entries (the hook table) in Claude Code settings JSON;
// `exe_dir` holds the executables. Returns the new text, or an io error saying why when `current`
// is not a JSON object.
Result<std::string> merge_settings(std::string_view current, const std::filesystem::path &exe_dir,
                                   bool remove);

// Register (or unregister) the memory tools in `file`, saying what it did on ctx.out; k_ok, or
// k_failure when the file cannot be read or written.
int install_memory_tools(const std::filesystem::path &file, const CliContext &ctx, bool uninstall);

// install/uninstall for an agent that loads a shim (docs/cli.md#install): the shim at its user
// file, or its project file with --project, written with the executables' directory and the
// agent's hook rows; its memory tools registered where the agent reads them.
int install_shim(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall);

// True when `text` is a shim this project wrote for `agent` (it names its own install command).
bool is_our_shim(std::string_view text, const Agent &agent);

// The shim the project ships for `agent`: shims/core.js, then shims/<agent>/mem0.js, as text; ""
// for none.
std::string shim_source(std::string_view agent);

// The shim for `agent` with its CONFIG line written: the executables in `exe_dir` and the
// agent's rows of the hook table.
std::string configured_shim(const Agent &agent, const std::filesystem::path &exe_dir);

// Merge or remove this project's hook entries, the `rows` of the hook table, in the hooks file
// `current` of `agent` (in its files.format); `exe_dir` holds the executables. Other entries are
// kept as they are. Returns the new text, or an io error saying why when `current` is not a JSON
// object with an object "hooks".
Result<std::string> merge_hooks(std::string_view current, const Agent &agent,
                                const std::vector<HookSpec> &rows,
                                const std::filesystem::path &exe_dir, bool remove);

// The rows of the hook table `agent` wires.
std::vector<HookSpec> rows_of(const Agent &agent);

// The command `agent` runs for our `executable` in `exe_dir`: `<exe_dir>/<executable> --agent
// <name>`, without the flag for Claude Code.
std::string hook_command(const Agent &agent, const std::filesystem::path &exe_dir,
                         std::string_view executable);

// The commands of the entries of Claude Code settings JSON that run one of our executables;
// empty when there are none or the text is not a settings object.
std::set<std::string> our_commands(std::string_view settings);

// Each entry of a hooks file (any HooksFormat) that runs one of our executables, as its event
// and command, in file order; empty when there are none or the text is not a hooks object.
std::vector<std::pair<std::string, std::string>> our_hooks(std::string_view text);

// The program a hook command runs: its first shell word, unquoted.
std::string command_program(std::string_view command);

// The file name of the program a hook command runs (its first shell word, unquoted).
std::string command_executable(std::string_view command);

// The plugin's name (.claude-plugin/plugin.json): a marketplace install is `<name>@<marketplace>`.
inline constexpr std::string_view k_plugin_name = "mem0-native-hooks";

// Claude Code's own directory: CLAUDE_CONFIG_DIR, else ~/.claude.
std::filesystem::path claude_dir(const Config &config, const Environment &env);

// `agent`'s own directory: its files.dir_env when set, else files.dir under the home directory.
std::filesystem::path agent_dir(const Agent &agent, const Config &config, const Environment &env);

// The executable `name` in the directories of PATH; nullopt when none.
std::optional<std::filesystem::path> find_program(std::string_view name, const Environment &env);

// True when `agent` is found here: its program on PATH, or its directory present.
bool agent_found(const Agent &agent, const CliContext &ctx);

// A settings file where hooks may be wired, with its Claude Code scope.
struct SettingsFile {
  std::filesystem::path path;
  std::string_view scope; // "local", "project" or "user"
};
// The settings files of `cwd`, most specific first: local, project, user.
std::vector<SettingsFile> settings_candidates(const std::filesystem::path &claude_dir,
                                              const std::filesystem::path &cwd);

// One place the hooks are wired from (docs/cli.md#install-paths).
struct InstallPath {
  enum class Kind { settings, plugin_root, marketplace };
  Kind kind = Kind::settings;
  std::string where;      // the settings file, the plugin root, or the plugin id (`name@market`)
  std::string scope;      // marketplace: user, project or local
  std::string dir;        // marketplace: the install dir ("" when enabled but not installed)
  std::string project;    // marketplace, project or local scope: the project it belongs to
  std::string enabled_in; // marketplace, not installed: the settings file that enables it
  bool here = true;       // applies in the working directory
  bool active = true;     // its hooks run here (a marketplace plugin: installed and enabled)
  std::set<std::string> commands; // settings: the commands of our hooks
};

// Every install path: settings files wiring the whole hook set, the plugin of
// CLAUDE_PLUGIN_ROOT, and marketplace installs (of any project; `here` tells which apply).
std::vector<InstallPath> find_install_paths(const Config &config, const Environment &env,
                                            const std::filesystem::path &cwd);

// `wired in <file>`, `wired in plugin <id> (marketplace, user scope): <dir>`, …
std::string describe(const InstallPath &path);

// The command that removes `path`.
std::string removal(const InstallPath &path);

// How many times the active paths in `paths` run each hook: identical commands in several
// settings files run once.
std::size_t times_wired(const std::vector<InstallPath> &paths);

// `by you for project <id> until <local time> (local time): no automatic recall or capture
// (mem0-hooks resume)`: a user pause as doctor and resume show it.
std::string pause_row_text(const PauseStore::UserPause &pause);

// The last skip of the most recent session's run log (`<time> <hook>: <reason>: <detail>`), or
// nullopt when no session logged one.
std::optional<std::string> last_skip(const CliContext &ctx);

} // namespace mem0::cli
