#pragma once
#include "util/error.hpp"

#include <functional>

namespace mem0 {

// Run `work` in a detached process and return at once: a grandchild in a new session, with
// stdin, stdout and stderr on /dev/null, so Claude Code sees the hook's output end as soon as the
// hook exits and never waits for `work`. The one place that knows how (POSIX fork and setsid).
// An io error when no process could be made (then `work` did not run).
Result<void> run_detached(const std::function<void()> &work);

} // namespace mem0
