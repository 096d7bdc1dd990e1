#include "hook/runner.hpp"
#include "hook/remember.hpp"
#include "hook/runtime.hpp"
#include "hook/table.hpp"

#include <csignal>
#include <cstdio>
#include <exception>
#include <unistd.h>

namespace mem0 {

std::string session_of(const HookInput &input, const Environment &env) {
  if (!input.session_id.empty()) return input.session_id;
  return env.get("CLAUDE_CODE_SESSION_ID").value_or("");
}

std::filesystem::path cwd_of(const HookInput &input, const Environment &env) {
  std::filesystem::path cwd;
  if (!input.cwd.empty())
    cwd = input.cwd;
  else if (auto dir = env.get("CLAUDE_PROJECT_DIR"); dir && !dir->empty())
    cwd = *dir;
  else {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec);
  }
  cwd = cwd.lexically_normal();
  if (cwd.has_relative_path() && !cwd.has_filename())
    cwd = cwd.parent_path(); // drop a trailing '/'
  return cwd;
}

namespace {

// End the process with `status` once everything is written. Outside sanitizer builds (whose
// leak check runs at exit) it skips every destructor and libcurl's and OpenSSL's teardown
// (about 0.5 ms): the kernel frees it all.
int finish(int status) {
  std::fflush(stdout);
#ifndef __SANITIZE_ADDRESS__
  std::fflush(stderr);
  std::_Exit(status);
#endif
  return status;
}

} // namespace

int run_hook_raw(std::string_view executable, const RawHandler &handler) {
  const auto started = SteadyClock::now();
  std::signal(SIGPIPE, SIG_IGN); // a reader that went away must not turn exit 0 into a signal
  int status = 0;
  try {
    Runtime rt{std::string(executable)};
    const Deadline deadline = started + rt.config.timeout;
    const std::string raw = read_bounded(STDIN_FILENO, deadline);
    const HookContext ctx{rt.env, rt.config, rt.http, rt.log, rt.state, deadline};
    std::string event;
    const HookOutput output = handler(raw, ctx, event);
    if (!hook_handles(executable, event))
      if (const HookSpec *spec = find_hook(executable)) event = std::string(spec->event);
    const auto elapsed =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
    rt.log.debug("done in " + std::to_string(elapsed.count()) + " ms, " +
                 std::to_string(output.context.size()) + " bytes of context");
    if (!output.block_reason.empty()) {
      std::fprintf(stderr, "%s\n", output.block_reason.c_str());
      status = 2;
    } else if (const std::string out = render_output(event, output); !out.empty()) {
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    // The handler's slow part, and captures left by an earlier run (offline, paused), go out
    // with the sender.
    start_sender(ctx, output.detached);
    return finish(status);
  } catch (const std::exception &e) {
    Log{std::string(executable)}.warn(std::string("internal error: ") + e.what());
  } catch (...) {
    Log{std::string(executable)}.warn("internal error");
  }
  return finish(status);
}

} // namespace mem0
