#include "hooks/on_stop/on_stop.hpp"
#include "hygiene/use_signal.hpp"
#include "mem0/format.hpp"
#include "mem0/memory.hpp"
#include "runtime/transcript.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

namespace mem0::on_stop {

std::optional<Capture> summary_capture(const StopInput &input, const Config &config, WallTime now,
                                       const Agent &agent) {
  if (!input.agent_id.empty()) return std::nullopt; // a subagent's turn, not the session's
  // Cut to k_max_chars before anything else looks at it: a reply may be megabytes.
  std::string content =
      prepare_capture_text(input.last_assistant_message, config.redact, k_max_chars);
  if (code_points(content) < k_min_chars) return std::nullopt;
  Capture c;
  c.type = memory_type::session_summary;
  c.source = memory_source::stop;
  if (!input.transcript_path.empty()) {
    const auto files = agent.transcript(input.transcript_path, k_transcript_window).files_touched;
    if (!files.empty()) {
      content += "\n\nFiles touched: " + prepare_capture_text(join(files, ", "), config.redact);
      c.metadata.emplace_back("files_touched", join(files, ", "));
    }
  }
  c.messages = {{"assistant", std::move(content)}};
  c.prepared = true;
  c.expiration_date = utc_day(now + std::chrono::days(std::max(1L, config.retention_session_days)));
  return c;
}

void mark_used(const StopInput &input, const HookContext &ctx) {
  if (!input.agent_id.empty() || trim(input.last_assistant_message).empty()) return;
  const std::string &session = ctx.facts->bind(input).session();
  if (session.empty() || ctx.state.sessions.load(session).awaiting.empty()) return;
  std::vector<AwaitingReply> awaiting;
  const auto taken = ctx.state.sessions.update(
      session, [&](SessionState &s) { awaiting = std::exchange(s.awaiting, {}); },
      std::min(time_left(ctx.deadline), k_lock_wait));
  if (!taken) {
    ctx.log.warn("use signal: session state not read: " + taken.error().message);
    return;
  }
  ctx.facts->run_record().used = hygiene::used_ids(input.last_assistant_message, awaiting);
  ctx.log.debug([&] {
    return "use signal: " + std::to_string(ctx.facts->run_record().used.size()) + " of " +
           std::to_string(awaiting.size()) + " injected memories used";
  });
}

HookOutput handle(const StopInput &input, const HookContext &ctx) {
  mark_used(input, ctx);
  auto capture = summary_capture(input, ctx.config, ctx.now(), *ctx.agent);
  if (!capture) {
    ctx.log.debug("stop: nothing to capture (subagent, or a short message)");
    ctx.facts->note_skip("gated", "a reply under " + std::to_string(k_min_chars) +
                                      " characters, or a subagent's turn: no summary captured");
    return {};
  }
  // Best effort: remember logs why a capture was not queued; the runner then starts the sender.
  (void)remember(ctx, *ctx.facts, std::move(*capture));
  return {};
}

} // namespace mem0::on_stop
