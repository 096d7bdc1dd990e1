// The memory service (runtime/memory_service.hpp): its pause rules, the back-off and the id map.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/format.hpp"
#include "runtime/memory_service.hpp"

#include <chrono>

using namespace mem0;
namespace mt = mem0::testing;

namespace {

using Outcome = BackoffStore::Outcome;

struct ServiceFixture {
  mt::HookFixture f;

  MemoryService service(Caller caller = Caller::request) {
    if (!deps) deps.emplace(f.deps());
    return MemoryService(*deps, f.project, SteadyClock::now() + std::chrono::seconds(5), {},
                         caller);
  }
  ApiTarget api() const { return api_target(f.config).value(); }
  std::optional<BackoffStore::Pause> pause() const {
    return f.store().backoff.active_pause(f.now, mt::server_of(f.config));
  }
  void pause_for(Outcome outcome, std::chrono::seconds how_long = std::chrono::seconds(600)) {
    REQUIRE(f.store()
                .backoff.record_outcome(f.now, mt::server_of(f.config), outcome, how_long)
                .has_value());
  }
  void user_pause() { REQUIRE(f.store().pauses.pause(f.now, "proj", 0).has_value()); }
  std::vector<SearchSpec> plan() const {
    return {{"retry policy", std::nullopt, 10, Scope::project},
            {"retry policy", std::string("decision"), 5, Scope::project}};
  }

  std::optional<RunDeps> deps;
};

} // namespace

TEST_CASE("hold_for: the user's pause holds automatic callers only; a back-off holds all",
          "[service][pause]") {
  const PauseStore::UserPause mine{"proj", 0};
  const BackoffStore::Pause limited{std::chrono::seconds(30), "rate limited by Mem0", false};
  const BackoffStore::Pause rejected{std::chrono::seconds(0), "key rejected", true};

  CHECK_FALSE(hold_for(Caller::automatic, std::nullopt, std::nullopt));
  CHECK_FALSE(hold_for(Caller::request, std::nullopt, std::nullopt));
  REQUIRE(hold_for(Caller::automatic, mine, std::nullopt));
  CHECK(hold_for(Caller::automatic, mine, std::nullopt)->kind == Hold::Kind::user_pause);
  CHECK_FALSE(hold_for(Caller::request, mine, std::nullopt)); // explicit requests go through
  for (const Caller caller : {Caller::automatic, Caller::request}) {
    REQUIRE(hold_for(caller, std::nullopt, limited));
    CHECK(hold_for(caller, std::nullopt, limited)->kind == Hold::Kind::backoff);
    CHECK(hold_for(caller, std::nullopt, rejected)->kind == Hold::Kind::key_rejected);
  }
  // The user's pause comes first for an automatic caller; a request still meets the back-off.
  CHECK(hold_for(Caller::automatic, mine, limited)->kind == Hold::Kind::user_pause);
  CHECK(hold_for(Caller::request, mine, limited)->kind == Hold::Kind::backoff);
}

TEST_CASE("service: a back-off pause fails every operation at once, sending nothing",
          "[service][backoff]") {
  ServiceFixture s;
  s.pause_for(Outcome::rate_limited);
  const MemoryService service = s.service();
  const Identity identity = service.identity("");
  const auto found = service.search(s.api(), identity, s.plan());
  REQUIRE_FALSE(found);
  CHECK(found.error().kind == ErrorKind::rate_limited);
  CHECK(failure_line(found.error()) ==
        "rate limited: Mem0 is paused for 600 s (rate limited by Mem0); mem0-hooks doctor "
        "--reset tries again now");
  CHECK_FALSE(service.run(s.api(), identity, s.plan()));
  CHECK_FALSE(service.get(s.api(), "abcd1234-bbbb-4bbb-8bbb-000000000002"));
  CHECK_FALSE(service.list(s.api(), identity, ListSpec{}));
  CHECK_FALSE(service.list_all(s.api(), identity, Scope::project, 100));
  CHECK_FALSE(service.survey(s.api(), identity, ListSpec{}, s.plan()));
  CHECK(s.f.http.requests.empty());
  CHECK(s.pause()); // nothing answered, nothing ended
}

TEST_CASE("service: a rejected key's pause is unauthorized, without sending",
          "[service][backoff]") {
  ServiceFixture s;
  s.pause_for(Outcome::key_rejected);
  const auto found = s.service().search(s.api(), s.service().identity(""), s.plan());
  REQUIRE_FALSE(found);
  CHECK(found.error().kind == ErrorKind::unauthorized);
  CHECK(s.f.http.requests.empty());
}

TEST_CASE("service: what the server answers feeds the back-off", "[service][backoff]") {
  ServiceFixture s;
  SECTION("a 429 starts a pause for its Retry-After") {
    s.f.http.responder = [](const HttpRequest &) {
      return mt::http_status(429, "{}", std::chrono::seconds(45));
    };
    const auto found = s.service().search(s.api(), s.service().identity(""), s.plan());
    REQUIRE_FALSE(found);
    CHECK(found.error().kind == ErrorKind::rate_limited);
    REQUIRE(s.pause());
    CHECK(s.pause()->remaining == std::chrono::seconds(45));
  }
  SECTION("an answer is searched and merged, at most the first search's top_k") {
    s.f.http.answer({mt::memory(1, "decision", "Retry invoices five times"),
                     mt::memory(2, "convention", "Backoff doubles from 1 s")});
    const auto found = s.service().search(s.api(), s.service().identity(""), s.plan());
    REQUIRE(found);
    CHECK(found->size() == 2);
    CHECK(s.f.http.requests.size() == 2);
    CHECK_FALSE(s.pause());
  }
}

TEST_CASE("service: the user's pause holds an automatic caller, not a request",
          "[service][pause]") {
  ServiceFixture s;
  s.user_pause();
  s.f.http.answer({mt::memory(1, "decision", "Retry invoices five times")});
  const auto automatic =
      s.service(Caller::automatic).search(s.api(), s.service().identity(""), s.plan());
  REQUIRE_FALSE(automatic);
  CHECK(automatic.error().message == "paused by you (mem0-hooks resume)");
  CHECK(s.f.http.requests.empty());
  const auto asked = s.service(Caller::request).search(s.api(), s.service().identity(""), s.plan());
  REQUIRE(asked);
  CHECK(asked->size() == 1);
  CHECK(s.f.http.requests.size() == 2);
}

TEST_CASE("service: the id map resolves a short id the service showed", "[service][idmap]") {
  ServiceFixture s;
  const Memory shown = mt::memory(7, "decision", "Retry invoices five times");
  const MemoryService service = s.service();
  const std::string short_id = "[mem0:" + id8(shown.id) + "]";

  SECTION("unknown before it is shown: a client error, nothing sent") {
    const auto got = service.get(s.api(), short_id);
    REQUIRE_FALSE(got);
    CHECK(got.error().kind == ErrorKind::client);
    CHECK(got.error().message.starts_with("unknown short id " + id8(shown.id)));
    CHECK(s.f.http.requests.empty());
  }
  SECTION("shown in the tool session, then got by id8") {
    service.show(service.tool_session(), {shown});
    CHECK(service.tool_session() == std::string(k_tool_session));
    s.f.http.responder = [&](const HttpRequest &r) {
      CHECK(r.method == "GET");
      CHECK(r.url.find("/v1/memories/" + shown.id + "/") != std::string::npos);
      return mt::http_status(200, R"({"id":")" + shown.id +
                                      R"(","memory":"Retry invoices five times",)"
                                      R"("metadata":{"type":"decision","source":"cli"},)"
                                      R"("user_id":"alice"})");
    };
    const auto got = service.get(s.api(), id8(shown.id));
    REQUIRE(got);
    CHECK(got->id == shown.id);
    CHECK(got->text == "Retry invoices five times");
    CHECK(got->metadata == R"({"type":"decision","source":"cli"})");
    CHECK(s.f.http.requests.size() == 1);
  }
}

TEST_CASE("service: list_all pages until the last page", "[service][list]") {
  ServiceFixture s;
  // The Platform pages and counts: 5 memories in pages of 2.
  s.f.http.responder = [](const HttpRequest &r) {
    const auto at = r.url.find("page=");
    const int page = std::stoi(r.url.substr(at + 5));
    std::vector<Memory> memories;
    for (int i = (page - 1) * 2; i < std::min(page * 2, 5); ++i)
      memories.push_back(
          mt::memory(static_cast<unsigned>(i + 1), "decision", "m" + std::to_string(i)));
    std::string body = mt::results_json(memories);
    body.insert(1, R"("count":5,)");
    return mt::http_status(200, body);
  };
  const MemoryService service = s.service();
  const auto all = service.list_all(s.api(), service.identity(""), Scope::project, 100, 2);
  REQUIRE(all);
  CHECK(all->size() == 5);
  CHECK(s.f.http.requests.size() == 3);
  const auto first = service.list_all(s.api(), service.identity(""), Scope::project, 3, 2);
  REQUIRE(first);
  CHECK(first->size() == 3);
}

TEST_CASE("service: an add the server refuses is rejected, not queued", "[service][add]") {
  ServiceFixture s;
  s.f.http.responder = [](const HttpRequest &) {
    return mt::http_status(422, R"({"detail":"bad metadata"})");
  };
  const auto stored = s.service().add({"Keep invoices for ten years", "decision", "cli"});
  REQUIRE(stored);
  CHECK(stored->rejected);
  CHECK_FALSE(stored->delivered);
  CHECK(mt::contains(stored_line(*stored), "rejected by Mem0"));
  CHECK(s.f.store().outbox.pending().empty());
}

TEST_CASE("service: an add whose answer never came is looked for before it is sent again",
          "[service][add]") {
  ServiceFixture s;
  const std::string text = "Keep invoices for ten years";
  int adds = 0;
  bool stored_once = false;
  s.f.http.responder = [&](const HttpRequest &r) -> Result<HttpResponse> {
    if (mt::contains(r.url, "/search/")) { // what the server holds
      std::vector<Memory> held;
      if (stored_once) held.push_back(mt::memory(9, "decision", text));
      return mt::found(held);
    }
    ++adds;
    stored_once = true; // stored, but the answer is lost
    return mt::transport_failure(ErrorKind::timeout);
  };
  const auto first = s.service().add({text, "decision", "cli"});
  REQUIRE(first);
  CHECK_FALSE(first->delivered);
  const auto pending = s.f.store().outbox.pending();
  REQUIRE(pending.size() == 1);
  CHECK(s.f.store().outbox.load(pending[0])->unanswered);
  const auto again = s.service().deliver(pending);
  REQUIRE(again.size() == 1);
  CHECK(again[0].delivered);
  CHECK(again[0].id == mt::id_of(9));
  CHECK(adds == 1); // found by its text: not added twice
  CHECK(s.f.store().outbox.pending().empty());
  // Not found: it is sent again.
  stored_once = false;
  const auto lost = s.service().add({"Another memory entirely", "decision", "cli"});
  REQUIRE(lost);
  const auto left = s.f.store().outbox.pending();
  REQUIRE(left.size() == 1);
  s.f.http.responder = [&](const HttpRequest &r) -> Result<HttpResponse> {
    if (mt::contains(r.url, "/search/")) return mt::found({});
    ++adds;
    return mt::http_status(200, R"({"results":[{"id":"m-2","memory":"x","event":"ADD"}]})");
  };
  CHECK(s.service().deliver(left)[0].delivered);
  CHECK(adds == 3);
}
