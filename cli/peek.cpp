#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>

namespace mem0::cli {
namespace {

// The memory `id` names, through the service (the id map for a short id), when it is a memory of
// `identity`'s user; nullopt, after saying why on stderr unless it is simply not there (or not
// theirs), to search instead.
std::optional<Memory> lookup_id(const IdQuery &id, const MemoryService &memories,
                                const ApiTarget &api, const Identity &identity,
                                const CliContext &ctx) {
  auto found = memories.own_memory(api, identity, id.is_uuid ? id.hex : "[mem0:" + id.hex + "]");
  if (found) return std::move(*found);
  if (found.error().kind == ErrorKind::client)
    ctx.log.debug([&] { return "no memory for " + id.hex + "; searching instead"; });
  else
    ctx.err << "mem0: lookup of " << id.hex << " failed: " << to_string(found.error().kind) << "\n";
  return std::nullopt;
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

  const MemoryService memories_of = service(ctx);
  std::vector<Memory> memories;
  if (const auto id = detect_id(query))
    if (auto found = lookup_id(*id, memories_of, *api, identity, ctx))
      memories.push_back(std::move(*found));
  const bool by_id = !memories.empty();
  if (!by_id) {
    const std::vector<SearchSpec> plan =
        search_plan(query, top_k, scope, std::nullopt, dir_named(args.value("--dir")));
    // A back-off pause answers at once, sending nothing (docs/cli.md#peek).
    const auto outcome = memories_of.run(*api, identity, plan);
    if (!outcome) {
      ctx.err << "mem0-hooks peek: " << failure_line(outcome.error()) << "\n";
      return k_failure;
    }
    if (report_failures(*outcome, plan.size(), ctx)) return k_failure;
    memories = merge_results(outcome->results);
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
