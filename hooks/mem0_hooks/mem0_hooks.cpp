#include "hooks/mem0_hooks/mem0_hooks.hpp"
#include "common/detect.hpp"
#include "common/format.hpp"
#include "common/search.hpp"
#include "common/strings.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace mem0::cli {
namespace {

constexpr std::string_view k_version = "0.1.0";

constexpr std::string_view k_help = R"(usage: mem0-hooks <command> [options]

Recall Mem0 memories from the command line, with the same configuration as the hooks.

commands:
  peek <query...>     search memories, or show one by id / [mem0:id8] citation
      --scope project|session|global   (default: project)
      --top-k N                        broad results (default: 10)
      --session ID                     session for short ids and --scope session
      --plain                          no Markdown      --json   machine output
  context <task...>   load the memories a task needs (decisions, conventions, pitfalls)
      --session ID                     skip memories already injected in that session
      --plain, --json
  doctor              check key, identity, settings, hook wiring and the API
  install             wire the hooks into Claude Code settings (~/.claude/settings.json)
  uninstall           remove them again
      --project                        use ./.claude/settings.json
      --settings PATH                  use PATH
      --dry-run                        print the result instead of writing it

  --help, --version
)";

struct CommandSpec {
  std::string_view name;
  std::set<std::string_view> value_options;
  std::set<std::string_view> flags;
};

const std::map<std::string_view, CommandSpec> &commands() {
  static const std::map<std::string_view, CommandSpec> specs{
      {"peek", {"peek", {"--scope", "--top-k", "--session"}, {"--plain", "--json"}}},
      {"context", {"context", {"--session"}, {"--plain", "--json"}}},
      {"doctor", {"doctor", {}, {}}},
      {"install", {"install", {"--settings"}, {"--project", "--dry-run"}}},
      {"uninstall", {"uninstall", {"--settings"}, {"--project", "--dry-run"}}},
  };
  return specs;
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

Identity identity_for(const CliContext &ctx, std::string session) {
  return {ctx.config.user_id, resolve_project_id(ctx.config, ctx.env, ctx.cwd, ctx.log).id,
          std::move(session)};
}

std::string session_for(const Args &args, const CliContext &ctx) {
  if (auto s = args.value("--session")) return *s;
  return ctx.env.get("CLAUDE_CODE_SESSION_ID").value_or("");
}

void write_json(std::ostream &out, const std::vector<Memory> &memories) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&w](const std::string &s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartArray();
  for (const auto &m : memories) {
    w.StartObject();
    w.Key("id");
    str(m.id);
    w.Key("type");
    str(m.type);
    w.Key("memory");
    str(clean_text(m.text));
    w.Key("created_at");
    str(m.created_at);
    if (m.score) {
      w.Key("score");
      w.Double(*m.score);
    }
    w.EndObject();
  }
  w.EndArray();
  out << buffer.GetString() << "\n";
}

// Report the failures of a plan on stderr; true when every search failed.
bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx) {
  for (const auto &line : recall_problem_lines(outcome, searches))
    ctx.err << line << "\n";
  return !outcome.failures.empty() && outcome.failures.size() == searches;
}

// Look a memory up by id: GET for a uuid, the session id maps first for a short id.
std::optional<Memory> lookup_id(const IdQuery &id, const CliContext &ctx) {
  std::string full = id.hex;
  if (!id.is_uuid) {
    const auto resolved = resolve_short_id(id.hex, StateStore(ctx.config.state_dir).all_sessions());
    if (!resolved) {
      ctx.log.debug("short id " + id.hex + " not found in any session; searching instead");
      return std::nullopt;
    }
    full = *resolved;
  }
  if (const auto refused = refuse_base_url(ctx.config.base_url)) {
    ctx.err << "mem0: " << *refused << "\n";
    return std::nullopt;
  }
  auto responses = ctx.http.run({get_memory_request(api_target(ctx.config), full)}, ctx.deadline);
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

} // namespace

bool Args::has(std::string_view name) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto &o) { return o.first == name; });
}

std::optional<std::string> Args::value(std::string_view name) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it)
    if (it->first == name) return it->second;
  return std::nullopt;
}

std::string Args::joined_words() const { return std::string(trim(join(words, " "))); }

std::optional<IdQuery> detect_id(std::string_view query) {
  const std::string_view q = trim(query);
  if (q.size() == 8 && is_hex(q)) return IdQuery{std::string(q), false};
  if (q.size() > 9 && is_hex(q.substr(0, 8)) && q[8] == '-' &&
      q.find_first_not_of("0123456789abcdef-") == std::string_view::npos)
    return IdQuery{std::string(q), true};
  if (const auto at = q.find("[mem0:"); at != std::string_view::npos) {
    const auto close = q.find(']', at);
    if (close == std::string_view::npos) return std::nullopt;
    std::string hex(q.substr(at + 6, close - at - 6));
    std::transform(hex.begin(), hex.end(), hex.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (hex.size() >= 8 && is_hex(hex.substr(0, 8)) &&
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

std::string mask_key(std::string_view key) {
  if (key.size() < 12) return "…";
  return std::string(key.substr(0, 3)) + "…" + std::string(key.substr(key.size() - 4));
}

int peek(const Args &args, const CliContext &ctx) {
  const std::string query = make_query(args.joined_words(), ctx.config.redact);
  if (query.empty()) {
    ctx.err << "What should I search for?\n";
    return k_usage;
  }
  Scope scope = ctx.config.global_search ? Scope::global : Scope::project;
  if (auto s = args.value("--scope")) {
    if (*s == "project")
      scope = Scope::project;
    else if (*s == "session")
      scope = Scope::session;
    else if (*s == "global")
      scope = Scope::global;
    else {
      ctx.err << "mem0-hooks peek: --scope must be project, session or global\n";
      return k_usage;
    }
  }
  int top_k = 10;
  if (auto k = args.value("--top-k")) {
    const auto [end, ec] = std::from_chars(k->data(), k->data() + k->size(), top_k);
    if (ec != std::errc() || end != k->data() + k->size() || top_k < 1 || top_k > 100) {
      ctx.err << "mem0-hooks peek: --top-k must be a number from 1 to 100\n";
      return k_usage;
    }
  }
  const std::string session = session_for(args, ctx);
  if (scope == Scope::session && session.empty()) {
    ctx.err << "mem0-hooks peek: --scope session needs --session ID (or CLAUDE_CODE_SESSION_ID)\n";
    return k_usage;
  }
  if (!ctx.config.api_key) {
    ctx.err << "mem0: no API key; set MEM0_API_KEY (see mem0-hooks doctor)\n";
    return k_failure;
  }
  const bool plain = args.has("--plain");
  const Identity identity = identity_for(ctx, session);

  std::vector<Memory> memories;
  if (const auto id = detect_id(query))
    if (auto found = lookup_id(*id, ctx)) memories.push_back(std::move(*found));
  if (memories.empty()) {
    const std::vector<SearchSpec> plan{{query, std::nullopt, top_k, scope},
                                       {query, "decision", 5, scope}};
    const PlanOutcome outcome =
        run_plan(ctx.http, api_target(ctx.config), identity, plan, ctx.deadline, ctx.log);
    if (report_failures(outcome, plan.size(), ctx)) return k_failure;
    memories = merge_results(outcome.results);
  }
  if (args.has("--json")) {
    write_json(ctx.out, memories);
    return k_ok;
  }
  if (memories.empty()) {
    ctx.out << "No memories matching \"" << query << "\" for project " << identity.project_id
            << ".\n";
    return k_ok;
  }
  ctx.out << (plain ? "" : "## ") << "mem0 peek: \"" << query << "\" (" << memories.size()
          << " results)\n\n";
  for (std::size_t i = 0; i < memories.size(); ++i)
    ctx.out << peek_line(i + 1, memories[i]) << "\n";
  return k_ok;
}

int context(const Args &args, const CliContext &ctx) {
  const std::string task = make_query(args.joined_words(), ctx.config.redact);
  if (task.empty()) {
    ctx.err << "mem0-hooks context: what task should I load context for?\n";
    return k_usage;
  }
  if (!ctx.config.api_key) {
    ctx.err << "mem0: no API key; set MEM0_API_KEY (see mem0-hooks doctor)\n";
    return k_failure;
  }
  const std::string session = session_for(args, ctx);
  const Scope scope = ctx.config.global_search ? Scope::global : Scope::project;
  // The context-loader protocol: up to four angles, three results each except the broad one.
  std::vector<SearchSpec> plan{{task, "decision", 3, scope}};
  const auto paths = detect_paths(task);
  if (!paths.empty()) plan.push_back({join(paths, " "), "convention", 3, scope});
  if (const std::string errors = error_keywords(task); !errors.empty())
    plan.push_back({errors, "anti_pattern", 3, scope});
  plan.push_back({task, std::nullopt, 5, scope});

  const PlanOutcome outcome = run_plan(ctx.http, api_target(ctx.config), identity_for(ctx, session),
                                       plan, ctx.deadline, ctx.log);
  if (report_failures(outcome, plan.size(), ctx)) return k_failure;
  const SessionState seen =
      session.empty() ? SessionState{} : StateStore(ctx.config.state_dir).load(session);
  std::vector<Memory> memories =
      merge_results(outcome.results, [&](std::string_view id) { return seen.was_injected(id); });
  if (memories.size() > 10) memories.resize(10);
  if (args.has("--json")) {
    write_json(ctx.out, memories);
    return k_ok;
  }
  if (memories.empty()) return k_ok;
  ctx.out << "context-loader: loaded " << memories.size() << " memories for \"" << task << "\"\n";
  for (const auto &m : memories)
    ctx.out << context_line(m) << "\n";
  return k_ok;
}

int run(const std::vector<std::string> &argv, const CliContext &ctx) {
  if (argv.empty()) {
    ctx.err << k_help;
    return k_usage;
  }
  const std::string &command = argv[0];
  if (command == "--help" || command == "-h" || command == "help") {
    ctx.out << k_help;
    return k_ok;
  }
  if (command == "--version") {
    ctx.out << "mem0-hooks " << k_version << "\n";
    return k_ok;
  }
  const auto spec = commands().find(command);
  if (spec == commands().end()) {
    ctx.err << "mem0-hooks: unknown command '" << command << "' (see mem0-hooks --help)\n";
    return k_usage;
  }
  Args args;
  bool words_only = false;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::string a = argv[i];
    if (words_only || !a.starts_with("--")) {
      args.words.push_back(a);
      continue;
    }
    if (a == "--") {
      words_only = true;
      continue;
    }
    if (a == "--help") {
      ctx.out << k_help;
      return k_ok;
    }
    std::string value;
    const bool inline_value = a.find('=') != std::string::npos;
    if (inline_value) {
      value = a.substr(a.find('=') + 1);
      a.resize(a.find('='));
    }
    if (spec->second.value_options.count(a)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) {
          ctx.err << "mem0-hooks " << command << ": " << a << " needs a value\n";
          return k_usage;
        }
        value = argv[++i];
      }
    } else if (!spec->second.flags.count(a) || inline_value) {
      ctx.err << "mem0-hooks " << command << ": unknown option " << a << "\n";
      return k_usage;
    }
    args.options.emplace_back(a, value);
  }
  if ((command == "doctor" || command == "install" || command == "uninstall") &&
      !args.words.empty()) {
    ctx.err << "mem0-hooks " << command << ": unexpected argument '" << args.words[0] << "'\n";
    return k_usage;
  }
  if (command == "peek") return peek(args, ctx);
  if (command == "context") return context(args, ctx);
  if (command == "doctor") return doctor(args, ctx);
  return install(args, ctx, command == "uninstall");
}

} // namespace mem0::cli
