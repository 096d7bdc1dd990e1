#pragma once
#include "cli/command.hpp"
#include "runtime/agent.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mem0::cli {

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

} // namespace mem0::cli
