// Where the hooks are wired from: settings files, a plugin directory, marketplace installs
// (docs/cli.md#install-paths). The layout is Claude Code's (2.1): installed plugins are listed in
// `<plugins dir>/installed_plugins.json`, enabled in the settings' `enabledPlugins`.
#include "cli/install.hpp"
#include "runtime/table.hpp"
#include "util/command_line.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <map>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

bool same_path(const fs::path &a, const fs::path &b) {
  auto normal = [](const fs::path &p) {
    std::error_code ec;
    const fs::path n = fs::weakly_canonical(p, ec);
    return n.has_filename() ? n : n.parent_path(); // `/x/` is `/x`
  };
  return normal(a) == normal(b);
}

std::optional<rapidjson::Document> read_object(const fs::path &path) {
  const auto text = read_small_file(path);
  rapidjson::Document doc;
  if (!text || !parse_json(doc, *text) || !doc.IsObject()) return std::nullopt;
  return doc;
}

// Where Claude Code (2.1.332) runs plugin `id` from when its marketplace was added from a
// directory: that directory (joined with the plugin's own `source` in its marketplace.json), not
// the cache copy that installed_plugins.json names. Empty for any other marketplace
// (docs/cli.md#install-paths).
std::string directory_source(const fs::path &plugins_dir, std::string_view id) {
  const std::string market(id.substr(id.find('@') + 1));
  const auto known = read_object(plugins_dir / "known_marketplaces.json");
  if (!known) return "";
  const auto entry = known->FindMember(market.c_str());
  if (entry == known->MemberEnd() || !entry->value.IsObject()) return "";
  const auto source = entry->value.FindMember("source");
  if (source == entry->value.MemberEnd() || !source->value.IsObject() ||
      string_member(source->value, "source").value_or("") != "directory")
    return "";
  const fs::path dir = string_member(source->value, "path").value_or("");
  if (dir.empty()) return "";
  fs::path root = dir;
  if (const auto manifest = read_object(dir / ".claude-plugin" / "marketplace.json")) {
    const auto plugins = manifest->FindMember("plugins");
    if (plugins != manifest->MemberEnd() && plugins->value.IsArray())
      for (const auto &plugin : plugins->value.GetArray())
        if (plugin.IsObject() && string_member(plugin, "name").value_or("") == k_plugin_name)
          if (const auto sub = string_member(plugin, "source")) root = dir / *sub;
  }
  root = root.lexically_normal();
  return (root.has_filename() ? root : root.parent_path()).string(); // `./` adds a final `/`
}

// True when `commands` run every executable of the hook table.
bool whole_set(const std::set<std::string> &commands) {
  return std::ranges::all_of(hooks_of(claude_code().name), [&](const HookSpec &h) {
    return std::any_of(commands.begin(), commands.end(),
                       [&](const std::string &c) { return command_executable(c) == h.executable; });
  });
}

// Our plugin ids in `enabledPlugins`, with the settings file that decides: the most specific
// file that names the id wins, as in Claude Code.
struct Enablement {
  bool enabled;
  const SettingsFile *file;
};
std::map<std::string, Enablement> enablements(const std::vector<SettingsFile> &files) {
  std::map<std::string, Enablement> out;
  for (const auto &file : files) {
    const auto doc = read_object(file.path);
    const auto plugins =
        doc ? doc->FindMember("enabledPlugins") : rapidjson::Value::MemberIterator();
    if (!doc || plugins == doc->MemberEnd() || !plugins->value.IsObject()) continue;
    for (const auto &m : plugins->value.GetObject())
      if (is_our_claude_plugin(m.name.GetString()) && m.value.IsBool())
        out.try_emplace(m.name.GetString(), Enablement{m.value.GetBool(), &file});
  }
  return out;
}

InstallPath path_of(InstallPath::Kind kind, std::string where) {
  InstallPath p;
  p.kind = kind;
  p.where = std::move(where);
  return p;
}

} // namespace

fs::path agent_dir(const Agent &agent, const Config &config, const Environment &env) {
  if (!agent.files.dir_env.empty())
    if (auto dir = env.get(agent.files.dir_env); dir && !dir->empty()) return *dir;
  return config.home / native_path(agent.files.dir);
}

fs::path claude_dir(const Config &config, const Environment &env) {
  return agent_dir(claude_code(), config, env);
}

std::optional<fs::path> find_program(std::string_view name, const Environment &env) {
  return platform::find_on_path(name, env.get("PATH").value_or(""));
}

bool agent_found(const Agent &agent, const CliContext &ctx) {
  std::error_code ec;
  return find_program(agent.files.program, ctx.env) ||
         fs::is_directory(agent_dir(agent, ctx.config, ctx.env), ec);
}

std::vector<InstallPath> find_install_paths(const Config &config, const Environment &env,
                                            const fs::path &cwd) {
  std::vector<InstallPath> paths;
  const fs::path claude = claude_dir(config, env);
  const auto files = settings_candidates(claude, cwd);
  for (const auto &file : files) {
    const auto text = read_small_file(file.path);
    InstallPath p = path_of(InstallPath::Kind::settings, file.path.string());
    p.commands = text ? our_commands(*text) : std::set<std::string>{};
    if (whole_set(p.commands)) paths.push_back(std::move(p));
  }

  // Marketplace installs: every entry of our plugin in installed_plugins.json (format 2: a list
  // per id; format 1: one object), active where it applies and is enabled.
  const auto enabled = enablements(files);
  const auto cache_dir = env.get("CLAUDE_CODE_PLUGIN_CACHE_DIR");
  const fs::path plugins_dir =
      cache_dir && !cache_dir->empty() ? fs::path(*cache_dir) : claude / "plugins";
  const auto registry = read_object(plugins_dir / "installed_plugins.json");
  const auto installs =
      registry ? registry->FindMember("plugins") : rapidjson::Value::MemberIterator();
  std::vector<InstallPath> market;
  if (registry && installs != registry->MemberEnd() && installs->value.IsObject()) {
    for (const auto &plugin : installs->value.GetObject()) {
      const std::string id = plugin.name.GetString();
      if (!is_our_claude_plugin(id)) continue;
      const auto decided = enabled.find(id);
      const std::string source = directory_source(plugins_dir, id);
      auto add = [&](const rapidjson::Value &entry) {
        if (!entry.IsObject()) return;
        InstallPath p = path_of(InstallPath::Kind::marketplace, id);
        p.scope = string_member(entry, "scope").value_or("user");
        p.dir = !source.empty() ? source
                                : std::string(string_member(entry, "installPath").value_or(""));
        p.project = string_member(entry, "projectPath").value_or("");
        p.here = p.project.empty() || same_path(p.project, cwd);
        p.active = p.here && decided != enabled.end() && decided->second.enabled;
        market.push_back(std::move(p));
      };
      if (plugin.value.IsArray())
        for (const auto &entry : plugin.value.GetArray())
          add(entry);
      else
        add(plugin.value);
    }
  }
  // Enabled in the settings here but not installed here (Claude Code offers to install it).
  for (const auto &[id, e] : enabled) {
    if (!e.enabled || std::any_of(market.begin(), market.end(),
                                  [&](const InstallPath &p) { return p.where == id && p.here; }))
      continue;
    InstallPath p = path_of(InstallPath::Kind::marketplace, id);
    p.scope = e.file->scope;
    p.enabled_in = e.file->path.string();
    p.active = false;
    market.push_back(std::move(p));
  }

  // The plugin whose hook runs this command (CLAUDE_PLUGIN_ROOT), unless it is a marketplace
  // install: then it is that install.
  if (auto root = env.get("CLAUDE_PLUGIN_ROOT");
      root && !root->empty() &&
      std::none_of(market.begin(), market.end(),
                   [&](const InstallPath &p) { return !p.dir.empty() && same_path(p.dir, *root); }))
    paths.push_back(path_of(InstallPath::Kind::plugin_root, *root));
  paths.insert(paths.end(), market.begin(), market.end());
  return paths;
}

std::string describe(const InstallPath &p) {
  using Kind = InstallPath::Kind;
  if (p.kind == Kind::settings) return "wired in " + p.where;
  if (p.kind == Kind::plugin_root) return "wired in plugin " + p.where + " (CLAUDE_PLUGIN_ROOT)";
  if (p.dir.empty())
    return "plugin " + p.where + " enabled in " + p.enabled_in + " but not installed";
  const std::string how =
      " (marketplace, " + p.scope + " scope" + (p.project.empty() ? "" : " in " + p.project) + ")";
  if (p.active) return "wired in plugin " + p.where + how + ": " + p.dir;
  return "plugin " + p.where + how + (p.here ? " is disabled: " : ": ") + p.dir;
}

std::string removal(const InstallPath &p) {
  using Kind = InstallPath::Kind;
  if (p.kind == Kind::settings) return "mem0-hooks uninstall --settings " + user_word(p.where);
  if (p.kind == Kind::plugin_root)
    return "start Claude Code without --plugin-dir " + user_word(p.where);
  // Windows PowerShell 5.1 has no `&&`: there the two commands are named one after the other.
  const std::string then = platform::windows_commands() ? ", then " : " && ";
  return (p.project.empty() ? "" : "cd " + user_word(p.project) + then) +
         plugin_command(p.dir.empty() ? "disable" : "uninstall", p);
}

std::string plugin_command(std::string_view verb, const InstallPath &p) {
  return "claude plugin " + std::string(verb) + " " + user_word(p.where) + " --scope " +
         user_word(p.scope);
}

std::size_t times_wired(const std::vector<InstallPath> &paths) {
  // One source per plugin (an id installed in two scopes loads once) and per distinct set of
  // settings commands.
  std::set<std::string> sources;
  for (const auto &p : paths) {
    if (!p.active) continue;
    std::string key = p.where;
    if (p.kind == InstallPath::Kind::settings) {
      key = "settings:";
      for (const auto &c : p.commands)
        key += "\n" + c;
    }
    sources.insert(key);
  }
  return sources.size();
}

} // namespace mem0::cli
