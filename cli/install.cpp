#include "cli/cli.hpp"
#include "common/files.hpp"
#include "common/hook_table.hpp"

#include "common/json.hpp"
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

using rapidjson::Document;
using rapidjson::Value;

bool trim_empty(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// The executable a hook command runs: its first word, unquoted.
std::string command_program(std::string_view command) {
  // The first shell word: quotes and backslashes as POSIX sh reads them.
  std::string word;
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (quote == '"' && c == '\\' && i + 1 < command.size())
        word += command[++i];
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\' && i + 1 < command.size()) {
      word += command[++i];
    } else if (c == ' ' || c == '\t') {
      if (!word.empty()) break;
    } else {
      word += c;
    }
  }
  return word;
}

// True for a hook entry that runs one of this project's hooks, wherever it is installed.
bool is_ours(const Value &hook) {
  if (!hook.IsObject()) return false;
  const auto command = string_member(hook, "command");
  if (!command) return false;
  return find_hook(fs::path(command_program(*command)).filename().string()) != nullptr;
}

// Remove our entries from every matcher group of every event, dropping groups and events that
// become empty. Entries of other tools stay exactly as they were.
// Returns how many entries it removed.
std::size_t remove_ours(Value &hooks) {
  std::size_t removed = 0;
  for (auto event = hooks.MemberBegin(); event != hooks.MemberEnd();) {
    if (event->value.IsArray()) {
      Value &groups = event->value;
      const bool had_groups = !groups.Empty();
      for (auto group = groups.Begin(); group != groups.End();) {
        const auto list = group->IsObject() ? group->FindMember("hooks") : Value::MemberIterator();
        if (group->IsObject() && list != group->MemberEnd() && list->value.IsArray()) {
          const auto before = list->value.Size();
          for (auto h = list->value.Begin(); h != list->value.End();)
            h = is_ours(*h) ? (++removed, list->value.Erase(h)) : h + 1;
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

// One matcher group running `command` for the hook `spec`.
Value hook_group(const HookSpec &spec, const std::string &command, Document::AllocatorType &a) {
  Value hook(rapidjson::kObjectType);
  hook.AddMember("type", "command", a);
  hook.AddMember("command", string_value(command, a), a);
  hook.AddMember("timeout", spec.timeout_seconds, a);
  Value list(rapidjson::kArrayType);
  list.PushBack(hook, a);
  Value group(rapidjson::kObjectType);
  if (!spec.matcher.empty()) group.AddMember("matcher", string_value(spec.matcher, a), a);
  group.AddMember("hooks", list, a);
  return group;
}

void append_group(Value &hooks, std::string_view event, Value group, Document::AllocatorType &a) {
  auto it = hooks.FindMember(string_value(event, a));
  if (it == hooks.MemberEnd()) {
    hooks.AddMember(string_value(event, a), Value(rapidjson::kArrayType), a);
    it = hooks.FindMember(string_value(event, a));
  }
  it->value.PushBack(group, a);
}

// A command line for `path`: quoted when it holds characters a shell would split or expand.
std::string shell_word(const fs::path &path) {
  const std::string s = path.string();
  if (s.find_first_of(" \t'\"$`\\;&|<>()*?[]#~") == std::string::npos) return s;
  std::string quoted = "'";
  for (char c : s)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace

expected<std::string, std::string> merge_settings(std::string_view current, const fs::path &exe_dir,
                                                  bool remove) {
  Document doc;
  if (trim_empty(current))
    doc.SetObject();
  else
    parse_json(doc, current);
  if (doc.HasParseError()) return unexpected(std::string("not valid JSON"));
  if (!doc.IsObject()) return unexpected(std::string("not a JSON object"));
  auto &a = doc.GetAllocator();
  auto hooks = doc.FindMember("hooks");
  if (hooks != doc.MemberEnd() && !hooks->value.IsObject())
    return unexpected(std::string("\"hooks\" is not an object"));
  const std::size_t removed = hooks != doc.MemberEnd() ? remove_ours(hooks->value) : 0;
  if (remove && removed == 0) return std::string(current); // nothing of ours: leave it be
  if (!remove) {
    if (hooks == doc.MemberEnd()) {
      doc.AddMember("hooks", Value(rapidjson::kObjectType), a);
      hooks = doc.FindMember("hooks");
    }
    for (const HookSpec &spec : k_hooks)
      append_group(hooks->value, spec.event,
                   hook_group(spec, shell_word(exe_dir / spec.executable), a), a);
  } else if (hooks != doc.MemberEnd() && hooks->value.ObjectEmpty()) {
    doc.RemoveMember("hooks");
  }
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  doc.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::vector<fs::path> settings_candidates(const Config &config, const fs::path &cwd) {
  return {cwd / ".claude" / "settings.local.json", cwd / ".claude" / "settings.json",
          config.home / ".claude" / "settings.json"};
}

int install(const Args &args, const CliContext &ctx, bool uninstall) {
  const char *verb = uninstall ? "uninstall" : "install";
  fs::path target = ctx.config.home / ".claude" / "settings.json";
  if (args.has("--project")) target = ctx.cwd / ".claude" / "settings.json";
  if (auto path = args.value("--settings")) target = fs::absolute(*path);

  if (!uninstall)
    for (const HookSpec &spec : k_hooks)
      if (!fs::exists(ctx.exe_dir / spec.executable))
        ctx.err << "mem0-hooks install: warning: " << (ctx.exe_dir / spec.executable).string()
                << " does not exist (build or install it first)\n";

  std::error_code ec;
  const bool existed = fs::exists(target, ec);
  const auto current = existed ? read_small_file(target) : std::optional<std::string>("");
  if (!current) {
    ctx.err << "mem0-hooks " << verb << ": cannot read " << target.string() << "\n";
    return k_failure;
  }
  const auto merged = merge_settings(*current, ctx.exe_dir, uninstall);
  if (!merged) {
    ctx.err << "mem0-hooks " << verb << ": " << target.string() << " is " << merged.error()
            << "; left untouched\n";
    return k_failure;
  }
  if (args.has("--dry-run")) {
    ctx.out << *merged;
    return k_ok;
  }
  const bool unchanged = existed ? *merged == *current : uninstall;
  if (unchanged) {
    ctx.out << "mem0-hooks " << verb << ": " << target.string() << " already up to date\n";
    return k_ok;
  }
  if (!ensure_private_dir(target.parent_path())) {
    ctx.err << "mem0-hooks " << verb << ": cannot create " << target.parent_path().string() << "\n";
    return k_failure;
  }
  if (existed) {
    const fs::path backup = target.string() + ".bak";
    if (auto saved = write_file_atomic(backup, *current); !saved) {
      ctx.err << "mem0-hooks " << verb << ": cannot back up: " << saved.error().message << "\n";
      return k_failure;
    }
    ctx.out << "backup: " << backup.string() << "\n";
  }
  if (auto written = write_file_atomic(target, *merged); !written) {
    ctx.err << "mem0-hooks " << verb << ": " << written.error().message << "\n";
    return k_failure;
  }
  ctx.out << (uninstall ? "removed the mem0 hooks from " : "wired the mem0 hooks into ")
          << target.string() << "\n";
  return k_ok;
}

} // namespace mem0::cli
