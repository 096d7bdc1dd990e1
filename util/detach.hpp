#pragma once
#include "util/error.hpp"

#include <functional>
#include <string>
#include <vector>

namespace mem0 {

// Run `work` in a detached process and return at once: a grandchild in a new session, with
// stdin, stdout and stderr on /dev/null, so Claude Code sees the hook's output end as soon as the
// hook exits and never waits for `work`. The one place that knows how (POSIX fork and setsid).
// An io error when no process could be made (then `work` did not run).
Result<void> run_detached(const std::function<void()> &work);

// The environment for a program the hooks or the CLI start (an agent's `--version` in doctor):
// `env` (a null-terminated `NAME=value` list, such as `environ`) without the API key's variables,
// `MEM0_API_KEY` and `CLAUDE_PLUGIN_OPTION_*`. The detached sender is no such program: it is a
// fork of the hook, with no new environment, and needs the key it already holds.
class ChildEnvironment {
public:
  explicit ChildEnvironment(char *const *env);
  char *const *get() const { return m_pointers.data(); }

private:
  std::vector<std::string> m_entries;
  std::vector<char *> m_pointers;
};

} // namespace mem0
