#include "runtime/agent.hpp"
#include "util/platform.hpp"

#include <array>

namespace mem0 {

std::span<const Agent *const> agents() {
  // Claude Code first: the agent of a run without --agent (docs/agents.md#adding-an-agent).
  static const auto all = std::to_array<const Agent *>(
      {&claude_code(), &codex(), &gemini_cli(), &cursor(), &copilot(), &opencode(), &pi()});
  return all;
}

const Agent *find_agent(std::string_view name) {
  for (const Agent *a : agents())
    if (a->name == name) return a;
  return nullptr;
}

std::string session_in_env(const Environment &env, bool server) {
  for (const Agent *a : agents()) {
    const std::string_view name = server ? a->server_session_env : a->session_env;
    if (name.empty()) continue;
    if (const auto id = env.get(name); id && !id->empty()) return agent_session(*a, *id);
  }
  return {};
}

std::string agent_session(const Agent &agent, std::string_view session_id) {
  if (session_id.empty() || &agent == &claude_code()) return std::string(session_id);
  return std::string(agent.name) + "-" + std::string(session_id);
}

CommandShell hook_shell(const Agent &agent, bool windows) {
  return windows ? agent.files.windows_shell : CommandShell::posix;
}

CommandShell hook_shell(const Agent &agent) {
  return hook_shell(agent, platform::windows_commands());
}

} // namespace mem0
