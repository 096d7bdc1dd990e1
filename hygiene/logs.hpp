#pragma once
#include "store/session_state.hpp"

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// The run logs as hygiene reads them (docs/cli.md#log): each session's runs, and what they say
// of each memory's injections and uses.

namespace mem0::hygiene {

// One session's run log.
struct SessionRuns {
  std::string session; // its key: `<agent>-<id>`, or a Claude Code session's own id
  std::vector<RunRecord> runs;
};

// The agent a session key belongs to (runtime/agent.hpp's agent_session): the name of the agent
// it starts with, else claude-code.
std::string agent_of_session(std::string_view session);

// How often a memory was injected, in which sessions, and whether a reply used it.
struct UseCount {
  std::size_t injected = 0;
  std::set<std::string> sessions;
  bool used = false;
};
using UseCounts = std::map<std::string, UseCount, std::less<>>;

// The use counts of every memory the runs of `logs` injected or used.
UseCounts use_counts(const std::vector<SessionRuns> &logs);

} // namespace mem0::hygiene
