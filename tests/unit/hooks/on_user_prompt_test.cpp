#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/identity.hpp"
#include "util/platform.hpp"
#include "util/sha256.hpp"

#include "hooks/on_user_prompt/on_user_prompt.hpp"

#include <algorithm>
#include <set>

using namespace mem0;
using namespace mem0::testing;
namespace oup = mem0::on_user_prompt;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view k_heading = "### Relevant memories (auto-retrieved for this request)";
constexpr std::string_view k_want_resume_heading = "### Session context recovered from mem0";
constexpr std::string_view k_want_resume_footer =
    "These memories provide context for resuming work.";
const std::string k_rubric =
    "Mem0 holds this project's past decisions, conventions, errors and work. When the user "
    "references past work, asks about a decision, reports an error or starts a non-trivial task, "
    "search it with a noun-phrase query: run `" +
    mem0_hooks_as_named() + " peek '<query>'` in the project directory, the query always quoted " +
    "as one shell word; `" + mem0_hooks_as_named() +
    " context '<task>'` loads what a task needs (decisions, conventions, prior errors); `" +
    mem0_hooks_as_named() +
    " peek <id8>` shows the memory whose line ends with that 8-character id. For multi-part or "
    "comparative questions, run several searches and combine the results before answering -- one "
    "search is rarely enough.";
constexpr std::string_view k_remember_line =
    "Remember intent detected. mem0 captures this conversation automatically; restate the fact "
    "to keep in one plain sentence in your reply so that it is stored as meant.";
const std::string k_error_line =
    "Error detected in prompt. Prior fixes may be in mem0 as anti_pattern or task_learning "
    "memories: run `" +
    mem0_hooks_as_named() + " peek '<the error message>'`, the message quoted as one shell word.";
const std::string k_no_key = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)";

const std::string k_plain = "How should we structure the retry logic for the sync worker?";
const std::string k_error_prompt = "The nightly sync crashed again:\n"
                                   "Traceback (most recent call last):\n"
                                   "  in run_sync\n"
                                   "ValueError: payload too large";
const std::string k_paths_prompt =
    "Please refactor src/sync/worker.py and tests/test_worker.py to share the retry helper";
const std::string k_resume_prompt = "Where did we leave off with the billing migration?";
const std::string k_remember_prompt =
    "Remember this: the staging database is rebuilt every Monday night";

PromptInput prompt_input(const HookFixture &f, std::string prompt,
                         std::string session = "session-1") {
  PromptInput in;
  in.session_id = std::move(session);
  in.cwd = f.project.string();
  in.hook_event_name = "UserPromptSubmit";
  in.prompt = std::move(prompt);
  return in;
}

HookOutput respond(HookFixture &f, const std::string &prompt,
                   const std::string &session = "session-1") {
  return handled(oup::handle, prompt_input(f, prompt, session), f);
}

std::string run(HookFixture &f, const std::string &prompt,
                const std::string &session = "session-1") {
  return respond(f, prompt, session).context;
}

// What the user sees (systemMessage).
std::string shown(HookFixture &f, const std::string &prompt,
                  const std::string &session = "session-1") {
  return respond(f, prompt, session).system_message;
}

// The [mem0:id8] of each memory line, in order.
std::vector<std::string> cited(std::string_view text) {
  std::vector<std::string> out;
  for (const auto &line : memory_lines(text)) {
    const auto at = line.rfind("[mem0:");
    out.push_back(at == std::string::npos ? "" : line.substr(at + 6, 8));
  }
  return out;
}

std::vector<std::string> id8s(std::initializer_list<unsigned> numbers) {
  std::vector<std::string> out;
  for (const unsigned n : numbers)
    out.push_back(id8_of(n));
  return out;
}

} // namespace

// --- gates -------------------------------------------------------------------------------------

TEST_CASE("on_user_prompt: is_gated counts code points after trimming") {
  CHECK(oup::is_gated(""));
  CHECK(oup::is_gated("fix the bug"));
  CHECK(oup::is_gated(std::string(19, 'a')));
  CHECK_FALSE(oup::is_gated(std::string(20, 'a')));
  CHECK(oup::is_gated("  \n\t" + std::string(19, 'a') + " \r\n\t "));

  std::string e19, e20, kanji20;
  for (int i = 0; i < 19; ++i)
    e19 += "\xC3\xA9"; // é, 2 bytes each: 38 bytes, 19 code points
  e20 = e19 + "\xC3\xA9";
  for (int i = 0; i < 20; ++i)
    kanji20 += "\xE6\x97\xA5"; // 日
  CHECK(oup::is_gated(e19));
  CHECK_FALSE(oup::is_gated(e20));
  CHECK_FALSE(oup::is_gated(kanji20));
}

TEST_CASE("on_user_prompt: is_gated stops slash commands but not slashes inside a prompt") {
  CHECK(oup::is_gated("/mem0:remember the staging db is rebuilt on Mondays"));
  CHECK(oup::is_gated("   /compact please summarise everything so far"));
  CHECK_FALSE(oup::is_gated("why is /usr/local/bin missing from PATH in the container?"));
}

TEST_CASE("on_user_prompt: gated prompts send nothing and print nothing") {
  HookFixture f;
  f.http.answer({memory(1, "fact", "would be shown")});
  CHECK(run(f, "short prompt").empty());
  CHECK(run(f, "/mem0:remember this is a long slash command text").empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_user_prompt: without an API key nothing is sent; the user is told once") {
  HookFixture f;
  f.unset_env("MEM0_API_KEY");
  REQUIRE_FALSE(f.config.api_key.has_value());
  f.http.answer({memory(1, "fact", "would be shown")});
  const std::string prompt = k_error_prompt + "\nsee src/sync/worker.py, remember this";
  const HookOutput first = respond(f, prompt);
  CHECK(first.context.empty());
  CHECK(first.system_message == k_no_key);
  const HookOutput second = respond(f, prompt);
  CHECK(second.context.empty());
  CHECK(second.system_message.empty()); // once per session
  CHECK(shown(f, prompt, "session-2") == k_no_key);
  CHECK(f.http.requests.empty());

  SECTION("not again when the session-start hook said it") {
    SessionState s;
    REQUIRE(claim_notice(s, notice_kind::no_key));
    REQUIRE(f.store().sessions.update("session-3", [&](SessionState &st) { st = s; }));
    CHECK(respond(f, prompt, "session-3").system_message.empty());
  }
  SECTION("every time without a session") {
    CHECK(shown(f, prompt, "") == k_no_key);
    CHECK(shown(f, prompt, "") == k_no_key);
  }
  SECTION("a gated prompt says nothing, not even this") {
    CHECK(shown(f, "short prompt", "session-4").empty());
  }
}

TEST_CASE("on_user_prompt: auto_search off sends nothing but still reports detections") {
  HookFixture f;
  SECTION("from the environment") { f.set_env("MEM0_AUTO_SEARCH", "false"); }
  SECTION("from settings.json") {
    write_file(f.home / ".mem0/settings.json", R"({"auto_search": false})");
    f.reload();
  }
  REQUIRE_FALSE(f.config.auto_search);
  f.http.answer({memory(1, "fact", "would be shown")});
  const std::string out = run(f, "Crash in src/sync/worker.py:\n" + k_error_prompt);
  CHECK(f.http.requests.empty());
  CHECK(has_line(out, k_error_line));
  CHECK(has_line(out, "File paths detected: src/sync/worker.py"));
  CHECK_FALSE(contains(out, "[mem0:"));
}

// --- analysis and plans ------------------------------------------------------------------------

TEST_CASE("on_user_prompt: analyze runs the detectors") {
  const auto plain = oup::analyze(k_plain, true);
  CHECK_FALSE(plain.error);
  CHECK_FALSE(plain.resume);
  CHECK_FALSE(plain.remember);
  CHECK(plain.paths.empty());

  CHECK(oup::analyze(k_error_prompt, true).error);
  CHECK(oup::analyze(k_resume_prompt, true).resume);
  CHECK(oup::analyze(k_remember_prompt, true).remember);
  CHECK(oup::analyze(k_paths_prompt, true).paths ==
        std::vector<std::string>{"src/sync/worker.py", "tests/test_worker.py"});
}

TEST_CASE("on_user_prompt: the query is redacted, whitespace collapsed and cut to 2000 bytes") {
  const std::string secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
  const auto redacted =
      oup::analyze("Why is the key\n\n   " + secret + "\trejected in prod?", true);
  CHECK_FALSE(contains(redacted.query, "AbCdEfGhIjKl"));
  CHECK(contains(redacted.query, "[REDACTED]"));
  CHECK_FALSE(contains(redacted.query, "\n"));
  CHECK_FALSE(contains(redacted.query, "  "));
  CHECK(redacted.query.starts_with("Why is the key "));

  CHECK(contains(oup::analyze("Why is the key " + secret + " rejected?", false).query, secret));

  std::string euros;
  for (int i = 0; i < 1000; ++i)
    euros += "\xE2\x82\xAC"; // €, 3 bytes: 3000 bytes in all
  const auto cut = oup::analyze(euros, true);
  CHECK(cut.query.size() == 1998); // 666 whole characters, never half of one
  CHECK(cut.query == euros.substr(0, 1998));
}

TEST_CASE("on_user_prompt: the lean plan is exactly one search of the query, top 10") {
  HookFixture f;
  REQUIRE(f.config.search_plan == SearchPlan::lean);
  for (const auto &prompt : {k_plain, k_error_prompt, k_paths_prompt}) {
    CAPTURE(prompt);
    const auto a = oup::analyze(prompt, true);
    const auto plan = oup::build_plan(a, f.config);
    REQUIRE(plan.size() == 1);
    CHECK(plan[0].query == a.query);
    CHECK_FALSE(plan[0].type.has_value());
    CHECK(plan[0].top_k == 10);
    CHECK(plan[0].scope == Scope::project);
  }
}

TEST_CASE("on_user_prompt: the thorough plan adds decision, anti_pattern and convention searches") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");

  const auto plain = oup::build_plan(oup::analyze(k_plain, true), f.config);
  REQUIRE(plain.size() == 2);
  CHECK(plain[0].top_k == 10);
  CHECK_FALSE(plain[0].type.has_value());
  CHECK(plain[1].type == std::optional<std::string>("decision"));
  CHECK(plain[1].top_k == 5);
  CHECK(plain[1].query == plain[0].query);

  const auto both =
      oup::analyze("Crash in src/sync/worker.py and lib/retry.ts:\n" + k_error_prompt, true);
  const auto plan = oup::build_plan(both, f.config);
  REQUIRE(plan.size() == 4);
  CHECK(plan[2].type == std::optional<std::string>("anti_pattern"));
  CHECK(plan[2].top_k == 3);
  CHECK(plan[2].query == both.query);
  CHECK(plan[3].type == std::optional<std::string>("convention"));
  CHECK(plan[3].top_k == 3);
  CHECK(plan[3].query == "src/sync/worker.py lib/retry.ts");

  const auto paths_only = oup::build_plan(oup::analyze(k_paths_prompt, true), f.config);
  REQUIRE(paths_only.size() == 3);
  CHECK(paths_only[2].type == std::optional<std::string>("convention"));
}

TEST_CASE("on_user_prompt: resume intent gives the session_state and decision searches") {
  HookFixture f;
  for (const char *plan_name : {"lean", "thorough"}) {
    CAPTURE(plan_name);
    f.set_env("MEM0_SEARCH_PLAN", plan_name);
    const auto plan = oup::build_plan(oup::analyze(k_resume_prompt, true), f.config);
    REQUIRE(plan.size() == 2);
    CHECK(plan[0].query == "session state current task");
    CHECK(plan[0].type == std::optional<std::string>("session_state"));
    CHECK(plan[0].top_k == 3);
    CHECK(plan[1].query == "recent decisions and learnings");
    CHECK(plan[1].type == std::optional<std::string>("decision"));
    CHECK(plan[1].top_k == 3);
  }
}

TEST_CASE("on_user_prompt: prefetch off drops the prompt searches but keeps the resume plan") {
  HookFixture f;
  f.set_env("MEM0_PREFETCH", "false");
  CHECK(oup::build_plan(oup::analyze(k_plain, true), f.config).empty());
  CHECK(oup::build_plan(oup::analyze(k_resume_prompt, true), f.config).size() == 2);

  f.http.answer({memory(1, "decision", "shown only for resume")});
  run(f, k_plain);
  CHECK(f.http.requests.empty());
  const std::string out = run(f, k_resume_prompt);
  CHECK(f.http.requests.size() == 2);
  CHECK(contains(out, "[mem0:" + id8_of(1) + "]"));
}

TEST_CASE("on_user_prompt: global search uses the global scope") {
  HookFixture f;
  f.set_env("MEM0_GLOBAL_SEARCH", "true");
  const auto plan = oup::build_plan(oup::analyze(k_plain, true), f.config);
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].scope == Scope::global);
  run(f, k_plain);
  REQUIRE(f.http.requests.size() == 1);
  CHECK(parse_sent(f.http.requests[0]).app_id == std::optional<std::string>("*"));
  CHECK(parse_sent(f.http.requests[0]).user_id == std::optional<std::string>("alice"));
}

// --- requests and output -----------------------------------------------------------------------

TEST_CASE("on_user_prompt: a lean prompt sends one search and prints the memories") {
  HookFixture f;
  f.http.answer({memory(1, "decision", "Use exponential backoff with jitter"),
                 memory(2, "convention", "Workers log every retry at INFO")});
  const std::string out = run(f, k_plain);

  REQUIRE(f.http.requests.size() == 1);
  const SentSearch s = parse_sent(f.http.requests[0]);
  CHECK(s.query == k_plain);
  CHECK(s.top_k == 10);
  CHECK_FALSE(s.type.has_value());
  CHECK(s.rerank == std::optional<bool>(true));
  CHECK(s.user_id == std::optional<std::string>("alice"));
  CHECK(s.app_id == std::optional<std::string>("proj"));

  const std::string expected =
      std::string(k_heading) + "\n\n" +
      "- [decision] Use exponential backoff with jitter [mem0:00000001]\n" +
      "- [convention] Workers log every retry at INFO [mem0:00000002]\n" + std::string(k_rubric);
  CHECK(out == expected);
  CHECK_FALSE(contains(out, "\\n"));
  CHECK(f.store().sessions.load("session-1").notices_shown.empty());
}

TEST_CASE("on_user_prompt: nothing wrong and show_recall off: nothing for the user") {
  HookFixture f;
  REQUIRE_FALSE(f.config.show_recall);
  f.http.answer(numbered(1, 3));
  const HookOutput out = respond(f, k_plain);
  CHECK(cited(out.context) == id8s({1, 2, 3}));
  CHECK(out.system_message.empty());
  CHECK(respond(f, k_error_prompt).system_message.empty());
}

TEST_CASE("on_user_prompt: show_recall adds a visible one-line summary per recall") {
  HookFixture f;
  SECTION("from the environment") { f.set_env("MEM0_SHOW_RECALL", "on"); }
  SECTION("from settings.json") {
    write_file(f.home / ".mem0/settings.json", R"({"show_recall": true})");
    f.reload();
  }
  REQUIRE(f.config.show_recall);
  f.http.answer(numbered(1, 4));
  const HookOutput first = respond(f, k_plain);
  CHECK(cited(first.context) == id8s({1, 2, 3, 4}));
  CHECK(first.system_message == "mem0: 4 memories recalled");
  CHECK_FALSE(contains(first.context, "recalled"));

  f.http.answer(numbered(1, 5));
  CHECK(shown(f, "And how do we test the retry logic of that worker?") ==
        "mem0: 1 memory recalled");
  // Nothing new recalled: no summary.
  CHECK(shown(f, "What about the retry limits for the sync worker then?").empty());
}

TEST_CASE("on_user_prompt: at most 6 memories are shown, in rank order") {
  HookFixture f;
  f.http.answer(numbered(1, 10));
  const std::string out = run(f, k_plain);
  CHECK(cited(out) == id8s({1, 2, 3, 4, 5, 6}));
}

TEST_CASE("on_user_prompt: lean plan with an error puts anti_pattern and task_learning first") {
  HookFixture f;
  auto results = numbered(1, 7);
  results[0].type = "decision";
  results.push_back(memory(8, "task_learning", "Retry the upload with a smaller batch"));
  results.push_back(memory(9, "anti_pattern", "Never buffer the whole payload in memory"));
  f.http.answer(results);

  const auto shown = cited(run(f, k_error_prompt));
  REQUIRE(shown.size() == 6);
  CHECK(std::set<std::string>(shown.begin(), shown.begin() + 2) ==
        std::set<std::string>{id8_of(8), id8_of(9)});
  CHECK(std::vector<std::string>(shown.begin() + 2, shown.end()) == id8s({1, 2, 3, 4}));

  // Without an error, rank order stands.
  HookFixture g;
  g.http.answer(results);
  CHECK(cited(run(g, k_plain)) == id8s({1, 2, 3, 4, 5, 6}));
}

TEST_CASE("on_user_prompt: a thorough prompt with error and paths sends four searches") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  f.http.answer_by_type([](const std::string &type) {
    if (type == "decision") return found({memory(2, "decision", "Batch size is 500")});
    if (type == "anti_pattern") return found({memory(3, "anti_pattern", "Do not retry 4xx")});
    if (type == "convention") return found({memory(4, "convention", "Workers live in src/sync")});
    return found(
        {memory(1, "fact", "Sync runs nightly"), memory(2, "decision", "Batch size is 500")});
  });
  const std::string prompt = "Crash in src/sync/worker.py and lib/retry.ts:\n" + k_error_prompt;
  const std::string out = run(f, prompt);

  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 4);
  CHECK(f.http.batches == 1);
  CHECK_FALSE(sent[0].type.has_value());
  CHECK(sent[0].top_k == 10);
  CHECK(sent[1].type == std::optional<std::string>("decision"));
  CHECK(sent[1].top_k == 5);
  CHECK(sent[2].type == std::optional<std::string>("anti_pattern"));
  CHECK(sent[2].top_k == 3);
  CHECK(sent[3].type == std::optional<std::string>("convention"));
  CHECK(sent[3].top_k == 3);
  CHECK(sent[3].query == "src/sync/worker.py lib/retry.ts");
  CHECK(cited(out) == id8s({1, 2, 3, 4})); // plan order, duplicate id 2 once
}

TEST_CASE("on_user_prompt: resume intent prints the recovered-session section") {
  HookFixture f;
  f.http.answer_by_type([](const std::string &type) {
    if (type == "session_state")
      return found({memory(1, "session_state", "Migrating invoices table")});
    return found({memory(2, "decision", "Keep the old table until March")});
  });
  const std::string out = run(f, k_resume_prompt);

  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].query == "session state current task");
  CHECK(sent[1].query == "recent decisions and learnings");

  const std::string expected = std::string(k_want_resume_heading) + "\n\n" +
                               "- [session_state] Migrating invoices table [mem0:00000001]\n" +
                               "- [decision] Keep the old table until March [mem0:00000002]\n" +
                               std::string(k_want_resume_footer) + "\n" + std::string(k_rubric);
  CHECK(out == expected);
}

TEST_CASE("on_user_prompt: text for the model names only tools that exist") {
  HookFixture f;
  const std::string out =
      run(f, "Remember this: after the crash in src/sync/worker.py we saw\n" + k_error_prompt);
  CHECK(has_line(out, k_rubric));
  for (const char *missing :
       {"search_memories", "/mem0:remember", "mcp__", "user_id", "app_id", "parallel calls"}) {
    CAPTURE(missing);
    CHECK_FALSE(contains(out, missing));
  }
  // The commands it names are the absolute path of a mem0-hooks next to the hook.
  CHECK(mem0_hooks_command() == mem0_hooks_as_named());
  CHECK(fs::path(mem0_hooks_path()).is_absolute());
  CHECK(contains(out, "`" + mem0_hooks_as_named() + " peek '<query>'`"));
  CHECK(contains(out, "`" + mem0_hooks_as_named() + " peek <id8>`"));
  CHECK(contains(out, "`" + mem0_hooks_as_named() + " context '<task>'`"));
}

TEST_CASE("on_user_prompt: remember intent with capture off says it will not be stored") {
  HookFixture f;
  f.set_env("MEM0_AUTO_SAVE", "false");
  const std::string out = run(f, k_remember_prompt);
  CHECK(has_line(out, "Remember intent detected, but mem0 capture is off (auto_save): nothing of "
                      "this session is stored; tell the user."));
  CHECK_FALSE(has_line(out, k_remember_line));
}

TEST_CASE("on_user_prompt: detections print their exact lines") {
  HookFixture f;
  const std::string out =
      run(f, "Remember this: after the crash in src/sync/worker.py and lib/retry.ts we saw\n" +
                 k_error_prompt);
  CHECK(has_line(out, k_remember_line));
  CHECK(has_line(out, k_error_line));
  CHECK(has_line(out, "File paths detected: src/sync/worker.py, lib/retry.ts"));
  CHECK(has_line(out, k_rubric));
  CHECK_FALSE(contains(out, "###")); // no memories found: no heading
}

TEST_CASE("on_user_prompt: nothing found and nothing to say prints nothing") {
  HookFixture f;
  run(f, k_plain); // shows the rubric once
  CHECK(run(f, "Which queue does the sync worker read from today?").empty());
  CHECK(f.http.requests.size() == 2);
}

// --- session memory ----------------------------------------------------------------------------

TEST_CASE("on_user_prompt: a session sees the rubric once and counts its prompts") {
  HookFixture f;
  f.http.answer(numbered(1, 3));
  const std::string first = run(f, k_plain);
  CHECK(cited(first) == id8s({1, 2, 3}));
  CHECK(has_line(first, k_rubric));

  f.http.answer(numbered(1, 4));
  const std::string second = run(f, "And how do we test the retry logic of that worker?");
  CHECK(cited(second) == id8s({4})); // the prompt's session keys the recall's dedupe
  CHECK_FALSE(contains(second, k_rubric));

  CHECK(run(f, "What about the retry limits for the sync worker then?").empty());
  CHECK(f.store().sessions.load("session-1").prompts == 3);
}

TEST_CASE("on_user_prompt: another session is shown the rubric again") {
  HookFixture f;
  f.http.answer(numbered(1, 3));
  run(f, k_plain, "session-a");
  const std::string other = run(f, k_plain, "session-b");
  CHECK(cited(other) == id8s({1, 2, 3}));
  CHECK(has_line(other, k_rubric));
}

TEST_CASE("on_user_prompt: CLAUDE_CODE_SESSION_ID names the session when the input has none") {
  HookFixture f;
  f.set_env("CLAUDE_CODE_SESSION_ID", "env-session");
  f.http.answer(numbered(1, 2));
  CHECK(cited(run(f, k_plain, "")) == id8s({1, 2}));
  CHECK(run(f, k_plain, "").empty());
}

// --- failures ----------------------------------------------------------------------------------

TEST_CASE("on_user_prompt: a 429 says recall was rate limited") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(429, R"({"detail":"Too many requests"})", std::chrono::seconds(7));
  };
  const HookOutput out = respond(f, k_plain);
  // The user is told; the model's context keeps only what helps the model.
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 7 s)");
  CHECK_FALSE(contains(out.context, "rate limited"));
  CHECK(memory_lines(out.context).empty());
  CHECK(out.context == k_rubric);
}

TEST_CASE("on_user_prompt: a 401 says the API key was rejected") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(401, R"({"detail":"Invalid API key"})");
  };
  const HookOutput out = respond(f, k_plain);
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 API key rejected");
  CHECK_FALSE(contains(out.context, "mem0: recall"));
}

TEST_CASE("on_user_prompt: a partial failure keeps the other results and says so") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
    if (type == "decision") return transport_failure(ErrorKind::timeout);
    return found({memory(1, "fact", "Still here")});
  });
  const HookOutput out = respond(f, k_plain);
  CHECK(cited(out.context) == id8s({1}));
  CHECK_FALSE(contains(out.context, "mem0: recall"));
  CHECK(out.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 2 searches failed (timeout)");
}

TEST_CASE("on_user_prompt: an http base URL of a remote host is refused without a request") {
  HookFixture f;
  f.set_env("MEM0_BASE_URL", "http://mem0.example.com");
  const HookOutput out = respond(f, k_plain);
  CHECK(f.http.requests.empty());
  CHECK(out.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (transport)");
  CHECK_FALSE(contains(out.context, "mem0: recall"));
}

// --- privacy -----------------------------------------------------------------------------------

TEST_CASE("on_user_prompt: secrets in the prompt never reach the request body") {
  HookFixture f;
  const std::string secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
  run(f, "Why does the deploy reject " + secret + " since this morning?");
  REQUIRE(f.http.requests.size() == 1);
  CHECK_FALSE(contains(f.http.requests[0].body, "AbCdEfGhIjKl"));
  CHECK(contains(parse_sent(f.http.requests[0]).query, "[REDACTED]"));
}

TEST_CASE("on_user_prompt: sections come in the order of the contract") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
    if (type == "decision") return http_status(503, "upstream unavailable");
    return found({memory(1, "fact", "Sync runs nightly")});
  });
  const HookOutput out =
      respond(f, "Remember this: after the crash in src/sync/worker.py we saw\n" + k_error_prompt);
  const std::vector<std::string> expected{std::string(k_heading),
                                          "",
                                          "- [fact] Sync runs nightly [mem0:00000001]",
                                          std::string(k_remember_line),
                                          std::string(k_rubric),
                                          std::string(k_error_line),
                                          "File paths detected: src/sync/worker.py"};
  CHECK(lines_of(out.context) == expected);
  // The failed search is the user's to know about, not the model's.
  CHECK(out.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 4 searches failed (server)");
}

TEST_CASE("on_user_prompt: the API key is never written to a state file") {
  HookFixture f;
  f.http.answer(numbered(1, 3));
  run(f, k_plain);
  run(f, k_resume_prompt);
  const std::string key = f.config.api_key.value_or("<none>");
  std::size_t files = 0;
  const auto check = [&](const fs::path &path, const std::string &text) {
    ++files;
    CAPTURE(path.string());
    CHECK_FALSE(contains(text, key));
  };
  for (const auto &entry : fs::recursive_directory_iterator(f.home.path()))
    if (entry.is_regular_file()) check(entry.path(), read_file(entry.path()));
  for (const auto &path : f.memory.files())
    check(path, f.disk().read(path, 16 << 20).value_or(""));
  CHECK(files >= 2); // the session file and the daily count were written
  for (const auto &r : f.http.requests)
    CHECK_FALSE(contains(r.body, key));
}

// --- shared memory and backends ----------------------------------------------------------------

namespace {

// The fixture's project is no repository: its shared id is the local form of its real path.
std::string fixture_shared_id(const HookFixture &f) {
  return "local-proj-" + sha256_hex(f.project.string()).substr(0, 10);
}

} // namespace

TEST_CASE("on_user_prompt: a lean prompt on the platform searches the shared memory too",
          "[backend]") {
  HookFixture f;
  REQUIRE_NOT_IN_GIT_REPO(f.project);
  const std::string shared = fixture_shared_id(f);
  REQUIRE(shared_agent_id("proj", f.project) == shared);
  f.http.answer({memory(1, "decision", "Use exponential backoff with jitter")});
  const std::string out = run(f, k_plain);

  REQUIRE(f.http.requests.size() == 1);
  const SentSearch s = parse_sent(f.http.requests[0]);
  CHECK(s.shared_agents == std::vector<std::string>{shared, "proj"});
  CHECK(s.user_id == std::optional<std::string>("alice"));
  CHECK(s.app_id == std::optional<std::string>("proj"));
  CHECK_FALSE(s.type.has_value());
  CHECK(filters_of(f.http.requests[0]) ==
        R"({"OR":[{"AND":[{"user_id":"alice"},{"app_id":"proj"}]},)"
        R"({"AND":[{"agent_id":")" +
            shared +
            R"("},{"app_id":"proj"}]},)"
            R"({"AND":[{"agent_id":"proj"},{"app_id":"proj"}]}]})");
  CHECK(f.http.requests[0].url == "https://api.mem0.ai/v3/memories/search/");
  CHECK(cited(out) == id8s({1}));
}

TEST_CASE("on_user_prompt: typed searches never widen to the shared memory", "[backend]") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  run(f, "Crash in src/sync/worker.py and lib/retry.ts:\n" + k_error_prompt);
  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 4);
  CHECK_FALSE(sent[0].type.has_value());
  CHECK(sent[0].shared_agents == std::vector<std::string>{fixture_shared_id(f), "proj"});
  for (std::size_t i = 1; i < sent.size(); ++i) {
    CAPTURE(i);
    REQUIRE(sent[i].type.has_value());
    CHECK(sent[i].shared_agents.empty());
    CHECK(sent[i].filter_count == 3); // user, app, metadata.type
    CHECK(filters_of(f.http.requests[i]) ==
          R"({"AND":[{"user_id":"alice"},{"app_id":"proj"},{"metadata":{"type":")" + *sent[i].type +
              R"("}}]})");
  }
}

TEST_CASE("on_user_prompt: no shared memory when it is off, or for a global search", "[backend]") {
  HookFixture f;
  SECTION("MEM0_SHARED_MEMORY=off") {
    f.set_env("MEM0_SHARED_MEMORY", "off");
    run(f, k_plain);
    REQUIRE(f.http.requests.size() == 1);
    CHECK(filters_of(f.http.requests[0]) == R"({"AND":[{"user_id":"alice"},{"app_id":"proj"}]})");
  }
  SECTION("settings.json shared_memory false") {
    write_file(f.home / ".mem0/settings.json", R"({"shared_memory": false})");
    f.reload();
    run(f, k_plain);
    REQUIRE(f.http.requests.size() == 1);
    CHECK(parse_sent(f.http.requests[0]).shared_agents.empty());
    CHECK(filters_of(f.http.requests[0]) == R"({"AND":[{"user_id":"alice"},{"app_id":"proj"}]})");
  }
  SECTION("global search") {
    f.set_env("MEM0_GLOBAL_SEARCH", "true");
    run(f, k_plain);
    REQUIRE(f.http.requests.size() == 1);
    CHECK(filters_of(f.http.requests[0]) == R"({"AND":[{"user_id":"alice"},{"app_id":"*"}]})");
  }
}

TEST_CASE("on_user_prompt: a self-hosted server gets POST /search with flat filters", "[backend]") {
  HookFixture f;
  f.set_env("MEM0_BACKEND", "selfhosted");
  REQUIRE(f.config.base_url == "http://localhost:8888");
  f.http.answer({memory(1, "decision", "Use exponential backoff with jitter")});
  const std::string out = run(f, k_plain);

  REQUIRE(f.http.requests.size() == 1);
  const HttpRequest &req = f.http.requests[0];
  CHECK(req.method == "POST");
  CHECK(req.url == "http://localhost:8888/search");
  CHECK(carries_header(req, "X-API-Key: m0-test-key-1234"));
  CHECK_FALSE(carries_header_named(req, "Authorization"));
  CHECK(filters_of(req) == R"({"user_id":"alice","agent_id":"proj"})");
  const SentSearch s = parse_sent(req);
  CHECK(s.query == k_plain);
  CHECK(s.top_k == 10);
  CHECK_FALSE(s.rerank.has_value());
  CHECK(cited(out) == id8s({1}));

  SECTION("a thorough plan's typed searches filter on type at the top") {
    f.set_env("MEM0_SEARCH_PLAN", "thorough");
    run(f, "How should we structure the retry logic for the billing worker?");
    REQUIRE(f.http.requests.size() == 3);
    CHECK(filters_of(f.http.requests[1]) == R"({"user_id":"alice","agent_id":"proj"})");
    CHECK(filters_of(f.http.requests[2]) ==
          R"({"user_id":"alice","agent_id":"proj","type":"decision"})");
  }
}

TEST_CASE("auto-capture: every third prompt, the new conversation only, with real roles",
          "[capture]") {
  HookFixture f;
  const fs::path transcript = f.home / "session.jsonl";
  auto line = [](const std::string &uuid, const std::string &role, const std::string &text) {
    return R"({"type":")" + role + R"(","uuid":")" + uuid + R"(","message":{"role":")" + role +
           R"(","content":")" + text + "\"}}\n";
  };
  write_file(transcript,
             line("u1", "user", "Please move the retry helper into sync/retry.py") +
                 line("a1", "assistant",
                      "Moved it, and updated the two callers in the worker and the CLI."));
  PromptInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  in.transcript_path = transcript.string();
  in.prompt = "A prompt long enough to count as a prompt";
  const HookContext ctx = f.context(in);
  CHECK_FALSE(on_user_prompt::handle(in, ctx).detached);
  CHECK_FALSE(on_user_prompt::handle(in, ctx).detached);
  const HookOutput third = on_user_prompt::handle(in, ctx);
  REQUIRE(third.detached);
  third.detached();
  Outbox outbox(f.disk(), f.config.state_dir);
  REQUIRE(outbox.pending().size() == 1);
  const auto body = json_of(platform_body(outbox.load(outbox.pending()[0])));
  REQUIRE(body["messages"].Size() == 2);
  CHECK(std::string(body["messages"][0]["role"].GetString()) == "user");
  CHECK(std::string(body["messages"][1]["role"].GetString()) == "assistant");
  CHECK(std::string(body["metadata"]["type"].GetString()) == "auto_capture");

  SECTION("what was captured is not captured again") {
    third.detached();
    CHECK(outbox.pending().size() == 1);
    write_file(
        transcript,
        read_file(transcript) +
            line("u2", "user", "Now add a jittered backoff to the retry helper") +
            line("a2", "assistant", "Added full jitter with a 30 s ceiling, and a test for it."));
    third.detached();
    REQUIRE(outbox.pending().size() == 2);
    const auto next = json_of(platform_body(outbox.load(outbox.pending()[1])));
    REQUIRE(next["messages"].Size() == 2);
    CHECK(contains(next["messages"][0]["content"].GetString(), "jittered backoff"));
  }
  SECTION("what was sent is never sent again, even when its uuid is not found") {
    // The conversation so far under other uuids (a transcript written again), or under none,
    // then one new exchange: only the new exchange is sent, and only once.
    const std::string uuid = GENERATE(std::string("-copy"), std::string("none"));
    auto id = [&](const std::string &base) { return uuid == "none" ? "" : base + uuid; };
    const std::string earlier =
        line(id("u1"), "user", "Please move the retry helper into sync/retry.py") +
        line(id("a1"), "assistant",
             "Moved it, and updated the two callers in the worker and the CLI.");
    write_file(transcript, earlier);
    third.detached();
    CHECK(outbox.pending().size() == 1);
    write_file(transcript,
               earlier + line(id("u3"), "user", "Then rename the retry helper to with_retries") +
                   line(id("a3"), "assistant",
                        "Renamed it in sync/retry.py and in its 4 callers; tests pass."));
    third.detached();
    REQUIRE(outbox.pending().size() == 2);
    const auto next = json_of(platform_body(outbox.load(outbox.pending().back())));
    REQUIRE(next["messages"].Size() == 2);
    CHECK(contains(next["messages"][0]["content"].GetString(), "with_retries"));
    third.detached();
    CHECK(outbox.pending().size() == 2);
  }
  SECTION("capture off asks for nothing") {
    f.set_env("MEM0_AUTO_SAVE", "off");
    for (int i = 0; i < 3; ++i)
      CHECK_FALSE(handled(on_user_prompt::handle, in, f).detached);
  }
}
