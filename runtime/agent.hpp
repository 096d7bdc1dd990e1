#pragma once
#include "mem0/config.hpp"
#include "runtime/io.hpp"
#include "runtime/transcript.hpp"
#include "util/command_line.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace mem0 {

// The shape of an agent's hooks file (docs/cli.md#install-and-uninstall).
enum class HooksFormat {
  // {"hooks":{"<event>":[{"matcher":…,"hooks":[{"type":"command","command":…,"timeout":<s>}]}]}}
  claude,
  // Claude's matcher groups, each hook with a "name" and its timeout in milliseconds (inside
  // settings.json's "hooks")
  gemini,
  // {"version":1,"hooks":{"<event>":[{"command":…,"matcher":…,"timeout":<s>}]}}
  cursor,
  // {"version":1,"hooks":{"<event>":[{"type":"command","bash":…,"timeoutSec":<s>}]}}, no matchers
  copilot,
  // no hooks file: a JS shim the agent loads (shims/core.js and shims/<agent>/mem0.js, as one
  // file) with the executables' directory and the agent's rows written into it
  shim,
};

// Where an agent keeps the configuration install, uninstall and doctor read (docs/cli.md). Its
// paths are written with `/`; joined to a directory through native_path.
struct AgentFiles {
  std::string_view dir;          // the agent's directory, relative to the home directory
  std::string_view dir_env;      // the variable that moves that directory; "" for none
  std::string_view user_file;    // the user's hooks file, relative to the agent's directory
  std::string_view project_file; // the project's hooks file, relative to the project
  HooksFormat format;
  // The shell the agent runs a hook command in on Windows, which decides how install writes it
  // (docs/windows.md#how-each-agent-runs-a-hook); on POSIX every agent runs sh. Unused for a shim,
  // which starts the executables itself.
  CommandShell windows_shell = CommandShell::git_bash;
  // Where the memory tools are registered, relative to the agent's directory: `mcpServers.mem0`
  // in a JSON file, `[mcp_servers.mem0]` in a .toml one; "" when doctor does not look.
  std::string_view mcp_file;
  std::string_view program;      // the agent's own executable, looked up on PATH
  std::string_view version_arg;  // the argument that makes it print its version
  std::string_view install_note; // said after an install; "" for none
  // Whether install writes the user commands (mem0-search, …) into mcp_file, beside the memory
  // tools (OpenCode's opencode.json `command`); other agents register theirs elsewhere.
  bool commands_in_mcp_file = false;
  // Whether the agent's plugins can wire the same hooks (Claude Code's marketplace and
  // --plugin-dir installs, found by cli/install_paths.cpp): install checks them before wiring
  // a file, uninstall names those still running, and doctor lists them as the agent's hooks.
  bool plugin_installs = false;
  // Another agent whose hooks this one runs too (Cursor runs Claude Code's), what it calls them,
  // and what the user does so that each hook runs once; "" for none.
  std::string_view also_runs_hooks_of = "";
  std::string_view also_runs_called = "";
  std::string_view also_runs_fix = "";
};

// `relative`, one of AgentFiles' `/`-separated paths, spelled as this system spells a path (`\`
// on Windows), so that a file named to the user reads as one path.
inline std::filesystem::path native_path(std::string_view relative) {
  return std::filesystem::path(relative).make_preferred();
}

// One coding agent: everything the core needs to know about it (docs/agents.md). The core reads
// only these; nothing agent-specific lives outside an adapter (runtime/agents/<name>.cpp).
struct Agent {
  std::string_view name;         // on the command line (--agent) and in metadata.agent
  std::string_view display_name; // for people

  // The environment a hook of this agent may read: the session id and the project directory,
  // when the input lacks them ("" for none).
  std::string_view session_env;
  std::string_view project_dir_env;

  // The agent's stdin, parsed into the neutral input of each kind of event (an error when it is
  // not a JSON object; unknown fields are ignored).
  Result<PromptInput> (*prompt)(std::string_view json);
  Result<ToolInput> (*tool)(std::string_view json);
  Result<SessionStartInput> (*session_start)(std::string_view json);
  Result<StopInput> (*stop)(std::string_view json);
  Result<CompactInput> (*compact)(std::string_view json);
  Result<SessionEndInput> (*session_end)(std::string_view json);

  // The one JSON text the hook prints for `output` at the agent's `event`, with only the fields
  // the agent accepts there; "" when there is nothing to print. A block reason is not rendered:
  // every agent takes it on stderr with exit status 2.
  std::string (*render)(std::string_view event, const HookOutput &output);

  // The conversation so far, from the input's transcript_path, at most its last `window` bytes
  // (read_jsonl, runtime/transcript.hpp); each adapter reads its agent's format.
  Transcript (*transcript)(const std::filesystem::path &path, std::size_t window);

  // Files the agent keeps its own memory in (glob patterns over absolute paths): the guard
  // blocks writes there when block_native_memory is on. Empty for none.
  std::span<const std::string_view> native_memory_globs;

  // Its configuration files (install, uninstall, doctor).
  AgentFiles files;

  // The variable naming the session in the environment of the memory tools' server the agent
  // starts (`mem0-hooks mcp`); "" for none.
  std::string_view server_session_env{};
};

// The agents, Claude Code first.
std::span<const Agent *const> agents();

// The agent called `name`; nullptr for none.
const Agent *find_agent(std::string_view name);

// Claude Code: the agent of a hook run without --agent.
const Agent &claude_code();

// Codex CLI (`--agent codex`, runtime/agents/codex.cpp).
const Agent &codex();

// Cursor (runtime/agents/cursor.cpp): built from its documented hook schema
// (docs/agents.md#cursor).
const Agent &cursor();

// Gemini CLI (runtime/agents/gemini_cli.cpp).
const Agent &gemini_cli();

// GitHub Copilot CLI (runtime/agents/copilot.cpp).
const Agent &copilot();

// The session key a process an agent started finds in `env`: that of the first agent (in
// agents() order) whose session variable is set, the hooks' `session_env` or, for `server`, the
// memory tools server's `server_session_env`; "" when none is set.
std::string session_in_env(const Environment &env, bool server = false);
// OpenCode (runtime/agents/opencode.cpp), through its shim.
const Agent &opencode();

// The Pi coding agent (runtime/agents/pi.cpp), through its shim.
const Agent &pi();

// The shell `agent` runs a hook command in: on Windows (`windows`) its files.windows_shell, else
// the POSIX shell. Without `windows`, this system's (platform::windows_commands).
CommandShell hook_shell(const Agent &agent, bool windows);
CommandShell hook_shell(const Agent &agent);

// The session key of `session_id` under `agent`: the id itself for Claude Code (whose session
// files predate other agents), else "<agent>-<id>", so ids of different agents never collide.
std::string agent_session(const Agent &agent, std::string_view session_id);

} // namespace mem0
