#pragma once
#include "mem0/api.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

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
// default.
struct Config {
  std::filesystem::path home;
  std::filesystem::path mem0_dir; // ~/.mem0
  std::optional<std::string> api_key;
  std::string api_key_source;
  // Why the key that was set is not used (control bytes in it), naming its variable and source
  // but never the value; empty when there is none. Logged once by the Runtime, shown by doctor.
  std::string api_key_problem;
  std::string user_id;
  std::string user_id_source;
  std::string base_url = "https://api.mem0.ai"; // http://localhost:8888 for a self-hosted server
  std::string base_url_source = "default";
  Backend backend = Backend::platform;
  std::string backend_source = "default";
  bool shared_memory = true; // search the project's shared memory too (docs/api.md#shared-memory)
  bool auto_search = true;
  bool prefetch = true;
  bool rerank = true;
  bool global_search = false;
  bool debug = false;
  bool redact = true;
  double threshold = 0.3;
  std::chrono::milliseconds timeout{5000};
  SearchPlan plan = SearchPlan::lean;
  long daily_limit = 0;             // 0 = no cap
  bool auto_save = true;            // capture (docs/capture.md)
  long daily_add_limit = 0;         // 0 = no cap
  long retention_session_days = 90; // session summaries expire after this many days
  bool block_native_memory = true;  // the guard blocks writes to Claude's own memory files
  bool show_recall = false;         // a visible `mem0: N memories recalled` per recall
  std::filesystem::path state_dir;
  std::optional<std::string> ca_bundle; // a PEM file or a hashed directory
  std::string settings_status;          // "ok", "not found", "invalid JSON", "not an object"
};

// Resolve the configuration. Reads settings.json and, only when no key is in the environment,
// the shell profiles; never spawns a process.
Config load_config(const Environment &env);

// `1,true,yes,on` → true, `0,false,no,off` → false (case-insensitive); nullopt otherwise.
std::optional<bool> parse_bool(std::string_view value);

// The value of the last literal `MEM0_API_KEY=` line of a shell profile (optional `export`,
// quotes and trailing comment stripped); values starting with `$` are ignored.
std::optional<std::string> api_key_from_profile(std::string_view text);

// Whether requests can be made at all: with a key, or to a self-hosted server, which may run
// without authentication (docs/configuration.md#api-key).
bool has_access(const Config &config);

// The API target of `config`: an error when there is no key (for the platform) or the base URL
// is refused.
Result<ApiTarget> api_target(const Config &config);

} // namespace mem0
