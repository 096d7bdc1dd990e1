#include "cli/install.hpp"
#include "cli/commands.hpp"
#include "runtime/table.hpp"
#include "util/files.hpp"

#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include <rapidjson/document.h>

#include <algorithm>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

using rapidjson::Document;
using rapidjson::Value;

bool trim_empty(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view() : s.substr(first);
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// What PowerShell reads as a single quote: ', and U+2018, U+2019, U+201A and U+201B in UTF-8.
std::size_t ps_quote_at(std::string_view s, std::size_t i) {
  if (s[i] == '\'') return 1;
  const auto third = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 2]) : 0;
  return s.substr(i, 2) == "\xE2\x80" && third >= 0x98 && third <= 0x9B ? 3 : 0;
}

// The first word as POSIX sh reads it: '…' literal, "…" where a backslash escapes only " \ $ and
// `, and outside quotes a backslash escapes the next character. A leading & is an operator, no
// program.
std::string sh_word(std::string_view command) {
  if (command.starts_with('&')) return "";
  std::string word;
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        word += c;
    } else if (quote == '"') {
      if (c == '"')
        quote = 0;
      else if (c == '\\' && i + 1 < command.size() &&
               std::string_view("\"\\$`").find(command[i + 1]) != std::string_view::npos)
        word += command[++i];
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
    } else if (is_space(c)) {
      break;
    } else {
      word += c;
    }
  }
  return word;
}

// The program PowerShell runs: after the call operator &, a '…' string (a quote doubled is one) or
// a "…" one, or a bare word; a bare word alone. A quoted word without & is a string, no program.
std::string ps_word(std::string_view command) {
  const bool call = command.starts_with('&');
  if (call) command = trimmed(command.substr(1));
  if (command.empty()) return "";
  if (ps_quote_at(command, 0) || command[0] == '"') {
    if (!call) return "";
    std::string word;
    const bool single = command[0] != '"';
    for (std::size_t i = single ? ps_quote_at(command, 0) : 1; i < command.size();) {
      if (const std::size_t q = single ? ps_quote_at(command, i) : command[i] == '"') {
        const std::size_t next = i + q;
        const std::size_t again = next < command.size()
                                      ? (single ? ps_quote_at(command, next) : command[next] == '"')
                                      : 0;
        if (!again) return word;
        word.append(command.substr(i, q));
        i = next + again;
        continue;
      }
      word += command[i++];
    }
    return word;
  }
  const auto end = std::find_if(command.begin(), command.end(), is_space);
  return std::string(command.begin(), end);
}

// The program cmd.exe runs: characters up to a space outside "…", the quotes dropped, each
// backslash as it is. A leading & is an operator, no program.
std::string cmd_word(std::string_view command) {
  if (command.starts_with('&')) return "";
  std::string word;
  bool quoted = false;
  for (const char c : command) {
    if (c == '"')
      quoted = !quoted;
    else if (is_space(c) && !quoted)
      break;
    else
      word += c;
  }
  return word;
}

// A drive or UNC path, bare or in "…": the first word of a command written for cmd.
bool windows_path_first(std::string_view command) {
  if (command.starts_with('"')) command.remove_prefix(1);
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  return (command.size() >= 3 && letter(command[0]) && command[1] == ':' &&
          (command[2] == '\\' || command[2] == '/')) ||
         command.starts_with("\\\\");
}

} // namespace

CommandShell written_for(std::string_view command) {
  command = trimmed(command);
  if (command.starts_with('&')) return CommandShell::powershell;
  if (windows_path_first(command)) return CommandShell::cmd;
  return CommandShell::posix;
}

std::string program_read_by(CommandShell shell, std::string_view command) {
  command = trimmed(command);
  switch (shell) {
  case CommandShell::powershell: return ps_word(command);
  case CommandShell::cmd: return cmd_word(command);
  case CommandShell::posix:
  case CommandShell::git_bash: return sh_word(command);
  }
  return sh_word(command);
}

std::string command_program(std::string_view command) {
  return program_read_by(written_for(command), command);
}

bool runs_in(CommandShell shell, std::string_view command) {
  const std::string program = command_program(command);
  return !program.empty() && program_read_by(shell, command) == program;
}

namespace {

// The command a hook entry runs: its "command", else Copilot CLI's "powershell" on Windows
// (`windows`) or "bash" elsewhere, else the other one.
std::optional<std::string_view> entry_command(const Value &hook, bool windows) {
  if (!hook.IsObject()) return std::nullopt;
  if (auto command = string_member(hook, "command")) return command;
  const char *first = windows ? "powershell" : "bash";
  if (auto command = string_member(hook, first)) return command;
  return string_member(hook, windows ? "bash" : "powershell");
}

// True for a hook entry that runs one of this project's hooks, wherever it is installed and
// whichever of its commands names it: by the program's file name alone (what doctor reports).
bool is_ours(const Value &hook) {
  if (!hook.IsObject()) return false;
  for (const char *key : {"command", "bash", "powershell"})
    if (const auto command = string_member(hook, key);
        command && is_hook_executable(command_executable(*command)))
      return true;
  return false;
}

// `dir` in one spelling: `/` for `\`, no final separator; a Windows path (a drive or UNC one) in
// lower case, as Windows compares names.
std::string dir_key(std::string dir) {
  std::replace(dir.begin(), dir.end(), '\\', '/');
  while (dir.size() > 1 && dir.back() == '/')
    dir.pop_back();
  const bool windows = (dir.size() >= 2 && dir[1] == ':') || dir.starts_with("//");
  return windows ? ascii_lower(dir) : dir;
}

// The directory part of a program path, either separator.
std::string dir_of(std::string_view program) {
  const auto slash = program.find_last_of("/\\");
  return slash == std::string_view::npos ? std::string() : std::string(program.substr(0, slash));
}

// True for a hook entry that install may remove, as ours (docs/cli.md#install-and-uninstall):
// one of our programs (by its file name) in the install directory `exe_dir` (any of the forms we
// write it in), in a directory that holds our mem0-hooks as well (another install of ours), under
// a path naming our package (an npm or npx install, a checkout), or in a directory that is gone
// (a removed install, which doctor names); or a Gemini CLI entry named `mem0-<hook>`, as we name
// ours. Another tool's program that merely has one of our names (`/opt/othertool/bin/on_stop`) is
// not ours.
bool is_ours_in(const Value &hook, const fs::path &exe_dir) {
  if (!is_ours(hook)) return false;
  if (const auto name = string_member(hook, "name");
      name && name->starts_with("mem0-") && is_hook_executable(name->substr(5)))
    return true;
  const std::set<std::string> installed{dir_key(exe_dir.string()),
                                        dir_key(platform::short_path(exe_dir).string())};
  for (const char *key : {"command", "bash", "powershell"}) {
    const auto command = string_member(hook, key);
    if (!command || !is_hook_executable(command_executable(*command))) continue;
    const std::string dir = dir_of(command_program(*command));
    if (dir.empty()) continue;
    if (installed.count(dir_key(dir)) || dir_key(dir).find(k_plugin_name) != std::string::npos)
      return true;
    std::error_code ec;
    for (const char *mark : {"mem0-hooks", "mem0-hooks.exe"})
      if (fs::is_regular_file(fs::path(dir) / mark, ec)) return true;
    // A removed install (a cleaned cache, an old prefix): nothing there runs any more.
    if (!fs::exists(fs::path(dir), ec) && !ec) return true;
  }
  return false;
}

// Remove our entries (is_ours_in `exe_dir`) from every matcher group of every event, dropping
// groups and events that become empty. Entries of other tools stay exactly as they were.
// Returns how many entries it removed.
std::size_t remove_ours(Value &hooks, const fs::path &exe_dir) {
  std::size_t removed = 0;
  for (auto event = hooks.MemberBegin(); event != hooks.MemberEnd();) {
    if (event->value.IsArray()) {
      Value &groups = event->value;
      const bool had_groups = !groups.Empty();
      for (auto group = groups.Begin(); group != groups.End();) {
        if (is_ours_in(*group, exe_dir)) { // Cursor's and Copilot CLI's stand in the list itself
          ++removed;
          group = groups.Erase(group);
          continue;
        }
        const auto list = group->IsObject() ? group->FindMember("hooks") : Value::MemberIterator();
        if (group->IsObject() && list != group->MemberEnd() && list->value.IsArray()) {
          const auto before = list->value.Size();
          for (auto h = list->value.Begin(); h != list->value.End();)
            h = is_ours_in(*h, exe_dir) ? (++removed, list->value.Erase(h)) : h + 1;
          if (list->value.Empty() && before > 0) {
            group = groups.Erase(group);
            continue;
          }
        }
        ++group;
      }
      if (had_groups && groups.Empty()) {
        event = hooks.EraseMember(event);
        continue;
      }
    }
    ++event;
  }
  return removed;
}

Value string_value(std::string_view s, Document::AllocatorType &a) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// The entry of an event's list that runs `command` for the hook `spec`, in `format`: the hook,
// or a matcher group holding it. `powershell`, when the format has a member for it, is the
// command for PowerShell beside `command` ("" for none).
Value hook_entry(const HooksFormat &format, const HookSpec &spec, std::string_view command,
                 std::string_view powershell, Document::AllocatorType &a) {
  Value hook(rapidjson::kObjectType);
  if (format.typed) hook.AddMember("type", "command", a);
  hook.AddMember(string_value(format.command_key, a), string_value(command, a), a);
  if (!powershell.empty() && !format.powershell_key.empty())
    hook.AddMember(string_value(format.powershell_key, a), string_value(powershell, a), a);
  if (format.named)
    hook.AddMember("name", string_value("mem0-" + std::string(spec.executable), a), a);
  hook.AddMember(string_value(format.timeout_key, a),
                 Value(spec.timeout_seconds * format.timeout_scale), a);
  if (!format.status_key.empty() && !spec.status_message.empty())
    hook.AddMember(string_value(format.status_key, a), string_value(spec.status_message, a), a);
  const bool matcher = format.matchers && !spec.matcher.empty();
  if (!format.grouped) {
    if (matcher) hook.AddMember("matcher", string_value(spec.matcher, a), a);
    return hook;
  }
  Value list(rapidjson::kArrayType);
  list.PushBack(hook, a);
  Value group(rapidjson::kObjectType);
  if (matcher) group.AddMember("matcher", string_value(spec.matcher, a), a);
  group.AddMember("hooks", list, a);
  return group;
}

// The entry that runs our `spec.executable` in `exe_dir` for `agent`, its command written for the
// agent's shell on this system (`windows`); a format with a PowerShell member has there the
// command for PowerShell, and beside it the one for Git Bash.
Value hook_entry(const Agent &agent, const HookSpec &spec, const fs::path &exe_dir, bool windows,
                 Document::AllocatorType &a) {
  const std::string command =
      hook_command(agent, exe_dir, spec.executable, hook_shell(agent, windows));
  if (!windows || agent.files.format.powershell_key.empty())
    return hook_entry(agent.files.format, spec, command, "", a);
  return hook_entry(agent.files.format, spec,
                    hook_command(agent, exe_dir, spec.executable, CommandShell::git_bash), command,
                    a);
}

void append_group(Value &hooks, std::string_view event, Value group, Document::AllocatorType &a) {
  auto it = hooks.FindMember(string_value(event, a));
  if (it == hooks.MemberEnd()) {
    hooks.AddMember(string_value(event, a), Value(rapidjson::kArrayType), a);
    it = hooks.FindMember(string_value(event, a));
  }
  it->value.PushBack(group, a);
}

// Other places that wire the hooks (docs/cli.md#install-paths). A marketplace plugin refuses the
// install unless `force`; the others are warned about. `commands` are ours after the install;
// `user_wide`: the target is the user settings, which every project reads.
bool allowed_beside_others(const fs::path &target, const std::set<std::string> &commands,
                           bool user_wide, bool force, const CliContext &ctx) {
  bool refused = false;
  for (const auto &p : find_install_paths(ctx.config, ctx.env, ctx.cwd)) {
    if (!p.here && !user_wide) continue;
    std::error_code ec;
    if (p.kind == InstallPath::Kind::settings &&
        (fs::equivalent(p.where, target, ec) || p.commands == commands))
      continue; // the target itself, or the same commands (Claude Code runs them once)
    const bool refuse = p.kind == InstallPath::Kind::marketplace && !force;
    refused |= refuse;
    ctx.err << "mem0-hooks install: " << (refuse ? "" : "warning: ")
            << "another install path: " << describe(p) << "\n  wiring " << target.string()
            << " as well could run, and bill, each hook twice; "
            << (refuse ? "remove it first (" + removal(p) + "), or pass --force\n"
                       : "keep one (" + removal(p) + ")\n");
  }
  return !refused;
}

// After an uninstall: the plugins that still run the hooks here, each with its removal.
void say_still_wired(const CliContext &ctx) {
  for (const auto &p : find_install_paths(ctx.config, ctx.env, ctx.cwd))
    if (p.kind != InstallPath::Kind::settings && p.here && p.active)
      ctx.out << "the hooks still run here: " << describe(p) << "\n  to remove it: " << removal(p)
              << "\n";
}

// Warn about the executables `agent` runs that are missing from `ctx.exe_dir`.
void warn_missing_executables(const Agent &agent, const CliContext &ctx) {
  for (const HookSpec &spec : hooks_of(agent.name))
    if (find_hook(spec.agent, spec.executable) == &spec &&
        !fs::exists(program_path(ctx.exe_dir, spec.executable, platform::windows_commands())))
      ctx.err << "mem0-hooks install: warning: "
              << program_path(ctx.exe_dir, spec.executable, platform::windows_commands())
              << " does not exist (build or install it first)\n";
}

// Write `merged` to the settings file `target`, its directory made private when missing. An
// existing file (`previous`, its content; null when there was none) is first copied to
// `<target>.bak`, which is announced on ctx.out, and both keep its mode.
Result<void> write_settings(const fs::path &target, const std::string *previous,
                            const std::string &merged, const CliContext &ctx) {
  std::error_code ec;
  const fs::perms mode = fs::status(target, ec).permissions(); // kept when the file exists
  if (auto made = ensure_private_dir(target.parent_path()); !made) return made;
  if (previous) {
    const fs::path backup = target.string() + ".bak";
    if (auto saved = write_file_atomic(backup, *previous, Durability::durable); !saved)
      return unexpected(make_error(ErrorKind::io, "cannot back up: " + saved.error().message));
    fs::permissions(backup, mode, ec);
    ctx.out << "backup: " << backup.string() << "\n";
  }
  if (auto written = write_file_atomic(target, merged, Durability::durable); !written)
    return written;
  if (previous) fs::permissions(target, mode, ec); // written private, like a new file
  return {};
}

} // namespace

std::string command_executable(std::string_view command) {
  std::string name = command_program(command);
  if (const auto slash = name.find_last_of("/\\"); slash != std::string::npos)
    name.erase(0, slash + 1);
  if (name.size() > 4 && ascii_lower(name.substr(name.size() - 4)) == ".exe")
    name.resize(name.size() - 4);
  return name;
}

std::vector<std::pair<std::string, std::string>> our_hooks(std::string_view text) {
  return our_hooks(text, platform::windows_commands());
}

std::vector<std::pair<std::string, std::string>> our_hooks(std::string_view text, bool windows) {
  Document doc;
  std::vector<std::pair<std::string, std::string>> out;
  if (!parse_json(doc, text) || !doc.IsObject() || !doc.HasMember("hooks") ||
      !doc["hooks"].IsObject())
    return out;
  for (const auto &event : doc["hooks"].GetObject()) {
    if (!event.value.IsArray()) continue;
    auto add = [&](const Value &hook) {
      if (is_ours(hook)) out.emplace_back(event.name.GetString(), *entry_command(hook, windows));
    };
    for (const auto &group : event.value.GetArray()) {
      add(group); // Cursor's, Copilot CLI's
      if (!group.IsObject() || !group.HasMember("hooks") || !group["hooks"].IsArray()) continue;
      for (const auto &hook : group["hooks"].GetArray())
        add(hook);
    }
  }
  return out;
}

std::set<std::string> our_commands(std::string_view settings) {
  std::set<std::string> out;
  for (auto &[event, command] : our_hooks(settings))
    out.insert(std::move(command));
  return out;
}

std::string program_path(const fs::path &exe_dir, std::string_view executable, bool windows) {
  std::string dir = exe_dir.string(); // joined by hand: the named system's path, on any system
  if (!dir.empty() && dir.back() != '/' && !(windows && dir.back() == '\\'))
    dir += windows ? '\\' : '/';
  return dir + std::string(executable) + (windows ? ".exe" : "");
}

std::string hook_command(const Agent &agent, const fs::path &exe_dir, std::string_view executable,
                         CommandShell shell) {
  const bool windows = shell != CommandShell::posix;
  std::string program = program_path(exe_dir, executable, windows);
  // Codex hands cmd its command as one quoted argument, whose inner quotes cmd does not read:
  // a path is best written without them (docs/windows.md#how-each-agent-runs-a-hook).
  if (shell == CommandShell::cmd && !cmd_plain(program))
    if (const std::string short_form =
            program_path(platform::short_path(exe_dir), executable, windows);
        cmd_plain(short_form))
      program = short_form;
  // Claude Code's commands have no --agent, as before the flag existed.
  const std::string args =
      agent.name == claude_code().name ? "" : "--agent " + std::string(agent.name);
  return render_command(shell, program, args);
}

std::string hook_command(const Agent &agent, const fs::path &exe_dir, std::string_view executable) {
  return hook_command(agent, exe_dir, executable, hook_shell(agent));
}

std::vector<HookSpec> rows_of(const Agent &agent) {
  std::vector<HookSpec> rows;
  for (const HookSpec &h : hooks_of(agent.name))
    rows.push_back(h);
  return rows;
}

Result<std::string> merge_settings(std::string_view current, const fs::path &exe_dir, bool remove) {
  return merge_hooks(current, claude_code(), rows_of(claude_code()), exe_dir, remove);
}

Result<std::string> merge_hooks(std::string_view current, const Agent &agent,
                                const std::vector<HookSpec> &rows, const fs::path &exe_dir,
                                bool remove) {
  return merge_hooks(current, agent, rows, exe_dir, remove, platform::windows_commands());
}

Result<std::string> merge_hooks(std::string_view current, const Agent &agent,
                                const std::vector<HookSpec> &rows, const fs::path &exe_dir,
                                bool remove, bool windows) {
  const auto unusable = [](std::string message) {
    return unexpected(make_error(ErrorKind::io, std::move(message)));
  };
  Document doc;
  if (trim_empty(current))
    doc.SetObject();
  else
    parse_json(doc, current);
  if (doc.HasParseError()) return unusable("not valid JSON");
  if (!doc.IsObject()) return unusable("not a JSON object");
  auto &a = doc.GetAllocator();
  auto hooks = doc.FindMember("hooks");
  if (hooks != doc.MemberEnd() && !hooks->value.IsObject())
    return unusable("\"hooks\" is not an object");
  const std::size_t removed = hooks != doc.MemberEnd() ? remove_ours(hooks->value, exe_dir) : 0;
  if (remove && removed == 0) return std::string(current); // nothing of ours: leave it be
  if (!remove) {
    if (agent.files.format.versioned && !doc.HasMember("version")) {
      doc.AddMember("version", 1, a); // before "hooks" in a new file, as Cursor writes it
      hooks = doc.FindMember("hooks");
    }
    if (hooks == doc.MemberEnd()) {
      doc.AddMember("hooks", Value(rapidjson::kObjectType), a);
      hooks = doc.FindMember("hooks");
    }
    for (const HookSpec &spec : rows)
      append_group(hooks->value, spec.event, hook_entry(agent, spec, exe_dir, windows, a), a);
  } else if (hooks != doc.MemberEnd() && hooks->value.ObjectEmpty()) {
    doc.RemoveMember("hooks");
  }
  PrettyJsonWriter w;
  w.base().SetIndent(' ', 2);
  w.value(doc);
  return w.text() + "\n";
}

std::string wiring_file(const Agent &agent,
                        const std::function<std::string(std::string_view)> &command) {
  Document doc(rapidjson::kObjectType);
  auto &a = doc.GetAllocator();
  if (agent.files.format.versioned) doc.AddMember("version", 1, a);
  Value hooks(rapidjson::kObjectType);
  for (const HookSpec &spec : hooks_of(agent.name))
    append_group(hooks, spec.event,
                 hook_entry(agent.files.format, spec, command(spec.executable), "", a), a);
  doc.AddMember("hooks", hooks, a);
  return JsonWriter().value(doc).text();
}

std::vector<SettingsFile> settings_candidates(const fs::path &claude_dir, const fs::path &cwd) {
  return {{cwd / ".claude" / "settings.local.json", "local"},
          {cwd / ".claude" / "settings.json", "project"},
          {claude_dir / "settings.json", "user"}};
}

namespace {

// `agent`'s file that registers the memory tools; empty when install does not register them
// there (Claude Code: its plugin ships .mcp.json).
fs::path memory_tools_file(const Agent &agent, const CliContext &ctx) {
  if (agent.files.mcp_file.empty()) return {};
  return agent_dir(agent, ctx.config, ctx.env) / native_path(agent.files.mcp_file);
}

// Register (or unregister) the memory tools in `text`, the content of `file`, in `format`; `text`
// itself when they cannot be (a warning says why). False when `file` cannot be read as its format.
bool with_memory_tools(std::string &text, McpFormat format, const fs::path &file,
                       const CliContext &ctx, bool uninstall) {
  const char *verb = uninstall ? "uninstall" : "install";
  auto merged = merge_memory_tools(text, format, ctx.exe_dir, uninstall);
  if (merged) {
    text = std::move(*merged);
    return true;
  }
  const bool theirs = merged.error().kind == ErrorKind::duplicate;
  ctx.err << "mem0-hooks " << verb << ": " << (theirs ? "warning: " : "") << file.string()
          << (theirs ? " " : " is ") << merged.error().message
          << (theirs ? "; the memory tools are not registered there (rename it to register them)"
                     : "; left untouched")
          << "\n";
  return theirs;
}

} // namespace

// Register (or unregister) the memory tools in `file`, a file of its own
// (docs/cli.md#memory-tools).
int install_memory_tools(const fs::path &file, McpFormat format, const CliContext &ctx,
                         bool uninstall) {
  std::error_code ec;
  const bool existed = fs::exists(file, ec);
  const auto current = existed ? read_small_file(file) : std::optional<std::string>("");
  if (!current) {
    ctx.err << "mem0-hooks " << (uninstall ? "uninstall" : "install") << ": cannot read "
            << file.string() << "\n";
    return k_failure;
  }
  std::string text = *current;
  if (!with_memory_tools(text, format, file, ctx, uninstall)) return k_failure;
  if (text == *current) {
    if (!uninstall && registers_memory_tools(file, format))
      ctx.out << "memory tools already registered in " << file.string() << "\n";
    return k_ok;
  }
  if (auto written = write_settings(file, existed ? &*current : nullptr, text, ctx); !written) {
    ctx.err << "mem0-hooks " << (uninstall ? "uninstall" : "install") << ": "
            << written.error().message << "\n";
    return k_failure;
  }
  ctx.out << (uninstall ? "removed the mem0 memory tools from "
                        : "registered the mem0 memory "
                          "tools (mem0-hooks mcp) in ")
          << file.string() << "\n";
  return k_ok;
}

namespace {

// Install into, or uninstall from, `agent`'s file: --settings, else its project file with
// --project, else its user file.
int install_one(const Agent &agent, const Args &args, const CliContext &ctx, bool uninstall) {
  if (!agent.files.shim.empty()) return install_shim(agent, args, ctx, uninstall);
  const char *verb = uninstall ? "uninstall" : "install";
  const bool plugins = agent.files.plugin_installs;
  const fs::path user_settings =
      agent_dir(agent, ctx.config, ctx.env) / native_path(agent.files.user_file);
  fs::path target = user_settings;
  if (args.has("--project")) target = ctx.cwd / native_path(agent.files.project_file);
  if (auto path = args.value("--settings")) target = fs::absolute(*path);

  if (!uninstall) warn_missing_executables(agent, ctx);

  std::error_code ec;
  const bool existed = fs::exists(target, ec);
  const auto current = existed ? read_small_file(target) : std::optional<std::string>("");
  if (!current) {
    ctx.err << "mem0-hooks " << verb << ": cannot read " << target.string() << "\n";
    return k_failure;
  }
  auto merged = merge_hooks(*current, agent, rows_of(agent), ctx.exe_dir, uninstall);
  if (!merged) {
    ctx.err << "mem0-hooks " << verb << ": " << target.string() << " is " << merged.error().message
            << "; left untouched\n";
    return k_failure;
  }
  // The memory tools: in the same file (Gemini CLI's settings.json), else in their own, after
  // the hooks. Not with --settings, which names the one file to change.
  std::error_code same_ec;
  fs::path tools_file = args.has("--settings") ? fs::path() : memory_tools_file(agent, ctx);
  const bool tools_in_target = !tools_file.empty() && fs::weakly_canonical(tools_file, same_ec) ==
                                                          fs::weakly_canonical(target, same_ec);
  if (tools_in_target) {
    with_memory_tools(*merged, agent.files.mcp_format, tools_file, ctx, uninstall);
    tools_file.clear();
  }
  // The agent's plugins may wire the same hooks.
  if (!uninstall && plugins &&
      !allowed_beside_others(target, our_commands(*merged), target == user_settings,
                             args.has("--force"), ctx))
    return k_failure;
  if (args.has("--dry-run")) {
    ctx.out << *merged;
    return k_ok;
  }
  const int tools = tools_file.empty()
                        ? k_ok
                        : install_memory_tools(tools_file, agent.files.mcp_format, ctx, uninstall);
  const bool unchanged = existed ? *merged == *current : uninstall;
  if (unchanged) {
    ctx.out << "mem0-hooks " << verb << ": "
            << (uninstall ? "no mem0 hooks in " + target.string() + "; nothing to remove"
                          : target.string() + " already up to date")
            << "\n";
    if (uninstall && plugins) say_still_wired(ctx);
    return tools;
  }
  if (auto written = write_settings(target, existed ? &*current : nullptr, *merged, ctx);
      !written) {
    ctx.err << "mem0-hooks " << verb << ": " << written.error().message << "\n";
    return k_failure;
  }
  ctx.out << (uninstall ? "removed the mem0 hooks from " : "wired the mem0 hooks into ")
          << target.string() << "\n";
  if (uninstall && plugins) say_still_wired(ctx);
  if (tools != k_ok) return tools;
  if (!uninstall && tools_in_target && registers_memory_tools(target, agent.files.mcp_format))
    ctx.out << "registered the mem0 memory tools (mem0-hooks mcp) in " << target.string() << "\n";
  if (!uninstall)
    ctx.out << "next: " << agent.files.install_note
            << (agent.files.install_note.empty() ? "" : "; ")
            << "`mem0-hooks doctor` checks the setup\n";
  return k_ok;
}

// install or uninstall for the agents --agent names.
int wire(const Args &args, const CliContext &ctx, bool uninstall) {
  const char *verb = uninstall ? "uninstall" : "install";
  const std::string which = args.value("--agent").value_or(std::string(claude_code().name));
  std::vector<const Agent *> chosen;
  if (which == "all") {
    for (const Agent *a : agents())
      if (agent_found(*a, ctx)) chosen.push_back(a);
    if (chosen.empty()) {
      ctx.err << "mem0-hooks " << verb
              << ": no agent found on PATH or by its directory; name one with --agent\n";
      return k_failure;
    }
    if (args.has("--settings")) {
      ctx.err << "mem0-hooks " << verb << ": --settings names one file: use it with one agent\n";
      return k_usage;
    }
  } else if (const Agent *a = find_agent(which)) {
    chosen.push_back(a);
  } else {
    std::string known;
    for (const Agent *known_agent : agents())
      known += std::string(known_agent->name) + ", ";
    ctx.err << "mem0-hooks " << verb << ": unknown agent '" << which << "' (one of " << known
            << "all)\n";
    return k_usage;
  }
  int status = k_ok;
  for (const Agent *a : chosen) {
    if (chosen.size() > 1) ctx.out << a->display_name << ":\n";
    status = std::max(status, install_one(*a, args, ctx, uninstall));
  }
  return status;
}

} // namespace

int install(const Args &args, const CliContext &ctx) { return wire(args, ctx, false); }

int uninstall(const Args &args, const CliContext &ctx) { return wire(args, ctx, true); }

} // namespace mem0::cli
