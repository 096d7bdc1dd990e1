#pragma once
#include "hook/io.hpp"
#include "mem0/config.hpp"
#include "mem0/http.hpp"
#include "store/state.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace mem0 {

// Everything a hook handler may touch, passed in so tests can substitute fakes.
struct HookContext {
  const Environment &env;
  const Config &config;
  HttpClient &http;
  const Log &log;
  StateStore &state;
  Deadline deadline;
  WallClock now = std::chrono::system_clock::now;
};

// A handler: the raw stdin in, the output back; `event` is set to the event the input names.
using RawHandler =
    std::function<HookOutput(std::string_view raw, const HookContext &ctx, std::string &event)>;

// The one place that turns a handler into process behaviour: set up the runtime, read stdin
// (bounded, within the deadline), run `handler`, print at most one JSON object with the fields
// the event accepts, and exit 0 whatever happens (bad input, no key, network and internal errors
// are logged, never raised), or 2 with the reason on stderr when the output blocks. The event is
// the input's when the hook table wires `executable` for it, else the table's first.
int run_hook_raw(std::string_view executable, const RawHandler &handler);

// run_hook_raw for a handler of a typed event input, parsed with `parse`.
template <class Input>
int run_hook(std::string_view executable, Result<Input> (*parse)(std::string_view),
             HookOutput (*handle)(const Input &, const HookContext &)) {
  return run_hook_raw(executable,
                      [&](std::string_view raw, const HookContext &ctx, std::string &event) {
                        auto input = parse(raw);
                        if (!input) {
                          ctx.log.warn("ignoring input: " + input.error().message);
                          return HookOutput{};
                        }
                        event = input->hook_event_name;
                        return handle(*input, ctx);
                      });
}

// The session a hook belongs to: the input's session_id, else CLAUDE_CODE_SESSION_ID.
std::string session_of(const HookInput &input, const Environment &env);

// The working directory: the input's cwd, else CLAUDE_PROJECT_DIR, else the process cwd.
std::filesystem::path cwd_of(const HookInput &input, const Environment &env);

} // namespace mem0
