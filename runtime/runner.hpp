#pragma once
#include "mem0/config.hpp"
#include "mem0/http.hpp"
#include "runtime/agent.hpp"
#include "runtime/facts.hpp"
#include "runtime/hook_context.hpp"
#include "runtime/io.hpp"
#include "runtime/runtime.hpp"
#include "store/state.hpp"
#include "util/clock.hpp"
#include "util/detach.hpp"
#include "util/log.hpp"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// A handler: the raw stdin in, the output back; `event` is set to the event the input names.
using RawHandler =
    std::function<HookOutput(std::string_view raw, const HookContext &ctx, std::string &event)>;

// What a run leaves to its process once the output is written.
struct RunResult {
  int status = 0; // 0, or 2 when the output blocks
  // The sender (after the handler's `detached` work) to run in a detached process; empty unless
  // the handler declared `send` and there is something to do (sender_work).
  DetachedWork detach{};
};

// One run of `agent` over `deps`: read `in` (bounded, until `deadline`), run `handler`, write at
// most one JSON object with the fields the event accepts (the agent renders it) to `out`, or the
// block reason to `err` with status 2. Never throws: bad input, no key, network and internal
// errors (a handler that throws included) are logged and the status is 0. The event is the
// input's when the hook table wires `executable` for it, else the agent's first row's.
RunResult run_hook_io(std::string_view executable, const Agent &agent, const RawHandler &handler,
                      const RunDeps &deps, Deadline deadline, int in, std::FILE *out,
                      std::FILE *err);

// The agent a hook's command line names (`--agent <name>`); Claude Code without the flag; an
// error for an unknown name or argument.
Result<const Agent *> agent_of_args(int argc, const char *const *argv);

// The detached sender started anew (util/detach.hpp; a system that cannot fork): the arguments
// after `--send` name the agent (`--agent <name>`, else Claude Code); one send_round within
// k_send_round. Always 0, also when the arguments are wrong (logged).
int run_sender(const std::vector<std::string> &args, const RunDeps &deps);

// The process around run_hook_io: pick the agent from the command line (or, with `--send` first,
// run the sender: run_sender), set up the Runtime, run
// on the standard streams within the configured budget, start the declared sender detached, and
// exit with the run's status (0 also when the set-up itself fails, or the command line names no
// known agent: then nothing is printed; SIGPIPE is ignored).
int run_hook_raw(int argc, const char *const *argv, std::string_view executable,
                 const RawHandler &handler);

// An agent's parser of one kind of event input (Agent::prompt, Agent::tool, ...).
template <class Input> using AgentParser = Result<Input> (*Agent::*)(std::string_view);

// The raw handler of a typed one: parse the input with the run's agent's `parse`, bind the run's
// facts to it (the one place they are bound: handlers, recall, remember and the sender read them
// as bound), and handle it with `handle`.
template <class Input>
RawHandler typed_handler(AgentParser<Input> parse,
                         HookOutput (*handle)(const Input &, const HookContext &)) {
  return [parse, handle](std::string_view raw, const HookContext &ctx, std::string &event) {
    auto input = (ctx.agent->*parse)(raw);
    if (!input) {
      ctx.log.warn("ignoring input: " + input.error().message);
      return HookOutput{};
    }
    event = input->hook_event_name;
    ctx.facts->bind(*input);
    return handle(*input, ctx);
  };
}

// run_hook_raw for a handler of a typed event input (typed_handler).
template <class Input>
int run_hook(int argc, const char *const *argv, std::string_view executable,
             AgentParser<Input> parse, HookOutput (*handle)(const Input &, const HookContext &)) {
  return run_hook_raw(argc, argv, executable, typed_handler(parse, handle));
}

} // namespace mem0
