// `mem0-hooks tour [--scope S] [--plain] [--json]` (docs/cli.md#tour).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "hygiene/dream.hpp"
#include "mem0/format.hpp"
#include "mem0/memory.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace mem0::cli {
namespace {

// The listing's size and the three angles of the tour: no type filter, since a memory's type may
// be only a category the Platform gave it.
constexpr int k_tour_listing = 100;
constexpr std::size_t k_per_type = 5;
const std::vector<std::string> k_tour_queries{"architecture decisions and design choices",
                                              "coding conventions and patterns we follow",
                                              "anti-patterns, pitfalls and mistakes to avoid"};

// The group of a memory's type: its own spelling lowercased with `_` for spaces and dashes, the
// Platform's category names folded into the types the hooks write, `unknown` for none.
std::string group_of(std::string_view type) {
  std::string g;
  for (const char c : clean_text(type))
    g += (c == ' ' || c == '-') ? '_'
                                : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, std::string_view, std::less<>> aliases{
      {"architecture_decisions", memory_type::decision},
      {"architecture_decision", memory_type::decision},
      {"decisions", memory_type::decision},
      {"conventions", memory_type::convention},
      {"coding_conventions", memory_type::convention},
      {"anti_patterns", memory_type::anti_pattern},
      {"antipattern", memory_type::anti_pattern},
      {"pitfalls", memory_type::anti_pattern}};
  if (const auto it = aliases.find(g); it != aliases.end()) return std::string(it->second);
  return g.empty() ? "unknown" : g;
}

// Decisions, conventions and anti-patterns first, then the other groups by size, unknown last.
std::vector<std::string> group_order(const std::map<std::string, std::vector<Memory>> &groups) {
  std::vector<std::string> order;
  for (const auto &[name, members] : groups)
    order.push_back(name);
  const auto rank = [&](const std::string &name) {
    constexpr std::string_view first[] = {memory_type::decision, memory_type::convention,
                                          memory_type::anti_pattern};
    for (std::size_t i = 0; i < 3; ++i)
      if (name == first[i]) return i;
    return name == "unknown" ? std::size_t{5} : std::size_t{4};
  };
  std::stable_sort(order.begin(), order.end(), [&](const std::string &a, const std::string &b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return groups.at(a).size() > groups.at(b).size();
  });
  return order;
}

// `- text (YYYY-MM-DD) [mem0:id8]`, the whole text.
std::string tour_line(const Memory &m) {
  const std::string date =
      parse_iso8601(m.created_at) ? " (" + m.created_at.substr(0, 10) + ")" : "";
  return "- " + clean_text(m.text) + date + " [mem0:" + id8(m.id) + "]";
}

} // namespace

int tour(const Args &args, const CliContext &ctx) {
  const auto scope = scope_named(args.value("--scope"), ctx.config);
  if (!scope || *scope == Scope::session) {
    ctx.err << "mem0-hooks tour: --scope must be project or global\n";
    return k_usage;
  }
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const MemoryService memories = service(ctx);
  const Identity identity = identity_for(ctx, session_in_env(ctx.env));
  std::vector<SearchSpec> plan;
  for (const auto &query : k_tour_queries)
    plan.push_back({query, std::nullopt, 10, *scope});
  // A back-off pause answers at once, sending nothing.
  const auto survey =
      memories.survey(*api, identity, ListSpec{*scope, std::nullopt, 1, k_tour_listing}, plan);
  if (!survey) {
    ctx.err << "mem0-hooks tour: " << failure_line(survey.error()) << "\n";
    return k_failure;
  }
  if (!survey->page)
    ctx.err << "mem0: tour listing failed: " << failure_line(survey->page.error()) << "\n";
  const bool all_searches_failed = report_failures(survey->searches, plan.size(), ctx);
  if (!survey->page && all_searches_failed) return k_failure;

  std::vector<std::vector<Memory>> found;
  if (survey->page) found.push_back(survey->page->memories);
  for (const auto &r : survey->searches.results)
    found.push_back(r);
  std::vector<Memory> all = merge_results(found);
  // Pinned memories first (docs/hygiene.md#pin).
  const auto pinned_end = std::stable_partition(all.begin(), all.end(), hygiene::is_pinned);
  const std::vector<Memory> pinned(all.begin(), pinned_end);
  memories.show(memories.tool_session(), all); // so `peek <id8>` finds what the tour cites
  if (args.has("--json")) {
    write_json(ctx.out, all);
    return k_ok;
  }
  const std::string where =
      *scope == Scope::global ? std::string("all projects") : "project " + identity.project_id;
  if (all.empty()) {
    ctx.out << "No memories for " << where << " yet.\n";
    return k_ok;
  }
  std::map<std::string, std::vector<Memory>> groups;
  for (auto m = pinned_end; m != all.end(); ++m)
    groups[group_of(m->type)].push_back(*m);
  const bool plain = args.has("--plain");
  ctx.out << (plain ? "" : "## ") << "mem0 tour: " << where << " ("
          << count_of(all.size(), "memory", "memories") << ")\n";
  if (!pinned.empty()) {
    ctx.out << "\n" << (plain ? "" : "### ") << "pinned (" << pinned.size() << ")\n";
    for (const auto &m : pinned)
      ctx.out << tour_line(m) << "\n";
  }
  for (const auto &name : group_order(groups)) {
    const auto &members = groups.at(name);
    ctx.out << "\n" << (plain ? "" : "### ") << name << " (" << members.size() << ")\n";
    for (std::size_t i = 0; i < std::min(members.size(), k_per_type); ++i)
      ctx.out << tour_line(members[i]) << "\n";
    if (members.size() > k_per_type)
      ctx.out << "  ... and " << members.size() - k_per_type << " more\n";
  }
  return k_ok;
}

} // namespace mem0::cli
