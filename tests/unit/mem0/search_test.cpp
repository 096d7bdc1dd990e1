#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/search.hpp"
#include "util/platform.hpp"

#include <algorithm>

using namespace mem0;
using namespace mem0::testing;

namespace {

bool has_header(const HttpRequest &r, std::string_view header) {
  return std::find(r.headers.begin(), r.headers.end(), header) != r.headers.end();
}

const Log &quiet_log() {
  static const Log log{"unit-test"};
  return log;
}

Deadline soon() { return SteadyClock::now() + std::chrono::seconds(5); }

const Identity k_identity{"alice", "proj", "session-9"};
const ApiTarget k_api = target("https://api.mem0.ai", "m0-secret-key");

} // namespace

TEST_CASE("search: merge_results keeps plan order and drops duplicate ids") {
  const std::vector<std::vector<Memory>> results{
      {memory(1, "fact", "a"), memory(2, "fact", "b")},
      {memory(3, "decision", "c"), memory(1, "decision", "a again"), memory(4, "decision", "d")},
      {},
      {memory(2, "convention", "b again"), memory(5, "convention", "e")},
  };
  const auto merged = merge_results(results);
  CHECK(ids_of(merged) == ids({1, 2, 3, 4, 5}));
  CHECK(merged[0].text == "a"); // the first occurrence is kept
}

TEST_CASE("search: merge_results drops ids the skip predicate rejects") {
  const std::vector<std::vector<Memory>> results{
      {memory(1, "fact", "a"), memory(2, "fact", "b")},
      {memory(3, "decision", "c"), memory(2, "decision", "b")},
  };
  const auto merged = merge_results(results, [](std::string_view id) { return id == id_of(2); });
  CHECK(ids_of(merged) == ids({1, 3}));
}

TEST_CASE("search: put_types_first groups the listed types in order and keeps rank order") {
  std::vector<Memory> ms{
      memory(1, "fact", ""), memory(2, "decision", ""), memory(3, "convention", ""),
      memory(4, "fact", ""), memory(5, "decision", ""), memory(6, "convention", ""),
      memory(7, "", "")};
  put_types_first(ms, {"convention", "decision"});
  CHECK(ids_of(ms) == ids({3, 6, 2, 5, 1, 4, 7}));
}

TEST_CASE("search: put_types_first ranks 0.3's categories with the types they pair with") {
  std::vector<Memory> ms{memory(1, "project_knowledge", ""),
                         memory(2, "workflows", ""),
                         memory(3, "decisions_and_constraints", ""),
                         memory(4, "problems_and_fixes", ""),
                         memory(5, "anti_pattern", ""),
                         memory(6, "decision", ""),
                         memory(7, "results", "")};
  put_types_first(ms, {"anti_pattern", "decision", "convention"});
  CHECK(ids_of(ms) == ids({4, 5, 3, 6, 2, 1, 7}));
}

TEST_CASE("search: put_types_first leaves the order alone when no type matches") {
  std::vector<Memory> ms{memory(1, "fact", ""), memory(2, "note", ""), memory(3, "fact", "")};
  put_types_first(ms, {"anti_pattern", "task_learning"});
  CHECK(ids_of(ms) == ids({1, 2, 3}));
}

TEST_CASE("search: run_plan sends one request per search in one parallel batch") {
  FakeHttpClient http;
  http.answer_by_type([](const std::string &type) {
    return found(
        {memory(type.empty() ? 1 : 2, type.empty() ? "fact" : type, "memory for " + type)});
  });
  const std::vector<SearchSpec> plan{{"retry logic", std::nullopt, 10, Scope::project},
                                     {"retry logic", "decision", 5, Scope::project}};
  const PlanOutcome outcome = run_plan(http, k_api, k_identity, plan, soon(), quiet_log());

  CHECK(http.batches == 1);
  REQUIRE(http.requests.size() == 2);
  CHECK(outcome.sent == 2);
  CHECK(outcome.failures.empty());
  REQUIRE(outcome.results.size() == 2);
  CHECK(ids_of(outcome.results[0]) == ids({1}));
  CHECK(ids_of(outcome.results[1]) == ids({2}));

  for (const auto &r : http.requests) {
    CHECK(r.method == "POST");
    CHECK(r.url == "https://api.mem0.ai/v3/memories/search/");
    CHECK(has_header(r, "Authorization: Token m0-secret-key"));
    CHECK(has_header(r, "Content-Type: application/json"));
    CHECK(has_header(r, "Accept: application/json"));
    CHECK(std::any_of(r.headers.begin(), r.headers.end(),
                      [](const std::string &h) { return h.starts_with("User-Agent: mem0"); }));
  }
  const auto sent = http.sent();
  CHECK(sent[0].query == "retry logic");
  CHECK(sent[0].top_k == 10);
  CHECK_FALSE(sent[0].type.has_value());
  CHECK(sent[0].user_id == std::optional<std::string>("alice"));
  CHECK(sent[0].app_id == std::optional<std::string>("proj"));
  CHECK(sent[0].filter_count == 2);
  CHECK(sent[0].rerank == std::optional<bool>(true));
  CHECK(sent[0].threshold == Approx(0.3));
  CHECK(sent[1].top_k == 5);
  CHECK(sent[1].type == std::optional<std::string>("decision"));
  CHECK(sent[1].filter_count == 3);
}

TEST_CASE("search: run_plan anchors global scope on the user and omits rerank when off") {
  FakeHttpClient http;
  const ApiTarget no_rerank = target("https://api.mem0.ai", "k", false, 0.5);
  run_plan(http, no_rerank, k_identity, {{"q", std::nullopt, 10, Scope::global}}, soon(),
           quiet_log());
  REQUIRE(http.requests.size() == 1);
  const SentSearch s = parse_sent(http.requests[0]);
  CHECK(s.user_id == std::optional<std::string>("alice"));
  CHECK(s.app_id == std::optional<std::string>("*"));
  CHECK_FALSE(s.rerank.has_value());
  CHECK_FALSE(contains(http.requests[0].body, "rerank"));
  CHECK(s.threshold == Approx(0.5));
}

TEST_CASE("search: run_plan counts failed searches and keeps the results of the others") {
  FakeHttpClient http;
  http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
    if (type == "decision") return transport_failure(ErrorKind::timeout);
    if (type == "convention") return http_status(500, R"({"detail":"boom"})");
    if (type == "anti_pattern") return http_status(200, "<html>not json</html>");
    return found({memory(1, "fact", "kept")});
  });
  const std::vector<SearchSpec> plan{{"q", std::nullopt, 10, Scope::project},
                                     {"q", "decision", 5, Scope::project},
                                     {"q", "convention", 3, Scope::project},
                                     {"q", "anti_pattern", 3, Scope::project}};
  const PlanOutcome outcome = run_plan(http, k_api, k_identity, plan, soon(), quiet_log());
  CHECK(outcome.sent == 4);
  REQUIRE(outcome.failures.size() == 3);
  std::vector<ErrorKind> kinds;
  for (const auto &e : outcome.failures)
    kinds.push_back(e.kind);
  CHECK(std::count(kinds.begin(), kinds.end(), ErrorKind::timeout) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), ErrorKind::server) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), ErrorKind::bad_response) == 1);
  CHECK(ids_of(outcome.results[0]) == ids({1}));
  CHECK(outcome.results[1].empty());
  CHECK(outcome.results[2].empty());
  CHECK(outcome.results[3].empty());
}

TEST_CASE("search: run_plan keeps Retry-After of a 429 for the recall line") {
  FakeHttpClient http;
  http.responder = [](const HttpRequest &) {
    return http_status(429, R"({"detail":"Too many requests"})", std::chrono::seconds(7));
  };
  const PlanOutcome outcome = run_plan(
      http, k_api, k_identity, {{"q", std::nullopt, 10, Scope::project}}, soon(), quiet_log());
  REQUIRE(outcome.failures.size() == 1);
  CHECK(outcome.failures[0].kind == ErrorKind::rate_limited);
  CHECK(
      recall_problem_lines(outcome, 1) ==
      std::vector<std::string>{"mem0: recall skipped \xE2\x80\x94 rate limited (retry after 7 s)"});
}

TEST_CASE("search: no target is made for an http base URL of a remote host, or without a key") {
  const auto clear_text = ApiTarget::make("http://api.example.com", "m0-secret-key");
  REQUIRE_FALSE(clear_text.has_value());
  CHECK(clear_text.error().kind == ErrorKind::transport);
  CHECK(contains(clear_text.error().message, "api.example.com"));
  const auto no_key = ApiTarget::make("https://api.mem0.ai", "");
  REQUIRE_FALSE(no_key.has_value());
  CHECK(no_key.error().kind == ErrorKind::unauthorized);
  CHECK(ApiTarget::make("https://api.mem0.ai//", "k").value().base_url() == "https://api.mem0.ai");
}

TEST_CASE("search: run_plan accepts an http base URL on loopback") {
  for (const char *base : {"http://127.0.0.1:8765", "http://localhost:8765", "http://[::1]:8765"}) {
    CAPTURE(base);
    FakeHttpClient http;
    const ApiTarget local = target(base, "k");
    const PlanOutcome outcome = run_plan(
        http, local, k_identity, {{"q", std::nullopt, 10, Scope::project}}, soon(), quiet_log());
    REQUIRE(http.requests.size() == 1);
    CHECK(http.requests[0].url == std::string(base) + "/v3/memories/search/");
    CHECK(outcome.failures.empty());
  }
}

TEST_CASE("search: run_plan with an empty plan sends nothing") {
  FakeHttpClient http;
  const PlanOutcome outcome = run_plan(http, k_api, k_identity, {}, soon(), quiet_log());
  CHECK(http.batches == 0);
  CHECK(outcome.sent == 0);
  CHECK(outcome.failures.empty());
}

TEST_CASE("search: make_query redacts, collapses whitespace and caps at 2,000 bytes") {
  CHECK(make_query("fix  the\n\tbug with key sk-ant-abcdefghijklmnopqrstuvwxyz", true) ==
        "fix the bug with key [REDACTED]");
  CHECK(make_query("key sk-ant-abcdefghijklmnopqrstuvwxyz", false) ==
        "key sk-ant-abcdefghijklmnopqrstuvwxyz");
  CHECK(make_query(std::string(5000, 'x'), true).size() == k_max_query_bytes);
}

TEST_CASE("search: make_query never sends a secret split by its input window") {
  // 64 KiB of spaces collapse to nothing, so the cut word would open the query.
  const std::string secret = "sk-ant-" + std::string(40, 'a');
  const std::string prompt = std::string(64 * 1024 - 10, ' ') + secret + " tail";
  CHECK(make_query(prompt, true).find("sk-ant") == std::string::npos);
  // One giant word keeps its start: the cut lies far past the bytes that are sent.
  CHECK(make_query(std::string(100 * 1024, 'w'), true) == std::string(k_max_query_bytes, 'w'));
}

// --- user notices (docs/failures.md#recall-notices) ----------------------------------------------

TEST_CASE("recall: the kinds shown survive the session file") {
  SessionState s;
  CHECK(claim_notice(s, notice_kind::key_rejected));
  CHECK_FALSE(claim_notice(s, notice_kind::key_rejected));
  CHECK(claim_notice(s, notice_kind::daily_limit));
  CHECK(s.limit_notice_shown); // the daily limit keeps its own flag
  CHECK(claim_notice(s, "failed:timeout"));
  const SessionState back = parse_session_state(serialize_session_state(s));
  CHECK(back.notices_shown == std::vector<std::string>{"key_rejected", "failed:timeout"});
  CHECK(back.limit_notice_shown);
  SessionState copy = back;
  CHECK_FALSE(claim_notice(copy, notice_kind::daily_limit));
  CHECK_FALSE(claim_notice(copy, "failed:timeout"));
  CHECK(claim_notice(copy, "failed:server"));
  // An older file without the field reads as nothing shown.
  CHECK(parse_session_state(R"({"injected":[],"limit_notice_shown":false})").notices_shown.empty());
}

TEST_CASE("recall: the no-key notice is claimed once per session") {
  HookFixture f;
  f.unset_env("MEM0_API_KEY");
  CHECK(no_key_notice(f.context(), "session-9") == k_no_key_notice);
  CHECK(no_key_notice(f.context(), "session-9").empty());
  CHECK(no_key_notice(f.context(), "session-10") == k_no_key_notice);
  CHECK(no_key_notice(f.context(), "") == k_no_key_notice);
  CHECK(no_key_notice(f.context(), "") == k_no_key_notice);
}

TEST_CASE("recall: mem0_hooks_command is the mem0-hooks next to this executable") {
  CHECK(mem0_hooks_command() == mem0_hooks_as_named());
  CHECK(fs::path(mem0_hooks_path()).is_absolute());
}
