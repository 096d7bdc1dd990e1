#include "mem0/config.hpp"
#include "mem0/dialect.hpp"
#include "mem0/identity.hpp"
#include "util/files.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include "util/json.hpp"
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

std::optional<long> parse_long(std::string_view s) {
  s = trim(s);
  if (s.empty() || s.size() > 12) return std::nullopt;
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  const std::string text(trim(s));
  if (text.empty()) return std::nullopt;
  char *end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !(v >= 0.0 && v <= 1.0)) return std::nullopt;
  return v;
}

fs::path home_dir(const Environment &env) {
  for (const std::string_view variable : platform::home_variables())
    if (const auto home = env.get(variable); home && !home->empty()) return *home;
  if (auto home = platform::system_home()) return *home;
  return "/";
}

// ~/.mem0/settings.json, read once: the value of a key, whatever its type (the parsers check it).
struct SettingsFile {
  rapidjson::Document doc;
  bool usable = false;
  std::string status; // "ok", "not found", "invalid JSON", "not an object"

  explicit SettingsFile(const fs::path &path) {
    const auto text = read_small_file(path);
    if (!text) {
      status = "not found";
      return;
    }
    parse_json(doc, *text);
    usable = !doc.HasParseError() && doc.IsObject();
    status = doc.HasParseError() ? "invalid JSON" : usable ? "ok" : "not an object";
  }
  SettingsValue value(std::string_view key) const {
    if (!usable) return {};
    const auto it = doc.FindMember(rapidjson::Value(rapidjson::StringRef(key.data(), key.size())));
    if (it == doc.MemberEnd()) return {};
    const rapidjson::Value &v = it->value;
    if (v.IsBool()) return v.GetBool();
    if (v.IsNumber()) return v.GetDouble();
    if (v.IsString()) return std::string(v.GetString());
    return {};
  }
};

std::optional<const Dialect *> parse_backend(std::string_view s) {
  if (const Dialect *d = find_dialect(s)) return d;
  return std::nullopt;
}

std::string_view backend_name(const Dialect *d) { return d->traits().name; }

std::optional<SearchPlan> parse_plan(std::string_view s) {
  const std::string v = ascii_lower(trim(s));
  if (v == "lean") return SearchPlan::lean;
  if (v == "thorough") return SearchPlan::thorough;
  return std::nullopt;
}

std::string_view plan_name(SearchPlan p) { return p == SearchPlan::lean ? "lean" : "thorough"; }

// The parsers of the settings table, one per kind of value, each for one field of Config. An
// environment value arrives trimmed; settings.json values are checked for their JSON type.

bool no_json(Config &, const SettingsValue &) { return false; }

std::string on_off(bool b) { return b ? "on" : "off"; }

constexpr std::string_view k_bool_words = "1, true, yes, on, 0, false, no or off";

// `1,true,yes,on` / `0,false,no,off`; a JSON boolean.
template <bool Config::*Field> constexpr SettingParser flag() {
  return {k_bool_words,
          [](Config &c, std::string_view text, std::string_view) {
            const auto b = parse_bool(text);
            if (b) c.*Field = *b;
            return b.has_value();
          },
          [](Config &c, const SettingsValue &v) {
            const bool *b = std::get_if<bool>(&v);
            if (b) c.*Field = *b;
            return b != nullptr;
          },
          [](const Config &c) { return on_off(c.*Field); }};
}

// Off for `0,false,no,off` and the empty string, on for anything else: once set, it decides.
template <bool Config::*Field> constexpr SettingParser loose_flag() {
  SettingParser p = flag<Field>();
  p.accepts = "";
  p.from_env = [](Config &c, std::string_view text, std::string_view) {
    c.*Field = !text.empty() && parse_bool(text) != std::optional<bool>(false);
    return true;
  };
  return p;
}

// Decimal digits; a JSON number ≥ 0 (a fraction truncated).
template <long Config::*Field> constexpr SettingParser count() {
  return {"decimal digits",
          [](Config &c, std::string_view text, std::string_view) {
            const auto n = parse_long(text);
            if (n) c.*Field = *n;
            return n.has_value();
          },
          [](Config &c, const SettingsValue &v) {
            const double *n = std::get_if<double>(&v);
            if (!n || !(*n >= 0 && *n < 1e12)) return false;
            c.*Field = static_cast<long>(*n);
            return true;
          },
          [](const Config &c) { return std::to_string(c.*Field); }};
}

// A number from 0 to 1, as text or as a JSON number.
template <double Config::*Field> constexpr SettingParser fraction() {
  return {"a number from 0 to 1",
          [](Config &c, std::string_view text, std::string_view) {
            const auto v = parse_double(text);
            if (v) c.*Field = *v;
            return v.has_value();
          },
          [](Config &c, const SettingsValue &v) {
            const double *n = std::get_if<double>(&v);
            if (!n || !(*n >= 0.0 && *n <= 1.0)) return false;
            c.*Field = *n;
            return true;
          },
          [](const Config &c) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", c.*Field);
            return std::string(text);
          }};
}

// Decimal digits, clamped to 100..30000 ms.
template <std::chrono::milliseconds Config::*Field> constexpr SettingParser clamped_ms() {
  return {"decimal digits",
          [](Config &c, std::string_view text, std::string_view) {
            const auto ms = parse_long(text);
            if (ms) c.*Field = std::chrono::milliseconds(std::clamp(*ms, 100L, 30000L));
            return ms.has_value();
          },
          no_json, [](const Config &c) { return std::to_string((c.*Field).count()); }};
}

// One of the names `parse` knows, in any case; the same as a JSON string.
template <auto Field, auto parse, auto name>
constexpr SettingParser choice(std::string_view names) {
  return {names,
          [](Config &c, std::string_view text, std::string_view) {
            const auto v = parse(text);
            if (v) c.*Field = *v;
            return v.has_value();
          },
          [](Config &c, const SettingsValue &v) {
            const std::string *s = std::get_if<std::string>(&v);
            const auto parsed = s ? parse(*s) : std::nullopt;
            if (parsed) c.*Field = *parsed;
            return parsed.has_value();
          },
          [](const Config &c) { return std::string(name(c.*Field)); }};
}

// Any non-empty text (a blank variable counts as unset); a non-empty JSON string.
template <auto Field> constexpr SettingParser nonempty() {
  return {"",
          [](Config &c, std::string_view text, std::string_view) {
            if (text.empty()) return false;
            c.*Field = std::string(text);
            return true;
          },
          [](Config &c, const SettingsValue &v) {
            const std::string *s = std::get_if<std::string>(&v);
            if (!s || s->empty()) return false;
            c.*Field = *s;
            return true;
          },
          [](const Config &c) -> std::string {
            using T = std::remove_cvref_t<decltype(c.*Field)>;
            if constexpr (std::is_same_v<T, fs::path>)
              return (c.*Field).string();
            else if constexpr (std::is_same_v<T, std::string>)
              return c.*Field;
            else
              return (c.*Field).value_or("none");
          }};
}

// A user id as Mem0's plugins take it (docs/configuration.md#user-id): not empty and not only
// `*`, which a filter would read as every user.
constexpr SettingParser user_id() {
  SettingParser p = nonempty<&Config::user_id>();
  p.accepts = "a name, not only *";
  p.from_env = [](Config &c, std::string_view text, std::string_view) {
    const auto id = id_value(text);
    if (id) c.user_id = *id;
    return id.has_value();
  };
  return p;
}

// Set `field` to the URL `text` without its trailing slashes; false when `text` is empty.
bool set_url(std::string &field, std::string_view text) {
  if (text.empty()) return false;
  field = std::string(text);
  while (field.ends_with('/'))
    field.pop_back();
  return true;
}

// A URL as text, without its trailing slashes; a JSON string.
template <std::string Config::*Field> constexpr SettingParser url() {
  SettingParser p = nonempty<Field>();
  p.from_env = [](Config &c, std::string_view text, std::string_view) {
    return set_url(c.*Field, text);
  };
  p.from_json = [](Config &c, const SettingsValue &v) {
    const std::string *s = std::get_if<std::string>(&v);
    return s && set_url(c.*Field, *s);
  };
  return p;
}

// Take `key` as the API key. A key with control bytes (a CR/LF would end the Authorization header
// and start another) is no key at all, not a reason to try the next source: the problem names
// `label`, where it came from, never the value.
void take_api_key(Config &c, std::string key, std::string_view label) {
  const bool control =
      std::any_of(key.begin(), key.end(), [](unsigned char b) { return b < 0x20 || b == 0x7F; });
  if (control) {
    c.api_key_problem = std::string(label) + " contains control characters (such as a line "
                                             "break): ignored, so there is no API key";
    return;
  }
  c.api_key = std::move(key);
}

// Any non-empty text; shown masked.
constexpr SettingParser api_key() {
  return {"",
          [](Config &c, std::string_view text, std::string_view variable) {
            if (text.empty()) return false;
            take_api_key(c, std::string(text), variable);
            return true;
          },
          no_json,
          [](const Config &c) {
            return c.api_key                    ? mask_key(*c.api_key)
                   : !c.api_key_problem.empty() ? std::string("refused")
                                                : std::string("none");
          }};
}

// The defaults that are not a fixed text.

// No key in the environment: the first shell profile with one (read, never run), else the key
// given to the Claude Code plugin, from Claude Code's own store (docs/configuration.md#api-key).
std::string api_key_from_profiles(Config &c, const Setting &) {
  for (const char *profile : {".zshrc", ".bashrc", ".zprofile", ".bash_profile", ".profile"})
    if (const auto text = read_small_file(c.home / profile))
      if (auto key = api_key_from_profile(*text)) {
        take_api_key(c, std::move(*key), std::string("MEM0_API_KEY in ~/") + profile);
        return std::string("~/") + profile;
      }
  if (auto found = api_key_from_claude_credentials(c.claude_credentials)) {
    const std::string origin = "Claude Code plugin config (" + found->first + ")";
    take_api_key(c, std::move(found->second), origin);
    return origin;
  }
  return "default";
}

// The backend's own URL (its dialect's default): Config's initialiser holds the default
// backend's, so only another backend's is a `default for <backend>`.
std::string default_base_url(Config &c, const Setting &) {
  if (const auto &d = c.dialect->traits(); d.default_base_url != c.base_url) {
    c.base_url = std::string(d.default_base_url);
    return "default for " + std::string(d.name);
  }
  return "default";
}

// On where the backend sorts memories into lanes (the Platform), as Mem0's 0.3 plugins; off on a
// self-hosted server (docs/capture.md#team-memory).
std::string default_team_memory(Config &c, const Setting &) {
  if (c.dialect->traits().shared_memory) return "default";
  c.team_memory = false;
  return "default for " + std::string(c.dialect->traits().name);
}

std::string default_state_dir(Config &c, const Setting &) {
  c.state_dir = c.mem0_dir / "state";
  return "default";
}

// The table (docs/configuration.md#settings), a row on two lines: where the value comes from
// (name, environment variables, settings.json key, default), then how it is read (the parser, for
// a field of Config) and a default computed instead of the fixed one. `backend` comes before
// `base_url`, whose default depends on it. Not constexpr: the backend's hint is the dialects'
// names (dialect_names), made once at start-up.
// clang-format off
const Setting k_settings[] = {
    {"api_key", {"MEM0_API_KEY", "CLAUDE_PLUGIN_OPTION_API_KEY",
                 "CLAUDE_PLUGIN_OPTION_MEM0_API_KEY"}, "", "",
        api_key(), api_key_from_profiles},
    {"user_id", {"PLUGIN_OPTION_USER_ID", "CLAUDE_PLUGIN_OPTION_USER_ID", "MEM0_CODE_USER_ID",
                 "MEM0_USER_ID", "MEM0_RESOLVED_USER_ID", "USER", "USERNAME"}, "", "default",
        user_id()},
    {"backend", {"MEM0_BACKEND"}, "backend", "platform",
        choice<&Config::dialect, parse_backend, backend_name>(dialect_names())},
    {"base_url", {"MEM0_BASE_URL", "MEM0_HOST"}, "base_url", "",
        url<&Config::base_url>(), default_base_url},
    {"shared_memory", {"MEM0_SHARED_MEMORY"}, "shared_memory", "on",
        flag<&Config::shared_memory>()},
    {"team_memory", {"MEM0_TEAM_MEMORY"}, "team_memory", "on",
        flag<&Config::team_memory>(), default_team_memory},
    {"auto_search", {"MEM0_AUTO_SEARCH"}, "auto_search", "on",
        flag<&Config::auto_search>()},
    {"prefetch", {"MEM0_PREFETCH"}, "", "on",
        flag<&Config::prefetch>()},
    {"rerank", {"MEM0_RERANK"}, "", "on",
        loose_flag<&Config::rerank>()},
    {"confidence_threshold", {"MEM0_CONFIDENCE_THRESHOLD"}, "confidence_threshold", "0.3",
        fraction<&Config::confidence_threshold>()},
    {"global_search", {"MEM0_GLOBAL_SEARCH"}, "global_search", "off",
        flag<&Config::global_search>()},
    {"search_plan", {"MEM0_SEARCH_PLAN"}, "search_plan", "lean",
        choice<&Config::search_plan, parse_plan, plan_name>("lean or thorough")},
    {"daily_search_limit", {"MEM0_DAILY_SEARCH_LIMIT"}, "daily_search_limit", "0",
        count<&Config::daily_search_limit>()},
    {"auto_save", {"MEM0_AUTO_SAVE"}, "auto_save", "on",
        flag<&Config::auto_save>()},
    {"daily_add_limit", {"MEM0_DAILY_ADD_LIMIT"}, "daily_add_limit", "0",
        count<&Config::daily_add_limit>()},
    {"retention_session_days", {"MEM0_RETENTION_SESSION_DAYS"}, "retention_session_days", "90",
        count<&Config::retention_session_days>()},
    {"auto_dream", {"MEM0_AUTO_DREAM"}, "auto_dream", "off", flag<&Config::auto_dream>()},
    {"dream_similarity", {"MEM0_DREAM_SIMILARITY"}, "dream_similarity", "0.8",
        fraction<&Config::dream_similarity>()},
    {"block_native_memory", {"MEM0_BLOCK_NATIVE_MEMORY"}, "block_native_memory", "on",
        flag<&Config::block_native_memory>()},
    {"show_recall", {"MEM0_SHOW_RECALL"}, "show_recall", "off",
        flag<&Config::show_recall>()},
    {"timeout_ms", {"MEM0_TIMEOUT_MS"}, "", "5000",
        clamped_ms<&Config::timeout>()},
    {"redact", {"MEM0_REDACT"}, "", "on",
        flag<&Config::redact>()},
    {"debug", {"MEM0_DEBUG"}, "debug", "off",
        loose_flag<&Config::debug>()},
    {"state_dir", {"MEM0_STATE_DIR"}, "", "~/.mem0/state",
        nonempty<&Config::state_dir>(), default_state_dir},
    {"ca_bundle", {"MEM0_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"}, "", "",
        nonempty<&Config::ca_bundle>()},
};
// clang-format on

// What an environment value that was set but not understood adds to the origin of the value
// used instead.
std::string not_understood(std::string_view variable, std::string_view text,
                           std::string_view accepts) {
  return "; " + std::string(variable) + "=" + std::string(text).substr(0, 40) +
         " not understood (" + std::string(accepts) + ")";
}

// Resolve `row` into `c`: its first valid variable, else settings.json, else its default.
// Returns where the value came from.
std::string resolve(Config &c, const Setting &row, const Environment &env,
                    const SettingsFile &file) {
  std::string ignored;
  for (const std::string_view variable : row.env) {
    if (variable.empty()) break;
    const auto value = env.get(variable);
    if (!value) continue;
    const std::string_view text = trim(*value);
    if (row.parser.from_env(c, text, variable)) return "env " + std::string(variable) + ignored;
    if (!text.empty()) ignored += not_understood(variable, text, row.parser.accepts);
  }
  if (!row.key.empty() && row.parser.from_json(c, file.value(row.key)))
    return "settings.json" + ignored;
  if (row.by_default) return row.by_default(c, row) + ignored;
  // Config's own initialisers hold the default: nothing to parse at run time (a unit test checks
  // that they are the table's `fallback`).
  return "default" + ignored;
}

} // namespace

Environment Environment::from_process() {
  Environment env;
  for (const std::string &entry : platform::environment()) {
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos) env.vars.emplace(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return env;
}

std::optional<std::string> Environment::get(std::string_view name) const {
  const auto it = vars.find(name);
  return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::optional<bool> parse_bool(std::string_view value) {
  const std::string v = ascii_lower(trim(value));
  if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
  if (v == "0" || v == "false" || v == "no" || v == "off") return false;
  return std::nullopt;
}

std::optional<std::string> api_key_from_profile(std::string_view text) {
  std::optional<std::string> found;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    if (line.starts_with("export ") || line.starts_with("export\t")) line = trim(line.substr(7));
    constexpr std::string_view name = "MEM0_API_KEY=";
    if (!line.starts_with(name)) continue;
    std::string_view value = trim(line.substr(name.size()));
    if (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
      const char quote = value.front();
      const auto close = value.find(quote, 1);
      value = close == std::string_view::npos ? value.substr(1) : value.substr(1, close - 1);
    } else if (const auto hash = value.find(" #"); hash != std::string_view::npos) {
      value = trim(value.substr(0, hash));
    } else if (const auto tab_hash = value.find("\t#"); tab_hash != std::string_view::npos) {
      value = trim(value.substr(0, tab_hash));
    }
    if (!value.empty() && value.front() == '$') continue; // set from another variable: unknowable
    found = value.empty() ? std::nullopt : std::optional<std::string>(value); // last one wins
  }
  return found;
}

fs::path claude_credentials_file(const Environment &env, const fs::path &home) {
  if (const auto dir = env.get("CLAUDE_CONFIG_DIR"); dir && !dir->empty())
    return fs::path(*dir) / ".credentials.json";
  return home / ".claude" / ".credentials.json";
}

bool is_our_claude_plugin(std::string_view id) {
  // A plugin id is a name and a marketplace of [A-Za-z0-9._-]: anything else, read from a
  // repository's settings, could be a command where it is printed.
  const auto id_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '@';
  };
  if (!std::all_of(id.begin(), id.end(), id_char) || std::count(id.begin(), id.end(), '@') != 1)
    return false;
  const auto at = id.find('@');
  if (at + 1 == id.size()) return false;
  const std::string_view name = id.substr(0, at);
  return name == k_claude_plugin_name || name == std::string(k_claude_plugin_name) + "-npm";
}

std::optional<std::pair<std::string, std::string>>
api_key_from_claude_credentials(const fs::path &path) {
  const auto text = read_small_file(path);
  if (!text) return std::nullopt;
  rapidjson::Document doc;
  parse_json(doc, *text);
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  const auto secrets = doc.FindMember("pluginSecrets");
  if (secrets == doc.MemberEnd() || !secrets->value.IsObject()) return std::nullopt;
  // Members in the file's order; the first installation of this plugin with a key wins.
  for (const auto &plugin : secrets->value.GetObject()) {
    const std::string_view id(plugin.name.GetString(), plugin.name.GetStringLength());
    if (!is_our_claude_plugin(id) || !plugin.value.IsObject()) continue;
    for (const char *option : {"api_key", "mem0_api_key"}) {
      const auto value = plugin.value.FindMember(option);
      if (value != plugin.value.MemberEnd() && value->value.IsString() &&
          value->value.GetStringLength() > 0)
        return std::pair{std::string(id),
                         std::string(value->value.GetString(), value->value.GetStringLength())};
    }
  }
  return std::nullopt;
}

std::string mask_key(std::string_view key) {
  if (key.size() < 12) return "…";
  return std::string(key.substr(0, 3)) + "…" + std::string(key.substr(key.size() - 4));
}

const std::string &Config::origin(std::string_view name) const {
  static const std::string unresolved;
  for (const auto &[setting, origin] : origins)
    if (setting == name) return origin;
  return unresolved;
}

std::span<const Setting> settings_table() { return k_settings; }

Config load_config(const Environment &env) {
  Config c;
  c.home = home_dir(env);
  c.mem0_dir = c.home / ".mem0";
  c.claude_credentials = claude_credentials_file(env, c.home);
  const SettingsFile file(c.mem0_dir / "settings.json");
  c.settings_status = file.status;
  c.origins.reserve(std::size(k_settings));
  for (const Setting &row : k_settings)
    c.origins.emplace_back(row.name, resolve(c, row, env, file));
  return c;
}

bool has_access(const Config &config) {
  // A key that was set but refused (control bytes) is not silently replaced by none.
  return config.api_key ||
         (!config.dialect->traits().requires_key && config.api_key_problem.empty());
}

Result<ApiTarget> api_target(const Config &config) {
  return ApiTarget::make(config.base_url, config.api_key.value_or(""), config.rerank,
                         config.confidence_threshold, *config.dialect);
}

} // namespace mem0
