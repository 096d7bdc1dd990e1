#include "cli/cli.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace mem0::cli {
namespace {

// Look a memory up by id: GET for a uuid, the session id maps first for a short id.
std::optional<Memory> lookup_id(const IdQuery &id, const ApiTarget &api, const CliContext &ctx) {
  std::string full = id.hex;
  if (!id.is_uuid) {
    const auto resolved = resolve_short_id(id.hex, ctx.state.sessions.all_sessions());
    if (!resolved) {
      ctx.log.debug(
          [&] { return "short id " + id.hex + " not found in any session; searching instead"; });
      return std::nullopt;
    }
    full = *resolved;
  }
  auto responses = ctx.http.run({get_memory_request(api, full)}, ctx.deadline);
  if (!responses[0]) {
    ctx.err << "mem0: lookup of " << full << " failed: " << to_string(responses[0].error().kind)
            << "\n";
    return std::nullopt;
  }
  auto parsed = parse_memory_response(*responses[0]);
  if (!parsed) {
    ctx.err << "mem0: lookup of " << full << " failed: " << parsed.error().message << "\n";
    return std::nullopt;
  }
  return *parsed;
}

// A peek line with the whole text, for the one memory looked up by id: peek_line
// (mem0/format.cpp) without the cut at 80 code points.
std::string whole_peek_line(const Memory &m) {
  const std::string type = truncate_code_points(clean_text(m.type), 40);
  const std::string date =
      parse_iso8601(m.created_at) ? " (" + m.created_at.substr(0, 10) + ")" : "";
  return "1. [" + (type.empty() ? "unknown" : type) + "] " + clean_text(m.text) + date +
         " [mem0:" + id8(m.id) + "]";
}

// Where a search looked, for the line saying it found nothing.
std::string scope_label(Scope scope, const Identity &identity) {
  if (scope == Scope::global) return "across all projects";
  if (scope == Scope::session)
    return "in session " + identity.session_id + " of project " + identity.project_id;
  return "for project " + identity.project_id;
}

// The scope --scope names, else the configured one; a client error for an unknown name.
Result<Scope> scope_of(const Args &args, const Config &config) {
  if (const auto scope = scope_named(args.value("--scope"), config)) return *scope;
  return unexpected(make_error(ErrorKind::client, "--scope must be project, session or global"));
}

// --top-k, 10 by default; a client error unless it is a number from 1 to 100.
Result<int> top_k_of(const Args &args) {
  int top_k = 10;
  if (auto k = args.value("--top-k")) {
    const auto [end, ec] = std::from_chars(k->data(), k->data() + k->size(), top_k);
    if (ec != std::errc() || end != k->data() + k->size() || top_k < 1 || top_k > 100)
      return unexpected(make_error(ErrorKind::client, "--top-k must be a number from 1 to 100"));
  }
  return top_k;
}

} // namespace

std::optional<IdQuery> detect_id(std::string_view query) {
  const std::string_view q = trim(query);
  if (q.size() == 8 && all_of_class(q, is_lower_hex)) return IdQuery{std::string(q), false};
  if (q.size() > 9 && all_of_class(q.substr(0, 8), is_lower_hex) && q[8] == '-' &&
      q.find_first_not_of("0123456789abcdef-") == std::string_view::npos)
    return IdQuery{std::string(q), true};
  if (const auto at = q.find("[mem0:"); at != std::string_view::npos) {
    const auto close = q.find(']', at);
    if (close == std::string_view::npos) return std::nullopt;
    std::string hex(q.substr(at + 6, close - at - 6));
    std::transform(hex.begin(), hex.end(), hex.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (hex.size() >= 8 && all_of_class(hex.substr(0, 8), is_lower_hex) &&
        hex.find_first_not_of("0123456789abcdef-") == std::string::npos)
      return IdQuery{hex, hex.size() > 8};
  }
  return std::nullopt;
}

std::optional<std::string> resolve_short_id(std::string_view short_id,
                                            const std::vector<SessionState> &sessions) {
  std::set<std::string> matches;
  for (const auto &s : sessions)
    for (const auto &id : s.injected)
      if (id8(id) == short_id) matches.insert(id);
  if (matches.size() != 1) return std::nullopt;
  return *matches.begin();
}

int peek(const Args &args, const CliContext &ctx) {
  const std::string query = make_query(args.joined_words(), ctx.config.redact);
  if (query.empty()) {
    ctx.err << "What should I search for?\n";
    return k_usage;
  }
  const auto usage = [&](const Error &e) {
    ctx.err << "mem0-hooks peek: " << e.message << "\n";
    return k_usage;
  };
  const auto scope_option = scope_of(args, ctx.config);
  if (!scope_option) return usage(scope_option.error());
  const auto top_k_option = top_k_of(args);
  if (!top_k_option) return usage(top_k_option.error());
  const Scope scope = *scope_option;
  const int top_k = *top_k_option;
  const std::string session = session_for(args, ctx);
  if (scope == Scope::session && session.empty()) {
    ctx.err << "mem0-hooks peek: --scope session needs --session ID (or an agent's session)\n";
    return k_usage;
  }
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const bool plain = args.has("--plain");
  const Identity identity = identity_for(ctx, session);

  std::vector<Memory> memories;
  if (const auto id = detect_id(query))
    if (auto found = lookup_id(*id, *api, ctx)) memories.push_back(std::move(*found));
  const bool by_id = !memories.empty();
  if (!by_id) {
    const std::vector<SearchSpec> plan = search_plan(query, top_k, scope);
    const PlanOutcome outcome = run_searches(ctx, *api, identity, plan);
    if (report_failures(outcome, plan.size(), ctx)) return k_failure;
    memories = merge_results(outcome.results);
    if (memories.size() > static_cast<std::size_t>(top_k)) memories.resize(top_k);
  }
  if (args.has("--json")) {
    write_json(ctx.out, memories);
    return k_ok;
  }
  if (memories.empty()) {
    ctx.out << "No memories matching \"" << query << "\" " << scope_label(scope, identity) << ".\n";
    return k_ok;
  }
  ctx.out << (plain ? "" : "## ") << "mem0 peek: \"" << query << "\" ("
          << count_of(memories.size(), "result", "results") << ")\n\n";
  for (std::size_t i = 0; i < memories.size(); ++i)
    ctx.out << (by_id ? whole_peek_line(memories[i]) : peek_line(i + 1, memories[i])) << "\n";
  return k_ok;
}

} // namespace mem0::cli
