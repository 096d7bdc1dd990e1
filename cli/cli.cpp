// The table of commands and its dispatch (docs/contributing.md#adding-a-command).
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "runtime/agent.hpp"
#include "util/strings.hpp"
#include "util/version.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace mem0::cli {
namespace {

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

} // namespace

const std::vector<Command> &commands() {
  static const std::vector<Command> table{
      {"peek",
       "[options] <query...>",
       "search memories, or show one whole by id, short id or [mem0:id8] citation",
       {"--scope", "--top-k", "--session", "--dir"},
       {"--plain", "--json"},
       R"(  --scope project|session|global   where to search (default: project; global when
                                   global_search is on)
  --top-k N                        at most N results, 1 to 100 (default: 10)
  --dir D                          the project's shared memory of directory D (relative
                                   to the repository root) only; yours is not narrowed
  --session ID                     the session of --scope session (default: the
                                   session of the agent that runs it)
  --plain                          no Markdown
  --json                           a JSON array instead
)",
       {0, k_any_words},
       peek},
      {"context",
       "[options] <task...>",
       "load the memories a task needs (decisions, conventions, pitfalls)",
       {"--session", "--dir"},
       {"--plain", "--json"},
       R"(  --session ID   skip memories already injected in that session (default: the
                 session of the agent that runs it)
  --dir D        the project's shared memory of directory D only
  --plain        accepted; the output has no Markdown
  --json         a JSON array instead
)",
       {0, k_any_words},
       context},
      {"doctor",
       "[--reset]",
       "check the key, identity, settings, every install path of the hooks and the API",
       {},
       {"--reset"},
       "  --reset   end every back-off pause first, so the hooks try Mem0 again at once\n",
       {},
       doctor},
      {"pause",
       "[--for DURATION] [--global]",
       "pause automatic recall and capture for this project (or everywhere)",
       {"--for"},
       {"--global"},
       R"(  --for DURATION   for 30m, 2h, 1d... (default: until mem0-hooks resume)
  --global         every project, not only this one
)",
       {},
       pause},
      {"resume",
       "[--global]",
       "end your pause of this project (with --global the global one too)",
       {},
       {"--global"},
       "  --global   end the pause of every project too\n",
       {},
       resume},
      {"log",
       "[--session ID] [--json]",
       "what the hooks injected and skipped in a session, run by run",
       {"--session"},
       {"--json"},
       R"(  --session ID   the session (default: the agent's session, else the last
                 session with a run log)
  --json         a JSON object instead
)",
       {},
       log},
      {"install",
       "[options]",
       "wire the hooks into a coding agent's hooks file (Claude Code's settings by default)",
       {"--settings", "--agent"},
       {"--project", "--dry-run", "--force"},
       settings_options() +
           "  --force            wire them even when the plugin is installed from a marketplace\n",
       {},
       install},
      {"mcp",
       "",
       "serve this user's memories to a coding agent as an MCP server on stdin/stdout",
       {},
       {},
       "  (no options: an agent starts it; tools search_memories, get_memory, get_memories,\n"
       "  add_memory, update_memory, delete_memory; see docs/cli.md#mcp)\n",
       {},
       mcp},
      {"remember",
       "[--type T] [--team | --personal] <text...>",
       "store a memory as written (secrets redacted), through the outbox",
       {"--type"},
       {"--team", "--personal"},
       R"(  --type T     its type (default: decision): convention, anti_pattern, task_learning, ...
  --team       in the project's shared memory, which the whole team reads
  --personal   in yours only (team memory otherwise lets Mem0 choose)
)",
       {0, k_any_words},
       remember},
      {"forget",
       "<id...> | --query Q [--scope S] [--yes]",
       "delete memories of yours by id, short id or [mem0:id8], or those a search finds",
       {"--query", "--scope"},
       {"--yes"},
       R"(  --query Q                        delete what a search for Q finds (peek's search)
  --scope project|session|global   where --query searches (default: project)
  --yes                            delete them; without it --query only lists them
)",
       {0, k_any_words},
       forget},
      {"tour",
       "[--scope project|global] [--plain] [--json]",
       "walk through your memories of the project, grouped by type",
       {"--scope"},
       {"--plain", "--json"},
       R"(  --scope project|global   this project's memories (default; global when
                           global_search is on) or every project's
  --plain                  no Markdown
  --json                   a JSON array instead
)",
       {},
       tour},
      {"stats",
       "[--json] [--days N] [--scope project|global]",
       "your memories by type and age, daily counts, what was injected and used, latency",
       {"--days", "--scope"},
       {"--json"},
       R"(  --days N                 the last N days of counts and runs (default: 30)
  --scope project|global   this project's memories (default; global when
                           global_search is on) or every project's
  --json                   a JSON object instead
  (plain words do the same: json, global, project, a number of days)
)",
       {0, k_any_words},
       stats},
      {"pin",
       "<id...>",
       "pin memories: dream and retention never delete a pinned memory; tour lists it first",
       {},
       {},
       "  <id...>   full ids, short ids or [mem0:id8]\n",
       {1, k_any_words},
       pin},
      {"unpin",
       "<id...>",
       "unpin memories",
       {},
       {},
       "  <id...>   full ids, short ids or [mem0:id8]\n",
       {1, k_any_words},
       unpin},
      {"dream",
       "[--apply] [--auto] [--json] [--scope project|global]",
       "find duplicate, expired, conflicting and unused memories; --apply deletes the first two",
       {"--scope"},
       {"--apply", "--auto", "--json"},
       R"(  --apply                  delete the duplicates and the expired, after writing an
                           undo file that `mem0-hooks import` restores
  --auto                   as --apply, at most once a day per project and only with
                           20 memories or more
  --json                   the plan as a JSON object
  --scope project|global   this project's memories (default; global when
                           global_search is on) or every project's
  (plain words do the same: apply, auto, json, global, project)
)",
       {0, k_any_words},
       dream},
      {"export",
       "[--output FILE [--force]] [--scope project|session|global]",
       "write your memories as JSON lines (id, text, type, metadata, created_at)",
       {"--output", "--scope"},
       {"--force"},
       R"(  --output FILE                    write FILE (a new file) instead of standard output
  --force                          replace FILE when it exists (never a symbolic link)
  --scope project|session|global   whose memories (default: project; global when
                                   global_search is on)
)",
       {},
       export_memories},
      {"import",
       "FILE",
       "add the memories of an export to this project, skipping those already there",
       {},
       {},
       "  FILE   JSON lines as export writes them; each text is stored as written\n",
       {1, 1},
       import_memories},
      {"ui",
       "[--port N] [--no-open] [--scope project|global] [--background]",
       "open the memory console: a local page of your memories, sessions and health",
       {"--port", "--scope"},
       {"--no-open", "--background"},
       R"(  --port N                 listen on 127.0.0.1:N (default: a free port)
  --no-open                print the address only; do not open a browser
  --scope project|global   this project's memories (default) or every project's
  --background             serve from a detached process (Linux, macOS) and return
)",
       {},
       ui},
      {"uninstall",
       "[options]",
       "remove the hooks from a coding agent's hooks file (Claude Code's settings by default)",
       {"--settings", "--agent"},
       {"--project", "--dry-run"},
       settings_options(),
       {},
       uninstall},
  };
  return table;
}

namespace {

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

std::string command_help(const Command &c) {
  std::string summary(c.summary);
  summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
  return "usage: mem0-hooks " + std::string(c.name) + (c.usage.empty() ? "" : " ") +
         std::string(c.usage) + "\n" + summary + ".\n" +
         (c.options.empty() ? "" : "\noptions:\n" + c.options);
}

// The words and options after the command name `argv[0]`, checked against `spec`; a client error
// (the caller's mistake, as a 4xx is) naming the option that is unknown or lacks its value.
Result<Args> parse_args(const std::vector<std::string> &argv, const Command &spec) {
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

const Command *find_command(std::string_view name) {
  for (const auto &c : commands())
    if (c.name == name) return &c;
  return nullptr;
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
  const Command *spec = find_command(command);
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
  if (args->words.size() > spec->words.max) {
    ctx.err << "mem0-hooks " << command << ": unexpected argument '" << args->words[spec->words.max]
            << "'\n";
    return k_usage;
  }
  if (args->words.size() < spec->words.min) {
    ctx.err << "mem0-hooks " << command << ": missing argument (usage: mem0-hooks " << command
            << " " << spec->usage << ")\n";
    return k_usage;
  }
  return spec->run(*args, ctx);
}

} // namespace mem0::cli
