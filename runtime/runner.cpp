#include "runtime/runner.hpp"
#include "runtime/notices.hpp"
#include "runtime/runtime.hpp"
#include "runtime/sender.hpp"
#include "runtime/table.hpp"
#include "util/detach.hpp"
#include "util/platform.hpp"

#include <cstdio>
#include <exception>

namespace mem0 {
namespace {

// The run log is not worth the budget: a short wait for the session lock, never past the
// deadline (a zero wait tries once).
constexpr std::chrono::milliseconds k_log_wait{100};

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

// Run `handler` on `raw`; an exception is logged and yields no output.
HookOutput handle_safely(const RawHandler &handler, std::string_view raw, const HookContext &ctx,
                         std::string &event) {
  try {
    return handler(raw, ctx, event);
  } catch (const std::exception &e) {
    ctx.log.warn(std::string("internal error: ") + e.what());
  } catch (...) {
    ctx.log.warn("internal error");
  }
  return {};
}

// Write what `output` shows for `agent`'s `event`: the block reason to `err` (status 2), else the
// one JSON object to `out`.
int write_output(const Agent &agent, std::string_view event, const HookOutput &output,
                 std::FILE *out, std::FILE *err) {
  if (!output.block_reason.empty()) {
    std::fprintf(err, "%s\n", output.block_reason.c_str());
    std::fflush(err);
    return 2;
  }
  if (const std::string text = agent.render(event, output); !text.empty())
    std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  return 0;
}

// Store the run's entry in the session's run log (docs/cli.md#log): only runs that skipped or
// injected something, and only within a session.
void log_run(const HookContext &ctx) {
  RunFacts &facts = *ctx.facts;
  if (facts.run_record().empty() || facts.session().empty()) return;
  if (!facts.paused_work()) {
    // One appended line, no lock and no read of the session (docs/state.md).
    if (auto appended = ctx.state.sessions.append_run(facts.session(), facts.run_record());
        !appended)
      ctx.log.warn("run log not saved: " + appended.error().message);
    return;
  }
  // Stopped by the user's pause: the session is also marked, so that what is said now is never
  // captured (docs/cli.md#pause-and-resume).
  auto stored = ctx.state.sessions.update(
      facts.session(),
      [&](SessionState &s) {
        s.log_run(facts.run_record());
        s.capture_resync = true;
      },
      std::min(time_left(ctx.deadline), k_log_wait));
  if (!stored) ctx.log.warn("run log not saved: " + stored.error().message);
}

// True when `line` is one of the lines of `text`.
bool has_line(std::string_view text, std::string_view line) {
  for (std::size_t at = text.find(line); at != std::string_view::npos; at = text.find(line, at + 1))
    if ((at == 0 || text[at - 1] == '\n') &&
        (at + line.size() == text.size() || text[at + line.size()] == '\n'))
      return true;
  return false;
}

} // namespace

RunResult run_hook_io(std::string_view executable, const Agent &agent, const RawHandler &handler,
                      const RunDeps &deps, Deadline deadline, int in, std::FILE *out,
                      std::FILE *err) {
  const HookContext ctx = make_context(deps, deadline, agent);
  ctx.facts->run_record().hook = std::string(executable);
  ctx.facts->run_record().time = unix_seconds(deps.now());
  const std::string raw = read_bounded(in, deadline);
  std::string event;
  HookOutput output = handle_safely(handler, raw, ctx, event);
  if (!hook_handles(agent.name, executable, event))
    if (const HookSpec *spec = find_hook(agent.name, executable)) event = std::string(spec->event);
  const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      SteadyClock::now() - (deadline - deps.config.timeout));
  deps.log.debug([&] {
    return "done in " + std::to_string(elapsed.count()) + " ms, " +
           std::to_string(output.context.size()) + " bytes of context";
  });
  RunResult result;
  // The run's last outcome: the handler's slow part, and any items pending with no pause in
  // force (this run's or earlier runs'), go out with a detached sender
  // (docs/capture.md#the-sender).
  result.detach = sender_work(ctx, *ctx.facts, output.detached);
  // A run the user's pause stopped says so once per session (recall claims the line with its
  // memories), and once in its output.
  if (ctx.facts->paused_work())
    if (const auto &paused = ctx.facts->user_pause())
      if (!has_line(output.system_message, user_pause_line(*paused)))
        if (const std::string line = user_pause_notice(ctx, *paused); !line.empty())
          output.system_message += (output.system_message.empty() ? "" : "\n") + line;
  ctx.facts->run_record().ms = elapsed.count();
  log_run(ctx);
  result.status = write_output(agent, event, output, out, err);
  return result;
}

Result<const Agent *> agent_of_args(int argc, const char *const *argv) {
  const Agent *agent = &claude_code();
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--agent" && i + 1 < argc) {
      agent = find_agent(argv[++i]);
      if (!agent)
        return unexpected(
            make_error(ErrorKind::client, "unknown agent '" + std::string(argv[i]) + "'"));
    } else {
      return unexpected(
          make_error(ErrorKind::client, "unknown argument '" + std::string(arg) + "'"));
    }
  }
  return agent;
}

int run_sender(const std::vector<std::string> &args, const RunDeps &deps) {
  std::vector<const char *> words{"--send"};
  for (const auto &arg : args)
    words.push_back(arg.c_str());
  const auto agent = agent_of_args(static_cast<int>(words.size()), words.data());
  if (!agent) {
    deps.log.warn(agent.error().message + " for the sender; nothing sent");
    return 0;
  }
  const SendReport report = send_round(deps); // within k_send_round
  if (report.stopped) deps.log.debug("sender stopped: " + report.stopped->message);
  return 0;
}

int run_hook_raw(int argc, const char *const *argv, std::string_view executable,
                 const RawHandler &handler) {
  const auto started = SteadyClock::now();
  platform::prepare_stdio(); // a reader gone must not turn exit 0 into a signal
  try {
    Runtime rt{std::string(executable)};
    if (rt.state_refused) {
      // Every hook keeps state (what was shown, the back-off, the outbox): it does nothing.
      rt.log.warn(*rt.state_refused);
      return finish(0);
    }
    const std::vector<std::string> args = platform::arguments(argc, argv);
    if (args.size() > 1 && args[1] == "--send") {
      run_sender({args.begin() + 2, args.end()}, {rt.env, rt.config, rt.http, rt.log, rt.state});
      return finish(0);
    }
    std::vector<const char *> words;
    for (const auto &arg : args)
      words.push_back(arg.c_str());
    const auto agent = agent_of_args(static_cast<int>(words.size()), words.data());
    if (!agent) {
      // Output shaped for the wrong agent could fail the agent's call: print nothing.
      rt.log.warn(agent.error().message + " on the command line; nothing done");
      return finish(0);
    }
    const RunDeps deps{rt.env, rt.config, rt.http, rt.log, rt.state};
    const RunResult run =
        run_hook_io(executable, **agent, handler, deps, started + rt.config.timeout,
                    platform::k_stdin_fd, stdout, stderr);
    if (run.detach && !run_detached(run.detach))
      rt.log.warn("cannot start the sender: items stay queued");
    return finish(run.status);
  } catch (const std::exception &e) {
    Log{std::string(executable)}.warn(std::string("internal error: ") + e.what());
  } catch (...) {
    Log{std::string(executable)}.warn("internal error");
  }
  return finish(0);
}

} // namespace mem0
