#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_bash_output/on_bash_output.hpp"
#include "util/utf8.hpp"

#include <algorithm>

using namespace mem0;
using namespace mem0::testing;
namespace obo = mem0::on_bash_output;

namespace {

// --- real Bash tool outputs, as Claude Code reports them -------------------------------------

// pytest --tb=native, failing: PostToolUseFailure's `error`.
const std::string k_pytest_native =
    "Exit code 1\n"
    "============================= test session starts ==============================\n"
    "platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0\n"
    "rootdir: /home/me/shop\n"
    "collected 4 items\n"
    "\n"
    "tests/test_price.py ...F                                                 [100%]\n"
    "\n"
    "=================================== FAILURES ===================================\n"
    "_______________________________ test_parse_price _______________________________\n"
    "Traceback (most recent call last):\n"
    "  File \"/home/me/shop/tests/test_price.py\", line 9, in test_parse_price\n"
    "    assert parse_price(\"12,50\") == 1250\n"
    "  File \"/home/me/shop/src/price.py\", line 3, in parse_price\n"
    "    return int(text.replace(\".\", \"\"))\n"
    "ValueError: invalid literal for int() with base 10: '12,50'\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_price.py::test_parse_price - ValueError: invalid literal for int() with "
    "base 10: '12,50'\n"
    "========================= 1 failed, 3 passed in 0.04s ==========================";
const std::string k_pytest_query = "ValueError: invalid literal for int() with base 10: '12,50'";

// pytest with its default traceback style: no `Traceback`, `E` marks the exception.
const std::string k_pytest_default =
    "Exit code 1\n"
    "=================================== FAILURES ===================================\n"
    "_______________________________ test_parse_price _______________________________\n"
    "\n"
    "    def test_parse_price():\n"
    ">       assert parse_price(\"12,50\") == 1250\n"
    "\n"
    "tests/test_price.py:9: \n"
    "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ \n"
    "\n"
    "    def parse_price(text):\n"
    ">       return int(text.replace(\".\", \"\"))\n"
    "E       ValueError: invalid literal for int() with base 10: '12,50'\n"
    "\n"
    "src/price.py:3: ValueError\n"
    "=========================== short test summary info ============================\n"
    "FAILED tests/test_price.py::test_parse_price - ValueError: invalid literal for int() with "
    "base 10: '12,50'\n"
    "============================== 1 failed in 0.03s ===============================";

// cargo build: exit 101.
const std::string k_cargo =
    "Exit code 101\n"
    "   Compiling shop v0.1.0 (/home/me/shop)\n"
    "error[E0308]: mismatched types\n"
    " --> src/main.rs:4:18\n"
    "  |\n"
    "4 |     let n: i32 = \"five\";\n"
    "  |            ---   ^^^^^^ expected `i32`, found `&str`\n"
    "  |            |\n"
    "  |            expected due to this\n"
    "\n"
    "For more information about this error, try `rustc --explain E0308`.\n"
    "error: could not compile `shop` (bin \"shop\") due to 1 previous error";

// go run: exit 2.
const std::string k_go_panic = "Exit code 2\n"
                               "panic: runtime error: index out of range [5] with length 3\n"
                               "\n"
                               "goroutine 1 [running]:\n"
                               "main.main()\n"
                               "\t/home/me/shop/main.go:8 +0x1d\n"
                               "exit status 2";

// git status outside a repository: exit 128.
const std::string k_not_a_repo =
    "Exit code 128\nfatal: not a git repository (or any of the parent directories): .git";

ToolInput failure(std::string command, std::string error, std::string session = "session-1") {
  ToolInput in;
  in.session_id = std::move(session);
  in.hook_event_name = "PostToolUseFailure";
  in.tool_name = "Bash";
  in.tool = ToolKind::shell;
  in.tool_use_id = "toolu_01";
  in.command = std::move(command);
  in.tool_input = R"({"command":")" + in.command + R"(","description":"Run it"})";
  in.error = std::move(error);
  return in;
}

ToolInput success(std::string command, std::string out, std::string err = "",
                  std::string session = "session-1") {
  ToolInput in;
  in.session_id = std::move(session);
  in.hook_event_name = "PostToolUse";
  in.tool_name = "Bash";
  in.tool = ToolKind::shell;
  in.tool_use_id = "toolu_01";
  in.command = std::move(command);
  in.tool_input = R"({"command":")" + in.command + R"(","description":"Run it"})";
  in.stdout_text = std::move(out);
  in.stderr_text = std::move(err);
  return in;
}

HookOutput respond(HookFixture &f, ToolInput in) {
  in.cwd = f.project.string();
  return handled(obo::handle, in, f);
}

std::string run(HookFixture &f, ToolInput in) { return respond(f, std::move(in)).context; }

std::string query_of(const ToolInput &in) { return obo::analyze(in, true).query; }

} // namespace

// --- gates ---------------------------------------------------------------------------------------

TEST_CASE("on_bash_output: no key, auto_search off or another tool: no request, no output",
          "[bash]") {
  SECTION("no key: nothing for the model, the user is told once per session") {
    HookFixture f;
    f.unset_env("MEM0_API_KEY");
    const std::string no_key =
        "mem0: no API key, recall and capture are off (run mem0-hooks doctor)";
    const HookOutput first = respond(f, failure("pytest", k_pytest_native));
    CHECK(first.context.empty());
    CHECK(first.system_message == no_key);
    const HookOutput again = respond(f, failure("go run .", k_go_panic));
    CHECK(again.context.empty());
    CHECK(again.system_message.empty());
    CHECK(f.http.requests.empty());
  }
  SECTION("auto_search off") {
    HookFixture f;
    f.set_env("MEM0_AUTO_SEARCH", "false");
    CHECK(run(f, failure("pytest", k_pytest_native)).empty());
    CHECK(f.http.requests.empty());
  }
  SECTION("not Bash") {
    HookFixture f;
    ToolInput in = failure("pytest", k_pytest_native);
    for (const char *tool : {"Read", "bash", ""}) {
      in.tool_name = tool;
      in.tool = claude_code_shape::tool_kind(tool);
      CHECK(run(f, in).empty());
    }
    CHECK(f.http.requests.empty());
  }
}

TEST_CASE("on_bash_output: a successful ls sends nothing and prints nothing", "[bash]") {
  HookFixture f;
  f.http.answer({memory(1, "anti_pattern", "never shown")});
  CHECK(run(f, success("ls", "README.md\nsrc\ntests\n")).empty());
  CHECK(run(f, success("ls -la src", "total 8\ndrwxr-xr-x 2 me me 4096 Mar 10 12:00 .\n")).empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_bash_output: git commit, merge and rebase are skipped, whatever they print",
          "[bash]") {
  HookFixture f;
  f.http.answer({memory(1, "anti_pattern", "never shown")});
  CHECK(run(f, success("git commit -am \"Fix Traceback in the price parser\"",
                       "[main 4f1c2d3] Fix Traceback in the price parser\n"
                       " 1 file changed, 2 insertions(+), 1 deletion(-)\n"))
            .empty());
  CHECK(run(f, failure("git merge origin/legacy",
                       "Exit code 128\nfatal: refusing to merge unrelated histories"))
            .empty());
  CHECK(run(f, failure("cd /home/me/shop && git -C . rebase main",
                       "Exit code 1\n"
                       "Auto-merging src/price.py\n"
                       "CONFLICT (content): Merge conflict in src/price.py\n"
                       "error: could not apply 1a2b3c4... Fix panic: on empty input\n"
                       "hint: Resolve all conflicts manually, mark them as resolved with"))
            .empty());
  CHECK(f.http.requests.empty());
  // The same output from another git command is looked up.
  CHECK_FALSE(
      run(f, failure("git log", "Exit code 128\nfatal: refusing to merge unrelated histories"))
          .empty());
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("on_bash_output: skipped_command finds git commit, merge and rebase", "[bash]") {
  for (const char *command :
       {"git commit -m 'x'", "git commit", "  git   rebase -i HEAD~3", "git merge --no-ff feature",
        "/usr/bin/git commit --amend", "git -C ../shop commit -am wip",
        "git -c user.name=me commit -m x", "git --git-dir=.git --no-pager merge main",
        "git --work-tree /tmp/w rebase main", "make test && git commit -am done",
        "pytest; git rebase --continue", "GIT_EDITOR=true git rebase --continue",
        "(cd shop && git merge main)"}) {
    CAPTURE(command);
    CHECK(obo::skipped_command(command));
  }
  for (const char *command :
       {"git status", "git log --grep commit", "git merge-base main HEAD", "git pull --rebase",
        "git show HEAD:commit.txt", "pytest tests/test_commit.py", "echo commit", "gitk commit",
        "legit commit", "git", ""}) {
    CAPTURE(command);
    CHECK_FALSE(obo::skipped_command(command));
  }
}

TEST_CASE("on_bash_output: error words only in the event's JSON are not an error", "[bash]") {
  HookFixture f;
  ToolInput in = success("grep -rn 'Traceback\\|panic:\\|FATAL:' logs/ || echo clean", "clean\n");
  in.tool_input = R"({"command":"grep -rn 'Traceback\\|panic:\\|FATAL:' logs/ || echo clean",)"
                  R"("description":"Look for ValueError: and KeyError: lines\nfatal: too"})";
  CHECK(run(f, in).empty());
  CHECK(f.http.requests.empty());
  CHECK(obo::output_text(in) == "clean\n");
}

// --- the error line ------------------------------------------------------------------------------

TEST_CASE("on_bash_output: a failing pytest run looks up the exception line", "[bash]") {
  HookFixture f;
  f.http.answer(
      {memory(1, "bug_fix", "parse_price must accept a decimal comma: replace , with .")});
  const std::string out = run(f, failure("pytest -q --tb=native", k_pytest_native));
  REQUIRE(f.http.requests.size() == 1);
  const SentSearch s = parse_sent(f.http.requests[0]);
  CHECK(s.query == k_pytest_query);
  CHECK(s.top_k == 10);
  CHECK_FALSE(s.type.has_value());
  CHECK(s.user_id == std::optional<std::string>("alice"));
  CHECK(s.app_id == std::optional<std::string>("proj"));
  CHECK(out == "### Prior errors like this (mem0)\n\n"
               "- [bug_fix] parse_price must accept a decimal comma: replace , with . "
               "[mem0:00000001]");
}

TEST_CASE("on_bash_output: the error lines of real tools", "[bash]") {
  CHECK(query_of(failure("pytest", k_pytest_native)) == k_pytest_query);
  CHECK(query_of(failure("pytest", k_pytest_default)) ==
        "FAILED tests/test_price.py::test_parse_price - ValueError: invalid literal for int() "
        "with base 10: '12,50'");
  CHECK(query_of(failure("cargo build", k_cargo)) == "error[E0308]: mismatched types");
  CHECK(query_of(failure("go run .", k_go_panic)) ==
        "panic: runtime error: index out of range [5] with length 3");
  CHECK(query_of(failure("git status", k_not_a_repo)) ==
        "fatal: not a git repository (or any of the parent directories): .git");
  CHECK(query_of(failure("psql shop", "Exit code 2\npsql: error: connection to server on socket "
                                      "\"/tmp/.s.PGSQL.5432\" failed: FATAL:  role \"me\" does "
                                      "not exist")) ==
        "psql: error: connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL: role "
        "\"me\" does not exist");
}

TEST_CASE("on_bash_output: each tool's failure sends its own error line", "[bash]") {
  HookFixture f;
  run(f, failure("cargo build", k_cargo));
  run(f, failure("go run .", k_go_panic));
  run(f, failure("git status", k_not_a_repo));
  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 3);
  CHECK(sent[0].query == "error[E0308]: mismatched types");
  CHECK(sent[1].query == "panic: runtime error: index out of range [5] with length 3");
  CHECK(sent[2].query == "fatal: not a git repository (or any of the parent directories): .git");
}

TEST_CASE("on_bash_output: a successful command's output is read too, stderr once", "[bash]") {
  HookFixture f;
  // exit 0, but the script printed a traceback (stderr merged into stdout, and also given alone)
  const std::string trace = "Traceback (most recent call last):\n"
                            "  File \"sync.py\", line 4, in <module>\n"
                            "KeyError: 'customer'\n";
  run(f, success("python sync.py || true", "syncing...\n" + trace, trace));
  REQUIRE(f.http.requests.size() == 1);
  CHECK(parse_sent(f.http.requests[0]).query == "KeyError: 'customer'");
  // One `Error:` line in stdout and the same line as stderr is one line, not two.
  CHECK(query_of(success("./check", "TypeError: x is undefined\n", "TypeError: x is undefined\n"))
            .empty());
  // Interleaved: the stderr lines that stdout holds are read once, the others are read.
  const std::string merged = "building\nTypeError: x is undefined\ndone\n";
  CHECK(query_of(success("./check", merged, "TypeError: x is undefined\n")).empty());
  CHECK(obo::output_text(success("./check", merged, "TypeError: x is undefined\nwarn: y\n")) ==
        merged + "\nwarn: y");
  // stderr that stdout does not hold is read.
  CHECK(query_of(success("./check", "TypeError: x is undefined\n", "RangeError: too deep\n")) ==
        "RangeError: too deep");
}

TEST_CASE("on_bash_output: output_text drops the exit code line and ANSI sequences", "[bash]") {
  CHECK(obo::output_text(failure("x", "Exit code 1\nboom")) == "boom");
  CHECK(obo::output_text(failure("x", "Exit code 1")).empty());
  CHECK(obo::output_text(failure("x", "Command timed out")) == "Command timed out");
  const std::string colored = "Exit code 101\n\x1b[0m\x1b[1m\x1b[38;5;9merror[E0425]\x1b[0m"
                              "\x1b[0m\x1b[1m: cannot find value `x` in this scope\x1b[0m";
  CHECK(obo::output_text(failure("cargo build", colored)) ==
        "error[E0425]: cannot find value `x` in this scope");
  CHECK(query_of(failure("cargo build", colored)) ==
        "error[E0425]: cannot find value `x` in this scope");
}

TEST_CASE("on_bash_output: strip_ansi removes CSI, OSC and short escapes only", "[bash]") {
  CHECK(obo::strip_ansi("\x1b[31mred\x1b[0m plain") == "red plain");
  CHECK(obo::strip_ansi("\x1b]0;title\x07text") == "text");
  CHECK(obo::strip_ansi("\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\") == "link");
  CHECK(obo::strip_ansi("\x1b(Bx\x1b=y") == "xy");
  CHECK(obo::strip_ansi("caf\xC3\xA9 \x1b[1m\xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");
  CHECK(obo::strip_ansi("trailing \x1b") == "trailing ");
  CHECK(obo::strip_ansi("unfinished \x1b[12") == "unfinished ");
}

TEST_CASE("on_bash_output: the query is redacted, cleaned and at most 200 code points", "[bash]") {
  const std::string secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
  const std::string q = query_of(
      failure("deploy", "Exit code 1\nfatal: auth failed for\t" + secret + "   at   gateway"));
  CHECK(q == "fatal: auth failed for [REDACTED] at gateway");
  CHECK(obo::analyze(failure("deploy", "Exit code 1\nfatal: auth " + secret), false).query ==
        "fatal: auth " + secret);

  // A long line: 200 code points, never a split character, no ellipsis.
  std::string long_line = "fatal: ";
  for (int i = 0; i < 300; ++i)
    long_line += "\xC3\xA9"; // é
  const std::string cut = query_of(failure("x", long_line));
  CHECK(code_points(cut) == 200);
  CHECK(is_valid_utf8(cut));
  CHECK(cut.starts_with("fatal: \xC3\xA9"));
  // The secret is redacted before the cut, so a cut never leaves part of it.
  const std::string padded = "fatal: " + std::string(180, 'x') + " " + secret;
  CHECK(query_of(failure("x", padded)) == "fatal: " + std::string(180, 'x') + " [REDACTED]");
}

TEST_CASE("on_bash_output: analyze gives the same key for the same line, another for another",
          "[bash]") {
  const auto a = obo::analyze(failure("go run .", k_go_panic), true);
  const auto b = obo::analyze(success("go run . || true", k_go_panic.substr(12)), true);
  const auto c = obo::analyze(failure("cargo build", k_cargo), true);
  CHECK(a.key.size() == 16);
  CHECK(a.key == b.key);
  CHECK(a.key != c.key);
  CHECK(obo::analyze(success("ls", "a\nb\n"), true).key.empty());
}

// --- plans and selection -------------------------------------------------------------------------

TEST_CASE("on_bash_output: lean puts anti_pattern, bug_fix, task_learning first, at most 5",
          "[bash]") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "c1"), memory(2, "task_learning", "t2"),
                 memory(3, "decision", "d3"), memory(4, "bug_fix", "b4"),
                 memory(5, "anti_pattern", "a5"), memory(6, "fact", "f6"),
                 memory(7, "anti_pattern", "a7")});
  const std::string out = run(f, failure("pytest", k_pytest_native));
  REQUIRE(f.http.requests.size() == 1);
  CHECK(types_shown(out) == std::vector<std::string>{"anti_pattern", "anti_pattern", "bug_fix",
                                                     "task_learning", "convention"});
  CHECK(lines_of(out).front() == "### Prior errors like this (mem0)");
  CHECK(has_line(out, "- [anti_pattern] a5 [mem0:00000005]"));
}

TEST_CASE("on_bash_output: thorough sends the line top 10, anti_pattern top 5, bug_fix top 3",
          "[bash]") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  f.http.answer_by_type([](const std::string &type) {
    if (type == "anti_pattern") return found({memory(2, "anti_pattern", "from the typed search")});
    if (type == "bug_fix") return found({memory(3, "bug_fix", "a fix")});
    return found({memory(1, "fact", "broad")});
  });
  const std::string out = run(f, failure("cargo build", k_cargo));
  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 3);
  CHECK(f.http.batches == 1); // in parallel
  CHECK(sent[0].query == "error[E0308]: mismatched types");
  CHECK(sent[0].top_k == 10);
  CHECK_FALSE(sent[0].type.has_value());
  CHECK(sent[1].query == sent[0].query);
  CHECK(sent[1].type == std::optional<std::string>("anti_pattern"));
  CHECK(sent[1].top_k == 5);
  CHECK(sent[2].query == sent[0].query);
  CHECK(sent[2].type == std::optional<std::string>("bug_fix"));
  CHECK(sent[2].top_k == 3);
  CHECK(types_shown(out) == std::vector<std::string>{"anti_pattern", "bug_fix", "fact"});
}

TEST_CASE("on_bash_output: global search uses the global scope", "[bash]") {
  HookFixture f;
  f.set_env("MEM0_GLOBAL_SEARCH", "true");
  const auto plan = obo::build_plan("fatal: x", f.config);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].scope == Scope::global);
  run(f, failure("git status", k_not_a_repo));
  REQUIRE(f.http.requests.size() == 1);
  CHECK(parse_sent(f.http.requests[0]).app_id == std::optional<std::string>("*"));
}

// --- once per error line per session -------------------------------------------------------------

TEST_CASE("on_bash_output: an error line is looked up once per session", "[bash]") {
  HookFixture f;
  f.http.answer({memory(1, "anti_pattern", "a1"), memory(2, "bug_fix", "b2")});
  CHECK(memory_lines(run(f, failure("pytest", k_pytest_native))).size() == 2);
  CHECK(f.http.requests.size() == 1);
  // The same line again in the same session (another command, same failure): nothing.
  CHECK(run(f, failure("pytest -x", k_pytest_native)).empty());
  CHECK(f.http.requests.size() == 1);
  // A different error line in the same session is looked up; its memories are new only.
  f.http.answer({memory(1, "anti_pattern", "a1"), memory(3, "task_learning", "t3")});
  CHECK(memory_lines(run(f, failure("go run .", k_go_panic))) ==
        std::vector<std::string>{"- [task_learning] t3 [mem0:00000003]"});
  CHECK(f.http.requests.size() == 2);
  // Another session looks the first line up again.
  CHECK_FALSE(run(f, failure("pytest", k_pytest_native, "session-2")).empty());
  CHECK(f.http.requests.size() == 3);
  const SessionState s = f.store().sessions.load("session-1");
  CHECK(s.errors.size() == 2);
  CHECK(s.errors[0] == obo::analyze(failure("pytest", k_pytest_native), true).key);
}

TEST_CASE("on_bash_output: a lookup that got no answer is tried again", "[bash]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) { return http_status(500, "{}"); };
  const HookOutput first = respond(f, failure("git status", k_not_a_repo));
  CHECK(first.context.empty());
  CHECK(first.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (server)");
  CHECK(f.store().sessions.load("session-1").errors.empty());
  f.http.answer({memory(1, "anti_pattern", "run git inside the checkout")});
  CHECK(has_line(run(f, failure("git status", k_not_a_repo)),
                 "- [anti_pattern] run git inside the checkout [mem0:00000001]"));
  CHECK(f.http.requests.size() == 2);
  CHECK(f.store().sessions.load("session-1").errors.size() == 1);
}

TEST_CASE("on_bash_output: a line found with no memories is still looked up only once", "[bash]") {
  HookFixture f;
  CHECK(run(f, failure("go run .", k_go_panic)).empty());
  CHECK(run(f, failure("go run .", k_go_panic)).empty());
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("on_bash_output: a concurrent run that claimed the line first wins", "[bash]") {
  HookFixture f;
  const std::string key = obo::analyze(failure("go run .", k_go_panic), true).key;
  // While this run searches, another run of the session records the same line.
  f.http.responder = [&](const HttpRequest &) {
    REQUIRE(
        f.store().sessions.update("session-1", [&](SessionState &s) { s.errors.push_back(key); }));
    return found({memory(1, "anti_pattern", "a1")});
  };
  CHECK(run(f, failure("go run .", k_go_panic)).empty());
  CHECK(f.http.requests.size() == 1);
  CHECK(f.store().sessions.load("session-1").errors == std::vector<std::string>{key});
}

TEST_CASE("on_bash_output: the session keeps the latest 256 error lines", "[bash]") {
  HookFixture f;
  REQUIRE(f.store().sessions.update("session-1", [](SessionState &s) {
    for (int i = 0; i < 256; ++i)
      s.errors.push_back("old-" + std::to_string(i));
  }));
  run(f, failure("go run .", k_go_panic));
  const SessionState s = f.store().sessions.load("session-1");
  REQUIRE(s.errors.size() == 256);
  CHECK(s.errors.front() == "old-1");
  CHECK(s.errors.back() == obo::analyze(failure("go run .", k_go_panic), true).key);
}

TEST_CASE("on_bash_output: without a session every occurrence is looked up", "[bash]") {
  HookFixture f;
  run(f, failure("go run .", k_go_panic, ""));
  run(f, failure("go run .", k_go_panic, ""));
  CHECK(f.http.requests.size() == 2);
}

// --- failures ------------------------------------------------------------------------------------

TEST_CASE("on_bash_output: a 429 says recall was rate limited", "[bash]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(429, R"({"detail":"Too many requests"})", std::chrono::seconds(7));
  };
  const HookOutput out = respond(f, failure("pytest", k_pytest_native));
  CHECK(out.context.empty());
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 7 s)");
  CHECK(f.store().sessions.load("session-1").errors.empty());
  // The pause then stops the next lookup without a request; the user knows already.
  const HookOutput paused = respond(f, failure("go run .", k_go_panic));
  CHECK(f.http.requests.size() == 1);
  CHECK(paused.context.empty());
  CHECK(paused.system_message.empty());
  // Another session is told, by the pause line.
  const HookOutput other = respond(f, failure("go run .", k_go_panic, "session-2"));
  CHECK(other.system_message.starts_with("mem0: recall paused \xE2\x80\x94 rate limited by Mem0, "
                                         "retrying in "));
}

TEST_CASE("on_bash_output: show_recall says how many memories were recalled", "[bash]") {
  HookFixture f;
  f.set_env("MEM0_SHOW_RECALL", "1");
  f.http.answer({memory(1, "anti_pattern", "a1")});
  const HookOutput out = respond(f, failure("pytest", k_pytest_native));
  CHECK(memory_lines(out.context).size() == 1);
  CHECK(out.system_message == "mem0: 1 memory recalled");
}

TEST_CASE("on_bash_output: a concurrent claim of the line still shows this run's notices",
          "[bash]") {
  HookFixture f;
  const std::string key = obo::analyze(failure("go run .", k_go_panic), true).key;
  f.http.responder = [&](const HttpRequest &) -> Result<HttpResponse> {
    REQUIRE(
        f.store().sessions.update("session-1", [&](SessionState &s) { s.errors.push_back(key); }));
    return http_status(401, "bad key");
  };
  const HookOutput out = respond(f, failure("go run .", k_go_panic));
  CHECK(out.context.empty());
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 API key rejected");
}

TEST_CASE("on_bash_output: output is one context text within the budget", "[bash]") {
  HookFixture f;
  std::vector<Memory> big;
  for (unsigned n = 1; n <= 5; ++n)
    big.push_back(memory(n, "anti_pattern", std::string(3000, 'a' + static_cast<char>(n))));
  f.http.answer(big);
  const ToolInput in = failure("pytest", k_pytest_native);
  const HookOutput out = handled(obo::handle, in, f);
  CHECK(out.system_message.empty());
  CHECK(out.block_reason.empty());
  CHECK(out.context.size() <= 9500);
  CHECK(memory_lines(out.context).size() == 5); // each line is cut to 200 code points
}
