// What the commands share over the memory service (docs/cli.md).
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "mem0/identity.hpp"
#include "runtime/recall.hpp"

#include <algorithm>

namespace mem0::cli {

MemoryService service(const CliContext &ctx) {
  return MemoryService(ctx, ctx.cwd, ctx.deadline, ctx.detach, Caller::request);
}

Identity identity_for(const CliContext &ctx, std::string session) {
  return service(ctx).identity(std::move(session));
}

std::string session_for(const Args &args, const CliContext &ctx) {
  const auto given = args.value("--session");
  if (!given) return session_in_env(ctx.env);
  // An agent's own id names its session key (`<agent>-<id>`) when only that one was recorded.
  const auto recorded = [&](const std::string &key) {
    return !ctx.state.sessions.runs(key).empty() || !ctx.state.sessions.load(key).injected.empty();
  };
  if (recorded(*given)) return *given;
  for (const Agent *a : agents())
    if (const std::string key = agent_session(*a, *given); recorded(key)) return key;
  return *given;
}

std::optional<ApiTarget> target_or_explain(const CliContext &ctx) {
  auto api = service(ctx).api();
  if (api) return std::move(*api);
  ctx.err << "mem0: " << api.error().message << "\n";
  return std::nullopt;
}

std::optional<Scope> scope_named(const std::optional<std::string> &name, const Config &config) {
  if (!name) return config.global_search ? Scope::global : Scope::project;
  if (*name == "project") return Scope::project;
  if (*name == "session") return Scope::session;
  if (*name == "global") return Scope::global;
  return std::nullopt;
}

std::vector<SearchSpec> search_plan(const std::string &query, int top_k, Scope scope,
                                    const std::optional<std::string> &type,
                                    const std::optional<std::string> &dir) {
  if (type) return {{query, type, top_k, scope, dir}};
  return {{query, std::nullopt, top_k, scope, dir},
          {query, std::string(memory_type::decision), 5, scope, dir}};
}

std::optional<std::string> dir_named(const std::optional<std::string> &given) {
  if (!given) return std::nullopt;
  std::string dir = *given;
  std::replace(dir.begin(), dir.end(), '\\', '/');
  while (dir.starts_with("./"))
    dir.erase(0, 2);
  while (!dir.empty() && dir.back() == '/')
    dir.pop_back();
  if (dir.empty() || dir == ".") return std::nullopt;
  return dir;
}

void write_memories(JsonWriter &w, const std::vector<Memory> &memories) {
  w.begin_array();
  for (const auto &m : memories) {
    w.begin_object()
        .member("id", m.id)
        .member("type", m.type)
        .member("memory", clean_text(m.text))
        .member("created_at", m.created_at)
        .member("cite", "[mem0:" + id8(m.id) + "]");
    if (m.score) w.key("score").number(*m.score);
    w.end_object();
  }
  w.end_array();
}

void write_json(std::ostream &out, const std::vector<Memory> &memories) {
  JsonWriter w;
  write_memories(w, memories);
  out << w.text() << "\n";
}

bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx) {
  for (const auto &line : recall_problem_lines(outcome, searches))
    ctx.err << line << "\n";
  return !outcome.failures.empty() && outcome.failures.size() == searches;
}

} // namespace mem0::cli
