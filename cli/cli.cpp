#include "cli/cli.hpp"
#include "common/format.hpp"
#include "common/identity.hpp"
#include "common/recall.hpp"
#include "common/strings.hpp"
#include "common/version.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <set>

namespace mem0::cli {
namespace {

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
  return {ctx.config.user_id, resolve_project_id(ctx.config, ctx.env, ctx.cwd, ctx.log).id,
          std::move(session)};
}

std::string session_for(const Args &args, const CliContext &ctx) {
  if (auto s = args.value("--session")) return *s;
  return ctx.env.get("CLAUDE_CODE_SESSION_ID").value_or("");
}

std::optional<ApiTarget> target_or_explain(const CliContext &ctx) {
  auto api = api_target(ctx.config);
  if (api) return std::move(*api);
  if (!ctx.config.api_key)
    ctx.err << "mem0: no API key; set MEM0_API_KEY (see mem0-hooks doctor)\n";
  else
    ctx.err << "mem0: " << api.error().message << "\n";
  return std::nullopt;
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

bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx) {
  for (const auto &line : recall_problem_lines(outcome, searches))
    ctx.err << line << "\n";
  return !outcome.failures.empty() && outcome.failures.size() == searches;
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
    ctx.out << "mem0-hooks " << version() << "\n";
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
