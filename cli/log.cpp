#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/memories.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace mem0::cli {
namespace {

std::string skip_text(const RunSkip &skip) {
  return skip.reason + (skip.detail.empty() ? "" : ": " + skip.detail);
}

void write_log_json(std::ostream &out, const std::string &session,
                    const std::vector<RunRecord> &runs) {
  JsonWriter w;
  std::size_t memories = 0, chars = 0;
  w.begin_object().member("session", session).key("runs").begin_array();
  for (const auto &r : runs) {
    write_run_json(w, r);
    memories += r.memories.size();
    chars += r.chars;
  }
  w.end_array().key("totals").begin_object();
  w.key("runs").int64(static_cast<long long>(runs.size()));
  w.key("memories").int64(static_cast<long long>(memories));
  w.key("chars").int64(static_cast<long long>(chars));
  w.key("tokens").int64(static_cast<long long>(tokens_of(chars)));
  w.end_object().end_object();
  out << w.text() << "\n";
}

} // namespace

int log(const Args &args, const CliContext &ctx) {
  std::string session = session_for(args, ctx);
  if (session.empty()) session = ctx.state.sessions.latest_session().value_or("");
  if (session.empty()) {
    ctx.out << "No session has been recorded in " << ctx.state.dir.string() << " yet.\n";
    return k_ok;
  }
  const std::vector<RunRecord> runs = ctx.state.sessions.runs(session);
  if (args.has("--json")) {
    write_log_json(ctx.out, session, runs);
    return k_ok;
  }
  if (runs.empty()) {
    ctx.out << "No hook run logged in session " << session << ".\n";
    return k_ok;
  }
  ctx.out << "session " << session << " (the last " << k_max_runs
          << " runs are kept; tokens are estimated as characters / 4)\n";
  std::size_t memories = 0, chars = 0;
  for (const auto &r : runs) {
    ctx.out << local_time(r.time, "%Y-%m-%d %H:%M:%S") << "  " << r.hook << "\n";
    if (!r.memories.empty()) {
      ctx.out << "  injected " << count_of(r.memories.size(), "memory", "memories") << ", "
              << count_of(r.chars, "character", "characters") << " (~" << tokens_of(r.chars)
              << " tokens):";
      for (const auto &[id, type] : r.memories)
        ctx.out << " " << id << (type.empty() ? "" : " [" + type + "]");
      ctx.out << "\n";
    }
    for (const auto &skip : r.skipped)
      ctx.out << "  skipped " << skip_text(skip) << "\n";
    if (!r.used.empty()) ctx.out << "  used by the reply: " << join(r.used, " ") << "\n";
    memories += r.memories.size();
    chars += r.chars;
  }
  ctx.out << "totals: " << count_of(runs.size(), "run", "runs") << ", "
          << count_of(memories, "memory", "memories") << " injected, "
          << count_of(chars, "character", "characters") << " (~" << tokens_of(chars)
          << " tokens)\n";
  return k_ok;
}

std::optional<std::string> last_skip(const CliContext &ctx) {
  const auto session = ctx.state.sessions.latest_session();
  if (!session) return std::nullopt;
  const auto runs = ctx.state.sessions.runs(*session);
  for (auto r = runs.rbegin(); r != runs.rend(); ++r)
    if (!r->skipped.empty())
      return local_time(r->time, "%Y-%m-%d %H:%M:%S") + " " + r->hook + ": " +
             skip_text(r->skipped.back()) + " (mem0-hooks log --session " + *session + ")";
  return std::nullopt;
}

} // namespace mem0::cli
