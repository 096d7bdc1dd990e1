#pragma once
#include "mem0/api.hpp"
#include "mem0/dialect.hpp"

#include <array>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace mem0 {

// The process environment as a value, so configuration can be tested without touching it.
struct Environment {
  std::map<std::string, std::string, std::less<>> vars;

  static Environment from_process();
  // The value of `name`; nullopt when unset.
  std::optional<std::string> get(std::string_view name) const;
};

enum class SearchPlan { lean, thorough };

// Everything configurable (docs/configuration.md#precedence): environment > ~/.mem0/settings.json >
// default. The settings table (below) says where each value comes from; the initialisers here are
// its defaults for a Config built without load_config.
struct Config {
  std::filesystem::path home;
  std::filesystem::path mem0_dir; // ~/.mem0
  // Claude Code's store of plugin secrets (claude_credentials_file); the API key's last source.
  std::filesystem::path claude_credentials;
  std::optional<std::string> api_key;
  // Why the key that was set is not used (control bytes in it), naming its variable and source
  // but never the value; empty when there is none. Logged once by the Runtime, shown by doctor.
  std::string api_key_problem;
  std::string user_id = "default";
  const Dialect *dialect = &platform_dialect(); // the backend's (`backend`)
  std::string base_url = std::string(dialect->traits().default_base_url); // the dialect's default
  bool shared_memory = true; // search the project's shared memory too (docs/api.md#shared-memory)
  bool team_memory = true;   // captures in 0.3's team layout (docs/capture.md#team-memory)
  bool auto_search = true;
  bool prefetch = true;
  bool rerank = true;
  bool global_search = false;
  bool debug = false;
  bool redact = true;
  double confidence_threshold = 0.3;
  std::chrono::milliseconds timeout{5000};
  SearchPlan search_plan = SearchPlan::lean;
  long daily_search_limit = 0;      // 0 = no cap
  bool auto_save = true;            // capture (docs/capture.md)
  long daily_add_limit = 0;         // 0 = no cap
  long retention_session_days = 90; // session summaries expire after this many days
  bool auto_dream = false;          // dream --auto after a session ends (docs/hygiene.md)
  double dream_similarity = 0.8;    // dream's near-duplicate threshold (docs/hygiene.md)
  bool block_native_memory = true;  // the guard blocks writes to Claude's own memory files
  bool show_recall = false;         // a visible `mem0: N memories recalled` per recall
  std::filesystem::path state_dir;
  std::optional<std::string> ca_bundle; // a PEM file or a hashed directory
  std::string settings_status;          // "ok", "not found", "invalid JSON", "not an object"
  // Where each value came from, by setting name: `env MEM0_X`, `settings.json`, `default`,
  // `~/.bashrc`, `default for selfhosted`, with `; MEM0_X=… not understood (…)` after it for an
  // environment value that was ignored.
  // A list in the table's order, the names those of the table (static): no map to build per run.
  std::vector<std::pair<std::string_view, std::string>> origins;

  // Return where setting `name` came from; empty when it was not resolved (a Config not from
  // load_config).
  const std::string &origin(std::string_view name) const;
};

// A value of ~/.mem0/settings.json as the settings table sees it: a boolean, a number, a string,
// or anything else (monostate), which no setting accepts.
using SettingsValue = std::variant<std::monostate, bool, double, std::string>;

// How one kind of value is read and shown, for one field of Config.
struct SettingParser {
  // What an environment value must be, named in the origin of one that is not.
  std::string_view accepts;
  // Take the trimmed text of variable `variable` (or the default's text) into `config`; false when
  // it is not a valid value, so the next source applies.
  bool (*from_env)(Config &config, std::string_view text, std::string_view variable);
  // Take a settings.json value into `config`; false when its type or range is wrong.
  bool (*from_json)(Config &config, const SettingsValue &value);
  // Show the value as doctor does; the API key masked, never itself.
  std::string (*show)(const Config &config);
};

// One row of the settings table (docs/configuration.md#settings).
struct Setting {
  std::string_view name;               // the settings.json key where there is one
  std::array<std::string_view, 7> env; // the variables, first valid one wins; "" ends the list
  std::string_view key;                // the settings.json key; "" when the file cannot set it
  std::string_view fallback;           // the default as text; Config's initialiser holds it
                                       // ("": none, or one a dialect gives, `by_default`)
  SettingParser parser;
  // Set the value when neither the environment nor settings.json gave one, and return its
  // origin; null: Config's own initialiser (`fallback`), with origin `default`.
  std::string (*by_default)(Config &config, const Setting &self) = nullptr;
};

// Every setting, in the order load_config resolves them (a default may depend on an earlier row).
std::span<const Setting> settings_table();

// Resolve every row of the settings table, recording where each value came from. Reads
// settings.json and, only when no key is in the environment, the shell profiles; never spawns a
// process.
Config load_config(const Environment &env);

// `1,true,yes,on` → true, `0,false,no,off` → false (case-insensitive); nullopt otherwise.
std::optional<bool> parse_bool(std::string_view value);

// The value of the last literal `MEM0_API_KEY=` line of a shell profile (optional `export`,
// quotes and trailing comment stripped); values starting with `$` are ignored.
std::optional<std::string> api_key_from_profile(std::string_view text);

// The name of the Claude Code plugin, as in .claude-plugin/plugin.json.
inline constexpr std::string_view k_claude_plugin_name = "mem0-native-hooks";

// True for a Claude Code plugin id of this project, `<name>@<marketplace>`: the plugin of a
// checkout (k_claude_plugin_name) or the one from npm (`mem0-native-hooks-npm`, docs/install.md).
bool is_our_claude_plugin(std::string_view id);

// Where Claude Code keeps a plugin's sensitive userConfig values on Linux:
// $CLAUDE_CONFIG_DIR/.credentials.json, else ~/.claude/.credentials.json
// (docs/configuration.md#api-key).
std::filesystem::path claude_credentials_file(const Environment &env,
                                              const std::filesystem::path &home);

// The api_key option given to this plugin (`pluginSecrets["mem0-native-hooks@<marketplace>"]`)
// in that file, with the plugin id it was given to; nullopt when the file is absent, unreadable,
// not JSON of that shape, or holds no such key.
std::optional<std::pair<std::string, std::string>>
api_key_from_claude_credentials(const std::filesystem::path &path);

// Mask a key for display: `m0-…abcd`; a key shorter than 12 characters shows nothing of itself.
std::string mask_key(std::string_view key);

// Whether requests can be made at all: with a key, or to a self-hosted server, which may run
// without authentication (docs/configuration.md#api-key).
bool has_access(const Config &config);

// The API target of `config`: an error when there is no key (for the platform) or the base URL
// is refused.
Result<ApiTarget> api_target(const Config &config);

} // namespace mem0
