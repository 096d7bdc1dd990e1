// The JS hosts, OpenCode and Pi (docs/agents.md#opencode, #pi): their adapters over the payloads
// their shims send, and install/uninstall of the shims over a scratch home.
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

#include <sstream>

using namespace mem0;
using namespace mem0::cli;
namespace mt = mem0::testing;
namespace fs = std::filesystem;

TEST_CASE("opencode: chat.message's text parts are the prompt, ours left out", "[agents][js]") {
  const auto in = opencode().prompt(
      R"({"hook_event_name":"chat.message","sessionID":"ses_1","directory":"/p",)"
      R"("parts":[{"type":"text","text":"fix the bug"},{"type":"file","url":"x"},)"
      R"({"type":"text","text":"### mem0","synthetic":true},{"type":"text","text":"please"}]})");
  REQUIRE(in.has_value());
  CHECK(in->prompt == "fix the bug\nplease");
  CHECK(in->session_id == "ses_1");
  CHECK(in->cwd == "/p");
  CHECK(agent_session(opencode(), in->session_id) == "opencode-ses_1");
  CHECK_FALSE(opencode().prompt("[1]").has_value());
}

TEST_CASE("opencode: tool.execute.after: read's filePath, bash's exit code", "[agents][js]") {
  const auto read = opencode().tool(
      R"({"hook_event_name":"tool.execute.after","sessionID":"s","directory":"/p","tool":"read",)"
      R"("callID":"c1","args":{"filePath":"/p/a.py"},"output":{"title":"a.py","output":"x"}})");
  REQUIRE(read.has_value());
  CHECK(read->tool == ToolKind::read);
  CHECK(read->file_path == "/p/a.py");
  CHECK(read->tool_use_id == "c1");
  CHECK(read->error.empty());
  const auto bash = opencode().tool(
      R"({"hook_event_name":"tool.execute.after","tool":"bash","args":{"command":"make"},)"
      R"("output":{"output":"boom","metadata":{"exit":2}}})");
  REQUIRE(bash.has_value());
  CHECK(bash->tool == ToolKind::shell);
  CHECK(bash->command == "make");
  CHECK(bash->stdout_text == "boom");
  CHECK(bash->error == "Exit code 2");
  const auto ok = opencode().tool(
      R"({"tool":"bash","args":{"command":"ls"},"output":{"metadata":{"exit":0}}})");
  CHECK(ok->error.empty());
}

TEST_CASE("opencode and pi: only the context is printed, for the shim", "[agents][js]") {
  for (const Agent *a : {&opencode(), &pi()}) {
    CAPTURE(a->name);
    CHECK(a->render("chat.message", {.context = "ctx", .system_message = "hi"}) ==
          "{\"context\":\"ctx\"}\n");
    CHECK(a->render("chat.message", {.system_message = "hi"}).empty());
  }
}

// What the shim sends at session.idle and session.compacted: the session's latest messages, as
// OpenCode 1.18.33's client.session.messages gave them (one assistant message per step).
constexpr const char *k_opencode_messages =
    R"("messages":[{"info":{"id":"m1","role":"user"},"parts":[{"type":"text","text":"q"}]},)"
    R"({"info":{"id":"m2","role":"assistant","finish":"tool-calls"},"parts":[)"
    R"({"type":"step-start"},{"type":"text","text":"Let me read it."},{"type":"tool"}]},)"
    R"({"info":{"id":"m3","role":"user"},"parts":[{"type":"compaction"}]},)"
    R"({"info":{"id":"m4","role":"assistant","summary":true,"mode":"compaction"},"parts":[)"
    R"({"type":"text","text":"The summary."}]},)"
    R"({"info":{"id":"m5","role":"user"},"parts":[{"type":"text","text":"Continue",)"
    R"("synthetic":true}]},)"
    R"({"info":{"id":"m6","role":"assistant","finish":"stop"},"parts":[{"type":"step-start"},)"
    R"({"type":"text","text":"The final"},{"type":"text","text":"reply."},)"
    R"({"type":"step-finish"}]}])";

TEST_CASE("opencode: the reply is the last assistant message's text at session.idle; the "
          "summary the last summary message's at session.compacted",
          "[agents][js]") {
  const std::string idle =
      std::string(R"({"hook_event_name":"session.idle","sessionID":"ses_1","directory":"/p",)") +
      k_opencode_messages + "}";
  const auto stop = opencode().stop(idle);
  REQUIRE(stop.has_value());
  CHECK(stop->last_assistant_message == "The final\nreply.");
  CHECK(stop->session_id == "ses_1");
  CHECK(stop->cwd == "/p");
  const auto compact = opencode().compact(
      std::string(R"({"hook_event_name":"session.compacted","sessionID":"ses_1",)") +
      k_opencode_messages + "}");
  REQUIRE(compact.has_value());
  CHECK(compact->compact_summary == "The summary.");
  // A turn that ends with the summary (a compaction of its own) has no reply to capture; a
  // session without a summary has none to capture either.
  const auto summary_last = opencode().stop(
      R"({"messages":[{"info":{"role":"assistant"},"parts":[{"type":"text","text":"old"}]},)"
      R"({"info":{"role":"assistant","summary":true},"parts":[{"type":"text","text":"S"}]}]})");
  CHECK(summary_last->last_assistant_message.empty());
  CHECK(opencode()
            .compact(R"({"messages":[{"info":{"role":"assistant"},"parts":[{"type":"text",)"
                     R"("text":"a reply"}]}]})")
            ->compact_summary.empty());
  // No messages (the shim could not fetch them), or not a list: nothing, and no error.
  CHECK(opencode().stop(R"({"hook_event_name":"session.idle"})")->last_assistant_message.empty());
  CHECK(opencode().stop(R"({"messages":{"a":1}})")->last_assistant_message.empty());
  CHECK(opencode().compact(R"({"messages":[1,"x",{"info":3}]})")->compact_summary.empty());
}

TEST_CASE("pi: tool_result: read's path, bash's failure and its exit code", "[agents][js]") {
  const auto read = pi().tool(
      R"({"hook_event_name":"tool_result","sessionId":"u1","cwd":"/p","toolName":"read",)"
      R"("toolCallId":"t1","input":{"path":"src/a.py"},"content":[{"type":"text","text":"x"}],)"
      R"("isError":false})");
  REQUIRE(read.has_value());
  CHECK(read->tool == ToolKind::read);
  CHECK(read->file_path == "src/a.py");
  CHECK(read->cwd == "/p");
  CHECK(agent_session(pi(), read->session_id) == "pi-u1");
  CHECK(read->error.empty());
  const auto bash =
      pi().tool(R"({"toolName":"bash","input":{"command":"make"},"isError":true,)"
                R"("content":[{"type":"text","text":"boom\n\nCommand exited with code 2"}]})");
  CHECK(bash->tool == ToolKind::shell);
  CHECK(bash->error == "Exit code 2");
  CHECK(bash->stdout_text == "boom\n\nCommand exited with code 2");
  // A failure without the exit line (a timeout, an abort) is still a failure.
  CHECK(pi().tool(R"({"toolName":"bash","isError":true,"content":"killed"})")->error ==
        "Exit code 1");
}

TEST_CASE("pi: the reply is agent_end's last assistant text; the summary session_compact's",
          "[agents][js]") {
  const auto stop = pi().stop(
      R"({"hook_event_name":"agent_end","messages":[{"role":"user","content":"q"},)"
      R"({"role":"assistant","content":[{"type":"text","text":"first"}]},)"
      R"({"role":"assistant","content":[{"type":"toolCall","id":"x"}]},)"
      R"({"role":"assistant","content":[{"type":"text","text":"last"}]},{"role":"toolResult"}]})");
  REQUIRE(stop.has_value());
  CHECK(stop->last_assistant_message == "last");
  const auto compact =
      pi().compact(R"({"hook_event_name":"session_compact","compactionEntry":{"summary":"S"}})");
  CHECK(compact->compact_summary == "S");
  CHECK(pi().prompt(R"({"prompt":"why?"})")->prompt == "why?");
}

TEST_CASE(
    "install --agent opencode: the shim with its rows, mcp.mem0, once; uninstall removes ours",
    "[cli][install][js]") {
  mt::CliHome h;
  const fs::path shim = h.f.home / ".config" / "opencode" / "plugins" / "mem0.js";
  const fs::path config = h.f.home / ".config" / "opencode" / "opencode.json";
  mt::write_file(config, R"({"theme":"dark","mcp":{"other":{"type":"remote","url":"u"}},)"
                         R"("command":{"mem0-pause":{"template":"mine"}}})");
  REQUIRE(h.run({"install", "--agent", "opencode"}) == k_ok);
  INFO(h.out.str() << h.err.str());
  const auto text = read_small_file(shim);
  REQUIRE(text.has_value());
  CHECK(is_our_shim(*text, opencode()));
  CHECK(mt::contains(*text, "const CONFIG = {\"agent\":\"opencode\",\"bin\":\"" +
                                mt::backslashes_escaped(h.exe_dir.string()) + "\""));
  CHECK(mt::contains(*text, "\"commands\":{\"mem0-search\":\"peek\""));
  for (const HookSpec &row : hooks_of("opencode"))
    CHECK(mt::contains(*text, "\"executable\":\"" + std::string(row.executable) + "\""));
  CHECK(mt::contains(*text, "\"executable\":\"on_session_start\",\"matcher\":\"\","
                            "\"timeout_ms\":8000,\"once\":true"));
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, read_small_file(config).value()));
  CHECK(std::string(doc["theme"].GetString()) == "dark");
  CHECK(doc["mcp"].HasMember("other"));
  CHECK(std::string(doc["mcp"]["mem0"]["command"][0].GetString()) ==
        program_path(h.exe_dir, "mem0-hooks", platform::windows_commands()));
  CHECK(std::string(doc["mcp"]["mem0"]["type"].GetString()) == "local");
  // Our commands, described by what they run; the user's own /mem0-pause kept as it was.
  CHECK(std::string(doc["command"]["mem0-search"]["description"].GetString())
            .ends_with("(mem0-hooks peek)"));
  CHECK(doc["command"].HasMember("mem0-resume"));
  REQUIRE(doc["command"].HasMember("mem0-tour"));
  CHECK(std::string(doc["command"]["mem0-tour"]["description"].GetString())
            .ends_with("(mem0-hooks tour)"));
  CHECK(mt::contains(*text, "\"mem0-tour\":\"tour\""));
  CHECK(mt::contains(h.out.str(), "added the commands /mem0-search, /mem0-remember, /mem0-forget, "
                                  "/mem0-pause, /mem0-resume, /mem0-tour to "));
  CHECK(std::string(doc["command"]["mem0-pause"]["template"].GetString()) == "mine");

  CHECK(h.run({"install", "--agent", "opencode"}) == k_ok);
  CHECK(mt::contains(h.out.str(), "already up to date"));
  CHECK(read_small_file(shim) == text);

  h.run({"doctor"});
  CHECK(mt::contains(h.out.str(), "  hooks         wired in " + shim.string()));
  CHECK(mt::contains(h.out.str(), "  memory tools  registered in " + config.string()));

  CHECK(h.run({"uninstall", "--agent", "opencode"}) == k_ok);
  CHECK_FALSE(fs::exists(shim));
  REQUIRE(parse_json(doc, read_small_file(config).value()));
  CHECK_FALSE(doc["mcp"].HasMember("mem0"));
  CHECK(doc["mcp"].HasMember("other"));
  CHECK_FALSE(doc["command"].HasMember("mem0-search"));
  CHECK(doc["command"].HasMember("mem0-pause"));
  CHECK(h.run({"uninstall", "--agent", "opencode"}) == k_ok);
  CHECK(mt::contains(h.out.str(), "nothing to remove"));
}

TEST_CASE("install --agent opencode|pi: a file not ours is left alone", "[cli][install][js]") {
  mt::CliHome h;
  const fs::path shim = h.f.home / ".pi" / "agent" / "extensions" / "mem0.js";
  mt::write_file(shim, "export default (pi) => {};\n");
  CHECK(h.run({"install", "--agent", "pi"}) == k_failure);
  CHECK(mt::contains(h.err.str(), shim.string() + " is not a mem0 shim; left untouched"));
  CHECK(h.run({"uninstall", "--agent", "pi"}) == k_failure);
  CHECK(read_small_file(shim) == std::string("export default (pi) => {};\n"));

  // An opencode.json that is not JSON: the shim is written, the file left as it was.
  const fs::path config = h.f.home / ".config" / "opencode" / "opencode.json";
  mt::write_file(config, "{ not json");
  CHECK(h.run({"install", "--agent", "opencode"}) == k_failure);
  CHECK(mt::contains(h.err.str(), config.string() + " is not valid JSON; left untouched"));
  CHECK(read_small_file(config) == std::string("{ not json"));

  // --project: the project's shim; the memory tools stay the user's.
  fs::remove(config);
  CHECK(h.run({"install", "--agent", "opencode", "--project"}) == k_ok);
  CHECK(fs::exists(h.f.project / ".opencode" / "plugins" / "mem0.js"));
  CHECK(registers_memory_tools(config, McpFormat::opencode));
  CHECK_FALSE(fs::exists(h.f.project / "opencode.json"));
  CHECK(h.run({"install", "--agent", "pi", "--project"}) == k_ok); // the user's file not read
  CHECK(is_our_shim(read_small_file(h.f.project / ".pi" / "extensions" / "mem0.js").value(), pi()));
}
