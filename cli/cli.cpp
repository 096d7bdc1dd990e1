#include "cli/cli.hpp"
#include "hook/recall.hpp"
#include "mem0/format.hpp"
#include "mem0/identity.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"
#include "util/version.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace mem0::cli {
namespace {

// One command: its words and options, its one-line summary and the options part of its help.
struct CommandSpec {
  std::string_view name;
  std::string_view usage; // after `mem0-hooks <name>`
  std::string_view summary;
  std::set<std::string_view> value_options;
  std::set<std::string_view> flags;
  std::string options;
};

// The options of install and uninstall, the agents and their files from the registry.
std::string settings_options() {
  std::string names, files;
  for (const Agent *a : agents()) {
    names += std::string(a->name) + (a == &claude_code() ? " (default), " : ", ");
    const std::string name(a->name);
    files += "                       " + name +
             std::string(std::max<std::size_t>(12, name.size() + 1) - name.size(), ' ') + "./" +
             std::string(a->files.project_file) + ", ~/" + std::string(a->files.dir) + "/" +
             std::string(a->files.user_file) + "\n";
  }
  return "  --agent NAME       " + names +
         "or all:\n"
         "                     every agent found on PATH or by its directory\n"
         "  --project          the agent's project file instead of its user file:\n" +
         files +
         "  --settings PATH    the file PATH\n"
         "  --dry-run          print the resulting file instead of writing it\n";
}

const std::vector<CommandSpec> &commands() {
  static const std::vector<CommandSpec> specs{
      {"peek",
       "[options] <query...>",
       "search memories, or show one whole by id, short id or [mem0:id8] citation",
       {"--scope", "--top-k", "--session"},
       {"--plain", "--json"},
       R"(  --scope project|session|global   where to search (default: project; global when
                                   global_search is on)
  --top-k N                        at most N results, 1 to 100 (default: 10)
  --session ID                     the session of --scope session (default: the
                                   session of the agent that runs it)
  --plain                          no Markdown
  --json                           a JSON array instead
)"},
      {"context",
       "[options] <task...>",
       "load the memories a task needs (decisions, conventions, pitfalls)",
       {"--session"},
       {"--plain", "--json"},
       R"(  --session ID   skip memories already injected in that session (default: the
                 session of the agent that runs it)
  --plain        accepted; the output has no Markdown
  --json         a JSON array instead
)"},
      {"doctor",
       "[--reset]",
       "check the key, identity, settings, every install path of the hooks and the API",
       {},
       {"--reset"},
       "  --reset   end every back-off pause first, so the hooks try Mem0 again at once\n"},
      {"pause",
       "[--for DURATION] [--global]",
       "pause automatic recall and capture for this project (or everywhere)",
       {"--for"},
       {"--global"},
       R"(  --for DURATION   for 30m, 2h, 1d... (default: until mem0-hooks resume)
  --global         every project, not only this one
)"},
      {"resume",
       "[--global]",
       "end your pause of this project (with --global the global one too)",
       {},
       {"--global"},
       "  --global   end the pause of every project too\n"},
      {"log",
       "[--session ID] [--json]",
       "what the hooks injected and skipped in a session, run by run",
       {"--session"},
       {"--json"},
       R"(  --session ID   the session (default: the agent's session, else the last
                 session with a run log)
  --json         a JSON object instead
)"},
      {"install",
       "[options]",
       "wire the hooks into a coding agent's hooks file (Claude Code's settings by default)",
       {"--settings", "--agent"},
       {"--project", "--dry-run", "--force"},
       settings_options() +
           "  --force            wire them even when the plugin is installed from a marketplace\n"},
      {"mcp",
       "",
       "serve this user's memories to a coding agent as an MCP server on stdin/stdout",
       {},
       {},
       "  (no options: an agent starts it; tools search_memories, get_memory, get_memories,\n"
       "  add_memory, update_memory, delete_memory; see docs/cli.md#mcp)\n"},
      {"remember",
       "[--type T] <text...>",
       "store a memory as written (secrets redacted), through the outbox",
       {"--type"},
       {},
       "  --type T   its type (default: decision): convention, anti_pattern, task_learning, ...\n"},
      {"forget",
       "<id...> | --query Q [--scope S] [--yes]",
       "delete memories of yours by id, short id or [mem0:id8], or those a search finds",
       {"--query", "--scope"},
       {"--yes"},
       R"(  --query Q                        delete what a search for Q finds (peek's search)
  --scope project|session|global   where --query searches (default: project)
  --yes                            delete them; without it --query only lists them
)"},
      {"uninstall",
       "[options]",
       "remove the hooks from a coding agent's hooks file (Claude Code's settings by default)",
       {"--settings", "--agent"},
       {"--project", "--dry-run"},
       settings_options()},
  };
  return specs;
}

std::string global_help() {
  std::string help = "usage: mem0-hooks <command> [options]\n\n"
                     "Recall Mem0 memories from the command line, with the same configuration as "
                     "the hooks.\n\ncommands:\n";
  for (const auto &c : commands())
    help += "  " + std::string(c.name) + std::string(12 - c.name.size(), ' ') +
            std::string(c.summary) + "\n";
  return help +
         "\nmem0-hooks <command> --help shows the options of a command; mem0-hooks --version "
         "its version.\n";
}

std::string command_help(const CommandSpec &c) {
  std::string summary(c.summary);
  summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
  return "usage: mem0-hooks " + std::string(c.name) + (c.usage.empty() ? "" : " ") +
         std::string(c.usage) + "\n" + summary + ".\n" +
         (c.options.empty() ? "" : "\noptions:\n" + c.options);
}

const CommandSpec *find_command(std::string_view name) {
  for (const auto &c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

// The words and options after the command name `argv[0]`, checked against `spec`; a client error
// (the caller's mistake, as a 4xx is) naming the option that is unknown or lacks its value.
Result<Args> parse_args(const std::vector<std::string> &argv, const CommandSpec &spec) {
  const auto usage = [](std::string message) {
    return unexpected(make_error(ErrorKind::client, std::move(message)));
  };
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
    std::string value;
    const bool inline_value = a.find('=') != std::string::npos;
    if (inline_value) {
      value = a.substr(a.find('=') + 1);
      a.resize(a.find('='));
    }
    if (spec.value_options.count(a)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) return usage(a + " needs a value");
        value = argv[++i];
      }
    } else if (!spec.flags.count(a) || inline_value) {
      return usage("unknown option " + a);
    }
    args.options.emplace_back(a, value);
  }
  return args;
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

Identity identity_for(const CliContext &ctx, std::string session) {
  return project_identity(ctx.config, ctx.env, ctx.cwd, std::move(session), ctx.log);
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
  auto api = api_for(ctx);
  if (api) return std::move(*api);
  ctx.err << "mem0: " << api.error().message << "\n";
  return std::nullopt;
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

PlanOutcome run_searches(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                         const std::vector<SearchSpec> &plan) {
  PlanOutcome outcome = run_plan(ctx.http, api, identity, plan, ctx.deadline, ctx.log);
  if (auto noted =
          ctx.state.backoff.record_run(ctx.now(), api.server_key(), outcome.failures, outcome.sent);
      !noted)
    ctx.log.warn("back-off state not saved: " + noted.error().message);
  return outcome;
}

bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx) {
  for (const auto &line : recall_problem_lines(outcome, searches))
    ctx.err << line << "\n";
  return !outcome.failures.empty() && outcome.failures.size() == searches;
}

int run(const std::vector<std::string> &argv, const CliContext &ctx) {
  if (argv.empty()) {
    ctx.err << global_help();
    return k_usage;
  }
  const bool help = argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help";
  if (help && argv.size() == 1) {
    ctx.out << global_help();
    return k_ok;
  }
  if (argv[0] == "--version") {
    ctx.out << "mem0-hooks " << version() << "\n";
    return k_ok;
  }
  const std::string &command = help ? argv[1] : argv[0];
  const CommandSpec *spec = find_command(command);
  if (!spec) {
    ctx.err << "mem0-hooks: unknown command '" << command << "' (see mem0-hooks --help)\n";
    return k_usage;
  }
  // `help <command>`, or --help / -h anywhere before `--`.
  const auto end = std::find(argv.begin(), argv.end(), "--");
  if (help || std::find(argv.begin(), end, "--help") != end ||
      std::find(argv.begin(), end, "-h") != end) {
    ctx.out << command_help(*spec);
    return k_ok;
  }
  auto args = parse_args(argv, *spec);
  if (!args) {
    ctx.err << "mem0-hooks " << command << ": " << args.error().message << "\n";
    return k_usage;
  }
  if ((command == "doctor" || command == "install" || command == "uninstall" || command == "mcp" ||
       command == "pause" || command == "resume" || command == "log") &&
      !args->words.empty()) {
    ctx.err << "mem0-hooks " << command << ": unexpected argument '" << args->words[0] << "'\n";
    return k_usage;
  }
  if (command == "peek") return peek(*args, ctx);
  if (command == "context") return context(*args, ctx);
  if (command == "doctor") return doctor(*args, ctx);
  if (command == "mcp") return mcp(*args, ctx);
  if (command == "remember") return remember(*args, ctx);
  if (command == "forget") return forget(*args, ctx);
  if (command == "pause") return pause(*args, ctx);
  if (command == "resume") return resume(*args, ctx);
  if (command == "log") return log(*args, ctx);
  return install(*args, ctx, command == "uninstall");
}

} // namespace mem0::cli
