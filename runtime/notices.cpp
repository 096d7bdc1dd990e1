#include "runtime/notices.hpp"
#include "store/outbox.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace mem0 {

bool notice_shown(const SessionState &s, std::string_view kind) {
  if (kind == notice_kind::daily_limit) return s.limit_notice_shown;
  return std::find(s.notices_shown.begin(), s.notices_shown.end(), kind) != s.notices_shown.end();
}

std::string daily_limit_line(long limit) {
  return "mem0: daily search limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
}

std::string add_limit_line(long limit) {
  return "mem0: daily add limit (" + std::to_string(limit) +
         ") reached \xE2\x80\x94 captures wait until tomorrow (UTC)";
}

std::string outbox_full_line() {
  return "mem0: capture outbox full (" + std::to_string(Outbox::k_max_items) + " items or " +
         std::to_string(Outbox::k_max_bytes / (1024 * 1024)) +
         " MB) \xE2\x80\x94 new memories are not saved until it drains (run mem0-hooks doctor)";
}

std::string outbox_rejected_line(std::size_t count, const std::filesystem::path &outbox_dir) {
  return "mem0: " + count_of(count, "capture", "captures") + " rejected by Mem0, kept in " +
         (outbox_dir / "rejected").string() + " (run mem0-hooks doctor)";
}

std::string recalled_line(std::size_t count) {
  return "mem0: " + count_of(count, "memory", "memories") + " recalled";
}

bool claim_notice(SessionState &s, std::string_view kind) {
  if (notice_shown(s, kind)) return false;
  if (kind == notice_kind::daily_limit)
    s.limit_notice_shown = true;
  else
    s.notices_shown.emplace_back(kind);
  return true;
}

namespace {

// `line` when `session` has not shown `kind` yet (claimed now), else ""; always `line` without a
// session or when the claim cannot be saved.
std::string notice_once(const HookContext &ctx, const std::string &session, std::string_view kind,
                        std::string line) {
  if (session.empty()) return line;
  if (notice_shown(ctx.state.sessions.load(session), kind)) return {};
  bool claimed = false;
  auto stored = ctx.state.sessions.update(
      session, [&](SessionState &s) { claimed = claim_notice(s, kind); },
      std::max(time_left(ctx.deadline), k_claim_grace));
  if (!stored) {
    ctx.log.warn("session state not saved: " + stored.error().message);
    return line;
  }
  return claimed ? line : std::string();
}

} // namespace

std::string no_key_notice(const HookContext &ctx, const std::string &session) {
  return notice_once(ctx, session, notice_kind::no_key, std::string(k_no_key_notice));
}

std::string user_pause_line(const PauseStore::UserPause &pause) {
  return "mem0: paused by you until " +
         (pause.until == 0 ? std::string("you resume") : local_time(pause.until)) +
         " \xE2\x80\x94 mem0-hooks resume";
}

std::string user_pause_notice(const HookContext &ctx, const PauseStore::UserPause &pause) {
  return notice_once(ctx, ctx.facts->session(), notice_kind::user_paused, user_pause_line(pause));
}

std::string mem0_hooks_command(const Agent &agent) {
  static const auto exe = platform::executable_path();
  if (!exe) return "mem0-hooks";
  const bool windows = platform::windows_commands();
  std::string program = (exe->parent_path() / "mem0-hooks").string();
  if (windows) program += ".exe";
  return render_command(hook_shell(agent, windows), program, "");
}

} // namespace mem0
