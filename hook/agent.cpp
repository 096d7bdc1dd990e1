#include "hook/agent.hpp"

#include <array>

namespace mem0 {

std::span<const Agent *const> agents() {
  // Claude Code first: the agent of a run without --agent (docs/agents.md#adding-an-agent).
  static const std::array<const Agent *, 6> all{&claude_code(), &codex(),    &gemini_cli(),
                                                &cursor(),      &opencode(), &pi()};
  return all;
}

const Agent *find_agent(std::string_view name) {
  for (const Agent *a : agents())
    if (a->name == name) return a;
  return nullptr;
}

std::string agent_session(const Agent &agent, std::string_view session_id) {
  if (session_id.empty() || &agent == &claude_code()) return std::string(session_id);
  return std::string(agent.name) + "-" + std::string(session_id);
}

} // namespace mem0
