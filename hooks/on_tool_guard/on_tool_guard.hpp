#pragma once
#include "runtime/io.hpp"
#include "runtime/runner.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace mem0::on_tool_guard {

// The two prefixes Claude Code gives the tools of Mem0's MCP server: added with `claude mcp add`,
// or shipped by the mem0 plugin.
inline constexpr std::string_view k_mcp_prefix = "mcp__mem0__";
inline constexpr std::string_view k_plugin_mcp_prefix = "mcp__plugin_mem0_mem0__";
// The tools of this project's own server (`mem0-hooks mcp`) as Claude Code names them when this
// plugin ships it (.mcp.json): the server's identity is its own and it refuses identity
// arguments, so the guard leaves its calls alone (docs/hooks.md#tool-guard).
inline constexpr std::string_view k_own_mcp_prefix = "mcp__plugin_mem0-native-hooks_mem0__";

// metadata.source of a memory written through the MCP tool when the call names none.
inline constexpr std::string_view k_mcp_source = "mcp";

// Shell-style match of `text` against `pattern`, where `*` matches any run of characters (`/`
// included) and every other character only itself: `case` in sh, fnmatch without flags.
bool glob_match(std::string_view pattern, std::string_view text);

// True when `path` is one of `agent`'s own memory files: after `\` becomes `/` and the path is
// normalised lexically, it matches one of the agent's native_memory_globs (Claude Code's:
// `*/.claude/*/MEMORY.md`, `*/.claude/memory/*`). A relative path is taken from `cwd`, or from
// `/` when `cwd` is empty.
bool is_native_memory_path(std::string_view path, std::string_view cwd = {},
                           const Agent &agent = claude_code());

// The one line written to stderr when a write to `path`, one of `agent`'s memory files, is
// blocked.
std::string block_message(std::string_view path, const Agent &agent = claude_code());

// Which Mem0 MCP tool a tool name is: the guard completes adds, searches and listings only.
enum class Mem0Tool {
  none,   // not a Mem0 MCP tool
  own,    // a tool of this plugin's own server (k_own_mcp_prefix): never changed
  add,    // add_memory
  search, // search_memories
  list,   // get_memories
  other,  // any other Mem0 tool (get, update, delete, entities): never changed
};
Mem0Tool mem0_tool(std::string_view tool_name);

// Who the hooks write and search as.
struct GuardIdentity {
  std::string user_id;
  std::string app_id;     // the project id
  std::string session_id; // may be empty
};

// The completed input of a Mem0 MCP call (docs/hooks.md#tool-guard), as a JSON object text;
// nullopt when nothing was missing, when the tool is not one the guard completes, when the
// identity is incomplete, or when `tool_input_json` is anything but a JSON object of the expected
// shape.
//   add_memory: user_id and app_id when the call names no user_id, agent_id or run_id (app_id
//     only when missing); metadata.type `task_learning`, metadata.source `mcp` and
//     metadata.session_id when missing.
//   search_memories, get_memories: nothing when user_id or agent_id appears anywhere in the call;
//     no filters → {"AND":[{user_id},{app_id}]}; other filters → AND of the identity clauses and
//     theirs (the app_id clause only when the call names no app_id).
std::optional<std::string> complete_mcp_call(std::string_view tool_name,
                                             std::string_view tool_input_json,
                                             const GuardIdentity &identity);

// Handle one PreToolUse event: block a write to Claude Code's own memory files (exit 2), or
// complete a Mem0 MCP call (updatedInput); otherwise no output. Never sends a request.
HookOutput handle(const ToolInput &input, const HookContext &ctx);

} // namespace mem0::on_tool_guard
