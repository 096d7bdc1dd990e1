// The pure helpers of the mem0-hooks CLI (docs/cli.md): id detection, short-id resolution, key
// masking and the Claude Code settings merge.
#include "tests/unit/catch.hpp"

#include "cli/cli.hpp"
#include "common/hook_table.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <vector>

using namespace mem0;
using namespace mem0::cli;

namespace {

const std::string k_ell = "\xE2\x80\xA6"; // U+2026 HORIZONTAL ELLIPSIS

const std::filesystem::path k_bin = "/opt/mem0/bin";

SessionState session_with(std::vector<std::string> injected) {
  SessionState s;
  s.injected = std::move(injected);
  return s;
}

// The JSON text re-serialised compactly, member order kept: equal for equal structures.
std::string canonical(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  REQUIRE_FALSE(doc.HasParseError());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  doc.Accept(w);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string merged(std::string_view current, bool remove = false,
                   const std::filesystem::path &bin = k_bin) {
  const auto result = merge_settings(current, bin, remove);
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
  for (const HookSpec &h : k_hooks)
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
    for (const HookSpec &h : k_hooks) {
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
  const std::string old = R"({"hooks":{"UserPromptSubmit":[{"hooks":[
      {"type":"command","command":"/old/place/on_user_prompt","timeout":30}]}],
    "PreToolUse":[{"matcher":"Read","hooks":[
      {"type":"command","command":"/old/place/on_file_read","timeout":30}]}]}})";
  const std::string out = merged(old);
  CHECK(commands_of(out, "UserPromptSubmit") ==
        std::vector<std::string>{"/opt/mem0/bin/on_user_prompt"});
  CHECK(commands_of(out, "PreToolUse") == ours("PreToolUse"));
  CHECK(out.find("/old/place") == std::string::npos);
}

TEST_CASE("cli: merge_settings refuses what is not a settings object", "[cli][merge]") {
  for (const char *bad : {"{\"model\": \"opus\",", "not json", "[1, 2]", "42", "\"text\"", "null",
                          "{\"hooks\": []}", "{\"hooks\": \"none\"}", "{} trailing"}) {
    INFO("input: " << bad);
    for (bool remove : {false, true}) {
      const auto result = merge_settings(bad, k_bin, remove);
      REQUIRE_FALSE(result.has_value());
      CHECK_FALSE(result.error().empty());
    }
  }
  CHECK(merge_settings("[1, 2]", k_bin, false).error() == "not a JSON object");
  CHECK(merge_settings("{\"hooks\": []}", k_bin, false).error() == "\"hooks\" is not an object");
  CHECK(merge_settings("{", k_bin, false).error() == "not valid JSON");
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
  Config config;
  config.home = "/home/someone";
  const auto candidates = settings_candidates(config, "/work/project");
  CHECK(candidates ==
        std::vector<std::filesystem::path>{"/work/project/.claude/settings.local.json",
                                           "/work/project/.claude/settings.json",
                                           "/home/someone/.claude/settings.json"});
}
