#pragma once
#include "cli/command.hpp"
#include "mem0/config.hpp"
#include "runtime/agent.hpp"
#include "runtime/table.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Wiring the hooks and the memory tools into the agents' files (docs/cli.md#install-and-uninstall),
// and finding where they are wired (docs/cli.md#install-paths).

namespace mem0::cli {

// True when `file` registers a server named mem0 in `format`.
bool registers_memory_tools(const std::filesystem::path &file, McpFormat format);

// Register (or, with `remove`, unregister) the memory tools' server, `<exe_dir>/mem0-hooks mcp`,
// as `mem0` in an agent's file, whose content is `current`, in `format`
// (docs/cli.md#memory-tools). The rest of `current` is kept as it is. Returns the new
// text (`current` itself when nothing changes); an io error saying why when `current` cannot be
// read as that format; a duplicate error when a server named mem0 that does not run mem0-hooks
// is registered there (never changed). The program is named as on Windows (`windows`:
// `<exe_dir>\mem0-hooks.exe`) or POSIX; without `windows`, as on this system.
Result<std::string> merge_memory_tools(std::string_view current, McpFormat format,
                                       const std::filesystem::path &exe_dir, bool remove,
                                       bool windows);
Result<std::string> merge_memory_tools(std::string_view current, McpFormat format,
                                       const std::filesystem::path &exe_dir, bool remove);

// Register (or unregister) the memory tools in `file`, in `format`, saying what it did on
// ctx.out; k_ok, or k_failure when the file cannot be read or written.
int install_memory_tools(const std::filesystem::path &file, McpFormat format, const CliContext &ctx,
                         bool uninstall);

// install/uninstall for an agent that loads a shim (docs/cli.md#install-and-uninstall): the shim at
// its user file, or its project file with --project, written with the executables' directory and
// the agent's hook rows; its memory tools registered where the agent reads them.
int install_shim(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall);

// True when `text` is a shim this project wrote for `agent` (it names its own install command).
bool is_our_shim(std::string_view text, const Agent &agent);

// The shim the project ships as `shim` (AgentFiles::shim): shims/core.js, then
// shims/<shim>/mem0.js, as text; "" for none.
std::string shim_source(std::string_view shim);

// The shim for `agent` with its CONFIG line written: the executables in `exe_dir` and the
// agent's rows of the hook table.
std::string configured_shim(const Agent &agent, const std::filesystem::path &exe_dir);

// Merge or remove this project's hook entries (the hook table) in Claude Code settings JSON;
// `exe_dir` holds the executables. Returns the new text, or an io error saying why when `current`
// is not a JSON object.
Result<std::string> merge_settings(std::string_view current, const std::filesystem::path &exe_dir,
                                   bool remove);

// Merge or remove this project's hook entries, the `rows` of the hook table, in the hooks file
// `current` of `agent` (in its files.format); `exe_dir` holds the executables. Each command is
// written for the shell the agent runs it in on Windows (`windows`) or POSIX, and our entries in
// any other form are replaced. Copilot CLI's entries have a `bash` command, and on Windows a
// `powershell` one too. Other entries are kept as they are. Returns the new text, or an io error
// saying why when `current` is not a JSON object with an object "hooks". Without `windows`, for
// this system (platform::windows_commands).
Result<std::string> merge_hooks(std::string_view current, const Agent &agent,
                                const std::vector<HookSpec> &rows,
                                const std::filesystem::path &exe_dir, bool remove, bool windows);
Result<std::string> merge_hooks(std::string_view current, const Agent &agent,
                                const std::vector<HookSpec> &rows,
                                const std::filesystem::path &exe_dir, bool remove);

// A hooks file of `agent`'s rows alone, in its format, each running `command(executable)`: the
// wiring files the repository ships (scripts/wiring.py), as compact JSON.
std::string wiring_file(const Agent &agent,
                        const std::function<std::string(std::string_view)> &command);

// The rows of the hook table `agent` wires.
std::vector<HookSpec> rows_of(const Agent &agent);

// The path of our `executable` in `exe_dir`: `<exe_dir>/<executable>` on POSIX; on Windows
// (`windows`) `<exe_dir>\<executable>.exe`.
std::string program_path(const std::filesystem::path &exe_dir, std::string_view executable,
                         bool windows);

// The command `agent` runs for our `executable` in `exe_dir`, written for `shell` (render_command;
// a Windows shell names `<executable>.exe`): the program, then `--agent <name>`, without the flag
// for Claude Code. For cmd, a path that would need quotes is written in its short form when that
// needs none (docs/windows.md#how-each-agent-runs-a-hook). Without `shell`, the one `agent` runs
// its hooks in on this system (hook_shell).
std::string hook_command(const Agent &agent, const std::filesystem::path &exe_dir,
                         std::string_view executable, CommandShell shell);
std::string hook_command(const Agent &agent, const std::filesystem::path &exe_dir,
                         std::string_view executable);

// The commands of the entries of Claude Code settings JSON that run one of our executables;
// empty when there are none or the text is not a settings object.
std::set<std::string> our_commands(std::string_view settings);

// Each entry of a hooks file (in any agent's HooksFormat) that runs one of our executables, as its
// event and command, in file order; empty when there are none or the text is not a hooks object.
// The command of a Copilot CLI entry is its `powershell` one on Windows (`windows`), its `bash` one
// elsewhere, else the other. Without `windows`, for this system.
std::vector<std::pair<std::string, std::string>> our_hooks(std::string_view text, bool windows);
std::vector<std::pair<std::string, std::string>> our_hooks(std::string_view text);

// The program a hook command runs: its first word, unquoted, read as the shell its form is
// written for reads it: `& '…'` as PowerShell, a drive or UNC path (`C:\…`, `"C:\…"`, `\\host\…`)
// as cmd, anything else as POSIX sh (Git Bash too).
std::string command_program(std::string_view command);

// The first word of `command` as `shell` reads it; "" when `shell` would not run a program named
// by it (PowerShell reads a quoted first word as a string, sh reads a leading `&` as an operator).
std::string program_read_by(CommandShell shell, std::string_view command);

// True when `shell` runs the program `command` was written to run: it reads the same first word
// (command_program). A POSIX-quoted path under PowerShell or cmd, say, is not.
bool runs_in(CommandShell shell, std::string_view command);

// The shell whose form `command` is written in, as command_program reads it: powershell, cmd or
// posix (which Git Bash reads the same).
CommandShell written_for(std::string_view command);

// The name of the program a hook command runs, without its directory and without `.exe`.
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

// `claude plugin <verb> <id> --scope <scope>` for the marketplace install `path`, its id and scope
// quoted for the user's shell (user_word): they are read from files (docs/cli.md#install-paths).
std::string plugin_command(std::string_view verb, const InstallPath &path);

// How many times the active paths in `paths` run each hook: identical commands in several
// settings files run once.
std::size_t times_wired(const std::vector<InstallPath> &paths);

} // namespace mem0::cli
