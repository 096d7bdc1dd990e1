#pragma once
#include "util/error.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace mem0 {

// What a detached process does: `prepare` (may be empty), work that needs this process's memory
// (a capture made from the hook's input), then `work`, which `args`, given to this same
// executable, also make it do on its own.
struct DetachedWork {
  std::function<void()> prepare{};
  std::function<void()> work{};
  std::vector<std::string> args{};
  // The working directory of `work` (the sender): never the project's, which the agent may want
  // to move or delete while the sender runs. Empty: the caller's.
  std::filesystem::path dir{};

  explicit operator bool() const { return static_cast<bool>(work); }
  // Both parts in this process (the tests run the detached work in place).
  void operator()() const {
    if (prepare) prepare();
    if (work) work();
  }
};

// Run `detached` in a detached process and return at once, so that the agent sees the hook's
// output end as soon as the hook exits and never waits for it (docs/capture.md#the-sender).
// POSIX (util/detach_posix.cpp): a forked grandchild in a new session, with stdin, stdout and
// stderr on /dev/null, runs both parts. Windows (util/detach_windows.cpp), which cannot fork:
// `prepare` runs here, then this executable is started anew with `args`, with no window and no
// handle of ours, outside the agent's job where the job allows it. An io error when no process
// could be made (then the work did not run).
Result<void> run_detached(const DetachedWork &detached);

// The environment for a program the hooks or the CLI start (an agent's `--version` in doctor):
// `env` (a null-terminated `NAME=value` list, such as `environ`) without the API key's variables,
// `MEM0_API_KEY` and `CLAUDE_PLUGIN_OPTION_*`. The detached sender is no such program: it is a
// fork of the hook (or, on Windows, the hook started anew with this process's environment), and
// needs the key it already holds.
class ChildEnvironment {
public:
  explicit ChildEnvironment(char *const *env);
  explicit ChildEnvironment(const std::vector<std::string> &env);
  char *const *get() const { return m_pointers.data(); }

private:
  std::vector<std::string> m_entries;
  std::vector<char *> m_pointers;
};

} // namespace mem0
