// The hook table (runtime/table.hpp) is the one description of the hook set: the plugin's
// hooks.json must wire exactly its rows.
#include "runtime/table.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/version.hpp"

#include <rapidjson/document.h>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

using namespace mem0;

namespace {

using Row = std::tuple<std::string, std::string, std::string, int, std::string>;

std::string member_or_empty(const rapidjson::Value &object, const char *name) {
  return std::string(string_member(object, name).value_or(""));
}

// The command hooks.json runs for `executable`: build/bin/<executable> when it is there, else
// scripts/first-run.sh, which says once per session that the hooks are not built (a fresh
// install never fails every prompt with "not found"). exec leaves no shell waiting.
constexpr std::string_view k_prefix = "h=\"${CLAUDE_PLUGIN_ROOT}\"/build/bin/";

std::string command_for(const std::string &executable) {
  return std::string(k_prefix) + executable + " && [ -x \"$h\" ] || exec sh " +
         "\"${CLAUDE_PLUGIN_ROOT}\"/scripts/first-run.sh " + executable +
         "; exec \"${CLAUDE_PLUGIN_ROOT}\"/build/bin/" + executable;
}

// The rows a hooks file (`doc`, Claude-shaped) wires, each command checked to be
// `command_of(executable)` with the executable read after `prefix`.
template <class Command>
std::set<Row> wired_rows(const rapidjson::Document &doc, std::string_view prefix,
                         Command command_of) {
  std::set<Row> wired;
  for (const auto &event : doc["hooks"].GetObject())
    for (const auto &group : event.value.GetArray())
      for (const auto &hook : group["hooks"].GetArray()) {
        const std::string command = member_or_empty(hook, "command");
        INFO("command: " << command);
        CHECK(member_or_empty(hook, "type") == "command");
        REQUIRE(command.starts_with(prefix));
        const std::string executable =
            command.substr(prefix.size(), command.find(' ', prefix.size()) - prefix.size());
        CHECK(command == command_of(executable)); // the same executable in all four places
        REQUIRE(hook.HasMember("timeout"));
        wired.emplace(executable, event.name.GetString(), member_or_empty(group, "matcher"),
                      hook["timeout"].GetInt(), member_or_empty(hook, "statusMessage"));
      }
  return wired;
}

// The rows of `agent` in the hook table.
std::set<Row> table_rows(std::string_view agent) {
  std::set<Row> table;
  for (const HookSpec &h : hooks_of(agent))
    table.emplace(h.executable, h.event, h.matcher, h.timeout_seconds, h.status_message);
  return table;
}

} // namespace

TEST_CASE("hook table: hooks.json wires exactly the rows of the table") {
  const auto text = read_small_file(std::string(testing::k_source_dir) + "/hooks.json");
  REQUIRE(text.has_value());
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, *text));
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("hooks"));

  CHECK(wired_rows(doc, k_prefix, command_for) == table_rows("claude-code"));
  // The script the commands fall back on is part of the plugin.
  CHECK(read_small_file(std::string(testing::k_source_dir) + "/scripts/first-run.sh").has_value());
}

// The Codex plugin's hooks (.codex-plugin/plugin.json names hooks/codex-hooks.json): the same
// fallback on scripts/first-run.sh, from ${PLUGIN_ROOT} (Codex's copy of the plugin), each
// executable run with --agent codex.
namespace {

constexpr std::string_view k_codex_prefix = "h=\"${PLUGIN_ROOT}\"/build/bin/";

std::string codex_command_for(const std::string &executable) {
  return std::string(k_codex_prefix) + executable + " && [ -x \"$h\" ] || exec sh " +
         "\"${PLUGIN_ROOT}\"/scripts/first-run.sh " + executable +
         "; exec \"${PLUGIN_ROOT}\"/build/bin/" + executable + " --agent codex";
}

} // namespace

TEST_CASE("hook table: the Codex plugin wires exactly the Codex rows") {
  const std::string root(testing::k_source_dir);
  const auto manifest_text = read_small_file(root + "/.codex-plugin/plugin.json");
  REQUIRE(manifest_text.has_value());
  rapidjson::Document manifest;
  REQUIRE(parse_json(manifest, *manifest_text));
  REQUIRE(manifest.IsObject());
  CHECK(member_or_empty(manifest, "name") == "mem0-native-hooks");
  CHECK(member_or_empty(manifest, "hooks") == "./hooks/codex-hooks.json");
  // Codex names its copy of the plugin after this version: the project's one (Claude Code's
  // manifest).
  CHECK(member_or_empty(manifest, "version") == std::string(version()));

  // The marketplace Codex reads at the repository's root offers the root as the plugin.
  const auto market_text = read_small_file(root + "/.agents/plugins/marketplace.json");
  REQUIRE(market_text.has_value());
  rapidjson::Document market;
  REQUIRE(parse_json(market, *market_text));
  REQUIRE(market.IsObject());
  REQUIRE(market.HasMember("plugins"));
  REQUIRE(market["plugins"].IsArray());
  REQUIRE(market["plugins"].Size() == 1);
  const auto &entry = market["plugins"][0];
  CHECK(member_or_empty(entry, "name") == "mem0-native-hooks");
  REQUIRE(entry.HasMember("source"));
  CHECK(member_or_empty(entry["source"], "source") == "local");
  CHECK(member_or_empty(entry["source"], "path") == "./");

  const auto text = read_small_file(root + "/hooks/codex-hooks.json");
  REQUIRE(text.has_value());
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, *text));
  REQUIRE(doc.IsObject());
  REQUIRE(doc.HasMember("hooks"));
  // Codex refuses a hooks file with any other member at its root.
  for (const auto &member : doc.GetObject()) {
    const std::string name = member.name.GetString();
    CHECK((name == "hooks" || name == "description"));
  }

  CHECK(wired_rows(doc, k_codex_prefix, codex_command_for) == table_rows("codex"));
}

TEST_CASE("hook table: lookups by executable and event") {
  REQUIRE(find_hook("claude-code", "on_user_prompt") != nullptr);
  CHECK(find_hook("claude-code", "on_user_prompt")->event == "UserPromptSubmit");
  CHECK(find_hook("claude-code", "not_a_hook") == nullptr);
  CHECK(find_hook("no-such-agent", "on_user_prompt") == nullptr);
  CHECK(hook_handles("claude-code", "on_file_read", "PreToolUse"));
  CHECK_FALSE(hook_handles("claude-code", "on_file_read", "UserPromptSubmit"));
  CHECK(is_hook_executable("on_stop"));
  CHECK_FALSE(is_hook_executable("not_a_hook"));
  for (const HookSpec &h : k_hooks) {
    CAPTURE(h.agent, h.executable);
    CHECK(h.timeout_seconds > 0);
    // Every row's agent has an adapter, and every row's executable is one of hooks/.
    CHECK(find_agent(h.agent) != nullptr);
    CHECK(std::filesystem::exists(std::string(testing::k_source_dir) + "/hooks/" +
                                  std::string(h.executable) + "/main.cpp"));
  }
}

TEST_CASE("agents: Claude Code first, each found by its name, sessions keyed per agent") {
  REQUIRE(!agents().empty());
  CHECK(agents().front() == &claude_code());
  for (const Agent *a : agents()) {
    CAPTURE(a->name);
    CHECK(find_agent(a->name) == a);
    CHECK(!a->display_name.empty());
    CHECK((a->prompt && a->tool && a->session_start && a->stop && a->compact && a->session_end &&
           a->render && a->transcript));
  }
  CHECK(find_agent("nope") == nullptr);
  // Claude Code's session files keep their names; another agent's ids are prefixed.
  CHECK(agent_session(claude_code(), "abc-1") == "abc-1");
  CHECK(agent_session(claude_code(), "") == "");
}
