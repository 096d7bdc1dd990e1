#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_tool_guard/on_tool_guard.hpp"

#include <rapidjson/document.h>

using namespace mem0;
using namespace mem0::testing;
namespace otg = mem0::on_tool_guard;
namespace fs = std::filesystem;

namespace {

const otg::GuardIdentity k_identity{"alice", "proj", "session-1"};

constexpr const char *k_add = "mcp__mem0__add_memory";
constexpr const char *k_plugin_add = "mcp__plugin_mem0_mem0__add_memory";
constexpr const char *k_search = "mcp__mem0__search_memories";
constexpr const char *k_list = "mcp__plugin_mem0_mem0__get_memories";

// The project scope filter, as the guard writes it for alice in proj.
constexpr const char *k_scope = R"({"AND":[{"user_id":"alice"},{"app_id":"proj"}]})";

rapidjson::Document parsed(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) throw std::runtime_error("not JSON: " + std::string(json));
  return doc;
}

// True when the two JSON texts hold the same value (object member order aside).
bool same_json(std::string_view a, std::string_view b) {
  const auto x = parsed(a);
  const auto y = parsed(b);
  return x == y;
}

std::optional<std::string> complete(std::string_view tool, std::string_view input,
                                    const otg::GuardIdentity &identity = k_identity) {
  return otg::complete_mcp_call(tool, input, identity);
}

ToolInput tool_input(const HookFixture &f, std::string tool_name, std::string input_json,
                     std::string file_path = "", std::string session = "session-1") {
  ToolInput in;
  in.session_id = std::move(session);
  in.cwd = f.project.string();
  in.hook_event_name = "PreToolUse";
  in.tool = claude_code_shape::tool_kind(tool_name);
  in.tool_name = std::move(tool_name);
  in.tool_input = std::move(input_json);
  in.file_path = std::move(file_path);
  return in;
}

ToolInput write_input(const HookFixture &f, std::string tool_name, const std::string &path) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("file_path");
  w.String(path.c_str());
  w.Key("content");
  w.String("remember: tabs");
  w.EndObject();
  return tool_input(f, std::move(tool_name), buffer.GetString(), path);
}

bool nothing(const HookOutput &out) {
  return out.context.empty() && out.system_message.empty() && out.block_reason.empty() &&
         out.updated_input.empty();
}

} // namespace

// --- native memory paths -----------------------------------------------------------------------

TEST_CASE("on_tool_guard: glob stars match any run of characters, slashes included", "[guard]") {
  CHECK(otg::glob_match("*/.claude/*/MEMORY.md", "/h/.claude/projects/a/memory/MEMORY.md"));
  CHECK(otg::glob_match("*", ""));
  CHECK(otg::glob_match("a*b*c", "a-b-b-c"));
  CHECK_FALSE(otg::glob_match("a*b*c", "a-b-b-d"));
  CHECK_FALSE(otg::glob_match("*/.claude/*/MEMORY.md", "/h/.claude/MEMORY.md"));
  CHECK_FALSE(otg::glob_match("*/.claude/*/MEMORY.md", "/h/.claude/x/MEMORY.md.bak"));
}

TEST_CASE("on_tool_guard: Claude Code's own memory files are recognised", "[guard]") {
  for (const char *path : {
           "/home/u/.claude/projects/-home-u-repo/memory/MEMORY.md",
           "/home/u/.claude/projects/x/memory/MEMORY.md",
           ".claude/projects/x/memory/MEMORY.md",
           "~/.claude/memory/notes.md",
           "/home/u/.claude/memory/notes.md",
           "/repo/.claude/memory/deep/er/file.txt",
           "/repo/.claude/agents/MEMORY.md",
           R"(C:\Users\u\.claude\projects\x\memory\MEMORY.md)",
           R"(C:\Users\u\.claude\memory\notes.md)",
           "/home/u/.claude//memory/notes.md",
           "/home/u/.claude/projects/x/../../memory/notes.md",
           "/home/u/./.claude/memory/./notes.md",
       }) {
    CAPTURE(path);
    CHECK(otg::is_native_memory_path(path));
  }
}

TEST_CASE("on_tool_guard: other files, MEMORY.md outside .claude included, are not memory",
          "[guard]") {
  for (const char *path : {
           "/repo/docs/MEMORY.md",
           "/repo/MEMORY.md",
           "MEMORY.md",
           ".claude/settings.json",
           "/home/u/.claude/settings.json",
           "/home/u/.claude/CLAUDE.md",
           "/home/u/.claude/MEMORY.md",
           "/home/u/.claude/projects/x/memory/memory.md",
           "/home/u/.claude/projects/x/memory/MEMORY.md.bak",
           "/repo/.claude/memory",
           "/repo/.claude/memoryx/notes.md",
           "/repo/claude/memory/notes.md",
           "/repo/my.claude/memory/notes.md",
           "/repo/src/memory/notes.md",
           R"(C:\repo\docs\MEMORY.md)",
           "/home/u/.claude/memory/../settings.json",
           "",
       }) {
    CAPTURE(path);
    CHECK_FALSE(otg::is_native_memory_path(path));
  }
}

TEST_CASE("on_tool_guard: a relative path is judged from the working directory", "[guard]") {
  CHECK(otg::is_native_memory_path("memory/notes.md", "/home/u/.claude"));
  CHECK(otg::is_native_memory_path("projects/x/memory/MEMORY.md", R"(C:\Users\u\.claude)"));
  CHECK_FALSE(otg::is_native_memory_path("memory/notes.md", "/repo"));
  CHECK_FALSE(otg::is_native_memory_path("/repo/memory/notes.md", "/home/u/.claude"));
}

TEST_CASE("on_tool_guard: the block message is one line naming the file and Mem0", "[guard]") {
  const std::string message = otg::block_message("/home/u/.claude/memory/a\nb.md");
  CHECK(lines_of(message).size() == 1);
  CHECK(contains(message, "/home/u/.claude/memory/a b.md"));
  CHECK(contains(message, "Mem0"));
  CHECK(contains(message, "add_memory"));
  CHECK(otg::block_message(std::string(5000, 'x')).size() < 600);
}

// --- the write guard through the handler -------------------------------------------------------

TEST_CASE("on_tool_guard: Write, Edit and MultiEdit of a memory file are blocked", "[guard]") {
  HookFixture f;
  const std::string memory_md = (f.home / ".claude/projects/x/memory/MEMORY.md").string();
  for (const char *tool : {"Write", "Edit", "MultiEdit"}) {
    CAPTURE(tool);
    const HookOutput out = handled(otg::handle, write_input(f, tool, memory_md), f);
    CHECK(contains(out.block_reason, memory_md));
    CHECK(contains(out.block_reason, "Mem0"));
    CHECK(lines_of(out.block_reason).size() == 1);
    CHECK(out.context.empty());
    CHECK(out.updated_input.empty());
  }
  const std::string notes = R"(C:\Users\u\.claude\memory\notes.md)";
  CHECK_FALSE(handled(otg::handle, write_input(f, "Write", notes), f).block_reason.empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_tool_guard: other files and other tools pass without output", "[guard]") {
  HookFixture f;
  const std::string memory_md = (f.home / ".claude/projects/x/memory/MEMORY.md").string();
  for (const std::string &path :
       {(f.project / "docs/MEMORY.md").string(), (f.home / ".claude/settings.json").string(),
        (f.project / "src/app.py").string(), std::string()}) {
    CAPTURE(path);
    CHECK(nothing(handled(otg::handle, write_input(f, "Write", path), f)));
  }
  for (const char *tool : {"Read", "Bash", "NotebookEdit", "write", ""}) {
    CAPTURE(tool);
    CHECK(nothing(handled(otg::handle, write_input(f, tool, memory_md), f)));
  }
}

TEST_CASE("on_tool_guard: MEM0_BLOCK_NATIVE_MEMORY=off lets memory writes through", "[guard]") {
  HookFixture f;
  const std::string memory_md = (f.home / ".claude/memory/notes.md").string();
  REQUIRE_FALSE(handled(otg::handle, write_input(f, "Write", memory_md), f).block_reason.empty());
  f.set_env("MEM0_BLOCK_NATIVE_MEMORY", "off");
  CHECK(nothing(handled(otg::handle, write_input(f, "Write", memory_md), f)));
  f.set_env("MEM0_BLOCK_NATIVE_MEMORY", "on");
  CHECK_FALSE(handled(otg::handle, write_input(f, "Edit", memory_md), f).block_reason.empty());
}

TEST_CASE("on_tool_guard: \"block_native_memory\": false in settings.json turns the block off",
          "[guard]") {
  HookFixture f;
  const std::string memory_md = (f.home / ".claude/projects/x/memory/MEMORY.md").string();
  write_file(f.home / ".mem0/settings.json", R"({"block_native_memory": false})");
  f.reload();
  CHECK(nothing(handled(otg::handle, write_input(f, "Write", memory_md), f)));
  // The environment wins over settings.json.
  f.set_env("MEM0_BLOCK_NATIVE_MEMORY", "true");
  CHECK_FALSE(handled(otg::handle, write_input(f, "Write", memory_md), f).block_reason.empty());
}

// --- Mem0 MCP tools ----------------------------------------------------------------------------

TEST_CASE("on_tool_guard: Mem0 MCP tool names are recognised under both prefixes", "[guard]") {
  using T = otg::Mem0Tool;
  CHECK(otg::mem0_tool("mcp__mem0__add_memory") == T::add);
  CHECK(otg::mem0_tool("mcp__plugin_mem0_mem0__add_memory") == T::add);
  CHECK(otg::mem0_tool("mcp__mem0__search_memories") == T::search);
  CHECK(otg::mem0_tool("mcp__plugin_mem0_mem0__get_memories") == T::list);
  for (const char *name : {"get_memory", "update_memory", "delete_memory", "delete_all_memories",
                           "delete_entities", "list_entities", "something_new"}) {
    CAPTURE(name);
    CHECK(otg::mem0_tool(std::string("mcp__mem0__") + name) == T::other);
    CHECK(otg::mem0_tool(std::string("mcp__plugin_mem0_mem0__") + name) == T::other);
  }
  for (const char *name : {"mcp__other__add_memory", "mcp__mem0x__add_memory", "add_memory",
                           "Write", "mcp__MEM0__add_memory", ""}) {
    CAPTURE(name);
    CHECK(otg::mem0_tool(name) == T::none);
  }
}

TEST_CASE("on_tool_guard: add_memory without a scope gets the identity and metadata defaults",
          "[guard]") {
  for (const char *tool : {k_add, k_plugin_add}) {
    CAPTURE(tool);
    const auto out = complete(tool, R"({"text":"Use integer cents for money"})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"text":"Use integer cents for money","user_id":"alice",
        "app_id":"proj","metadata":{"type":"task_learning","source":"mcp",
        "session_id":"session-1"}})"));
  }
}

TEST_CASE("on_tool_guard: add_memory keeps every field it was given", "[guard]") {
  const auto out = complete(k_add, R"({"text":"t","messages":[{"role":"user","content":"c"}],
      "app_id":"other-app","infer":false,"enable_graph":true,"n":3,
      "metadata":{"type":"decision","confidence":1.0,"files":["a.py"],"source":null}})");
  REQUIRE(out);
  CHECK(same_json(*out, R"({"text":"t","messages":[{"role":"user","content":"c"}],
      "app_id":"other-app","infer":false,"enable_graph":true,"n":3,"user_id":"alice",
      "metadata":{"type":"decision","confidence":1.0,"files":["a.py"],"source":"mcp",
      "session_id":"session-1"}})"));
}

TEST_CASE("on_tool_guard: add_memory that names its own scope keeps it", "[guard]") {
  SECTION("its own user") {
    const auto out = complete(k_add, R"({"text":"t","user_id":"bob"})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"text":"t","user_id":"bob","metadata":{"type":"task_learning",
        "source":"mcp","session_id":"session-1"}})"));
  }
  SECTION("an agent") {
    const auto out = complete(k_add, R"({"text":"t","agent_id":"reviewer"})");
    REQUIRE(out);
    const auto doc = parsed(*out);
    CHECK_FALSE(doc.HasMember("user_id"));
    CHECK_FALSE(doc.HasMember("app_id"));
  }
  SECTION("a run") {
    const auto out = complete(k_add, R"({"text":"t","run_id":"r-1"})");
    REQUIRE(out);
    CHECK_FALSE(parsed(*out).HasMember("user_id"));
  }
  SECTION("a null or empty user_id names nothing and is filled in") {
    for (const char *input : {R"({"text":"t","user_id":null})", R"({"text":"t","user_id":""})"}) {
      CAPTURE(input);
      const auto out = complete(k_add, input);
      REQUIRE(out);
      const auto doc = parsed(*out);
      CHECK(std::string(doc["user_id"].GetString()) == "alice");
      CHECK(std::string(doc["app_id"].GetString()) == "proj");
      CHECK(doc.MemberCount() == 4); // text, user_id, app_id, metadata: no duplicate key
    }
  }
}

TEST_CASE("on_tool_guard: a complete add_memory call produces no output", "[guard]") {
  CHECK_FALSE(complete(k_add, R"({"text":"t","user_id":"alice","app_id":"proj",
      "metadata":{"type":"decision","source":"me","session_id":"s-9"}})"));
  CHECK_FALSE(complete(k_add, R"({"text":"t","agent_id":"a",
      "metadata":{"type":"decision","source":"me","session_id":"s-9"}})"));
  // Without a session id there is no session_id default to add.
  CHECK_FALSE(complete(k_add, R"({"text":"t","user_id":"alice","app_id":"proj",
      "metadata":{"type":"decision","source":"me"}})",
                       {"alice", "proj", ""}));
}

TEST_CASE("on_tool_guard: no session id, no metadata.session_id", "[guard]") {
  const auto out = complete(k_add, R"({"text":"t"})", {"alice", "proj", ""});
  REQUIRE(out);
  CHECK(same_json(*out, R"({"text":"t","user_id":"alice","app_id":"proj",
      "metadata":{"type":"task_learning","source":"mcp"}})"));
}

TEST_CASE("on_tool_guard: searches and listings without filters get the project scope", "[guard]") {
  for (const char *input :
       {R"({"query":"retry policy"})", R"({"query":"retry policy","filters":null})",
        R"({"query":"retry policy","filters":{}})"}) {
    CAPTURE(input);
    const auto out = complete(k_search, input);
    REQUIRE(out);
    CHECK(same_json(*out, std::string(R"({"query":"retry policy","filters":)") + k_scope + "}"));
  }
  const auto listed = complete(k_list, R"({"page":2,"page_size":50})");
  REQUIRE(listed);
  CHECK(same_json(*listed, std::string(R"({"page":2,"page_size":50,"filters":)") + k_scope + "}"));
}

TEST_CASE("on_tool_guard: filters without a user are joined to the identity clauses", "[guard]") {
  SECTION("a bare clause is wrapped") {
    const auto out = complete(k_search, R"({"query":"q","top_k":5,
        "filters":{"metadata":{"type":"decision"}}})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"query":"q","top_k":5,"filters":{"AND":[{"user_id":"alice"},
        {"app_id":"proj"},{"metadata":{"type":"decision"}}]}})"));
  }
  SECTION("an AND list gets the identity clauses first") {
    const auto out = complete(k_list, R"({"filters":{"AND":[{"metadata":{"type":"decision"}},
        {"created_at":{"gte":"2025-01-01"}}]}})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"filters":{"AND":[{"user_id":"alice"},{"app_id":"proj"},
        {"metadata":{"type":"decision"}},{"created_at":{"gte":"2025-01-01"}}]}})"));
  }
  SECTION("an OR is kept whole inside the AND") {
    const auto out = complete(k_search, R"({"query":"q","filters":{"OR":[
        {"metadata":{"type":"decision"}},{"metadata":{"type":"convention"}}]}})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"query":"q","filters":{"AND":[{"user_id":"alice"},
        {"app_id":"proj"},{"OR":[{"metadata":{"type":"decision"}},
        {"metadata":{"type":"convention"}}]}]}})"));
  }
  SECTION("their app is kept and ours is not added") {
    const auto out = complete(k_search, R"({"query":"q","filters":{"app_id":"other"}})");
    REQUIRE(out);
    CHECK(same_json(*out, R"({"query":"q","filters":{"AND":[{"user_id":"alice"},
        {"app_id":"other"}]}})"));
  }
}

TEST_CASE("on_tool_guard: a search or listing that names a user or agent anywhere is untouched",
          "[guard]") {
  for (const char *input : {
           R"({"query":"q","filters":{"AND":[{"user_id":"alice"},{"app_id":"proj"}]}})",
           R"({"query":"q","filters":{"user_id":"bob"}})",
           R"({"query":"q","filters":{"OR":[{"AND":[{"agent_id":"a"}]},{"app_id":"x"}]}})",
           R"({"query":"q","user_id":"bob"})",
           R"({"query":"q","agent_id":"reviewer"})",
       }) {
    CAPTURE(input);
    CHECK_FALSE(complete(k_search, input));
    CHECK_FALSE(complete(k_list, input));
  }
}

TEST_CASE("on_tool_guard: delete and other Mem0 tools are never changed", "[guard]") {
  HookFixture f;
  for (const char *name : {"delete_memory", "delete_all_memories", "delete_entities",
                           "update_memory", "get_memory", "list_entities"}) {
    for (const char *prefix : {"mcp__mem0__", "mcp__plugin_mem0_mem0__"}) {
      const std::string tool = std::string(prefix) + name;
      CAPTURE(tool);
      CHECK_FALSE(complete(tool, "{}"));
      CHECK_FALSE(complete(tool, R"({"memory_id":"abc","text":"t"})"));
      CHECK(nothing(handled(otg::handle, tool_input(f, tool, "{}"), f)));
    }
  }
}

TEST_CASE("on_tool_guard: calls of the plugin's own server get no identity", "[guard]") {
  // mem0-hooks mcp, shipped by this plugin, takes no user_id, app_id or metadata (docs/cli.md#mcp):
  // completing its calls as those of Mem0's hosted server would turn them into errors.
  HookFixture f;
  for (const char *name : {"add_memory", "search_memories", "get_memories", "get_memory",
                           "update_memory", "delete_memory"}) {
    const std::string tool = std::string("mcp__plugin_mem0-native-hooks_mem0__") + name;
    CAPTURE(tool);
    CHECK(otg::mem0_tool(tool) == otg::Mem0Tool::own);
    CHECK_FALSE(complete(tool, R"({"text":"t"})"));
    CHECK_FALSE(complete(tool, R"({"query":"q"})"));
    CHECK(nothing(handled(otg::handle, tool_input(f, tool, R"({"text":"t","query":"q"})"), f)));
  }
  // The hosted server's calls are still completed.
  CHECK(complete(k_add, R"({"text":"t"})"));
  CHECK(complete(k_plugin_add, R"({"text":"t"})"));
}

TEST_CASE("on_tool_guard: malformed tool input produces no output", "[guard]") {
  for (const char *input :
       {"", "not json", "[1,2]", "\"text\"", "42", "null", R"({"text":"t")", R"({"text":)"}) {
    CAPTURE(input);
    CHECK_FALSE(complete(k_add, input));
    CHECK_FALSE(complete(k_search, input));
  }
  // Arguments of a shape the server would refuse are not guessed at.
  CHECK_FALSE(complete(k_add, R"({"text":"t","metadata":"type=decision"})"));
  CHECK_FALSE(complete(k_add, R"({"text":"t","metadata":["decision"]})"));
  CHECK_FALSE(complete(k_search, R"({"query":"q","filters":"user_id=alice"})"));
  CHECK_FALSE(complete(k_search, R"({"query":"q","filters":[{"app_id":"proj"}]})"));
  CHECK_FALSE(complete(k_search, R"({"query":"q","filters":{"AND":{"app_id":"proj"}}})"));
  // Without a full identity there is nothing to fill in.
  CHECK_FALSE(complete(k_add, R"({"text":"t"})", {"alice", "", "s"}));
  CHECK_FALSE(complete(k_search, R"({"query":"q"})", {"", "proj", "s"}));
}

TEST_CASE("on_tool_guard: the handler completes MCP calls as the configured user and project",
          "[guard]") {
  HookFixture f;
  HookOutput out = handled(otg::handle, tool_input(f, k_plugin_add, R"({"text":"t"})"), f);
  CHECK(out.block_reason.empty());
  CHECK(out.context.empty());
  REQUIRE_FALSE(out.updated_input.empty());
  CHECK(same_json(out.updated_input, R"({"text":"t","user_id":"alice","app_id":"proj",
      "metadata":{"type":"task_learning","source":"mcp","session_id":"session-1"}})"));

  const std::string printed = claude_code_shape::render("PreToolUse", out);
  CHECK(contains(printed, R"("updatedInput":{"text":"t")"));
  CHECK_FALSE(contains(printed, "permissionDecision"));
  CHECK_FALSE(contains(printed, "allow"));

  out = handled(otg::handle, tool_input(f, k_search, R"({"query":"q"})"), f);
  CHECK(same_json(out.updated_input, std::string(R"({"query":"q","filters":)") + k_scope + "}"));

  // tool_input missing or not an object: ToolInput.tool_input is empty.
  CHECK(nothing(handled(otg::handle, tool_input(f, k_add, ""), f)));
  // A call already complete: no output.
  const std::string scoped = std::string(R"({"query":"q","filters":)") + k_scope + "}";
  CHECK(nothing(handled(otg::handle, tool_input(f, k_search, scoped), f)));
  CHECK(f.http.requests.empty());
  CHECK(f.http.batches == 0);
}

TEST_CASE("on_tool_guard: the session id falls back to CLAUDE_CODE_SESSION_ID", "[guard]") {
  HookFixture f;
  f.set_env("CLAUDE_CODE_SESSION_ID", "from-env");
  const HookOutput out = handled(otg::handle, tool_input(f, k_add, R"({"text":"t"})", "", ""), f);
  REQUIRE_FALSE(out.updated_input.empty());
  const auto doc = parsed(out.updated_input);
  CHECK(std::string(doc["metadata"]["session_id"].GetString()) == "from-env");
}
