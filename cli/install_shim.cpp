// install/uninstall for the agents that load a JS shim instead of running hook commands
// (docs/cli.md#install-and-uninstall): OpenCode and Pi.
#include "cli/install.hpp"
#include "runtime/table.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <array>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view k_config_line = "const CONFIG = ";

// The user commands a shim serves, each running `mem0-hooks <subcommand> <the words typed>`.
struct UserCommand {
  std::string_view name, subcommand, description;
};
constexpr std::array<UserCommand, 6> k_commands{{
    {"mem0-search", "peek", "Look up Mem0 memories: a query, or a memory id like [mem0:3f1c2a4e]"},
    {"mem0-remember", "remember", "Store a memory in Mem0, verbatim"},
    {"mem0-forget", "forget", "Forget a Mem0 memory: its id, or a query"},
    {"mem0-pause", "pause", "Pause mem0's automatic recall and capture for this project"},
    {"mem0-resume", "resume", "Resume mem0's automatic recall and capture"},
    {"mem0-tour", "tour", "Walk through your Mem0 memories of this project, grouped by type"},
}};

// A command entry's description: the command's, naming what it runs (how ours are told apart).
std::string command_description(const UserCommand &c) {
  return std::string(c.description) + " (mem0-hooks " + std::string(c.subcommand) + ")";
}

// {"agent":<name>,"bin":<exe_dir>,"hooks":[{"event","executable","matcher","timeout_ms","once"}…],
// "commands":{<command>:<subcommand>…}}: `once` for the session-start rows, which the shim runs
// at a session's first event only.
std::string config_json(const Agent &agent, const fs::path &exe_dir) {
  JsonWriter w;
  w.begin_object().member("agent", agent.name).member("bin", exe_dir.string());
  w.key("hooks").begin_array();
  for (const HookSpec &h : hooks_of(agent.name)) {
    w.begin_object().member("event", h.event).member("executable", h.executable);
    w.member("matcher", h.matcher).key("timeout_ms").int64(h.timeout_seconds * 1000);
    w.key("once").boolean(h.executable == "on_session_start").end_object();
  }
  w.end_array().key("commands").begin_object();
  for (const UserCommand &c : k_commands)
    w.member(c.name, c.subcommand);
  w.end_object().end_object();
  return w.text();
}

// Where `agent`'s memory tools (and OpenCode's commands) are registered: the user's file,
// whatever --project says (docs/cli.md#memory-tools); empty for none (Pi's shim serves them).
fs::path tools_file(const Agent &agent, const Args &args, const CliContext &ctx) {
  if (agent.files.mcp_file.empty() || args.has("--settings")) return {};
  return agent_dir(agent, ctx.config, ctx.env) / native_path(agent.files.mcp_file);
}

// OpenCode's custom commands in opencode.json (`command.<name>`), added or, with `remove`,
// removed; a command of the same name that is not ours is kept. `text` itself when it is not a
// JSON object (the memory tools' merge says so).
std::string with_commands(const std::string &text, bool remove) {
  rapidjson::Document doc;
  if (!parse_json(doc, text) || !doc.IsObject()) return text;
  auto &a = doc.GetAllocator();
  auto commands = doc.FindMember("command");
  if (commands != doc.MemberEnd() && !commands->value.IsObject()) return text;
  if (commands == doc.MemberEnd()) {
    if (remove) return text;
    doc.AddMember("command", rapidjson::Value(rapidjson::kObjectType), a);
    commands = doc.FindMember("command");
  }
  bool changed = false;
  for (const UserCommand &c : k_commands) {
    const rapidjson::Value name(c.name.data(), static_cast<rapidjson::SizeType>(c.name.size()));
    const auto entry = commands->value.FindMember(name);
    const bool exists = entry != commands->value.MemberEnd();
    const auto description = exists && entry->value.IsObject()
                                 ? string_member(entry->value, "description")
                                 : std::nullopt;
    if (exists && (!description || *description != command_description(c))) continue; // theirs
    if (remove) {
      if (exists) commands->value.RemoveMember(name), changed = true;
      continue;
    }
    if (exists) continue;
    rapidjson::Value command(rapidjson::kObjectType);
    command.AddMember("description", rapidjson::Value(command_description(c).c_str(), a), a);
    // What the model reads when the shim did not run the command (it replaces this text).
    command.AddMember("template",
                      rapidjson::Value(("Tell the user that mem0's /" + std::string(c.name) +
                                        " did not run (see OpenCode's log). $ARGUMENTS")
                                           .c_str(),
                                       a),
                      a);
    commands->value.AddMember(rapidjson::Value(c.name.data(), a), command, a);
    changed = true;
  }
  if (!changed) return text;
  if (commands->value.ObjectEmpty()) doc.RemoveMember("command");
  PrettyJsonWriter w;
  w.base().SetIndent(' ', 2);
  w.value(doc);
  return w.text() + "\n";
}

// Add (or remove) OpenCode's commands in `file`, next to its memory tools.
int install_commands(const fs::path &file, const CliContext &ctx, bool uninstall) {
  const auto current = read_small_file(file);
  if (!current) return k_ok; // nothing to remove; install wrote the file just before
  const std::string merged = with_commands(*current, uninstall);
  if (merged == *current) return k_ok;
  if (auto written = write_file_atomic(file, merged, Durability::durable); !written) {
    ctx.err << "mem0-hooks " << (uninstall ? "uninstall" : "install") << ": "
            << written.error().message << "\n";
    return k_failure;
  }
  std::string names;
  for (const UserCommand &c : k_commands)
    names += (names.empty() ? "/" : ", /") + std::string(c.name);
  ctx.out << (uninstall ? "removed the mem0 commands from "
                        : "added the commands " + names + " to ")
          << file.string() << "\n";
  return k_ok;
}

} // namespace

bool is_our_shim(std::string_view text, const Agent &agent) {
  return text.find("mem0-hooks install --agent " + std::string(agent.name)) !=
             std::string_view::npos &&
         text.find(k_config_line) != std::string_view::npos;
}

std::string configured_shim(const Agent &agent, const fs::path &exe_dir) {
  std::string text = shim_source(agent.files.shim);
  const auto at = text.find(k_config_line);
  if (at == std::string::npos) return text;
  const auto end = text.find('\n', at);
  return text.replace(at, end - at, std::string(k_config_line) + config_json(agent, exe_dir) + ";");
}

int install_shim(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall) {
  const char *verb = uninstall ? "uninstall" : "install";
  fs::path target = agent_dir(agent, ctx.config, ctx.env) / native_path(agent.files.user_file);
  if (args.has("--project")) target = ctx.cwd / native_path(agent.files.project_file);
  if (auto path = args.value("--settings")) target = fs::absolute(*path);
  const std::string shim = configured_shim(agent, ctx.exe_dir);
  if (args.has("--dry-run")) {
    if (!uninstall) ctx.out << shim;
    return k_ok;
  }
  std::error_code ec;
  const bool existed = fs::exists(target, ec);
  const auto current = existed ? read_small_file(target) : std::optional<std::string>("");
  if (!current) {
    ctx.err << "mem0-hooks " << verb << ": cannot read " << target.string() << "\n";
    return k_failure;
  }
  if (existed && !is_our_shim(*current, agent)) {
    ctx.err << "mem0-hooks " << verb << ": " << target.string()
            << " is not a mem0 shim; left untouched\n";
    return k_failure;
  }
  int status = k_ok;
  if (uninstall) {
    if (!existed) {
      ctx.out << "mem0-hooks uninstall: no mem0 shim at " << target.string()
              << "; nothing to remove\n";
    } else if (fs::remove(target, ec); ec) {
      ctx.err << "mem0-hooks uninstall: cannot remove " << target.string() << ": " << ec.message()
              << "\n";
      status = k_failure;
    } else {
      ctx.out << "removed the mem0 shim " << target.string() << "\n";
    }
  } else if (existed && *current == shim) {
    ctx.out << "mem0-hooks install: " << target.string() << " already up to date\n";
  } else if (auto made = ensure_private_dir(target.parent_path()); !made) {
    ctx.err << "mem0-hooks install: " << made.error().message << "\n";
    status = k_failure;
  } else if (auto written = write_file_atomic(target, shim, Durability::durable); !written) {
    ctx.err << "mem0-hooks install: " << written.error().message << "\n";
    status = k_failure;
  } else {
    ctx.out << "wrote the mem0 shim " << target.string() << "\n";
  }
  if (const fs::path tools = tools_file(agent, args, ctx); !tools.empty()) {
    const int registered = install_memory_tools(tools, agent.files.mcp_format, ctx, uninstall);
    status = std::max(status, registered);
    if (registered == k_ok && agent.files.commands_in_mcp_file)
      status = std::max(status, install_commands(tools, ctx, uninstall));
  }
  if (!uninstall && status == k_ok)
    ctx.out << "next: " << agent.files.install_note << "; `mem0-hooks doctor` checks the setup\n";
  return status;
}

} // namespace mem0::cli
