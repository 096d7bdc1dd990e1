#include "hygiene/logs.hpp"
#include "runtime/agent.hpp"

namespace mem0::hygiene {

std::string agent_of_session(std::string_view session) {
  for (const Agent *agent : agents())
    if (session.size() > agent->name.size() && session.starts_with(agent->name) &&
        session[agent->name.size()] == '-' && agent != &claude_code())
      return std::string(agent->name);
  return std::string(claude_code().name);
}

UseCounts use_counts(const std::vector<SessionRuns> &logs) {
  UseCounts counts;
  for (const auto &log : logs)
    for (const auto &run : log.runs) {
      for (const auto &[id, type] : run.memories) {
        UseCount &c = counts[id];
        ++c.injected;
        c.sessions.insert(log.session);
      }
      for (const auto &id : run.used)
        counts[id].used = true;
    }
  return counts;
}

} // namespace mem0::hygiene
