// The MCP server of mem0-hooks (docs/cli.md#mcp): the JSON-RPC answers, bad input, the tools
// over a fake HTTP client, the line reader; and the update and listing requests they use.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "cli/commands.hpp"
#include "cli/controls.hpp"
#include "cli/install.hpp"
#include "cli/mcp.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>

#include <sstream>
#include <string>
#include <thread>

using namespace mem0;
using namespace mem0::cli;
namespace mt = mem0::testing;

namespace {

struct McpFixture {
  mt::HookFixture f;
  std::ostringstream out, err;
  McpSession session;

  CliContext context() {
    return CliContext{
        f.deps(), out, err, f.project, f.home / "bin", SteadyClock::now() + std::chrono::seconds(5),
        {}};
  }
  // The answer to `line`, parsed; a null document when there is none.
  rapidjson::Document answer(std::string_view line) {
    rapidjson::Document doc;
    const auto reply = mcp_answer(line, context(), session);
    if (!reply) return doc;
    REQUIRE(reply->find('\n') == std::string::npos);
    REQUIRE(parse_json(doc, *reply));
    return doc;
  }
  rapidjson::Document call(std::string_view tool, std::string_view arguments) {
    return answer(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":")" +
                  std::string(tool) + R"(","arguments":)" + std::string(arguments) + "}}");
  }
};

int error_code(const rapidjson::Value &doc) { return doc["error"]["code"].GetInt(); }
std::string result_text(const rapidjson::Value &doc) {
  return doc["result"]["content"][0]["text"].GetString();
}
bool is_error(const rapidjson::Value &doc) {
  const auto &r = doc["result"];
  return r.HasMember("isError") && r["isError"].GetBool();
}

// A single-memory answer, as the platform gives it.
std::string memory_json(const Memory &m, std::string_view user) {
  return R"({"id":")" + m.id + R"(","memory":")" + m.text + R"(","user_id":")" + std::string(user) +
         R"(","metadata":{"type":")" + m.type + R"("}})";
}

} // namespace

TEST_CASE("mcp: a line that is not JSON is a parse error with id null", "[mcp]") {
  McpFixture c;
  for (const char *line : {"not json", "{\"jsonrpc\":\"2.0\",", "\x01\x02"}) {
    const auto doc = c.answer(line);
    CHECK(error_code(doc) == -32700);
    CHECK(doc["id"].IsNull());
  }
}

TEST_CASE("mcp: requests of the wrong shape are invalid requests", "[mcp]") {
  McpFixture c;
  CHECK(error_code(c.answer("[1,2]")) == -32600);
  CHECK(error_code(c.answer("42")) == -32600);
  const auto no_version = c.answer(R"({"id":3,"method":"ping"})");
  CHECK(error_code(no_version) == -32600);
  CHECK(no_version["id"].GetInt() == 3);
  CHECK(error_code(c.answer(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")) == -32600);
  CHECK(error_code(c.answer(R"({"jsonrpc":"2.0","id":4,"method":7})")) == -32600);
  CHECK(error_code(c.answer(R"({"jsonrpc":"2.0","id":5,"method":"ping","params":"x"})")) == -32600);
}

TEST_CASE("mcp: notifications and the client's own answers get no answer", "[mcp]") {
  McpFixture c;
  CHECK_FALSE(mcp_answer(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", c.context(),
                         c.session));
  CHECK_FALSE(
      mcp_answer(R"({"jsonrpc":"2.0","method":"tools/call","params":{}})", c.context(), c.session));
  CHECK_FALSE(mcp_answer(R"({"jsonrpc":"2.0","id":9,"result":{}})", c.context(), c.session));
  CHECK(c.f.http.requests.empty());
}

TEST_CASE("mcp: initialize answers the client's version when supported, else the newest", "[mcp]") {
  McpFixture c;
  const auto asked = [&](std::string_view version) {
    const auto doc = c.answer(
        R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":")" +
        std::string(version) + R"(","capabilities":{}}})");
    REQUIRE(doc["id"].GetString() == std::string("init"));
    const auto &result = doc["result"];
    CHECK(result["capabilities"].HasMember("tools"));
    CHECK(result["serverInfo"]["name"].GetString() == std::string("mem0-hooks"));
    CHECK(result["instructions"].GetStringLength() > 0);
    return std::string(result["protocolVersion"].GetString());
  };
  for (const char *v : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
    CHECK(asked(v) == v);
  CHECK(asked("2099-01-01") == "2025-11-25");
  CHECK(c.f.http.requests.empty());
}

TEST_CASE("mcp: the agent is the one initialize's clientInfo names, else Claude Code", "[mcp]") {
  CHECK(agent_of_client("claude-code") == &claude_code());
  CHECK(agent_of_client("codex-mcp-client") == &codex());
  CHECK(agent_of_client("gemini-cli-mcp-client") == &gemini_cli());
  CHECK(agent_of_client("cursor-vscode") == &cursor());
  CHECK(agent_of_client("mcp-inspector") == nullptr);
  CHECK(agent_of_client("github-copilot-cli") == &copilot()); // "pi" is inside, not a word
  CHECK(agent_of_client("pi-coding-agent") == &pi());
  CHECK(agent_of_client("api-explorer") == nullptr);
  McpFixture c;
  c.answer(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":)"
           R"("2025-06-18","clientInfo":{"name":"gemini-cli-mcp-client","version":"0.61.0"}}})");
  CHECK(c.session.agent == &gemini_cli());
  c.answer(R"({"jsonrpc":"2.0","id":2,"method":"initialize","params":{"clientInfo":{"name":7}}})");
  CHECK(c.session.agent == &gemini_cli());
}

TEST_CASE("mcp: ping, unknown methods and unknown tools", "[mcp]") {
  McpFixture c;
  const auto ping = c.answer(R"({"jsonrpc":"2.0","id":12,"method":"ping"})");
  CHECK(ping["id"].GetInt() == 12);
  CHECK(ping["result"].IsObject());
  CHECK(ping["result"].MemberCount() == 0);
  CHECK(error_code(c.answer(R"({"jsonrpc":"2.0","id":1,"method":"server/discover"})")) == -32601);
  CHECK(error_code(c.call("drop_tables", "{}")) == -32602);
}

TEST_CASE("mcp: tools/list names the six tools with their hints and closed schemas", "[mcp]") {
  McpFixture c;
  const auto doc = c.answer(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
  const auto &tools = doc["result"]["tools"];
  std::set<std::string> names;
  for (const auto &t : tools.GetArray()) {
    names.insert(t["name"].GetString());
    CHECK_FALSE(t["inputSchema"]["additionalProperties"].GetBool());
    const bool read_only = t["annotations"]["readOnlyHint"].GetBool();
    CHECK(read_only == t.HasMember("outputSchema"));
  }
  CHECK(names == std::set<std::string>{"search_memories", "get_memory", "get_memories",
                                       "add_memory", "update_memory", "delete_memory"});
}

TEST_CASE("mcp: argument problems are tool errors of one line, and send nothing", "[mcp]") {
  McpFixture c;
  for (const auto &[tool, arguments] : std::vector<std::pair<std::string, std::string>>{
           {"search_memories", R"({"query":"x","user_id":"eve"})"},
           {"search_memories", R"({})"},
           {"search_memories", R"({"query":5})"},
           {"search_memories", R"({"query":"x","limit":0})"},
           {"search_memories", R"({"query":"x","limit":1.5})"},
           {"get_memories", R"({"scope":"everywhere"})"},
           {"add_memory", R"("text")"},
           {"delete_memory", R"({"memory_id":"x","agent_id":"y"})"}}) {
    const auto doc = c.call(tool, arguments);
    INFO(tool << " " << arguments);
    CHECK(is_error(doc));
    CHECK(result_text(doc).find('\n') == std::string::npos);
  }
  CHECK(c.f.http.requests.empty());
}

TEST_CASE("mcp: search_memories answers lines and structured memories, ids in the id map",
          "[mcp]") {
  McpFixture c;
  c.f.http.answer({mt::memory(1, "decision", "Use Postgres"), mt::memory(2, "", "Tabs")});
  const auto doc = c.call("search_memories", R"({"query":"database","limit":5})");
  REQUIRE_FALSE(is_error(doc));
  CHECK(mt::has_line(result_text(doc), "- [decision] Use Postgres [mem0:" + mt::id8_of(1) + "]"));
  CHECK(doc["result"]["structuredContent"]["memories"].Size() == 2);
  REQUIRE(c.f.http.requests.size() == 2); // broad and decision-typed, as peek
  CHECK(mt::parse_sent(c.f.http.requests[0]).top_k == 5);
  const auto state = c.f.store().sessions.load("mcp");
  CHECK(state.was_injected(mt::id_of(1)));
}

TEST_CASE("mcp: a 429 is a tool error, and the pause then answers without sending", "[mcp]") {
  McpFixture c;
  c.f.http.responder = [](const HttpRequest &) {
    return mt::http_status(429, R"({"detail":"slow down"})", std::chrono::seconds(60));
  };
  const auto first = c.call("search_memories", R"({"query":"x"})");
  CHECK(is_error(first));
  CHECK(mt::contains(result_text(first), "rate limited"));
  const auto sent = c.f.http.requests.size();
  const auto second = c.call("get_memories", "{}");
  CHECK(is_error(second));
  CHECK(mt::contains(result_text(second), "rate limited"));
  CHECK(c.f.http.requests.size() == sent);
}

TEST_CASE("mcp: no key is a tool error naming MEM0_API_KEY, never a crash", "[mcp]") {
  McpFixture c;
  c.f.unset_env("MEM0_API_KEY");
  const auto doc = c.call("get_memory", R"({"memory_id":")" + mt::id_of(1) + R"("})");
  CHECK(is_error(doc));
  CHECK(mt::contains(result_text(doc), "MEM0_API_KEY"));
  CHECK(c.f.http.requests.empty());
}

TEST_CASE("mcp: delete_memory deletes only a memory of this user", "[mcp]") {
  McpFixture c;
  const Memory mine = mt::memory(1, "decision", "mine");
  const Memory theirs = mt::memory(2, "decision", "theirs");
  c.f.http.responder = [&](const HttpRequest &r) {
    if (r.method == "GET")
      return mt::http_status(200, r.url.find(mine.id) != std::string::npos
                                      ? memory_json(mine, "alice")
                                      : memory_json(theirs, "eve"));
    return mt::http_status(200, R"({"message":"ok"})");
  };
  const auto refused = c.call("delete_memory", R"({"memory_id":")" + theirs.id + R"("})");
  CHECK(is_error(refused));
  CHECK(mt::contains(result_text(refused), "not a memory of user alice"));
  REQUIRE(c.f.http.requests.size() == 1);
  const auto done = c.call("delete_memory", R"({"memory_id":")" + mine.id + R"("})");
  CHECK_FALSE(is_error(done));
  REQUIRE(c.f.http.requests.size() == 3);
  CHECK(c.f.http.requests[2].method == "DELETE");
  CHECK(mt::contains(c.f.http.requests[2].url, mine.id));
}

TEST_CASE("mcp: update_memory sends the redacted text with PUT", "[mcp]") {
  McpFixture c;
  const Memory mine = mt::memory(1, "decision", "mine");
  c.f.http.responder = [&](const HttpRequest &r) {
    if (r.method == "GET") return mt::http_status(200, memory_json(mine, "alice"));
    return mt::http_status(200, memory_json(mine, "alice"));
  };
  const auto doc = c.call("update_memory", R"({"memory_id":")" + mine.id +
                                               R"(","text":"key AKIAIOSFODNN7EXAMPLE here"})");
  CHECK_FALSE(is_error(doc));
  REQUIRE(c.f.http.requests.size() == 2);
  const auto &put = c.f.http.requests[1];
  CHECK(put.method == "PUT");
  CHECK_FALSE(mt::contains(put.body, "AKIAIOSFODNN7EXAMPLE"));
  CHECK(mt::contains(put.body, R"("text":"key )"));
}

TEST_CASE("mcp: get_memory resolves a short id only through the id maps", "[mcp]") {
  McpFixture c;
  const auto unknown = c.call("get_memory", R"({"memory_id":"[mem0:)" + mt::id8_of(7) + R"(]"})");
  CHECK(is_error(unknown));
  CHECK(c.f.http.requests.empty());
  c.f.http.answer({mt::memory(7, "convention", "Seven")});
  (void)c.call("search_memories", R"({"query":"seven"})");
  const Memory seven = mt::memory(7, "convention", "Seven");
  c.f.http.responder = [&](const HttpRequest &) {
    return mt::http_status(200, memory_json(seven, "alice"));
  };
  const auto doc = c.call("get_memory", R"({"memory_id":"[mem0:)" + mt::id8_of(7) + R"(]"})");
  CHECK_FALSE(is_error(doc));
  CHECK(mt::contains(c.f.http.requests.back().url, mt::id_of(7)));
}

TEST_CASE("mcp: get_memory shows only a memory of this user", "[mcp][ownership]") {
  McpFixture c;
  const Memory mine = mt::memory(1, "decision", "mine");
  const Memory theirs = mt::memory(2, "decision", "their secret plan");
  c.f.http.responder = [&](const HttpRequest &r) {
    return mt::http_status(200, r.url.find(mine.id) != std::string::npos
                                    ? memory_json(mine, "alice")
                                    : memory_json(theirs, "eve"));
  };
  const auto refused = c.call("get_memory", R"({"memory_id":")" + theirs.id + R"("})");
  CHECK(is_error(refused));
  CHECK_FALSE(mt::contains(result_text(refused), "their secret plan"));
  CHECK(mt::contains(result_text(refused), "not a memory of user alice"));
  CHECK_FALSE(refused["result"].HasMember("structuredContent"));
  const auto shown = c.call("get_memory", R"({"memory_id":")" + mine.id + R"("})");
  CHECK_FALSE(is_error(shown));
  CHECK(mt::contains(result_text(shown), "mine"));
}

// serve_mcp over a pipe: what it writes for `input`, and its status.
static std::pair<std::string, int> serve(const std::string &input) {
  McpFixture c;
  mt::Pipe pipe;
  std::thread writer([&] {
    mt::write_all(pipe.write_fd, input);
    pipe.close_write();
  });
  const int status = serve_mcp(pipe.read_fd, c.context());
  writer.join();
  return {c.out.str(), status};
}

TEST_CASE("mcp: the line reader answers line by line and exits 0 at EOF", "[mcp][no-qemu]") {
  const std::string ping = R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  auto [out, status] = serve(ping + "\n\n  \nnot json\n" + ping);
  CHECK(status == 0);
  REQUIRE(out.ends_with('\n'));
  const auto lines = mt::lines_of(out.substr(0, out.size() - 1));
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == R"({"jsonrpc":"2.0","id":1,"result":{}})");
  CHECK(mt::contains(lines[1], "-32700"));
  CHECK(lines[2] == lines[0]); // the last line, without its newline
  CHECK(serve(R"({"jsonrpc":"2.0","id":1,"me)").second == 0);
}

TEST_CASE("mcp: a line over the limit is answered once, and the next line is served",
          "[mcp][no-qemu]") {
  const std::string ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
  const std::string huge(3 * k_max_mcp_line, 'a');
  auto [out, status] = serve(huge + "\n" + ping + "\n");
  CHECK(status == 0);
  REQUIRE(out.ends_with('\n'));
  const auto lines = mt::lines_of(out.substr(0, out.size() - 1));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == mcp_overlong_answer());
  CHECK(mt::contains(lines[0], "-32600"));
  CHECK(lines[1] == R"({"jsonrpc":"2.0","id":2,"result":{}})");
}

TEST_CASE("update_request: PUT with the text, in both dialects", "[mem0_api][update]") {
  const auto platform = mt::target("https://api.mem0.ai");
  const auto put = update_request(platform, mt::id_of(1), "new \"text\"");
  CHECK(put.method == "PUT");
  CHECK(put.url == "https://api.mem0.ai/v1/memories/" + mt::id_of(1) + "/");
  CHECK(put.body == R"({"text":"new \"text\""})");
  const auto selfhosted =
      ApiTarget::make("http://localhost:8888", "", true, 0.3, selfhosted_dialect()).value();
  const auto put2 = update_request(selfhosted, mt::id_of(1), "t");
  CHECK(put2.method == "PUT");
  CHECK(put2.url == "http://localhost:8888/memories/" + mt::id_of(1));
  CHECK(put2.body == R"({"text":"t"})");
}

TEST_CASE("list_request: scope, type and page in both dialects", "[mem0_api][list]") {
  const Identity who{"alice", "proj", "s1"};
  ListSpec spec;
  spec.scope = Scope::global;
  spec.type = "decision";
  spec.page = 3;
  spec.page_size = 7;
  const auto platform = list_request(mt::target("https://api.mem0.ai"), who, spec);
  CHECK(platform.url == "https://api.mem0.ai/v3/memories/?page=3&page_size=7");
  CHECK(mt::contains(platform.body, R"({"app_id":"*"})"));
  CHECK(mt::contains(platform.body, R"("type":"decision")"));
  const auto sh =
      ApiTarget::make("http://localhost:8888", "", true, 0.3, selfhosted_dialect()).value();
  spec.scope = Scope::session;
  CHECK(list_request(sh, who, spec).url ==
        "http://localhost:8888/memories?user_id=alice&agent_id=proj&run_id=s1&top_k=1000");
}

TEST_CASE("parse_list_response pages and types a listing the server did not page",
          "[mem0_api][list]") {
  std::vector<Memory> all;
  for (unsigned n = 1; n <= 5; ++n)
    all.push_back(mt::memory(n, n % 2 ? "decision" : "convention", "m",
                             "2026-01-0" + std::to_string(n) + "T00:00:00Z"));
  ListSpec spec;
  spec.type = "decision";
  spec.page = 2;
  spec.page_size = 2;
  const auto page =
      parse_list_response(*mt::http_status(200, mt::results_json(all)), spec, selfhosted_dialect());
  REQUIRE(page);
  CHECK(page->count == 3);
  REQUIRE(page->memories.size() == 1);
  CHECK(page->memories[0].id == mt::id_of(1)); // newest first: 5, 3 on page 1
}

TEST_CASE("mcp: the project's team memory is shown and deleted; another project's is not",
          "[mcp][ownership]") {
  McpFixture c;
  const Memory team = mt::memory(1, "decision", "the team's");
  const Memory other = mt::memory(2, "decision", "another project's");
  c.f.http.responder = [&](const HttpRequest &r) {
    if (r.method != "GET") return mt::http_status(200, R"({"message":"ok"})");
    const bool ours = r.url.find(team.id) != std::string::npos;
    const Memory &m = ours ? team : other;
    return mt::http_status(200, R"({"id":")" + m.id + R"(","memory":")" + m.text +
                                    R"(","agent_id":")" + (ours ? "proj" : "elsewhere") +
                                    R"(","app_id":")" + (ours ? "proj" : "elsewhere") + R"("})");
  };
  const auto shown = c.call("get_memory", R"({"memory_id":")" + team.id + R"("})");
  CHECK_FALSE(is_error(shown));
  CHECK(mt::contains(result_text(shown), "the team's"));
  const auto refused = c.call("delete_memory", R"({"memory_id":")" + other.id + R"("})");
  CHECK(is_error(refused));
  CHECK(mt::contains(result_text(refused), "nor of project proj's team"));
  const auto deleted = c.call("delete_memory", R"({"memory_id":")" + team.id + R"("})");
  CHECK_FALSE(is_error(deleted));
  CHECK(c.f.http.requests.back().method == "DELETE");
}
