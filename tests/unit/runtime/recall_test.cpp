// The read pipeline (runtime/recall.hpp, docs/hooks.md#the-recall-pipeline): recall() over a
// request built here, with the fixture's fake HTTP client; its notices
// (docs/failures.md#recall-notices), recall_output, claim_new and the problem lines.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/format.hpp"
#include "runtime/recall.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

using namespace mem0;
using namespace mem0::testing;

namespace {

constexpr const char *k_session = "session-9";

Error failure_of(ErrorKind kind, std::optional<std::chrono::seconds> retry_after = {}) {
  Error e = make_error(kind, "simulated");
  e.retry_after = retry_after;
  return e;
}

// What the run of `ctx` noted as skipped, as `reason: detail`.
std::vector<std::string> skips(const HookContext &ctx) {
  std::vector<std::string> out;
  for (const auto &skip : ctx.facts->run_record().skipped)
    out.push_back(skip.reason + ": " + skip.detail);
  return out;
}

bool has(const std::vector<std::string> &items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// A request of one untyped search and `types`' typed ones, in that order.
RecallRequest searches(std::string session, std::initializer_list<const char *> types) {
  RecallRequest r = one_search(std::move(session));
  for (const char *type : types)
    r.plan.push_back(SearchSpec{"q", std::string(type)});
  return r;
}

} // namespace

// --- selection ----------------------------------------------------------------------------------

TEST_CASE("recall: the plan's results are merged in plan order, each once, and capped",
          "[recall]") {
  HookFixture f;
  f.http.answer_by_type([](const std::string &type) {
    if (type == "decision") return found({memory(3, "decision", "c"), memory(1, "fact", "a")});
    if (type == "convention")
      return found(
          {memory(4, "convention", "d"), memory(5, "convention", "e"), memory(2, "fact", "b")});
    return found({memory(1, "fact", "a"), memory(2, "fact", "b")});
  });
  RecallRequest request = searches(k_session, {"decision", "convention"});
  request.cap = 4;
  HookContext ctx = f.context();
  const Recall first = recall(ctx, request);
  CHECK(f.http.batches == 1);
  CHECK(f.http.requests.size() == 3);
  CHECK(ids_of(first.memories) == ids({1, 2, 3, 4}));
  // Lines as context_line shows them when the request names no line.
  CHECK(first.lines == std::vector<std::string>{
                           "- [fact] a [mem0:00000001]", "- [fact] b [mem0:00000002]",
                           "- [decision] c [mem0:00000003]", "- [convention] d [mem0:00000004]"});
  CHECK_FALSE(first.page.has_value());
  CHECK(first.user_notices.empty());
  // The run log: what was injected, and what the cap left out.
  const RunRecord &record = ctx.facts->run_record();
  CHECK(record.memories ==
        std::vector<std::pair<std::string, std::string>>{{id_of(1), "fact"},
                                                         {id_of(2), "fact"},
                                                         {id_of(3), "decision"},
                                                         {id_of(4), "convention"}});
  std::size_t chars = 0;
  for (const auto &line : first.lines)
    chars += line.size(); // ASCII: a code point a byte
  CHECK(record.chars == chars);
  CHECK(skips(ctx) == std::vector<std::string>{"budget: 1 more memory over the cap of 4"});

  // What the cap left out comes with the next recall of the session.
  const Recall next = recall(f.context(), request);
  CHECK(ids_of(next.memories) == ids({5}));
}

TEST_CASE("recall: types_first puts the preferred types first and keeps untyped memories after",
          "[recall]") {
  HookFixture f;
  f.http.answer({memory(1, "", "No type at all"), memory(2, "fact", "Sync runs nightly"),
                 memory(3, "", "Also untyped"), memory(4, "anti_pattern", "Never retry 4xx"),
                 memory(5, "task_learning", "Shrink the batch on 413")});
  RecallRequest request = one_search(k_session);
  request.types_first = {"anti_pattern", "task_learning"};
  const Recall first = recall(f.context(), request);
  CHECK(ids_of(first.memories) == ids({4, 5, 1, 2, 3}));
  CHECK(types_shown(join(first.lines, "\n")) ==
        std::vector<std::string>{"anti_pattern", "task_learning", "unknown", "fact", "unknown"});
  CHECK(has(first.lines, "- [unknown] No type at all [mem0:" + id8_of(1) + "]"));

  // Without preferred types nothing is moved, and nothing dropped.
  CHECK(ids_of(recall(f.context(), one_search("session-10")).memories) == ids({1, 2, 3, 4, 5}));
}

TEST_CASE("recall: a session never gets a memory twice; another session gets it again",
          "[recall]") {
  HookFixture f;
  f.http.answer(numbered(1, 3));
  CHECK(ids_of(recall(f.context(), one_search("session-a")).memories) == ids({1, 2, 3}));
  // The claim is recorded in the session: injected, and awaited in the next reply.
  const SessionState a = f.store().sessions.load("session-a");
  CHECK(a.injected == ids({1, 2, 3}));
  REQUIRE(a.awaiting.size() == 3);
  CHECK(a.awaiting[0].id == id_of(1));
  CHECK(a.awaiting[0].text == "memory number 1");

  f.http.answer(numbered(1, 4));
  CHECK(ids_of(recall(f.context(), one_search("session-a")).memories) == ids({4}));
  HookContext ctx = f.context();
  const Recall none = recall(ctx, one_search("session-a"));
  CHECK(none.memories.empty());
  CHECK(none.lines.empty());
  CHECK(skips(ctx) ==
        std::vector<std::string>{"deduped: 4 memories already shown in this session"});
  CHECK(f.store().sessions.load("session-a").injected == ids({1, 2, 3, 4}));

  CHECK(ids_of(recall(f.context(), one_search("session-b")).memories) == ids({1, 2, 3, 4}));
}

TEST_CASE("recall: without a session nothing is deduplicated or stored", "[recall]") {
  HookFixture f;
  f.http.answer(numbered(1, 2));
  CHECK(ids_of(recall(f.context(), one_search("")).memories) == ids({1, 2}));
  CHECK(ids_of(recall(f.context(), one_search("")).memories) == ids({1, 2}));
  for (const auto &path : f.memory.files()) {
    CAPTURE(path.string());
    CHECK_FALSE(contains(path.generic_string(), "/sessions/"));
  }
}

TEST_CASE("recall: under a held session lock nothing already shown is shown again",
          "[recall][lock-deadline][session]") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "Invoices round half-even.")});
  RecallRequest request = one_search(k_session);
  request.also = [](SessionState &s, bool) { s.rubric_shown = true; };
  REQUIRE(ids_of(recall(f.context(), request).memories) == ids({1}));

  const auto usage = f.hold("usage.json");
  const auto backoff = f.hold("backoff.json");
  const auto session = f.hold(std::string("sessions/") + k_session + ".json");
  f.http.answer({memory(1, "convention", "Invoices round half-even."),
                 memory(2, "decision", "Refunds are rounded like invoices.")});
  bool rubric_was_shown = false;
  request.also = [&](SessionState &s, bool) { rubric_was_shown = s.rubric_shown; };
  HookContext ctx = f.context();
  ctx.deadline = SteadyClock::now() + std::chrono::milliseconds(300);
  // Claimed against what the session recorded, though it cannot be saved now.
  CHECK(ids_of(recall(ctx, request).memories) == ids({2}));
  CHECK(rubric_was_shown);
}

TEST_CASE("recall: keep filters the candidates before the cap", "[recall]") {
  HookFixture f;
  f.http.answer({memory(1, "fact", "a"), memory(2, "decision", "b"), memory(3, "fact", "c"),
                 memory(4, "decision", "d")});
  RecallRequest request = one_search(k_session);
  request.cap = 1;
  request.keep = [](const Memory &m) { return m.type == "decision"; };
  CHECK(ids_of(recall(f.context(), request).memories) == ids({2}));
  CHECK(ids_of(recall(f.context(), request).memories) == ids({4}));
  CHECK(recall(f.context(), request).memories.empty());
  CHECK(f.store().sessions.load(k_session).injected == ids({2, 4}));
}

TEST_CASE("recall: line decides how a memory is shown and what the run log counts", "[recall]") {
  HookFixture f;
  f.http.answer({memory(1, "fact", "caf\xC3\xA9"), memory(2, "decision", "b")});
  RecallRequest request = one_search(k_session);
  request.line = [](const Memory &m) { return "* " + m.text; };
  HookContext ctx = f.context();
  const Recall shown = recall(ctx, request);
  CHECK(ids_of(shown.memories) == ids({1, 2}));
  CHECK(shown.lines == std::vector<std::string>{"* caf\xC3\xA9", "* b"});
  CHECK(ctx.facts->run_record().chars == 6 + 3); // code points, not bytes
}

TEST_CASE("recall: recent lists instead of searching and keeps the page", "[recall]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(200, list_json(7, {memory(1, "fact", "a"), memory(2, "decision", "b"),
                                          memory(3, "session_state", "c")}));
  };
  RecallRequest request;
  request.identity = {"alice", "proj", k_session};
  request.recent = 20;
  request.cap = 5;
  request.keep = [](const Memory &m) { return m.type != "fact"; };
  const Recall listed = recall(f.context(), request);
  REQUIRE(f.http.requests.size() == 1);
  CHECK(f.http.requests[0].url == "https://api.mem0.ai/v3/memories/?page=1&page_size=20");
  REQUIRE(listed.page.has_value());
  CHECK(listed.page->count == 7);
  CHECK(ids_of(listed.page->memories) == ids({1, 2, 3})); // the page as listed
  CHECK(ids_of(listed.memories) == ids({2, 3}));          // what the request keeps
  CHECK(f.store().usage.on(f.today()).searches == 1);     // counted like one search

  SECTION("a failed listing gives no page, and the problem as one failed search") {
    f.http.responder = [](const HttpRequest &) { return http_status(503, "unavailable"); };
    const Recall failed = recall(f.context(), request);
    CHECK_FALSE(failed.page.has_value());
    CHECK(failed.memories.empty());
    CHECK(failed.user_notices ==
          std::vector<std::string>{
              "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (server)"});
  }
}

TEST_CASE("recall: also runs under the claim and is told whether a search was answered",
          "[recall]") {
  HookFixture f;
  std::optional<bool> answered;
  std::vector<std::string> injected_then;
  RecallRequest request = searches(k_session, {"decision"});
  request.also = [&](SessionState &s, bool a) {
    answered = a;
    injected_then = s.injected;
    ++s.prompts;
  };
  const auto run = [&](RecallRequest r) {
    answered.reset();
    return recall(f.context(), r);
  };

  SECTION("answered: it sees the memories claimed, and its change is saved with them") {
    f.http.answer({memory(1, "fact", "a")});
    CHECK(ids_of(run(request).memories) == ids({1}));
    CHECK(answered == std::optional<bool>(true));
    CHECK(injected_then == ids({1}));
    const SessionState saved = f.store().sessions.load(k_session);
    CHECK(saved.prompts == 1);
    CHECK(saved.injected == ids({1}));
    // Answered with nothing new is still answered.
    run(request);
    CHECK(answered == std::optional<bool>(true));
    CHECK(f.store().sessions.load(k_session).prompts == 2);
  }
  SECTION("one of two searches failed: answered") {
    f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
      if (type == "decision") return transport_failure(ErrorKind::timeout);
      return found({memory(1, "fact", "a")});
    });
    CHECK(ids_of(run(request).memories) == ids({1}));
    CHECK(answered == std::optional<bool>(true));
  }
  SECTION("every search failed: not answered") {
    f.http.responder = [](const HttpRequest &) { return http_status(503, "unavailable"); };
    run(request);
    CHECK(answered == std::optional<bool>(false));
    CHECK(f.store().sessions.load(k_session).prompts == 1);
  }
  SECTION("the daily cap held the searches: not answered") {
    f.set_env("MEM0_DAILY_SEARCH_LIMIT", "1");
    REQUIRE(f.store().usage.add(f.today(), {1, 0}).has_value());
    run(request);
    CHECK(f.http.requests.empty());
    CHECK(answered == std::optional<bool>(false));
  }
  SECTION("no plan: nothing sent, and it still runs and is saved") {
    request.plan.clear();
    const Recall none = run(request);
    CHECK(f.http.requests.empty());
    CHECK(none.memories.empty());
    CHECK(answered == std::optional<bool>(false));
    CHECK(f.store().sessions.load(k_session).prompts == 1);
    CHECK(f.store().usage.on(f.today()).searches == 0);
  }
}

// --- notices (docs/failures.md#recall-notices) --------------------------------------------------

TEST_CASE("recall: problems go to the user, each kind once per session", "[recall]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::timeout); };
  const Recall first = recall(f.context(), one_search(k_session));
  CHECK(first.memories.empty());
  CHECK(first.user_notices ==
        std::vector<std::string>{
            "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (timeout)"});
  CHECK(recall(f.context(), one_search(k_session)).user_notices.empty());
  // A line with a class not shown yet is shown whole; then both classes are known.
  f.http.responder = [](const HttpRequest &r) -> Result<HttpResponse> {
    if (parse_sent(r).type) return http_status(500, "{}");
    return transport_failure(ErrorKind::timeout);
  };
  RecallRequest two = one_search(k_session);
  two.plan.push_back(SearchSpec{"q", std::string("decision")});
  CHECK(recall(f.context(), two).user_notices ==
        std::vector<std::string>{
            "mem0: recall incomplete \xE2\x80\x94 2 of 2 searches failed (timeout, server)"});
  CHECK(recall(f.context(), two).user_notices.empty());
  // Without a session: every time.
  CHECK(recall(f.context(), one_search("")).user_notices.size() == 1);
  CHECK(recall(f.context(), one_search("")).user_notices.size() == 1);
}

TEST_CASE("recall: a 429 and the pause it starts are one kind; an outage pause is another",
          "[recall]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(429, "{}", std::chrono::seconds(20));
  };
  CHECK(recall(f.context(), one_search(k_session)).user_notices ==
        std::vector<std::string>{
            "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 20 s)"});
  CHECK(
      recall(f.context(), one_search(k_session)).user_notices.empty()); // paused: the same problem
  CHECK(recall(f.context(), one_search("session-10")).user_notices ==
        std::vector<std::string>{
            "mem0: recall paused \xE2\x80\x94 rate limited by Mem0, retrying in 20 s"});

  f.now += std::chrono::seconds(21);
  f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::transport); };
  for (int i = 0; i < 3; ++i)
    recall(f.context(), one_search(k_session));
  const Recall paused = recall(f.context(), one_search(k_session));
  CHECK(paused.user_notices ==
        std::vector<std::string>{"mem0: recall paused \xE2\x80\x94 Mem0 unreachable after 3 failed "
                                 "attempts, retrying in 30 s"});
  CHECK(recall(f.context(), one_search(k_session)).user_notices.empty());
}

TEST_CASE("recall: nothing wrong, nothing for the user; show_recall adds the summary", "[recall]") {
  HookFixture f;
  f.http.answer({memory(1, "fact", "a"), memory(2, "fact", "b")});
  const Recall quiet = recall(f.context(), one_search(k_session));
  CHECK(quiet.memories.size() == 2);
  CHECK(quiet.user_notices.empty());
  CHECK(f.store().sessions.load(k_session).notices_shown.empty());

  f.set_env("MEM0_SHOW_RECALL", "yes");
  f.http.answer({memory(3, "fact", "c")});
  CHECK(recall(f.context(), one_search(k_session)).user_notices ==
        std::vector<std::string>{"mem0: 1 memory recalled"});
  CHECK(recall(f.context(), one_search(k_session)).user_notices.empty()); // nothing new recalled
  CHECK(recalled_line(4) == "mem0: 4 memories recalled");

  // The summary comes first, then the problems.
  f.http.responder = [](const HttpRequest &r) -> Result<HttpResponse> {
    if (parse_sent(r).type) return transport_failure(ErrorKind::timeout);
    return found({memory(4, "fact", "d")});
  };
  RecallRequest two = one_search(k_session);
  two.plan.push_back(SearchSpec{"q", std::string("decision")});
  CHECK(recall(f.context(), two).user_notices ==
        std::vector<std::string>{
            "mem0: 1 memory recalled",
            "mem0: recall incomplete \xE2\x80\x94 1 of 2 searches failed (timeout)"});
}

TEST_CASE("recall: each kind of problem is shown once per session", "[recall]") {
  HookFixture f;
  const std::string rate_limited =
      "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 7 s)";
  const std::string rejected = "mem0: recall skipped \xE2\x80\x94 API key rejected";
  const auto notices = [&f](const char *session) {
    return recall(f.context(), one_search(session)).user_notices;
  };
  f.http.responder = [](const HttpRequest &) {
    return http_status(429, "slow down", std::chrono::seconds(7));
  };
  CHECK(notices(k_session) == std::vector<std::string>{rate_limited});
  f.now += std::chrono::seconds(10); // past the pause: searched again, 429 again
  CHECK(notices(k_session).empty());
  CHECK(f.http.requests.size() == 2);
  // While the pause of that 429 lasts: the same problem, still not repeated.
  CHECK(notices(k_session).empty());
  CHECK(f.http.requests.size() == 2);

  f.now += std::chrono::seconds(10);
  f.http.responder = [](const HttpRequest &) { return http_status(401, "bad key"); };
  CHECK(notices(k_session) == std::vector<std::string>{rejected}); // a new kind
  CHECK(notices(k_session).empty());
  CHECK(f.store().sessions.load(k_session).notices_shown ==
        std::vector<std::string>{"rate_limited", "key_rejected"});

  // Another session is told again; a run without a session every time.
  CHECK(notices("session-2") == std::vector<std::string>{rejected});
  CHECK(notices("") == std::vector<std::string>{rejected});
  CHECK(notices("") == std::vector<std::string>{rejected});
}

TEST_CASE("recall: a failure of another class is a new kind", "[recall]") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::timeout); };
  CHECK(recall(f.context(), one_search(k_session)).user_notices ==
        std::vector<std::string>{
            "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (timeout)"});
  CHECK(recall(f.context(), one_search(k_session)).user_notices.empty());
  f.http.responder = [](const HttpRequest &) { return http_status(503, "unavailable"); };
  CHECK(recall(f.context(), one_search(k_session)).user_notices ==
        std::vector<std::string>{
            "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (server)"});
}

TEST_CASE("recall: only a pause of this server and key stops the searches", "[recall]") {
  HookFixture f;
  auto store = f.store();
  f.http.answer({memory(1, "decision", "Use exponential backoff with jitter")});

  SECTION("a pause of another server") {
    REQUIRE(store.backoff
                .record_outcome(f.now, "other-server", BackoffStore::Outcome::rate_limited,
                                std::chrono::seconds(120))
                .has_value());
    REQUIRE(store.backoff.active_pause(f.now, "other-server"));
    const Recall found = recall(f.context(), one_search(k_session));
    CHECK(f.http.requests.size() == 1);
    CHECK(ids_of(found.memories) == ids({1}));
    CHECK(found.user_notices.empty());
    CHECK(store.backoff.active_pause(f.now, "other-server")); // the other pause stands
  }
  SECTION("a pause of this server") {
    REQUIRE(store.backoff
                .record_outcome(f.now, server_of(f.config), BackoffStore::Outcome::rate_limited,
                                std::chrono::seconds(120))
                .has_value());
    const Recall found = recall(f.context(), one_search(k_session));
    CHECK(f.http.requests.empty());
    CHECK(found.memories.empty());
    CHECK(found.user_notices ==
          std::vector<std::string>{
              "mem0: recall paused \xE2\x80\x94 rate limited by Mem0, retrying in 120 s"});
  }
  SECTION("the same key on another backend's server is another server") {
    REQUIRE(store.backoff
                .record_outcome(f.now, server_of(f.config), BackoffStore::Outcome::rate_limited,
                                std::chrono::seconds(120))
                .has_value());
    f.set_env("MEM0_BACKEND", "selfhosted");
    recall(f.context(), one_search(k_session));
    REQUIRE(f.http.requests.size() == 1);
    CHECK(f.http.requests[0].url == "http://localhost:8888/search");
  }
}

// --- the daily count and cap (docs/failures.md#daily-cap) ---------------------------------------

TEST_CASE("recall: automatic searches are counted per UTC day", "[recall]") {
  HookFixture f;
  recall(f.context(), one_search(k_session));
  CHECK(f.store().usage.on(f.today()).searches == 1);
  recall(f.context(), searches(k_session, {"decision", "anti_pattern", "convention"}));
  CHECK(f.store().usage.on(f.today()).searches == 5);
  CHECK(f.http.requests.size() == 5);
}

TEST_CASE("recall: the daily limit stops searches and says so once per session", "[recall]") {
  HookFixture f;
  f.set_env("MEM0_DAILY_SEARCH_LIMIT", "3");
  auto store = f.store();
  REQUIRE(store.usage.add(f.today(), {3, 0}).has_value());
  const std::string limit_line =
      "mem0: daily search limit (3) reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
  f.http.answer({memory(1, "fact", "would be shown")});

  const Recall first = recall(f.context(), one_search(k_session));
  CHECK(first.memories.empty());
  CHECK(first.user_notices == std::vector<std::string>{limit_line});
  // The line is the user's, not the model's.
  const HookOutput out = recall_output(first, {"head"}, first.lines, {"tail"});
  CHECK(out.system_message == limit_line);
  CHECK_FALSE(contains(out.context, "daily search limit"));
  CHECK(recall(f.context(), one_search(k_session)).user_notices.empty());
  CHECK(f.store().sessions.load(k_session).limit_notice_shown);
  CHECK(recall(f.context(), one_search("session-2")).user_notices ==
        std::vector<std::string>{limit_line});
  CHECK(f.http.requests.empty());
  CHECK(f.store().usage.on(f.today()).searches == 3);
}

TEST_CASE("recall: yesterday's searches do not count against today's limit", "[recall]") {
  HookFixture f;
  f.set_env("MEM0_DAILY_SEARCH_LIMIT", "3");
  auto store = f.store();
  REQUIRE(store.usage.add(utc_day(f.now - std::chrono::hours(24)), {3, 0}).has_value());
  REQUIRE(store.usage.add(f.today(), {2, 0}).has_value());
  recall(f.context(), one_search(k_session));
  CHECK(f.http.requests.size() == 1);
  CHECK(f.store().usage.on(f.today()).searches == 3);
}

// --- recall_output ------------------------------------------------------------------------------

TEST_CASE("recall: recall_output fits head, lines and tail and carries the notices", "[recall]") {
  Recall found;
  found.user_notices = {"mem0: 2 memories recalled",
                        "mem0: recall skipped \xE2\x80\x94 API key rejected"};
  const std::vector<std::string> lines{"- [fact] a [mem0:00000001]", "- [fact] b [mem0:00000002]"};
  const HookOutput out = recall_output(found, {"### Heading", ""}, lines, {"footer"});
  CHECK(out.context ==
        "### Heading\n\n- [fact] a [mem0:00000001]\n- [fact] b [mem0:00000002]\nfooter");
  CHECK(out.system_message ==
        "mem0: 2 memories recalled\nmem0: recall skipped \xE2\x80\x94 API key rejected");
  CHECK_FALSE(out.detached);

  SECTION("a tail alone is shown") {
    CHECK(recall_output(found, {}, {}, {"footer"}).context == "footer");
  }
  SECTION("no head and no tail: nothing for the model, the notices still for the user") {
    const HookOutput bare = recall_output(found, {}, lines);
    CHECK(bare.context.empty());
    CHECK(bare.system_message == out.system_message);
  }
  SECTION("no notices: no message") {
    CHECK(recall_output(Recall{}, {"### Heading"}, lines).system_message.empty());
  }
  SECTION("memory lines past the budget are dropped from the end, and counted") {
    const std::vector<std::string> long_lines{std::string(4000, 'a'), std::string(4000, 'b'),
                                              std::string(4000, 'c')};
    const HookOutput fitted = recall_output(found, {"### Heading"}, long_lines, {"footer"});
    CHECK(fitted.context.size() <= k_context_budget);
    CHECK(lines_of(fitted.context) ==
          std::vector<std::string>{"### Heading", long_lines[0], long_lines[1],
                                   "(\xE2\x80\xA6 1 more memories trimmed)", "footer"});
  }
}

// --- claim_new and the problem lines -------------------------------------------------------------

TEST_CASE("recall: claim_new skips injected ids, respects the cap and records what it took",
          "[recall]") {
  SessionState state;
  state.injected = {id_of(2)};
  const std::vector<Memory> candidates{memory(1, "", ""), memory(2, "", ""), memory(3, "", ""),
                                       memory(4, "", ""), memory(5, "", "")};
  const auto claimed = claim_new(state, candidates, 3);
  CHECK(ids_of(claimed) == ids({1, 3, 4}));
  CHECK(state.injected == ids({2, 1, 3, 4}));
  // What it took is awaited in the model's next reply (docs/hygiene.md#the-use-signal).
  REQUIRE(state.awaiting.size() == 3);
  CHECK(state.awaiting[2].id == id_of(4));

  const auto again = claim_new(state, candidates, 3);
  CHECK(ids_of(again) == ids({5}));
  CHECK(claim_new(state, candidates, 3).empty());
}

TEST_CASE("recall: the problem lines name a rejected key", "[recall]") {
  PlanOutcome outcome;
  outcome.failures = {failure_of(ErrorKind::unauthorized)};
  CHECK(recall_problem_lines(outcome, 1) ==
        std::vector<std::string>{"mem0: recall skipped \xE2\x80\x94 API key rejected"});
}

TEST_CASE("recall: the problem lines name a rate limit with its retry delay", "[recall]") {
  PlanOutcome outcome;
  outcome.failures = {failure_of(ErrorKind::rate_limited, std::chrono::seconds(7))};
  CHECK(
      recall_problem_lines(outcome, 1) ==
      std::vector<std::string>{"mem0: recall skipped \xE2\x80\x94 rate limited (retry after 7 s)"});

  outcome.failures = {failure_of(ErrorKind::rate_limited)};
  CHECK(recall_problem_lines(outcome, 1) ==
        std::vector<std::string>{"mem0: recall skipped \xE2\x80\x94 rate limited"});
}

TEST_CASE("recall: the problem lines count other failures with their class", "[recall]") {
  PlanOutcome outcome;
  outcome.failures = {failure_of(ErrorKind::timeout)};
  CHECK(recall_problem_lines(outcome, 2) ==
        std::vector<std::string>{
            "mem0: recall incomplete \xE2\x80\x94 1 of 2 searches failed (timeout)"});
}

TEST_CASE("recall: the problem lines come in a fixed order, one per problem", "[recall]") {
  PlanOutcome outcome;
  outcome.failures = {failure_of(ErrorKind::server), failure_of(ErrorKind::rate_limited),
                      failure_of(ErrorKind::unauthorized)};
  const auto lines = recall_problem_lines(outcome, 4);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "mem0: recall skipped \xE2\x80\x94 API key rejected");
  CHECK(lines[1] == "mem0: recall skipped \xE2\x80\x94 rate limited");
  CHECK(lines[2] == "mem0: recall incomplete \xE2\x80\x94 1 of 4 searches failed (server)");
}

TEST_CASE("recall: no failures means no problem lines", "[recall]") {
  CHECK(recall_problem_lines(PlanOutcome{}, 3).empty());
}