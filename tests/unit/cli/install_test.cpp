// Install, uninstall and doctor per agent (docs/cli.md#install-and-uninstall): the merge and
// unmerge of each hooks file format and of the memory tools' server entry (TOML and JSON), and the
// commands over a scratch home. Codex and Gemini CLI are stood in for by Agent values made here
// (Agent is an aggregate), with Claude Code's rows.
#include "tests/unit/catch.hpp"
#include "tests/unit/cli/cli_home.hpp"
#include "tests/unit/test_support.hpp"

#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/install.hpp"
#include "cli/mcp.hpp"
#include "cli/memories.hpp"
#include "runtime/agent.hpp"
#include "runtime/table.hpp"
#include "util/files.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

using namespace mem0;
using namespace mem0::cli;
namespace mt = mem0::testing;
using mt::canonical;
namespace fs = std::filesystem;

namespace {

const std::filesystem::path k_bin = "/opt/mem0/bin";

// Claude Code's adapter under another name and hooks file format.
Agent agent_like(std::string_view name, HooksFormat format) {
  Agent a = claude_code();
  a.name = name;
  a.files.format = format;
  return a;
}

// `agent`'s hooks file with the hooks of `rows` merged in (or removed), written in the POSIX form
// on every system: the cases of the Windows forms are the [windows] ones below.
std::string merge(std::string_view current, const Agent &agent, const std::vector<HookSpec> &rows,
                  bool remove = false, const std::filesystem::path &bin = k_bin) {
  const auto result = merge_hooks(current, agent, rows, bin, remove, false);
  INFO("input: " << current);
  REQUIRE(result.has_value());
  return *result;
}

rapidjson::Document parsed(const std::string &text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  REQUIRE(doc.IsObject());
  return doc;
}

} // namespace

TEST_CASE("install: another agent's Claude-shaped file runs each hook with --agent",
          "[cli][install][agents]") {
  const Agent codex = agent_like("codex", k_claude_hooks);
  const auto rows = rows_of(claude_code());
  const std::string text = merge("", codex, rows);
  const auto doc = parsed(text);
  const auto &groups = doc["hooks"]["PreToolUse"];
  REQUIRE(groups.IsArray());
  REQUIRE(groups.Size() == 2);
  CHECK(std::string(groups[0]["matcher"].GetString()) == "Read");
  const auto &hook = groups[0]["hooks"][0];
  CHECK(std::string(hook["type"].GetString()) == "command");
  CHECK(std::string(hook["command"].GetString()) == "/opt/mem0/bin/on_file_read --agent codex");
  CHECK(hook["timeout"].GetInt() == 7);         // seconds
  CHECK_FALSE(hook.HasMember("statusMessage")); // the row has none
  // A row's status message is shown while the hook runs, as the plugin's hooks.json has it.
  const auto &recall = doc["hooks"]["UserPromptSubmit"][0]["hooks"][0];
  CHECK(std::string(recall["statusMessage"].GetString()) == "Recalling memories from mem0");
  CHECK(our_hooks(text).size() == rows.size());
  CHECK(merge(text, codex, rows) == text); // idempotent
  CHECK(canonical(merge(text, codex, rows, true)) == canonical("{}"));
  // Claude Code's own command keeps no flag.
  CHECK(hook_command(claude_code(), k_bin, "on_stop", CommandShell::posix) ==
        "/opt/mem0/bin/on_stop");
}

TEST_CASE("install: Gemini CLI's settings get named hooks with timeouts in milliseconds",
          "[cli][install][agents]") {
  const Agent gemini = agent_like("gemini-cli", k_gemini_hooks);
  const auto rows = rows_of(claude_code());
  const std::string original =
      R"({"security":{"auth":{"selectedType":"gemini-api-key"}},"hooks":{"BeforeTool":[)"
      R"({"matcher":"write_file","hooks":[{"type":"command","command":"lint.sh","name":"lint",)"
      R"("timeout":3000}]}]},"mcpServers":{"mem0":{"command":"mem0-hooks","args":["mcp"]}}})";
  const std::string text = merge(original, gemini, rows);
  const auto doc = parsed(text);
  const auto &hook = doc["hooks"]["UserPromptSubmit"][0]["hooks"][0];
  CHECK(std::string(hook["name"].GetString()) == "mem0-on_user_prompt");
  CHECK(hook["timeout"].GetInt() == 8000);
  CHECK_FALSE(hook.HasMember("statusMessage")); // Gemini CLI's hooks have none
  CHECK(std::string(hook["command"].GetString()) ==
        "/opt/mem0/bin/on_user_prompt --agent gemini-cli");
  CHECK(doc["hooks"]["BeforeTool"].Size() == 1);            // the other tool's group stays
  CHECK(doc["security"]["auth"].HasMember("selectedType")); // and every other setting
  CHECK(merge(text, gemini, rows) == text);
  CHECK(canonical(merge(text, gemini, rows, true)) == canonical(original));
}

TEST_CASE("install: Cursor's hooks.json gets flat entries and a version",
          "[cli][install][agents]") {
  const auto rows = rows_of(cursor());
  REQUIRE_FALSE(rows.empty());
  const std::string text = merge("", cursor(), rows);
  CHECK(text.find("\"version\"") < text.find("\"hooks\""));
  const auto doc = parsed(text);
  CHECK(doc["version"].GetInt() == 1);
  const auto &post = doc["hooks"]["postToolUse"];
  REQUIRE(post.Size() == 2);
  CHECK(std::string(post[0]["command"].GetString()) == "/opt/mem0/bin/on_file_read --agent cursor");
  CHECK(std::string(post[0]["matcher"].GetString()) == "Read");
  CHECK(post[0]["timeout"].GetInt() == 8);
  CHECK_FALSE(post[0].HasMember("hooks"));
  CHECK_FALSE(post[0].HasMember("type"));
  CHECK_FALSE(doc["hooks"]["sessionStart"][0].HasMember("matcher"));
  CHECK(our_hooks(text).size() == rows.size());
  CHECK(merge(text, cursor(), rows) == text);

  SECTION("other hooks and the version are kept; uninstall removes only ours") {
    const std::string original =
        R"({"version":1,"hooks":{"afterFileEdit":[{"command":"./hooks/format.sh"}],)"
        R"("postToolUse":[{"command":"./hooks/audit.sh"}]}})";
    const std::string with = merge(original, cursor(), rows);
    const auto d = parsed(with);
    CHECK(d["hooks"]["postToolUse"].Size() == 3);
    CHECK(std::string(d["hooks"]["postToolUse"][0]["command"].GetString()) == "./hooks/audit.sh");
    CHECK(canonical(merge(with, cursor(), rows, true)) == canonical(original));
  }
  SECTION("an install under a path with spaces is recognised as ours") {
    const std::string spaced = merge("", cursor(), rows, false, "/opt/my tools/bin");
    CHECK(our_hooks(spaced).front().second ==
          "'/opt/my tools/bin/on_session_start' --agent cursor");
    CHECK(canonical(merge(spaced, cursor(), rows, true)) == canonical(R"({"version":1})"));
  }
  SECTION("a file that is not a hooks object is refused") {
    CHECK_FALSE(merge_hooks("{\"hooks\":[]}", cursor(), rows, k_bin, false).has_value());
    CHECK_FALSE(merge_hooks("{", cursor(), rows, k_bin, true).has_value());
  }
}

TEST_CASE("install: Copilot CLI's hooks file gets flat bash entries and a version",
          "[cli][install][agents]") {
  const auto rows = rows_of(copilot());
  REQUIRE_FALSE(rows.empty());
  const std::string text = merge("", copilot(), rows);
  const auto doc = parsed(text);
  CHECK(doc["version"].GetInt() == 1);
  const auto &post = doc["hooks"]["postToolUse"];
  REQUIRE(post.Size() == 2);
  CHECK(std::string(post[0]["type"].GetString()) == "command");
  CHECK(std::string(post[0]["bash"].GetString()) == "/opt/mem0/bin/on_file_read --agent copilot");
  CHECK(post[0]["timeoutSec"].GetInt() == 8);
  CHECK_FALSE(post[0].HasMember("command"));
  CHECK_FALSE(post[0].HasMember("matcher"));
  CHECK(doc["hooks"]["agentStop"].Size() == 2); // on_stop and on_compact
  CHECK(our_hooks(text).size() == rows.size());
  CHECK(merge(text, copilot(), rows) == text);

  SECTION("other hooks are kept; uninstall removes only ours") {
    const std::string original =
        R"({"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"./audit.sh"}]}})";
    const std::string with = merge(original, copilot(), rows);
    CHECK(parsed(with)["hooks"]["postToolUse"].Size() == 3);
    CHECK(canonical(merge(with, copilot(), rows, true)) == canonical(original));
  }
}

// How many entries of `text` run a program of `dir` (any of its commands).
std::size_t entries_in(const std::string &text, std::string_view dir) {
  std::size_t n = 0;
  for (std::size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at + 1))
    ++n;
  return n;
}

TEST_CASE("install: another tool's entries whose programs have our names stay, in every format",
          "[cli][install][agents]") {
  // Another tool, installed: its directory holds programs with our file names (on_stop, ...).
  mt::TempDir tmp;
  const fs::path other = tmp / "opt" / "othertool" / "bin";
  fs::create_directories(other);
  for (const HookSpec &h : rows_of(claude_code()))
    mt::write_file(other / std::string(h.executable), "#!/bin/sh\n");
  const std::string other_dir = mt::backslashes_escaped(other.string()); // as JSON writes it
  for (const Agent *agent : agents()) {
    if (!agent->files.shim.empty()) continue;
    INFO(agent->name);
    const auto rows = rows_of(*agent);
    // Its entries in this agent's format, without our name mark.
    std::string theirs = merge("", *agent, rows, false, other);
    for (std::size_t at = theirs.find("\"mem0-"); at != std::string::npos;
         at = theirs.find("\"mem0-", at))
      theirs.replace(at, 6, "\"other-");
    const std::size_t count = entries_in(theirs, other_dir);
    REQUIRE(count >= rows.size());
    const std::string installed = merge(theirs, *agent, rows);
    CHECK(entries_in(installed, other_dir) == count);
    CHECK(entries_in(installed, "/opt/mem0/bin/") >= rows.size());
    const std::string removed = merge(installed, *agent, rows, true);
    CHECK(entries_in(removed, other_dir) == count);
    CHECK(entries_in(removed, "/opt/mem0/bin/") == 0);
    const std::string again = merge(removed, *agent, rows);
    CHECK(entries_in(again, other_dir) == count);
    CHECK(merge(again, *agent, rows) == again); // ours once
  }
}

TEST_CASE("install --agent: the agent's user or project file, once", "[cli][install][agents]") {
  mt::CliHome h;
  const auto user = h.f.home / ".cursor" / "hooks.json";
  CHECK(h.run({"install", "--agent", "cursor"}) == k_ok);
  const auto text = read_small_file(user);
  REQUIRE(text.has_value());
  CHECK(our_hooks(*text).size() == rows_of(cursor()).size());
  CHECK(mt::contains(h.out.str(), "Cursor reloads hooks.json by itself"));
  CHECK_FALSE(std::filesystem::exists(h.f.home / ".claude" / "settings.json"));
  CHECK(h.run({"install", "--agent", "cursor"}) == k_ok);
  CHECK(mt::contains(h.out.str(), "already up to date"));
  CHECK(read_small_file(user) == text);

  CHECK(h.run({"install", "--agent", "cursor", "--project"}) == k_ok);
  CHECK(read_small_file(h.f.project / ".cursor" / "hooks.json").has_value());
  CHECK(h.run({"uninstall", "--agent", "cursor"}) == k_ok);
  CHECK(our_hooks(read_small_file(user).value()).empty());

  CHECK(h.run({"install", "--agent", "nope"}) == k_usage);
  CHECK(mt::contains(h.err.str(), "unknown agent 'nope'"));
}

// [no-wine]: a #!/bin/sh script stands in for Claude Code's program, and Windows runs no script as
// a program (docs/windows.md#testing-under-wine).
TEST_CASE("install --agent all: every agent found, by its program or its directory",
          "[cli][install][agents][no-wine]") {
  mt::CliHome h;
  CHECK(h.run({"install", "--agent", "all"}) == k_failure); // none found
  std::filesystem::create_directories(h.f.home / ".cursor");
  CHECK(h.run({"install", "--agent", "all"}) == k_ok);
  CHECK(read_small_file(h.f.home / ".cursor" / "hooks.json").has_value());
  CHECK_FALSE(std::filesystem::exists(h.f.home / ".claude" / "settings.json"));

  // A program on PATH counts too.
  const auto path = h.f.home / "path";
  mt::write_file(path / "claude", "#!/bin/sh\necho '9.9.9 (Claude Code)'\n");
  std::filesystem::permissions(path / "claude", std::filesystem::perms::owner_all);
  h.f.set_env("PATH", path.string());
  CHECK(h.run({"install", "--agent", "all"}) == k_ok);
  CHECK(our_hooks(read_small_file(h.f.home / ".claude" / "settings.json").value()).size() ==
        rows_of(claude_code()).size());

  SECTION("doctor: a row per agent found, its version, its hooks and memory tools") {
    h.run({"doctor"});
    const std::string out = h.out.str();
    INFO(out);
    CHECK(mt::contains(out, "agent       Claude Code: 9.9.9 (Claude Code) (" +
                                (path / "claude").string() + ")"));
    CHECK(mt::contains(out, "agent       Cursor: cursor-agent not on PATH"));
    CHECK(mt::contains(out, "  hooks         wired in " +
                                (h.f.home / ".cursor" / "hooks.json").string()));
    // install registered Cursor's memory tools too (docs/cli.md#memory-tools).
    CHECK(mt::contains(out, "  memory tools  registered in " +
                                (h.f.home / ".cursor" / "mcp.json").string()));
    // Cursor runs Claude Code's hooks as well: both wired is a warning.
    CHECK(mt::contains(out, "warning: Cursor also runs Claude Code's hooks"));
  }
  SECTION("doctor: Cursor's memory tools registered, and its hooks in both files") {
    mt::write_file(h.f.home / ".cursor" / "mcp.json",
                   R"({"mcpServers":{"mem0":{"command":"mem0-hooks","args":["mcp"]}}})");
    CHECK(h.run({"uninstall"}) == k_ok); // Claude Code's
    CHECK(h.run({"install", "--agent", "cursor", "--project"}) == k_ok);
    h.run({"doctor"});
    const std::string out = h.out.str();
    INFO(out);
    CHECK(mt::contains(out, "  memory tools  registered in "));
    CHECK(mt::contains(out, "warning: Cursor runs the mem0 hooks twice"));
    CHECK_FALSE(mt::contains(out, "third-party hooks"));
  }
}

TEST_CASE("install --agent copilot: its hooks file and mcp-config.json under COPILOT_HOME",
          "[cli][install][agents]") {
  mt::CliHome h;
  const auto dir = h.f.home / "copilot-home";
  h.f.set_env("COPILOT_HOME", dir.string());
  CHECK(h.run({"install", "--agent", "copilot"}) == k_ok);
  const auto hooks = read_small_file(dir / "hooks" / "mem0.json");
  REQUIRE(hooks.has_value());
  CHECK(our_hooks(*hooks).size() == rows_of(copilot()).size());
  CHECK(registers_memory_tools(dir / "mcp-config.json", McpFormat::json));
  h.run({"doctor"});
  INFO(h.out.str());
  CHECK(mt::contains(h.out.str(),
                     "  hooks         wired in " + (dir / "hooks" / "mem0.json").string()));
  CHECK(h.run({"uninstall", "--agent", "copilot"}) == k_ok);
  CHECK(our_hooks(read_small_file(dir / "hooks" / "mem0.json").value_or("")).empty());
  CHECK_FALSE(registers_memory_tools(dir / "mcp-config.json", McpFormat::json));
}

// [no-wine]: a #!/bin/sh script stands in for the agent's program, and Windows runs no script as
// a program (docs/windows.md#testing-under-wine).
TEST_CASE("doctor: an agent's program that does not answer --version in time is cut short",
          "[cli][doctor][agents][no-wine]") {
  mt::CliHome h;
  const auto path = h.f.home / "path";
  mt::write_file(path / "cursor-agent", "#!/bin/sh\nexec sleep 30\n");
  std::filesystem::permissions(path / "cursor-agent", std::filesystem::perms::owner_all);
  h.f.set_env("PATH", path.string());
  const auto start = std::chrono::steady_clock::now();
  h.run({"doctor"});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(mt::contains(h.out.str(),
                     "agent       Cursor: " + (path / "cursor-agent").string() + " (no version)"));
  CHECK(mt::contains(h.out.str(), "  hooks         not wired (mem0-hooks install --agent cursor)"));
}

// [no-wine]: a #!/bin/sh script stands in for the agent's program, and Windows runs no script as
// a program (docs/windows.md#testing-under-wine).
TEST_CASE("doctor: an agent's version is the first line its program prints",
          "[cli][doctor][agents][no-wine]") {
  mt::CliHome h;
  const auto path = h.f.home / "path";
  mt::write_file(path / "cursor-agent", "#!/bin/sh\necho ' 2026.11.30-abc '\necho more\n");
  std::filesystem::permissions(path / "cursor-agent", std::filesystem::perms::owner_all);
  h.f.set_env("PATH", path.string());
  h.run({"doctor"});
  CHECK(mt::contains(h.out.str(), "agent       Cursor: 2026.11.30-abc (" +
                                      (path / "cursor-agent").string() + ")\n"));
}

namespace {

// --- memory tools (docs/cli.md#memory-tools) ---

constexpr McpFormat k_toml = McpFormat::toml;
constexpr McpFormat k_json = McpFormat::json;

// `current` with the memory tools merged in (or removed), the program named as on POSIX on every
// system (a case below names it as on Windows).
std::string tools_merged(std::string_view current, McpFormat format, bool remove = false) {
  const auto result = merge_memory_tools(current, format, k_bin, remove, false);
  INFO("input: " << current);
  REQUIRE(result.has_value());
  return *result;
}

std::optional<ErrorKind> tools_refusal(std::string_view current, McpFormat format,
                                       bool remove = false) {
  const auto result = merge_memory_tools(current, format, k_bin, remove);
  return result ? std::nullopt : std::optional<ErrorKind>(result.error().kind);
}

constexpr std::string_view k_codex_config = R"(# my settings
model = "gpt-5-codex"
notify = ["notify-send", "done"]   # a comment
instructions = """
Be brief. [not a table]
x = "not a key"
"""

[model_providers.local]
name = "local"
base_url = "http://localhost:1234/v1"
env = { A = "1", B = "[2]" }

[plugins."mem0-native-hooks@mem0-native-hooks"]
enabled = true

[mcp_servers.docs]
command = "docs-server"
args = [
  "--stdio",   # multi-line
  "--quiet",
]
)";

constexpr std::string_view k_our_table = "[mcp_servers.mem0]\n"
                                         "command = \"/opt/mem0/bin/mem0-hooks\"\n"
                                         "args = [\"mcp\"]\n";

} // namespace

TEST_CASE("memory tools: Codex's config.toml gets [mcp_servers.mem0], the rest kept",
          "[cli][install][mcp]") {
  const std::string once = tools_merged(k_codex_config, k_toml);
  CHECK(once == std::string(k_codex_config) + "\n" + std::string(k_our_table));
  CHECK(tools_merged(once, k_toml) == once);                 // idempotent
  CHECK(tools_merged(once, k_toml, true) == k_codex_config); // uninstall: only our table goes
  CHECK(tools_merged(k_codex_config, k_toml, true) == k_codex_config);
  // An empty or missing file: just the table; uninstall leaves nothing.
  CHECK(tools_merged("", k_toml) == k_our_table);
  CHECK(tools_merged(k_our_table, k_toml, true).empty());
  // No final newline: one is added before the table.
  CHECK(tools_merged("model = \"m\"", k_toml) == "model = \"m\"\n\n" + std::string(k_our_table));
}

TEST_CASE("memory tools: an older entry of ours is replaced in place, sub-tables included",
          "[cli][install][mcp]") {
  const std::string old = "a = 1\n\n[mcp_servers.mem0]\ncommand = '/old/bin/mem0-hooks'\n"
                          "args = [\"mcp\"]\n\n[mcp_servers.mem0.env]\nX = \"1\"\n\n[z]\nb = 2\n";
  CHECK(tools_merged(old, k_toml) == "a = 1\n\n" + std::string(k_our_table) + "\n[z]\nb = 2\n");
  CHECK(tools_merged(old, k_toml, true) == "a = 1\n\n[z]\nb = 2\n");
}

TEST_CASE("memory tools: a comment after our table belongs to what follows and is kept",
          "[cli][install][mcp]") {
  const std::string next = "# the fast profile\n[profiles.fast]\nmodel = \"m\"\n";
  const std::string installed = std::string(k_our_table) + "\n" + next;
  CHECK(tools_merged(installed, k_toml) == installed); // a second install changes nothing
  CHECK(tools_merged(installed, k_toml, true) == next);
  const std::string old = "[mcp_servers.mem0]\ncommand = '/old/bin/mem0-hooks'\n\n" + next;
  CHECK(tools_merged(old, k_toml) == std::string(k_our_table) + "\n" + next);
}

TEST_CASE("memory tools: another server named mem0 in config.toml is the user's",
          "[cli][install][mcp]") {
  const std::string hosted = "[mcp_servers.mem0]\nurl = \"https://mcp.mem0.ai/mcp/\"\n";
  CHECK(tools_refusal(hosted, k_toml) == ErrorKind::duplicate);
  CHECK(tools_merged(hosted, k_toml, true) == hosted);
  const std::string other = "[mcp_servers.mem0]\ncommand = \"npx\"\nargs = [\"mem0-mcp\"]\n";
  CHECK(tools_refusal(other, k_toml) == ErrorKind::duplicate);
}

TEST_CASE("memory tools: config.toml that cannot be read as TOML is refused",
          "[cli][install][mcp]") {
  for (const std::string_view text :
       {"model = \"unterminated\n", "[table\n", "just words\n", "a = [1, 2\n", "a = \"\"\"open\n",
        "[a] junk\n", "a = ]\n", " = 1\n", "[]\n"}) {
    CAPTURE(text);
    CHECK(tools_refusal(text, k_toml) == ErrorKind::io);
    CHECK(tools_refusal(text, k_toml, true) == ErrorKind::io);
  }
  // Forms of mcp_servers.mem0 it does not edit: refused rather than defined twice.
  for (const std::string_view text :
       {"mcp_servers.mem0.command = \"x\"\n", "[mcp_servers]\nmem0 = { command = \"x\" }\n",
        "mcp_servers = { mem0 = { command = \"x\" } }\n",
        "[mcp_servers.mem0]\ncommand = \"/b/mem0-hooks\"\n[x]\n[mcp_servers.mem0.env]\nA = "
        "\"1\"\n"}) {
    CAPTURE(text);
    CHECK(tools_refusal(text, k_toml) == ErrorKind::io);
  }
}

TEST_CASE("memory tools: a path TOML must escape is written as a basic string",
          "[cli][install][mcp]") {
  const auto posix = merge_memory_tools("", k_toml, "/opt/my \"mem0\"\\bin", false, false);
  CHECK(mt::contains(posix.value(), R"(command = "/opt/my \"mem0\"\\bin/mem0-hooks")"));
  // A Windows path's separators are backslashes, each escaped.
  const auto windows = merge_memory_tools("", k_toml, "C:\\Program Files\\mem0", false, true);
  CHECK(mt::contains(windows.value(), R"(command = "C:\\Program Files\\mem0\\mem0-hooks.exe")"));
}

TEST_CASE("memory tools: each agent's declared format fits its file, and its shim is shipped",
          "[cli][install][mcp]") {
  for (const Agent *agent : agents()) {
    INFO(agent->name);
    const fs::path file(agent->files.mcp_file);
    if (!file.empty())
      CHECK((file.extension() == ".toml") == (agent->files.mcp_format == McpFormat::toml));
    if (agent->files.mcp_format == McpFormat::opencode) CHECK(file.filename() == "opencode.json");
    if (!agent->files.shim.empty()) CHECK(is_our_shim(configured_shim(*agent, k_bin), *agent));
  }
  CHECK(shim_source("no-such-shim").empty());
}

TEST_CASE("memory tools: mcpServers.mem0 in a JSON file, the rest kept", "[cli][install][mcp]") {
  const std::string settings =
      R"({"theme":"dark","mcpServers":{"docs":{"command":"docs-server"}},"hooks":{}})";
  const std::string once = tools_merged(settings, k_json);
  CHECK(mt::canonical(once) ==
        mt::canonical(
            R"({"theme":"dark","mcpServers":{"docs":{"command":"docs-server"},)"
            R"("mem0":{"command":"/opt/mem0/bin/mem0-hooks","args":["mcp"]}},"hooks":{}})"));
  CHECK(tools_merged(once, k_json) == once); // idempotent: the very same text
  CHECK(mt::canonical(tools_merged(once, k_json, true)) == mt::canonical(settings));
  CHECK(mt::canonical(tools_merged("", k_json)) ==
        mt::canonical(R"({"mcpServers":{"mem0":{"command":"/opt/mem0/bin/mem0-hooks",)"
                      R"("args":["mcp"]}}})"));
  CHECK(mt::canonical(tools_merged(tools_merged("{}", k_json), k_json, true)) == "{}");
  // An older path of ours is updated; another server named mem0 is the user's.
  const std::string old = R"({"mcpServers":{"mem0":{"command":"/old/mem0-hooks","args":["mcp"]}}})";
  CHECK(mt::contains(tools_merged(old, k_json), "/opt/mem0/bin/mem0-hooks"));
  const std::string hosted = R"({"mcpServers":{"mem0":{"url":"https://mcp.mem0.ai/mcp/"}}})";
  CHECK(tools_refusal(hosted, k_json) == ErrorKind::duplicate);
  CHECK(tools_merged(hosted, k_json, true) == hosted);
  // Not JSON, not an object, mcpServers not an object: refused.
  for (const std::string_view text : {"{nope", "[]", R"({"mcpServers":[]})"}) {
    CAPTURE(text);
    CHECK(tools_refusal(text, k_json) == ErrorKind::io);
  }
}

TEST_CASE("install --agent codex|gemini-cli|cursor registers the memory tools; uninstall removes "
          "them",
          "[cli][install][mcp]") {
  mt::CliHome h;
  const fs::path codex = h.f.home / ".codex" / "config.toml";
  const fs::path gemini = h.f.home / ".gemini" / "settings.json";
  const fs::path cursor = h.f.home / ".cursor" / "mcp.json";
  mt::write_file(codex, k_codex_config);
  fs::permissions(codex, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const std::string program = program_path(h.exe_dir, "mem0-hooks", platform::windows_commands());
  const std::string toml_program = mt::backslashes_escaped(program); // in a TOML basic string

  CHECK(h.run({"install", "--agent", "codex"}) == k_ok);
  INFO(h.out.str() << h.err.str());
  CHECK(read_small_file(codex) == std::string(k_codex_config) +
                                      "\n[mcp_servers.mem0]\ncommand = \"" + toml_program +
                                      "\"\nargs = [\"mcp\"]\n");
  CHECK(mt::mode_of(codex) == mt::file_mode_as_kept(0640)); // the file's mode kept
  CHECK(read_small_file(codex.string() + ".bak") == std::string(k_codex_config));
  CHECK(mt::contains(h.out.str(),
                     "registered the mem0 memory tools (mem0-hooks mcp) in " + codex.string()));
  CHECK(h.run({"install", "--agent", "codex"}) == k_ok);
  CHECK(mt::contains(h.out.str(), "memory tools already registered in " + codex.string()));
  CHECK(h.run({"uninstall", "--agent", "codex"}) == k_ok);
  CHECK(read_small_file(codex) == std::string(k_codex_config));

  // Gemini CLI: hooks and server in the one settings.json, one backup.
  CHECK(h.run({"install", "--agent", "gemini-cli"}) == k_ok);
  CHECK(registers_memory_tools(gemini, McpFormat::json));
  CHECK(mt::contains(h.out.str(),
                     "registered the mem0 memory tools (mem0-hooks mcp) in " + gemini.string()));
  CHECK(h.run({"uninstall", "--agent", "gemini-cli"}) == k_ok);
  CHECK_FALSE(registers_memory_tools(gemini, McpFormat::json));

  CHECK(h.run({"install", "--agent", "cursor"}) == k_ok);
  CHECK(registers_memory_tools(cursor, McpFormat::json));
  CHECK(h.run({"uninstall", "--agent", "cursor"}) == k_ok);
  CHECK_FALSE(registers_memory_tools(cursor, McpFormat::json));
}

TEST_CASE("install --agent codex: an unreadable config.toml is left alone, and install says so",
          "[cli][install][mcp]") {
  mt::CliHome h;
  const fs::path codex = h.f.home / ".codex" / "config.toml";
  mt::write_file(codex, "model = \"unterminated\n");
  CHECK(h.run({"install", "--agent", "codex"}) == k_failure);
  CHECK(mt::contains(h.err.str(), codex.string() + " is not TOML this command can read; left "
                                                   "untouched"));
  CHECK(read_small_file(codex) == std::string("model = \"unterminated\n"));
  CHECK_FALSE(fs::exists(codex.string() + ".bak"));

  // Mem0's hosted server registered as mem0: kept, with a warning; the hooks are installed.
  mt::write_file(codex, "[mcp_servers.mem0]\nurl = \"https://mcp.mem0.ai/mcp/\"\n");
  CHECK(h.run({"install", "--agent", "codex"}) == k_ok);
  CHECK(mt::contains(h.err.str(), "warning: " + codex.string() +
                                      " already registers another server named mem0"));
  CHECK(read_small_file(codex) ==
        std::string("[mcp_servers.mem0]\nurl = \"https://mcp.mem0.ai/mcp/\"\n"));
}

// --- each agent's command form (docs/windows.md#how-each-agent-runs-a-hook) ---

namespace {

const fs::path k_win_bin = "C:\\Program Files\\mem0 hooks";

// Paths a hook command must carry through: spaces, a quote, non-ASCII, a long one.
std::vector<std::string> windows_programs() {
  std::string long_dir = "C:\\Users\\me";
  while (long_dir.size() < 300)
    long_dir += "\\a long folder name";
  return {"C:\\mem0\\on_stop.exe",
          "C:\\Program Files\\mem0 hooks\\on_stop.exe",
          "C:\\Users\\O'Neil\\mem0\\on_stop.exe",
          "C:\\Users\\andr\xC3\xA9\\mem0 hooks\\on_stop.exe",
          "C:\\Users\\O\xE2\x80\x99Neil\\on_stop.exe",
          "\\\\server\\share\\mem0 hooks\\on_stop.exe",
          long_dir + "\\on_stop.exe"};
}

std::vector<std::string> posix_programs() {
  return {"/opt/mem0/bin/on_stop", "/opt/my tools/on_stop",          "/home/o'neil/bin/on_stop",
          "/home/a \"b\"/on_stop", "/home/andr\xC3\xA9/bin/on_stop", "/a/b\\c/on_stop"};
}

} // namespace

TEST_CASE("command forms: each shell's command gives its program back", "[cli][install][windows]") {
  for (const std::string &program : windows_programs())
    for (const CommandShell shell :
         {CommandShell::git_bash, CommandShell::powershell, CommandShell::cmd}) {
      const std::string command = render_command(shell, program, "--agent codex");
      INFO(command);
      std::string want = program;
      if (shell == CommandShell::git_bash) std::replace(want.begin(), want.end(), '\\', '/');
      CHECK(command_program(command) == want);
      CHECK(command_executable(command) == "on_stop");
      CHECK(runs_in(shell, command));
    }
  for (const std::string &program : posix_programs()) {
    const std::string command = render_command(CommandShell::posix, program, "--agent codex");
    INFO(command);
    CHECK(command_program(command) == program);
    CHECK(runs_in(CommandShell::posix, command));
    CHECK(runs_in(CommandShell::git_bash, command));
  }
}

TEST_CASE("command forms: a command written for one shell is told apart from another's",
          "[cli][install][windows]") {
  const std::string posix = "'/opt/my tools/on_stop' --agent codex";
  const std::string ps = "& 'C:\\Program Files\\mem0 hooks\\on_stop.exe' --agent gemini-cli";
  const std::string cmd = "\"C:\\Program Files\\mem0 hooks\\on_stop.exe\" --agent codex";
  const std::string bare_cmd = "C:\\mem0\\on_stop.exe --agent codex";
  CHECK(written_for(posix) == CommandShell::posix);
  CHECK(written_for(ps) == CommandShell::powershell);
  CHECK(written_for(cmd) == CommandShell::cmd);
  CHECK(written_for(bare_cmd) == CommandShell::cmd);
  // PowerShell reads a quoted first word as a string and cmd keeps ' as it is: neither runs it.
  CHECK_FALSE(runs_in(CommandShell::powershell, posix));
  CHECK_FALSE(runs_in(CommandShell::cmd, posix));
  // sh reads & as an operator, and \ outside quotes as an escape.
  CHECK_FALSE(runs_in(CommandShell::posix, ps));
  CHECK_FALSE(runs_in(CommandShell::git_bash, ps));
  CHECK_FALSE(runs_in(CommandShell::git_bash, bare_cmd));
  CHECK_FALSE(runs_in(CommandShell::powershell, cmd));
  // A path that needs no quoting runs wherever it is read the same.
  CHECK(runs_in(CommandShell::powershell, bare_cmd));
  CHECK(runs_in(CommandShell::cmd, "C:/mem0/on_stop.exe --agent codex"));
  CHECK(runs_in(CommandShell::git_bash, "C:/mem0/on_stop.exe --agent codex"));
  // A double-quoted Windows path reads the same in sh: \ before a plain character is kept.
  CHECK(runs_in(CommandShell::git_bash, cmd));
  CHECK(command_program("\"/a \\\"b\\\"/on_stop\" x") == "/a \"b\"/on_stop");
  for (const char *odd : {"", "   ", "&", "& ''", "'unterminated"})
    CHECK_FALSE(runs_in(CommandShell::powershell, odd));
}

TEST_CASE("the Gemini extension's commands read the same under bash and PowerShell",
          "[cli][install][windows]") {
  // gemini-extension/hooks/hooks.json has one command for every system: Gemini CLI runs it with
  // `bash -c` on Linux and macOS and with PowerShell on Windows (docs/windows.md).
  const auto text =
      read_small_file(std::string(mt::k_source_dir) + "/gemini-extension/hooks/hooks.json");
  REQUIRE(text.has_value());
  const auto doc = parsed(*text);
  std::size_t commands = 0;
  for (const auto &event : doc["hooks"].GetObject())
    for (const auto &group : event.value.GetArray())
      for (const auto &hook : group["hooks"].GetArray()) {
        const std::string command = hook["command"].GetString();
        INFO(command);
        ++commands;
        const std::string program = program_read_by(CommandShell::powershell, command);
        CHECK_FALSE(program.empty()); // a quoted path alone is a string to PowerShell, no program
        CHECK(program == program_read_by(CommandShell::posix, command));
      }
  CHECK(commands == rows_of(gemini_cli()).size());
}

TEST_CASE("hook_command: each agent's Windows form names the .exe", "[cli][install][windows]") {
  CHECK(hook_command(gemini_cli(), k_win_bin, "on_stop", CommandShell::powershell) ==
        "& 'C:\\Program Files\\mem0 hooks\\on_stop.exe' --agent gemini-cli");
  // Without a short form (none on this system), cmd gets the quoted path.
  CHECK(hook_command(codex(), k_win_bin, "on_stop", CommandShell::cmd) ==
        "\"C:\\Program Files\\mem0 hooks\\on_stop.exe\" --agent codex");
  CHECK(hook_command(codex(), "C:\\mem0", "on_stop", CommandShell::cmd) ==
        "C:\\mem0\\on_stop.exe --agent codex");
  CHECK(hook_command(claude_code(), k_win_bin, "on_stop", CommandShell::git_bash) ==
        "'C:/Program Files/mem0 hooks/on_stop.exe'");
  CHECK(hook_command(codex(), k_bin, "on_stop", CommandShell::posix) ==
        "/opt/mem0/bin/on_stop --agent codex");
  CHECK(program_path("C:\\mem0\\", "on_stop", true) == "C:\\mem0\\on_stop.exe");
  CHECK(program_path(k_bin, "on_stop", false) == "/opt/mem0/bin/on_stop");
  CHECK(hook_shell(codex(), true) == CommandShell::cmd);
  CHECK(hook_shell(gemini_cli(), true) == CommandShell::powershell);
  CHECK(hook_shell(cursor(), true) == CommandShell::powershell);
  CHECK(hook_shell(copilot(), true) == CommandShell::powershell);
  CHECK(hook_shell(claude_code(), true) == CommandShell::git_bash);
  for (const Agent *agent : agents())
    CHECK(hook_shell(*agent, false) == CommandShell::posix);
}

TEST_CASE("install on Windows: each agent's file gets its Windows form, once",
          "[cli][install][windows]") {
  for (const Agent *agent : agents()) {
    if (!agent->files.shim.empty()) continue;
    INFO(agent->name);
    const auto rows = rows_of(*agent);
    const auto text = merge_hooks("", *agent, rows, k_win_bin, false, true);
    REQUIRE(text.has_value());
    const auto hooks = our_hooks(*text, true);
    REQUIRE(hooks.size() == rows.size());
    const CommandShell shell = hook_shell(*agent, true);
    for (const auto &[event, command] : hooks) {
      INFO(command);
      CHECK(runs_in(shell, command));
      const std::string exe = command_executable(command);
      CHECK(command == hook_command(*agent, k_win_bin, exe, shell));
    }
    // A second install changes nothing; uninstall removes every entry.
    CHECK(merge_hooks(*text, *agent, rows, k_win_bin, false, true).value() == *text);
    CHECK(our_hooks(merge_hooks(*text, *agent, rows, k_win_bin, true, true).value(), true).empty());

    // The POSIX form a Linux install, or an older version on Windows, wrote is rewritten.
    const auto posix = merge_hooks("", *agent, rows, k_win_bin, false, false).value();
    for (const auto &[event, command] : our_hooks(posix, true))
      if (shell != CommandShell::git_bash) CHECK_FALSE(runs_in(shell, command));
    CHECK(merge_hooks(posix, *agent, rows, k_win_bin, false, true).value() == *text);
    // And back: the Windows form is rewritten for POSIX.
    CHECK(merge_hooks(*text, *agent, rows, k_bin, false, false).value() ==
          merge_hooks("", *agent, rows, k_bin, false, false).value());
  }
}

TEST_CASE("install on Windows: what an older version wrote there is ours and is replaced",
          "[cli][install][windows]") {
  // Before the Windows forms: a Windows path without .exe in the POSIX quoting, or in cmd's with
  // the install directory in another case (Windows compares names so).
  const std::string older =
      R"({"hooks":{"Stop":[{"hooks":[)"
      R"({"type":"command","command":"'C:\\Program Files\\mem0 hooks\\on_stop' --agent codex"},)"
      R"({"type":"command","command":"\"c:\\program files\\MEM0 HOOKS\\on_compact\" --agent codex"}]}]}})";
  const auto found = our_hooks(older, true);
  REQUIRE(found.size() == 2);
  CHECK(command_executable(found[0].second) == "on_stop");
  CHECK(command_program(found[0].second) == "C:\\Program Files\\mem0 hooks\\on_stop");
  CHECK(command_executable(found[1].second) == "on_compact");
  CHECK_FALSE(runs_in(CommandShell::cmd, found[0].second));
  const auto rows = rows_of(codex());
  CHECK(merge_hooks(older, codex(), rows, k_win_bin, false, true).value() ==
        merge_hooks("", codex(), rows, k_win_bin, false, true).value());
}

TEST_CASE("install on Windows: Copilot CLI's entries get a powershell command beside bash",
          "[cli][install][windows]") {
  const auto text = merge_hooks("", copilot(), rows_of(copilot()), k_win_bin, false, true).value();
  const auto doc = parsed(text);
  const auto &entry = doc["hooks"]["postToolUse"][0];
  CHECK(std::string(entry["powershell"].GetString()) ==
        "& 'C:\\Program Files\\mem0 hooks\\on_file_read.exe' --agent copilot");
  CHECK(std::string(entry["bash"].GetString()) ==
        "'C:/Program Files/mem0 hooks/on_file_read.exe' --agent copilot");
  // Each system reads the field it runs.
  for (const auto &[event, command] : our_hooks(text, true))
    CHECK(command.starts_with("& 'C:\\Program Files\\mem0 hooks\\"));
  for (const auto &[event, command] : our_hooks(text, false))
    CHECK(command.starts_with("'C:/Program Files/mem0 hooks/"));
  // On POSIX, bash only.
  const auto posix =
      parsed(merge_hooks("", copilot(), rows_of(copilot()), k_bin, false, false).value());
  CHECK_FALSE(posix["hooks"]["postToolUse"][0].HasMember("powershell"));
  // An entry of ours with only a powershell command is still ours, and uninstall removes it.
  const std::string only_ps = R"({"version":1,"hooks":{"agentStop":[{"type":"command",)"
                              R"("powershell":"& 'C:\\m\\on_stop.exe' --agent copilot"}]}})";
  CHECK(our_hooks(only_ps, false).size() == 1);
  CHECK(our_hooks(merge_hooks(only_ps, copilot(), {}, k_bin, true, false).value(), false).empty());
}

TEST_CASE("doctor: hooks written for another shell than the agent's here are a fix",
          "[cli][doctor][windows]") {
  mt::CliHome h;
  const auto file = h.f.home / ".gemini" / "settings.json";
  // Wired in the other system's form: PowerShell's on POSIX, sh's on Windows.
  const bool windows = platform::windows_commands();
  mt::write_file(file, merge_hooks("", gemini_cli(), rows_of(gemini_cli()),
                                   windows ? "/opt/mem0 hooks" : k_win_bin, false, !windows)
                           .value());
  h.run({"doctor"});
  INFO(h.out.str());
  const std::string written =
      windows ? "sh, but Gemini CLI runs them with PowerShell here, which would not run "
                "`'/opt/mem0 hooks"
              : "PowerShell, but Gemini CLI runs them with sh here, which would not run "
                "`& 'C:\\Program Files\\mem0 hooks\\";
  CHECK(mt::contains(h.out.str(), "fix: " + file.string() + ": " +
                                      std::to_string(rows_of(gemini_cli()).size()) +
                                      " mem0 hooks are written for " + written));
  CHECK(mt::contains(h.out.str(), "run `mem0-hooks install --agent gemini-cli` to rewrite them"));
  // Install rewrites them in this system's form; doctor then has nothing to say of them.
  CHECK(h.run({"install", "--agent", "gemini-cli"}) == k_ok);
  for (const auto &[event, command] : our_hooks(read_small_file(file).value()))
    CHECK(runs_in(hook_shell(gemini_cli()), command));
  h.out.str("");
  h.run({"doctor"});
  CHECK_FALSE(mt::contains(h.out.str(), "written for"));
}
