#include "mem0/config.hpp"
#include "mem0/dialect.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"

#include "util/json.hpp"
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

extern char **environ;

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
  if (const auto home = env.get("HOME"); home && !home->empty()) return *home;
  if (const passwd *pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return "/";
}

// settings.json accessors that check every type.
struct Settings {
  rapidjson::Document doc;
  bool usable = false;

  const rapidjson::Value *find(const char *key) const {
    if (!usable) return nullptr;
    const auto it = doc.FindMember(key);
    return it == doc.MemberEnd() ? nullptr : &it->value;
  }
  std::optional<bool> boolean(const char *key) const {
    const auto *v = find(key);
    return v && v->IsBool() ? std::optional<bool>(v->GetBool()) : std::nullopt;
  }
  std::optional<std::string> string(const char *key) const {
    const auto *v = find(key);
    return v && v->IsString() ? std::optional<std::string>(v->GetString()) : std::nullopt;
  }
  std::optional<double> number(const char *key) const {
    const auto *v = find(key);
    return v && v->IsNumber() ? std::optional<double>(v->GetDouble()) : std::nullopt;
  }
};

std::optional<Backend> parse_backend(std::string_view s) {
  const std::string v = ascii_lower(trim(s));
  if (v == "platform") return Backend::platform;
  if (v == "selfhosted" || v == "self-hosted") return Backend::selfhosted;
  return std::nullopt;
}

std::optional<SearchPlan> parse_plan(std::string_view s) {
  const std::string v = ascii_lower(trim(s));
  if (v == "lean") return SearchPlan::lean;
  if (v == "thorough") return SearchPlan::thorough;
  return std::nullopt;
}

// The first key found wins, from the environment, else the shell profiles. A key with control
// bytes (a CR/LF would end the Authorization header and start another) is no key at all, not a
// reason to try the next source: the problem names where it came from, never the value.
void resolve_api_key(Config &c, const Environment &env) {
  auto take = [&c](std::string key, std::string source, std::string label) {
    const bool control =
        std::any_of(key.begin(), key.end(), [](unsigned char b) { return b < 0x20 || b == 0x7F; });
    if (control) {
      c.api_key_problem = label + " contains control characters (such as a line break): "
                                  "ignored, so there is no API key";
      return;
    }
    c.api_key = std::move(key);
    c.api_key_source = std::move(source);
  };
  for (const char *name :
       {"MEM0_API_KEY", "CLAUDE_PLUGIN_OPTION_API_KEY", "CLAUDE_PLUGIN_OPTION_MEM0_API_KEY"})
    if (auto v = env.get(name); v && !trim(*v).empty())
      return take(std::string(trim(*v)), std::string("env ") + name, name);
  for (const char *profile : {".zshrc", ".bashrc", ".zprofile", ".bash_profile", ".profile"})
    if (const auto text = read_small_file(c.home / profile))
      if (auto key = api_key_from_profile(*text))
        return take(std::move(*key), std::string("~/") + profile,
                    std::string("MEM0_API_KEY in ~/") + profile);
}

} // namespace

Environment Environment::from_process() {
  Environment env;
  for (char **e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
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

Config load_config(const Environment &env) {
  Config c;
  c.home = home_dir(env);
  c.mem0_dir = c.home / ".mem0";

  Settings s;
  if (const auto text = read_small_file(c.mem0_dir / "settings.json")) {
    parse_json(s.doc, *text);
    s.usable = !s.doc.HasParseError() && s.doc.IsObject();
    c.settings_status = s.doc.HasParseError() ? "invalid JSON" : s.usable ? "ok" : "not an object";
  } else {
    c.settings_status = "not found";
  }

  resolve_api_key(c, env);

  for (const char *name : {"MEM0_USER_ID", "USER", "USERNAME"})
    if (auto v = env.get(name); v && !trim(*v).empty()) {
      c.user_id = std::string(trim(*v));
      c.user_id_source = std::string("env ") + name;
      break;
    }
  if (c.user_id.empty()) {
    c.user_id = "default";
    c.user_id_source = "default";
  }

  const auto backend_env = env.get("MEM0_BACKEND");
  if (const auto b = backend_env ? parse_backend(*backend_env) : std::nullopt) {
    c.backend = *b;
    c.backend_source = "env MEM0_BACKEND";
  } else if (const auto from_settings = parse_backend(s.string("backend").value_or(""))) {
    c.backend = *from_settings;
    c.backend_source = "settings.json";
  }
  if (backend_env && !parse_backend(*backend_env) && !trim(*backend_env).empty())
    c.backend_source += "; MEM0_BACKEND=" + std::string(trim(*backend_env)).substr(0, 40) +
                        " not understood (platform or selfhosted)";
  if (const auto &d = dialect_for(c.backend).traits(); d.default_base_url != c.base_url) {
    c.base_url = std::string(d.default_base_url);
    c.base_url_source = "default for " + std::string(d.name);
  }

  if (auto v = env.get("MEM0_BASE_URL"); v && !trim(*v).empty()) {
    c.base_url = std::string(trim(*v));
    c.base_url_source = "env MEM0_BASE_URL";
  } else if (auto h = env.get("MEM0_HOST"); h && !trim(*h).empty()) {
    c.base_url = std::string(trim(*h));
    c.base_url_source = "env MEM0_HOST";
  } else if (auto b = s.string("base_url"); b && !b->empty()) {
    c.base_url = *b;
    c.base_url_source = "settings.json";
  }
  while (c.base_url.ends_with('/'))
    c.base_url.pop_back();

  auto flag = [&](const char *env_name, const char *key, bool fallback) {
    if (auto v = env.get(env_name))
      if (auto b = parse_bool(*v)) return *b;
    if (key)
      if (auto b = s.boolean(key)) return *b;
    return fallback;
  };
  c.auto_search = flag("MEM0_AUTO_SEARCH", "auto_search", true);
  c.prefetch = flag("MEM0_PREFETCH", nullptr, true);
  c.global_search = flag("MEM0_GLOBAL_SEARCH", "global_search", false);
  c.redact = flag("MEM0_REDACT", nullptr, true);
  c.shared_memory = flag("MEM0_SHARED_MEMORY", "shared_memory", true);

  if (auto v = env.get("MEM0_RERANK")) {
    const std::string r = ascii_lower(trim(*v));
    c.rerank = !(r.empty() || r == "0" || r == "false" || r == "no" || r == "off");
  }
  if (auto v = env.get("MEM0_DEBUG")) {
    const std::string d = ascii_lower(trim(*v));
    c.debug = !(d.empty() || d == "0" || d == "false" || d == "no" || d == "off");
  } else {
    c.debug = s.boolean("debug").value_or(false);
  }

  if (auto v = env.get("MEM0_CONFIDENCE_THRESHOLD"); v && parse_double(*v)) {
    c.threshold = *parse_double(*v);
  } else if (auto t = s.number("confidence_threshold"); t && *t >= 0.0 && *t <= 1.0) {
    c.threshold = *t;
  }

  if (auto v = env.get("MEM0_TIMEOUT_MS"))
    if (auto ms = parse_long(*v))
      c.timeout = std::chrono::milliseconds(std::clamp(*ms, 100L, 30000L));

  if (auto v = env.get("MEM0_SEARCH_PLAN"); v && parse_plan(*v)) {
    c.plan = *parse_plan(*v);
  } else if (auto p = s.string("search_plan"); p && parse_plan(*p)) {
    c.plan = *parse_plan(*p);
  }

  // A count: the environment, else a non-negative number in settings.json, else `fallback`.
  auto count = [&](const char *env_name, const char *key, long fallback) {
    if (auto v = env.get(env_name))
      if (auto n = parse_long(*v)) return *n;
    if (auto n = s.number(key); n && *n >= 0 && *n < 1e12) return static_cast<long>(*n);
    return fallback;
  };
  c.daily_limit = count("MEM0_DAILY_SEARCH_LIMIT", "daily_search_limit", 0);
  c.daily_add_limit = count("MEM0_DAILY_ADD_LIMIT", "daily_add_limit", 0);
  c.retention_session_days = count("MEM0_RETENTION_SESSION_DAYS", "retention_session_days", 90);
  c.auto_save = flag("MEM0_AUTO_SAVE", "auto_save", true);
  c.block_native_memory = flag("MEM0_BLOCK_NATIVE_MEMORY", "block_native_memory", true);
  c.show_recall = flag("MEM0_SHOW_RECALL", "show_recall", false);

  if (auto v = env.get("MEM0_STATE_DIR"); v && !trim(*v).empty())
    c.state_dir = std::string(trim(*v));
  else
    c.state_dir = c.mem0_dir / "state";

  for (const char *name : {"MEM0_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"})
    if (auto v = env.get(name); v && !trim(*v).empty()) {
      c.ca_bundle = std::string(trim(*v));
      break;
    }
  return c;
}

bool has_access(const Config &config) {
  // A key that was set but refused (control bytes) is not silently replaced by none.
  return config.api_key ||
         (!dialect_for(config.backend).traits().requires_key && config.api_key_problem.empty());
}

Result<ApiTarget> api_target(const Config &config) {
  return ApiTarget::make(config.base_url, config.api_key.value_or(""), config.rerank,
                         config.threshold, config.backend);
}

} // namespace mem0
