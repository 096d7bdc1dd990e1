#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_session_start/on_session_start.hpp"
#include "hooks/on_user_prompt/on_user_prompt.hpp"

#include "mem0/format.hpp"
#include "runtime/project_files.hpp"
#include "store/outbox.hpp"
#include "util/sha256.hpp"

#include <algorithm>

using namespace mem0;
using namespace mem0::testing;
namespace oss = mem0::on_session_start;
namespace fs = std::filesystem;

namespace {

const std::string k_no_key = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)";
const std::string k_list_url = "https://api.mem0.ai/v3/memories/?page=1&page_size=20";

// The pending outbox items of `kind`, oldest first; adds only when they are a project file's.
std::vector<OutboxItem> import_items(const Outbox &outbox, OutboxItem::Kind kind) {
  std::vector<OutboxItem> found;
  for (const auto &name : outbox.pending())
    if (auto item = outbox.load(name);
        item && item->kind == kind &&
        (kind == OutboxItem::Kind::remove || !item->import_file.empty()))
      found.push_back(*item);
  return found;
}

// The memory ids whose deletion is pending, sorted.
std::vector<std::string> pending_deletions(const Outbox &outbox) {
  std::vector<std::string> ids;
  for (const auto &item : import_items(outbox, OutboxItem::Kind::remove))
    ids.push_back(item.memory_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

SessionStartInput start_input(const HookFixture &f, std::string source,
                              std::string session = "session-1") {
  SessionStartInput in;
  in.session_id = std::move(session);
  in.cwd = f.project.string();
  in.hook_event_name = "SessionStart";
  in.source = std::move(source);
  return in;
}

HookOutput respond(HookFixture &f, const std::string &source,
                   const std::string &session = "session-1") {
  return handled(oss::handle, start_input(f, source, session), f);
}

std::string run(HookFixture &f, const std::string &source,
                const std::string &session = "session-1") {
  return respond(f, source, session).context;
}

// True when the output asks the runner to import the project files in the detached sender.
bool imports(const HookOutput &out) { return static_cast<bool>(out.detached); }

// Answer list requests with `count` and `memories`, and searches with `searched`.
void answer_list(HookFixture &f, long count, std::vector<Memory> memories,
                 std::vector<Memory> searched = {}) {
  f.http.responder = [count, memories = std::move(memories),
                      searched = std::move(searched)](const HttpRequest &r) {
    if (r.url.find("/v3/memories/search/") != std::string::npos) return found(searched);
    return http_status(200, list_json(count, memories));
  };
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

void make_repo(const fs::path &root, const std::string &branch) {
  write_file(root / ".git/HEAD", "ref: refs/heads/" + branch + "\n");
  write_file(root / ".git/config", "[core]\n\tbare = false\n");
}

// Ten memories, newest first, of mixed types: 1 fact, 2 decision, 3 anti_pattern, 4 convention,
// 5 session_state, 6 task_learning, 7 preference, 8 decision, 9 convention, 10 decision; made
// 1 to 6 days before fixed_now().
std::vector<Memory> mixed_page() {
  const std::vector<std::string> types{
      "fact",          "decision",   "anti_pattern", "convention", "session_state",
      "task_learning", "preference", "decision",     "convention", "decision"};
  std::vector<Memory> out;
  for (unsigned n = 1; n <= types.size(); ++n)
    out.push_back(memory(n, types[n - 1], "memory number " + std::to_string(n),
                         "2025-03-0" + std::to_string(9 - n / 2) + "T12:00:00Z"));
  return out;
}

} // namespace

// --- gates -------------------------------------------------------------------------------------

TEST_CASE("on_session_start: without an API key only the visible line is printed", "[start]") {
  HookFixture f;
  f.unset_env("MEM0_API_KEY");
  REQUIRE_FALSE(f.config.api_key.has_value());
  for (const std::string source : {"startup", "resume", "clear", "compact"}) {
    CAPTURE(source);
    const auto r = respond(f, source, "session-" + source);
    CHECK(r.context.empty());
    CHECK(r.system_message == k_no_key);
    CHECK_FALSE(imports(r));
  }
  CHECK(f.http.requests.empty());
  // The session records only that the user was told.
  const SessionState s = f.store().sessions.load("session-startup");
  CHECK(s.notices_shown == std::vector<std::string>{"no_key"});
  CHECK(s.injected.empty());
  CHECK(s.prompts == 0);
}

TEST_CASE("on_session_start: the no-key line is shown once per session", "[start]") {
  HookFixture f;
  f.unset_env("MEM0_API_KEY");
  CHECK(respond(f, "startup").system_message == k_no_key);
  CHECK(respond(f, "compact").system_message.empty());
  CHECK(respond(f, "resume").system_message.empty());
  // The prompt hook knows the session was told.
  PromptInput prompt;
  prompt.session_id = "session-1";
  prompt.cwd = f.project.string();
  prompt.prompt = "How should the invoice PDFs be rendered from now on?";
  CHECK(handled(on_user_prompt::handle, prompt, f).system_message.empty());
  prompt.session_id = "session-2";
  CHECK(handled(on_user_prompt::handle, prompt, f).system_message == k_no_key);
  CHECK(respond(f, "startup", "session-2").system_message.empty());
  // Without a session: every time.
  CHECK(respond(f, "startup", "").system_message == k_no_key);
  CHECK(respond(f, "startup", "").system_message == k_no_key);
}

TEST_CASE("on_session_start: an unknown or missing source gets nothing", "[start]") {
  HookFixture f;
  answer_list(f, 3, mixed_page());
  for (const std::string source : {"", "reload", "Startup", "other"}) {
    CAPTURE(source);
    const auto r = respond(f, source);
    CHECK(r.context.empty());
    CHECK(r.system_message.empty());
    CHECK_FALSE(imports(r));
  }
  f.unset_env("MEM0_API_KEY");
  CHECK(respond(f, "reload").system_message.empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_session_start: auto_search off sends nothing but still imports", "[start]") {
  HookFixture f;
  write_file(f.project / "CLAUDE.md",
             "## Notes\n\nA project note long enough to be imported as a memory.\n");
  f.set_env("MEM0_AUTO_SEARCH", "false");
  answer_list(f, 3, mixed_page(), mixed_page());
  const auto start = respond(f, "startup");
  CHECK(start.context.empty());
  CHECK(start.system_message.empty());
  CHECK(imports(start));
  CHECK(respond(f, "resume").context.empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_session_start: the import is requested for startup and clear only", "[start]") {
  HookFixture f;
  write_file(f.project / "CLAUDE.md",
             "## Notes\n\nA project note long enough to be imported as a memory.\n");
  answer_list(f, 0, {});
  CHECK(imports(respond(f, "startup")));
  CHECK(imports(respond(f, "clear")));
  CHECK_FALSE(imports(respond(f, "resume")));
  CHECK_FALSE(imports(respond(f, "compact")));
  f.set_env("MEM0_AUTO_SAVE", "false");
  const HookOutput off = respond(f, "startup", "session-2");
  CHECK_FALSE(imports(off));
  CHECK(off.context == "### mem0: 0 memories for proj (user alice)"); // recall is not capture
}

TEST_CASE("on_session_start: the detached work queues the project files once", "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  const std::string build =
      "## Build\n\nConfigure with cmake -DMEM0_WERROR=ON and build only what you need.";
  const std::string style =
      "## Style\n\nMoney is integer cents everywhere; Decimal is forbidden in the API.";
  write_file(f.project / "CLAUDE.md", "# Billing\n\n" + build + "\n\n" + style + "\n");
  Outbox outbox(f.disk(), f.config.state_dir);

  HookOutput out = respond(f, "startup");
  REQUIRE(imports(out));
  CHECK(outbox.pending().empty()); // nothing is queued by the hook itself
  out.detached();
  const auto names = outbox.pending();
  REQUIRE(names.size() == 2);
  std::vector<std::string> contents;
  for (const auto &name : names) {
    const auto item = outbox.load(name);
    REQUIRE(item.has_value());
    CHECK(item->kind == OutboxItem::Kind::add);
    CHECK(item->import_file == "proj/CLAUDE.md");
    rapidjson::Document body;
    body.Parse(platform_body(item).c_str());
    REQUIRE(body.IsObject());
    CHECK_FALSE(body["infer"].GetBool());
    CHECK(std::string(body["metadata"]["type"].GetString()) == "project_profile");
    CHECK(std::string(body["metadata"]["file"].GetString()) == "CLAUDE.md");
    contents.emplace_back(body["messages"][0]["content"].GetString());
  }
  CHECK(contents == std::vector<std::string>{build, style});

  // Unchanged: a later startup does not even ask for the import (no process is started).
  CHECK_FALSE(imports(respond(f, "startup", "session-2")));
  const HookContext ctx = f.context(start_input(f, "startup", "session-2"));
  import_project_files(ctx, *ctx.facts);
  CHECK(outbox.pending().size() == 2); // and the import itself would queue nothing more
  CHECK(f.http.requests.size() == 2);  // the two list requests; the import sends nothing
}

TEST_CASE("on_session_start: a changed file's import replaces the last one, even undelivered",
          "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  const fs::path claude_md = f.project / "CLAUDE.md";
  auto version = [](int v) {
    return "## Build\n\nConfigure version " + std::to_string(v) +
           " with cmake and build only the targets you need.\n";
  };
  Outbox outbox(f.disk(), f.config.state_dir);
  auto queued = [&] { return import_items(outbox, OutboxItem::Kind::add); };
  auto deletions = [&] { return pending_deletions(outbox); };

  write_file(claude_md, version(1));
  respond(f, "startup", "s1").detached();
  REQUIRE(queued().size() == 1);
  const OutboxItem first = queued()[0];

  // Changed before the first import was delivered: nothing is known to delete yet.
  write_file(claude_md, version(2));
  respond(f, "startup", "s2").detached();
  REQUIRE(queued().size() == 2);
  const OutboxItem second = queued()[1];
  CHECK(first.import_claim != second.import_claim);
  CHECK(deletions().empty());

  // The current import's ids are recorded; the superseded import's are deleted once delivered.
  record_import_ids(*f.state, second, {"id-v2"});
  CHECK(deletions().empty());
  record_import_ids(*f.state, first, {"id-v1"});
  CHECK(deletions() == std::vector<std::string>{"id-v1"});

  // The next change deletes the current import's memories.
  write_file(claude_md, version(3));
  respond(f, "startup", "s3").detached();
  CHECK(deletions() == std::vector<std::string>{"id-v1", "id-v2"});
}

// --- startup and clear -------------------------------------------------------------------------

TEST_CASE("on_session_start: startup sends one list request with the project filters", "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  run(f, "startup");
  REQUIRE(f.http.requests.size() == 1);
  CHECK(f.http.batches == 1);
  const HttpRequest &r = f.http.requests[0];
  CHECK(r.method == "POST");
  CHECK(r.url == k_list_url);
  const SentSearch sent = parse_sent(r);
  REQUIRE(sent.parsed);
  CHECK(sent.user_id == std::optional<std::string>("alice"));
  CHECK(sent.app_id == std::optional<std::string>("proj"));
  CHECK_FALSE(sent.run_id.has_value());
  CHECK_FALSE(sent.type.has_value());
  CHECK(sent.filter_count == 2);
  CHECK(sent.query.empty());
  CHECK(std::any_of(r.headers.begin(), r.headers.end(), [](const std::string &h) {
    return h == "Authorization: Token m0-test-key-1234";
  }));
}

TEST_CASE("on_session_start: the header names count, project, user and branch", "[start]") {
  HookFixture f;
  answer_list(f, 42, {});
  SECTION("in a git checkout") {
    make_repo(f.project, "feature/billing");
    CHECK(run(f, "startup") ==
          "### mem0: 42 memories for proj (user alice, branch feature/billing)");
  }
  SECTION("from a subdirectory of the checkout") {
    make_repo(f.project, "main");
    fs::create_directories(f.project / "src/app");
    auto in = start_input(f, "clear");
    in.cwd = (f.project / "src/app").string();
    CHECK(handled(oss::handle, in, f).context ==
          "### mem0: 42 memories for proj (user alice, branch main)");
  }
  SECTION("a detached HEAD shows the short commit") {
    write_file(f.project / ".git/HEAD", "0123456789abcdef0123456789abcdef01234567\n");
    CHECK(run(f, "startup") == "### mem0: 42 memories for proj (user alice, branch 0123456)");
  }
  SECTION("outside a checkout there is no branch") {
    REQUIRE_NOT_IN_GIT_REPO(f.project);
    CHECK(run(f, "startup") == "### mem0: 42 memories for proj (user alice)");
  }
}

TEST_CASE("on_session_start: header names are cleaned and cut", "[start]") {
  CHECK(oss::header_line(7, "proj\nx", "al\x01ice", std::string("ma\tin")) ==
        "### mem0: 7 memories for proj x (user alice, branch ma in)");
  CHECK(oss::header_line(0, "p", "u", std::nullopt) == "### mem0: 0 memories for p (user u)");
  CHECK(oss::header_line(0, "p", "u", std::string()) == "### mem0: 0 memories for p (user u)");
  const std::string long_branch(300, 'b');
  const std::string header = oss::header_line(1, "p", "u", long_branch);
  CHECK(header ==
        "### mem0: 1 memories for p (user u, branch " + std::string(100, 'b') + "\xE2\x80\xA6)");
}

TEST_CASE("on_session_start: at most 5 memories of the recent types, newest first", "[start]") {
  HookFixture f;
  answer_list(f, 57, mixed_page());
  const std::string out = run(f, "startup");
  const auto lines = lines_of(out);
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == "### mem0: 57 memories for proj (user alice)");
  CHECK(lines[1].empty());
  // 1 fact, 3 anti_pattern and 7 preference are not shown; 10 is the sixth of the types.
  CHECK(cited(out) == id8s({2, 4, 5, 6, 8}));
  CHECK(lines[2] == "- [decision] (2d ago) memory number 2 [mem0:" + id8_of(2) + "]");
  CHECK(lines[3] == "- [convention] (3d ago) memory number 4 [mem0:" + id8_of(4) + "]");
  CHECK(lines[4] == "- [session_state] (3d ago) memory number 5 [mem0:" + id8_of(5) + "]");
  CHECK(lines[5] == "- [task_learning] (4d ago) memory number 6 [mem0:" + id8_of(6) + "]");
  CHECK(out.size() <= k_context_budget);
  CHECK_FALSE(out.ends_with("\n"));
}

TEST_CASE("on_session_start: is_recent_type takes the four recent types only", "[start]") {
  for (auto t : {"decision", "session_state", "task_learning", "convention"})
    CHECK(oss::is_recent_type(t));
  for (auto t : {"", "fact", "anti_pattern", "project_profile", "Decision", "session_summary"})
    CHECK_FALSE(oss::is_recent_type(t));
}

TEST_CASE("on_session_start: an empty project shows the header alone", "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  CHECK(run(f, "startup") == "### mem0: 0 memories for proj (user alice)");
  answer_list(f, 3, {memory(1, "fact", "a fact"), memory(2, "anti_pattern", "an anti-pattern")});
  CHECK(run(f, "startup", "session-2") == "### mem0: 3 memories for proj (user alice)");
}

TEST_CASE("on_session_start: shown memories are claimed for the session", "[start]") {
  HookFixture f;
  answer_list(f, 10, mixed_page());
  CHECK(cited(run(f, "startup")) == id8s({2, 4, 5, 6, 8}));
  const auto injected = f.store().sessions.load("session-1").injected;
  CHECK(injected == std::vector<std::string>{id_of(2), id_of(4), id_of(5), id_of(6), id_of(8)});

  SECTION("a later start of the same session shows the rest") {
    const std::string again = run(f, "clear");
    CHECK(has_line(again, "### mem0: 10 memories for proj (user alice)"));
    CHECK(cited(again) == id8s({9, 10}));
  }
  SECTION("a later prompt of the session does not inject them again") {
    f.http.answer(mixed_page());
    PromptInput prompt;
    prompt.session_id = "session-1";
    prompt.cwd = f.project.string();
    prompt.prompt = "How should we structure the retry logic for the sync worker?";
    const std::string out = handled(on_user_prompt::handle, prompt, f).context;
    CHECK(cited(out) == id8s({1, 3, 7, 9, 10}));
  }
  SECTION("another session sees them again") {
    CHECK(cited(run(f, "startup", "session-2")) == id8s({2, 4, 5, 6, 8}));
  }
}

TEST_CASE("on_session_start: memories injected earlier in the session are skipped", "[start]") {
  HookFixture f;
  auto store = f.store();
  REQUIRE(
      store.sessions.update("session-1",
                            [](SessionState &s) {
                              s.injected = {id_of(2), id_of(5)};
                            })
          .has_value());
  answer_list(f, 10, mixed_page());
  CHECK(cited(run(f, "startup")) == id8s({4, 6, 8, 9, 10}));
}

TEST_CASE("on_session_start: without a session id nothing is deduplicated", "[start]") {
  HookFixture f;
  answer_list(f, 10, mixed_page());
  CHECK(cited(run(f, "startup", "")) == id8s({2, 4, 5, 6, 8}));
  CHECK(cited(run(f, "startup", "")) == id8s({2, 4, 5, 6, 8}));
  CHECK_FALSE(f.disk().exists(f.config.state_dir / "sessions"));
}

TEST_CASE("on_session_start: the list counts as one search for today", "[start]") {
  HookFixture f;
  answer_list(f, 1, {});
  run(f, "startup");
  CHECK(f.store().usage.on(f.today()).searches == 1);
  run(f, "resume");
  CHECK(f.store().usage.on(f.today()).searches == 3);
}

// --- resume and compact ------------------------------------------------------------------------

TEST_CASE("on_session_start: resume and compact run the resume plan", "[start]") {
  const std::string source = GENERATE(as<std::string>{}, "resume", "compact");
  CAPTURE(source);
  HookFixture f;
  f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
    if (type == "session_state")
      return found({memory(1, "session_state", "Current task: invoice PDF fonts")});
    if (type == "decision")
      return found({memory(2, "decision", "Decided to render PDFs server-side"),
                    memory(1, "session_state", "Current task: invoice PDF fonts")});
    return found({});
  });
  const auto r = respond(f, source);
  CHECK_FALSE(imports(r));
  CHECK(r.system_message.empty());
  CHECK(lines_of(r.context) ==
        std::vector<std::string>{
            std::string(k_resume_heading), "",
            "- [session_state] Current task: invoice PDF fonts [mem0:" + id8_of(1) + "]",
            "- [decision] Decided to render PDFs server-side [mem0:" + id8_of(2) + "]",
            std::string(k_resume_footer)});

  REQUIRE(f.http.requests.size() == 2);
  CHECK(f.http.batches == 1); // in parallel
  const auto sent = f.http.sent();
  CHECK(sent[0].query == "session state current task");
  CHECK(sent[0].type == std::optional<std::string>("session_state"));
  CHECK(sent[0].top_k == 3);
  CHECK(sent[1].query == "recent decisions and learnings");
  CHECK(sent[1].type == std::optional<std::string>("decision"));
  CHECK(sent[1].top_k == 3);
  for (const auto &s : sent) {
    CHECK(s.user_id == std::optional<std::string>("alice"));
    CHECK(s.app_id == std::optional<std::string>("proj"));
  }
  for (const auto &req : f.http.requests)
    CHECK(req.url == "https://api.mem0.ai/v3/memories/search/");

  // Claimed: the same session gets neither again.
  CHECK(respond(f, source).context.empty());
}

TEST_CASE("on_session_start: a resume with nothing found prints nothing", "[start]") {
  HookFixture f;
  CHECK(run(f, "resume").empty());
  CHECK(f.http.requests.size() == 2);
}

// --- failures ----------------------------------------------------------------------------------

TEST_CASE("on_session_start: a failed list shows no header, only the problem", "[start]") {
  HookFixture f;
  std::string expected;
  SECTION("401") {
    f.http.responder = [](const HttpRequest &) {
      return http_status(401, R"({"detail":"Invalid API key"})");
    };
    expected = "mem0: recall skipped \xE2\x80\x94 API key rejected";
  }
  SECTION("429") {
    f.http.responder = [](const HttpRequest &) {
      return http_status(429, R"({"detail":"slow down"})", std::chrono::seconds(17));
    };
    expected = "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 17 s)";
  }
  SECTION("timeout") {
    f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::timeout); };
    expected = "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (timeout)";
  }
  SECTION("a body that is not a list") {
    f.http.responder = [](const HttpRequest &) { return http_status(200, "<html>oops</html>"); };
    expected = "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (bad_response)";
  }
  SECTION("500") {
    f.http.responder = [](const HttpRequest &) { return http_status(500, "{}"); };
    expected = "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (server)";
  }
  const auto r = respond(f, "startup");
  CHECK(r.context.empty()); // nothing for the model
  CHECK(r.system_message == expected);
  CHECK_FALSE(imports(r)); // no project file: nothing to import
  CHECK(f.http.requests.size() == 1);
  CHECK(f.store().usage.on(f.today()).searches == 1);
  write_file(f.project / "CLAUDE.md", "## Notes\n\nA project note long enough to be imported.\n");
  CHECK(imports(respond(f, "startup", "session-2"))); // the import does not depend on the list
}

TEST_CASE("on_session_start: a 429 starts the shared back-off", "[start]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(429, "{}", std::chrono::seconds(40));
  };
  run(f, "startup");
  const auto pause = f.store().backoff.active_pause(f.now, server_of(f.config));
  REQUIRE(pause.has_value());
  CHECK(pause->reason == "rate limited by Mem0");
  CHECK(pause->remaining == std::chrono::seconds(40));
}

TEST_CASE("on_session_start: three unreachable starts pause recall", "[start]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::transport); };
  for (int i = 0; i < 3; ++i)
    run(f, "startup", "session-" + std::to_string(i));
  const auto pause = f.store().backoff.active_pause(f.now, server_of(f.config));
  REQUIRE(pause.has_value());
  CHECK(pause->reason == "Mem0 unreachable after 3 failed attempts");
}

TEST_CASE("on_session_start: while the back-off pauses recall nothing is sent", "[start]") {
  HookFixture f;
  auto store = f.store();
  REQUIRE(store.backoff
              .record_outcome(f.now, server_of(f.config), BackoffStore::Outcome::rate_limited,
                              std::chrono::seconds(25))
              .has_value());
  answer_list(f, 5, mixed_page(), mixed_page());
  const std::string paused =
      "mem0: recall paused \xE2\x80\x94 rate limited by Mem0, retrying in 25 s";
  const auto start = respond(f, "startup");
  CHECK(start.context.empty());
  CHECK(start.system_message == paused);
  CHECK_FALSE(imports(start));                // no project file: nothing to import
  const auto compact = respond(f, "compact"); // the same session: told already
  CHECK(compact.context.empty());
  CHECK(compact.system_message.empty());
  CHECK(respond(f, "compact", "session-2").system_message == paused);
  CHECK(f.http.requests.empty());
  CHECK(f.store().usage.on(f.today()).searches == 0);

  f.now += std::chrono::seconds(26);
  const std::string after = run(f, "startup");
  CHECK(lines_of(after)[0] == "### mem0: 5 memories for proj (user alice)");
  CHECK(cited(after) == id8s({2, 4, 5, 6, 8}));
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("on_session_start: the daily limit stops the list and says so once", "[start]") {
  HookFixture f;
  f.set_env("MEM0_DAILY_SEARCH_LIMIT", "2");
  auto store = f.store();
  REQUIRE(store.usage.add(f.today(), {2, 0}).has_value());
  answer_list(f, 5, mixed_page());
  const std::string limit_line =
      "mem0: daily search limit (2) reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
  const auto first = respond(f, "startup");
  CHECK(first.context.empty());
  CHECK(first.system_message == limit_line);
  const auto again = respond(f, "clear");
  CHECK(again.context.empty());
  CHECK(again.system_message.empty());
  CHECK(respond(f, "startup", "session-2").system_message == limit_line);
  CHECK(f.http.requests.empty());
  CHECK(f.store().usage.on(f.today()).searches == 2);
}

TEST_CASE("on_session_start: an http base URL of a remote host is refused without a request",
          "[start]") {
  HookFixture f;
  f.set_env("MEM0_BASE_URL", "http://mem0.example.com");
  const auto r = respond(f, "startup");
  CHECK(r.context.empty());
  CHECK(r.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (transport)");
  CHECK(f.http.requests.empty());
  CHECK(f.store().usage.on(f.today()).searches == 0);
}

// --- what the user must act on about capture ----------------------------------------------------

namespace {

// `n` pending items in the outbox, or (rejected) set aside, as the sender leaves them.
void fill_outbox(const HookFixture &f, std::size_t n, bool rejected = false) {
  const fs::path dir = fs::path("outbox") / (rejected ? "rejected" : "");
  for (std::size_t i = 1; i <= n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "%012zu.json", i);
    f.write_state(dir / name, R"({"kind":"add","body":"{}"})");
  }
}

} // namespace

TEST_CASE("on_session_start: an import the outbox refuses is withdrawn whole and retried later",
          "[start]") {
  HookFixture f;
  f.log.enable_file(f.home / "hooks.log");
  answer_list(f, 0, {});
  const fs::path claude_md = f.project / "CLAUDE.md";
  Outbox outbox(f.disk(), f.config.state_dir);
  auto queued = [&] { return import_items(outbox, OutboxItem::Kind::add); };
  auto deletions = [&] { return pending_deletions(outbox); };

  // The first version is imported and delivered: its memory is known.
  write_file(claude_md, "## Build\n\nConfigure with cmake and build only the targets you need.\n");
  respond(f, "startup", "s1").detached();
  REQUIRE(queued().size() == 1);
  record_import_ids(*f.state, queued()[0], {"id-v1"});
  outbox.remove(outbox.pending()[0]);

  // The second version has two sections, and its import also deletes id-v1: three items.
  write_file(claude_md,
             "## Build\n\nConfigure with cmake and build only the targets you need.\n"
             "## Style\n\nFormat with clang-format before every commit, no exceptions.\n");
  std::size_t room = 0;
  SECTION("the second section is refused") { room = 1; }
  SECTION("the deletion is refused") { room = 2; }
  fill_outbox(f, Outbox::k_max_items - room);

  respond(f, "startup", "s2").detached();
  // Withdrawn: nothing of it stays queued, and id-v1 is still listed for deletion.
  CHECK(outbox.pending().size() == Outbox::k_max_items - room);
  CHECK(queued().empty());
  CHECK(deletions().empty());
  CHECK(contains(read_file(f.home / "hooks.log"), "import of proj/CLAUDE.md withdrawn"));

  // Once there is room, the next start imports the file whole and deletes id-v1.
  for (const auto &name : outbox.pending())
    outbox.remove(name);
  const HookOutput third = respond(f, "startup", "s3");
  REQUIRE(third.detached);
  third.detached();
  CHECK(queued().size() == 2);
  CHECK(deletions() == std::vector<std::string>{"id-v1"});
  // And that import counts: a later start has nothing to do.
  CHECK_FALSE(respond(f, "startup", "s4").detached);
}

TEST_CASE("on_session_start: an import whose process died while queueing is taken over later",
          "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  const fs::path claude_md = f.project / "CLAUDE.md";
  Outbox outbox(f.disk(), f.config.state_dir);
  auto queued = [&] { return import_items(outbox, OutboxItem::Kind::add); };
  auto delivered = [&](const OutboxItem &item, const std::string &id) {
    record_import_ids(*f.state, item, {id});
  };
  auto deletions = [&] { return pending_deletions(outbox); };

  const std::string v2 =
      "## Build\n\nConfigure with cmake and build only the targets you need.\n"
      "## Style\n\nFormat with clang-format before every commit, no exceptions.\n";
  write_file(claude_md, v2.substr(0, v2.find("## Style")));
  respond(f, "startup", "s1").detached();
  delivered(queued().at(0), "id-v1");
  outbox.remove(outbox.pending().at(0));

  // The second version's import was killed after its claim and its first section: what it left.
  // Its claim is the bare content hash here, as an import of the same content would claim if
  // claims were not unique: the new import must still not adopt the dead one's section.
  write_file(claude_md, v2);
  const std::string hash = sha256_hex(v2).substr(0, 32);
  f.write_state("imports.json", R"({"proj/CLAUDE.md":{"hash":")" + hash + R"(","claim":")" + hash +
                                    R"(","ids":[],"replaced":["id-v1"],"queueing_since":)" +
                                    std::to_string(unix_seconds(f.now)) + "}}");
  OutboxItem dead;
  dead.add.messages = {{"user", "## Build"}};
  dead.import_file = "proj/CLAUDE.md";
  dead.import_claim = hash;
  REQUIRE(outbox.put(dead, "", f.now));

  // Within a minute it may still be running: no second import.
  f.now += std::chrono::seconds(30);
  CHECK_FALSE(respond(f, "startup", "s2").detached);

  // Then it is taken over: the whole file again, and id-v1 deleted.
  f.now += std::chrono::seconds(31);
  const HookOutput later = respond(f, "startup", "s3");
  REQUIRE(later.detached);
  later.detached();
  const auto adds = queued();
  REQUIRE(adds.size() == 3); // the dead import's section and the two of the new one
  CHECK(deletions() == std::vector<std::string>{"id-v1"});

  // The dead import's section, delivered late, is deleted; the new ones are kept.
  delivered(adds[0], "id-dead");
  delivered(adds[1], "id-build");
  delivered(adds[2], "id-style");
  CHECK(deletions() == std::vector<std::string>{"id-dead", "id-v1"});
  CHECK_FALSE(respond(f, "startup", "s4").detached);

  // The next change replaces exactly the new import's two memories.
  for (const auto &name : outbox.pending())
    outbox.remove(name);
  write_file(claude_md, v2 + "More text.\n");
  respond(f, "startup", "s5").detached();
  CHECK(deletions() == std::vector<std::string>{"id-build", "id-style"});
}

TEST_CASE("on_session_start: a full outbox is told to the user once per session", "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  fill_outbox(f, Outbox::k_max_items);
  const std::string full = outbox_full_line();
  CHECK(full == "mem0: capture outbox full (1000 items or 20 MB) \xE2\x80\x94 new memories are "
                "not saved until it drains (run mem0-hooks doctor)");
  const auto r = respond(f, "startup");
  CHECK(r.system_message == full);
  CHECK(r.context == "### mem0: 0 memories for proj (user alice)"); // not for the model
  CHECK(respond(f, "compact").system_message.empty());
  CHECK(respond(f, "startup", "session-2").system_message == full);

  SECTION("with auto_search off too") {
    f.set_env("MEM0_AUTO_SEARCH", "false");
    const auto off = respond(f, "startup", "session-3");
    CHECK(off.context.empty());
    CHECK(off.system_message == full);
  }
  SECTION("not with capture off: nothing is captured, nothing is refused") {
    f.set_env("MEM0_AUTO_SAVE", "false");
    CHECK(respond(f, "startup", "session-4").system_message.empty());
  }
}

TEST_CASE("on_session_start: rejected captures are told with where they are", "[start]") {
  HookFixture f;
  answer_list(f, 0, {});
  fill_outbox(f, 3, true);
  fill_outbox(f, 2); // pending items alone are no problem
  const std::string line = "mem0: 3 captures rejected by Mem0, kept in " +
                           (f.config.state_dir / "outbox" / "rejected").string() +
                           " (run mem0-hooks doctor)";
  CHECK(respond(f, "startup").system_message == line);
  CHECK(respond(f, "clear").system_message.empty());
  CHECK(outbox_rejected_line(1, "/s/outbox") == "mem0: 1 capture rejected by Mem0, kept in " +
                                                    (fs::path("/s/outbox") / "rejected").string() +
                                                    " (run mem0-hooks doctor)");
}

TEST_CASE("on_session_start: the daily add limit is told once per session", "[start]") {
  HookFixture f;
  f.set_env("MEM0_DAILY_ADD_LIMIT", "4");
  answer_list(f, 0, {});
  REQUIRE(f.store().usage.add(f.today(), {0, 4}).has_value());
  const std::string line =
      "mem0: daily add limit (4) reached \xE2\x80\x94 captures wait until tomorrow (UTC)";
  CHECK(respond(f, "startup").system_message == line);
  CHECK(respond(f, "compact").system_message.empty());
}

TEST_CASE("on_session_start: several problems come one per line, in a fixed order", "[start]") {
  HookFixture f;
  f.set_env("MEM0_SHOW_RECALL", "on");
  f.http.responder = [](const HttpRequest &) { return http_status(401, "bad key"); };
  fill_outbox(f, 1, true);
  const auto r = respond(f, "startup");
  CHECK(lines_of(r.system_message) ==
        std::vector<std::string>{"mem0: recall skipped \xE2\x80\x94 API key rejected",
                                 "mem0: 1 capture rejected by Mem0, kept in " +
                                     (f.config.state_dir / "outbox" / "rejected").string() +
                                     " (run mem0-hooks doctor)"});
  CHECK(r.context.empty());
}

TEST_CASE("on_session_start: show_recall counts the memories shown at startup", "[start]") {
  HookFixture f;
  f.set_env("MEM0_SHOW_RECALL", "on");
  answer_list(f, 5, mixed_page());
  const auto r = respond(f, "startup");
  CHECK(cited(r.context) == id8s({2, 4, 5, 6, 8}));
  CHECK(r.system_message == "mem0: 5 memories recalled");
}
