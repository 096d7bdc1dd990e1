// Mem0 API request shapes, response parsing and error classification (docs/api.md).
#include "mem0/api.hpp"
#include "mem0/dialect.hpp"
#include "mem0/http.hpp"
#include "tests/unit/catch.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace mem0;
using namespace std::chrono_literals;

namespace {

rapidjson::Document parse_json(const std::string &text) {
  rapidjson::Document doc;
  doc.Parse(text.data(), text.size());
  REQUIRE_FALSE(doc.HasParseError());
  REQUIRE(doc.IsObject());
  return doc;
}

std::string str(const rapidjson::Value &v) {
  REQUIRE(v.IsString());
  return {v.GetString(), v.GetStringLength()};
}

// A filter leaf must be an object with exactly one member `key` whose value is a string.
std::string leaf_value(const rapidjson::Value &leaf, const char *key) {
  REQUIRE(leaf.IsObject());
  REQUIRE(leaf.MemberCount() == 1);
  REQUIRE(leaf.HasMember(key));
  return str(leaf[key]);
}

// The AND array of the body's filters; the filters object holds nothing else.
const rapidjson::Value &and_clauses(const rapidjson::Document &body) {
  REQUIRE(body.HasMember("filters"));
  const auto &filters = body["filters"];
  REQUIRE(filters.IsObject());
  REQUIRE(filters.MemberCount() == 1);
  REQUIRE(filters.HasMember("AND"));
  REQUIRE(filters["AND"].IsArray());
  return filters["AND"];
}

// Number of clauses that are exactly {key: value}.
int count_leaf(const rapidjson::Value &clauses, const char *key, const std::string &value) {
  int n = 0;
  for (const auto &c : clauses.GetArray())
    if (c.IsObject() && c.MemberCount() == 1 && c.HasMember(key) && c[key].IsString() &&
        str(c[key]) == value)
      ++n;
  return n;
}

bool has_key_anywhere(const rapidjson::Value &clauses, const char *key) {
  for (const auto &c : clauses.GetArray())
    if (c.IsObject() && c.HasMember(key)) return true;
  return false;
}

const Identity k_identity{"alice", "acme-webapp", "sess-42"};

HttpResponse response(long status, std::string body,
                      std::optional<std::chrono::seconds> retry_after = std::nullopt) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.retry_after = retry_after;
  return r;
}

const char *k_item_json =
    R"({"id":"0a1b2c3d-4e5f-6789-abcd-ef0123456789","memory":"Use pnpm, not npm",)"
    R"("metadata":{"type":"convention","confidence":1.0},"categories":["tooling"],)"
    R"("created_at":"2024-05-01T08:00:00.123456-07:00","score":0.87,"user_id":"alice"})";

void check_item(const Memory &m) {
  CHECK(m.id == "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
  CHECK(m.text == "Use pnpm, not npm");
  CHECK(m.type == "convention");
  CHECK(m.created_at == "2024-05-01T08:00:00.123456-07:00");
  REQUIRE(m.score.has_value());
  CHECK(*m.score == Approx(0.87));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// search_body

TEST_CASE("search_body project scope") {
  const SearchSpec spec{"how do we deploy", std::nullopt, 10, Scope::project};
  const auto body = parse_json(search_body(spec, k_identity, true, 0.3));

  CHECK(str(body["query"]) == "how do we deploy");
  REQUIRE(body["top_k"].IsInt());
  CHECK(body["top_k"].GetInt() == 10);
  REQUIRE(body["threshold"].IsNumber());
  CHECK(body["threshold"].GetDouble() == Approx(0.3));
  REQUIRE(body.HasMember("rerank"));
  CHECK(body["rerank"].IsTrue());
  CHECK(body["latest_only"].IsTrue()); // the newest version of each memory only, as 0.3 asks
  CHECK(body.MemberCount() == 6);      // query, filters, top_k, threshold, rerank, latest_only

  const auto &clauses = and_clauses(body);
  REQUIRE(clauses.Size() == 2);
  CHECK(leaf_value(clauses[0], "user_id") == "alice");
  CHECK(leaf_value(clauses[1], "app_id") == "acme-webapp");
  CHECK_FALSE(has_key_anywhere(clauses, "run_id")); // the session id stays out of project scope
}

TEST_CASE("search_body omits rerank when it is off") {
  const SearchSpec spec{"q", std::nullopt, 5, Scope::project};
  const auto body = parse_json(search_body(spec, k_identity, false, 0.5));
  CHECK_FALSE(body.HasMember("rerank")); // absent, not false
  CHECK(body.MemberCount() == 5);        // query, filters, top_k, threshold, latest_only
  CHECK(body["top_k"].GetInt() == 5);
  CHECK(body["threshold"].GetDouble() == Approx(0.5));
}

TEST_CASE("search_body type filter adds a metadata.type leaf") {
  const SearchSpec spec{"auth", std::string("decision"), 3, Scope::project};
  const auto body = parse_json(search_body(spec, k_identity, true, 0.3));
  const auto &clauses = and_clauses(body);
  REQUIRE(clauses.Size() == 3);
  CHECK(count_leaf(clauses, "user_id", "alice") == 1);
  CHECK(count_leaf(clauses, "app_id", "acme-webapp") == 1);
  int typed = 0;
  for (const auto &c : clauses.GetArray()) {
    if (!c.HasMember("metadata")) continue;
    ++typed;
    REQUIRE(c.MemberCount() == 1);
    CHECK(leaf_value(c["metadata"], "type") == "decision");
  }
  CHECK(typed == 1);
  CHECK(body["top_k"].GetInt() == 3);
}

TEST_CASE("search_body session scope adds run_id") {
  const SearchSpec spec{"q", std::nullopt, 10, Scope::session};
  const auto body = parse_json(search_body(spec, k_identity, true, 0.3));
  const auto &clauses = and_clauses(body);
  CHECK(clauses.Size() == 3);
  CHECK(count_leaf(clauses, "user_id", "alice") == 1);
  CHECK(count_leaf(clauses, "app_id", "acme-webapp") == 1);
  CHECK(count_leaf(clauses, "run_id", "sess-42") == 1);
}

TEST_CASE("search_body global scope keeps the user_id anchor") {
  const SearchSpec spec{"q", std::string("convention"), 10, Scope::global};
  const auto body = parse_json(search_body(spec, k_identity, true, 0.3));
  const auto &clauses = and_clauses(body);
  CHECK(clauses.Size() == 3);
  CHECK(count_leaf(clauses, "user_id", "alice") == 1); // never a wildcard-only filter
  CHECK(count_leaf(clauses, "user_id", "*") == 0);
  CHECK(count_leaf(clauses, "app_id", "*") == 1);
  CHECK(count_leaf(clauses, "app_id", "acme-webapp") == 0);
  CHECK_FALSE(has_key_anywhere(clauses, "run_id"));
  CHECK_FALSE(body["filters"].HasMember("OR"));
}

TEST_CASE("search_body escapes the query") {
  const std::string query = "quote \" backslash \\ newline \n tab \t ctl \x01 caf\xC3\xA9";
  const SearchSpec spec{query, std::nullopt, 10, Scope::project};
  const auto body = parse_json(search_body(spec, k_identity, true, 0.3));
  CHECK(str(body["query"]) == query);
}

// ---------------------------------------------------------------------------------------------
// Requests

TEST_CASE("search_request method url headers and body") {
  const ApiTarget api = ApiTarget::make("https://api.mem0.ai", "m0-testkey", true, 0.42).value();
  const SearchSpec spec{"q", std::nullopt, 7, Scope::project};
  const HttpRequest req = search_request(api, spec, k_identity);
  CHECK(req.method == "POST");
  CHECK(req.url == "https://api.mem0.ai/v3/memories/search/");
  const auto has = [&](const std::string &h) {
    return std::find(req.headers.begin(), req.headers.end(), h) != req.headers.end();
  };
  CHECK(has("Authorization: Token m0-testkey"));
  CHECK(has("Content-Type: application/json"));
  CHECK(has("Accept: application/json"));
  const auto ua = std::find_if(req.headers.begin(), req.headers.end(), [](const std::string &h) {
    return h.rfind("User-Agent: ", 0) == 0;
  });
  REQUIRE(ua != req.headers.end());
  CHECK(ua->find("mem0") != std::string::npos);
  CHECK(ua->find('/') != std::string::npos); // name/version

  const auto body = parse_json(req.body);
  CHECK(body["threshold"].GetDouble() == Approx(0.42));
  CHECK(body["top_k"].GetInt() == 7);
  CHECK(body["rerank"].IsTrue());
  CHECK(req.body == search_body(spec, k_identity, true, 0.42));

  SECTION("rerank off in the target leaves it out of the body") {
    const ApiTarget off = ApiTarget::make("https://api.mem0.ai", "m0-testkey", false, 0.3).value();
    CHECK_FALSE(parse_json(search_request(off, spec, k_identity).body).HasMember("rerank"));
  }
}

TEST_CASE("get_memory_request method url and headers") {
  const ApiTarget api = ApiTarget::make("http://127.0.0.1:8080", "m0-k", true, 0.3).value();
  const HttpRequest req = get_memory_request(api, "0a1b2c3d-4e5f-6789-abcd-ef0123456789");
  CHECK(req.method == "GET");
  CHECK(req.url == "http://127.0.0.1:8080/v1/memories/0a1b2c3d-4e5f-6789-abcd-ef0123456789/");
  CHECK(std::find(req.headers.begin(), req.headers.end(), "Authorization: Token m0-k") !=
        req.headers.end());
  CHECK(req.body.empty());
}

// ---------------------------------------------------------------------------------------------
// parse_search_response

TEST_CASE("parse_search_response accepts the three response shapes") {
  const std::string item = k_item_json;
  SECTION("results key") {
    const auto r = parse_search_response(response(200, R"({"results":[)" + item + "]}"));
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 1);
    check_item(r->front());
  }
  SECTION("memories key") {
    const auto r = parse_search_response(response(200, R"({"memories":[)" + item + "]}"));
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 1);
    check_item(r->front());
  }
  SECTION("bare array") {
    const auto r = parse_search_response(response(200, "[" + item + "]"));
    REQUIRE(r.has_value());
    REQUIRE(r->size() == 1);
    check_item(r->front());
  }
  SECTION("empty results") {
    const auto r = parse_search_response(response(200, R"({"results":[]})"));
    REQUIRE(r.has_value());
    CHECK(r->empty());
  }
}

TEST_CASE("parse_search_response keeps order") {
  const auto r = parse_search_response(response(
      200,
      R"({"results":[{"id":"c","memory":"3"},{"id":"a","memory":"1"},{"id":"b","memory":"2"}]})"));
  REQUIRE(r.has_value());
  REQUIRE(r->size() == 3);
  CHECK((*r)[0].id == "c");
  CHECK((*r)[1].id == "a");
  CHECK((*r)[2].id == "b");
}

TEST_CASE("parse_search_response skips malformed items and keeps the rest") {
  const std::string body = R"({"results":[
    {"memory":"no id"},
    {"id":null,"memory":"null id"},
    {"id":42,"memory":"numeric id"},
    {"id":"","memory":"empty id"},
    {"id":"bad1","memory":5},
    {"id":"bad2"},
    {"id":"bad3","memory":null},
    {"id":"has space","memory":"x"},
    {"id":"has]bracket","memory":"x"},
    {"id":"a/b","memory":"x"},
    42, null, "string", [],
    {"id":"ok1","memory":"null metadata","metadata":null},
    {"id":"ok2","memory":"categories fallback","categories":["preference","other"]},
    {"id":"ok3","memory":"metadata wins","metadata":{"type":"decision"},"categories":["preference"]},
    {"id":"ok4","memory":"no type at all","categories":[]},
    {"id":"ok5","memory":"odd fields","metadata":{"type":7},"categories":[3],"created_at":null,"score":"high"}
  ]})";
  const auto r = parse_search_response(response(200, body));
  REQUIRE(r.has_value());
  std::vector<std::string> ids;
  for (const auto &m : *r)
    ids.push_back(m.id);
  CHECK(ids == std::vector<std::string>{"ok1", "ok2", "ok3", "ok4", "ok5"});
  REQUIRE(r->size() == 5);
  CHECK((*r)[0].type.empty());
  CHECK((*r)[0].text == "null metadata");
  CHECK((*r)[1].type == "preference");
  CHECK((*r)[2].type == "decision");
  CHECK((*r)[3].type.empty());
  CHECK((*r)[4].type.empty());
  CHECK((*r)[4].created_at.empty());
  CHECK_FALSE((*r)[4].score.has_value());
}

TEST_CASE("parse_search_response rejects bodies that are not JSON or have the wrong shape") {
  const std::vector<std::string> bodies = {
      "",
      "<html><body>Bad Gateway</body></html>",
      "{\"results\":[",
      "not json at all",
      R"({"results":"nope"})",
      R"({"results":{"id":"a","memory":"b"}})",
      R"({"foo":[]})",
      "42",
      "\"string\"",
      "null",
  };
  for (const auto &body : bodies) {
    INFO("body: " << body);
    const auto r = parse_search_response(response(200, body));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::bad_response);
  }
}

TEST_CASE("parse_search_response classifies HTTP failures") {
  struct Case {
    long status;
    std::string body;
    ErrorKind kind;
  };
  const std::vector<Case> cases = {
      {400, R"({"detail":"Invalid filters"})", ErrorKind::client},
      {401, R"({"detail":"Invalid API key"})", ErrorKind::unauthorized},
      {403, R"({"error":"Forbidden"})", ErrorKind::unauthorized},
      {404, R"({"error":"Not found"})", ErrorKind::client},
      {413, "Request Entity Too Large", ErrorKind::client},
      {422, R"({"detail":[{"loc":["body","query"],"msg":"field required"}]})", ErrorKind::client},
      {429, R"({"detail":"Rate limit exceeded"})", ErrorKind::rate_limited},
      {500, R"({"detail":"Internal error"})", ErrorKind::server},
      {502, "<html><head><title>502 Bad Gateway</title></head></html>", ErrorKind::server},
      {503, "", ErrorKind::server},
      {504, "upstream timeout", ErrorKind::server},
      {302, "", ErrorKind::bad_response}, // redirects are never followed
  };
  for (const auto &c : cases) {
    INFO("status " << c.status);
    const auto r = parse_search_response(response(c.status, c.body));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == c.kind);
    CHECK(r.error().status == c.status);
  }
}

TEST_CASE("parse_search_response never reads an error status as results") {
  // A 429 carrying a results-shaped body must still be an error, not "no memories".
  const auto r = parse_search_response(response(429, R"({"results":[]})"));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind == ErrorKind::rate_limited);
}

TEST_CASE("parse_search_response keeps Retry-After of a 429") {
  const auto r = parse_search_response(response(429, R"({"detail":"slow down"})", 30s));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind == ErrorKind::rate_limited);
  REQUIRE(r.error().retry_after.has_value());
  CHECK(*r.error().retry_after == 30s);

  const auto without = parse_search_response(response(429, ""));
  REQUIRE_FALSE(without.has_value());
  CHECK(without.error().kind == ErrorKind::rate_limited);
  CHECK_FALSE(without.error().retry_after.has_value());
}

TEST_CASE("classify_status keeps the server's message") {
  const Error detail = classify_status(response(400, R"({"detail":"Invalid filters"})"));
  CHECK(detail.kind == ErrorKind::client);
  CHECK(detail.message.find("Invalid filters") != std::string::npos);
  const Error error = classify_status(response(404, R"({"error":"Memory not found!"})"));
  CHECK(error.message.find("Memory not found!") != std::string::npos);
  const Error html = classify_status(response(502, "<html>Bad Gateway</html>"));
  CHECK(html.kind == ErrorKind::server);
  CHECK(html.message.find("502") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// parse_memory_response

namespace {

// The platform target of the single-memory and write-side tests.
const ApiTarget &write_target() {
  static const ApiTarget api = ApiTarget::make("https://api.mem0.ai/", "m0-w").value();
  return api;
}

} // namespace

TEST_CASE("parse_memory_response 200 returns the memory") {
  const auto r = parse_memory_response(response(200, k_item_json));
  REQUIRE(r.has_value());
  REQUIRE(r->has_value());
  check_item(**r);
}

TEST_CASE("parse_memory_response 404 is not found rather than an error") {
  const auto r = parse_memory_response(response(404, R"({"error":"Memory not found!"})"));
  REQUIRE(r.has_value());
  CHECK_FALSE(r->has_value());
}

TEST_CASE("parse_memory_response failures") {
  SECTION("500 is a server error") {
    const auto r = parse_memory_response(response(500, "oops"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::server);
  }
  SECTION("400 for a non-UUID is a client error") {
    const auto r = parse_memory_response(response(400, R"({"detail":"Invalid memory ID"})"));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::client);
  }
  SECTION("401 is unauthorized") {
    const auto r = parse_memory_response(response(401, ""));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::unauthorized);
  }
  SECTION("200 with something that is not a memory is a bad response") {
    for (const std::string body : {"not json", "[]", R"({"id":"x"})", R"({"memory":"no id"})"}) {
      INFO(body);
      const auto r = parse_memory_response(response(200, body));
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().kind == ErrorKind::bad_response);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// refuse_base_url (docs/configuration.md#base-url: http:// only for loopback)

TEST_CASE("refuse_base_url accepts https and loopback http") {
  for (const std::string url :
       {"https://api.mem0.ai", "https://mem0.internal.example:8443/prefix", "http://localhost",
        "http://localhost:8000", "http://127.0.0.1", "http://127.0.0.1:8080", "http://127.1.2.3:9",
        "http://[::1]:80", "http://[::1]", "http://localhost/some/path"}) {
    INFO(url);
    CHECK_FALSE(refuse_base_url(url).has_value());
  }
}

TEST_CASE("refuse_base_url refuses clear text to other hosts and other schemes") {
  for (const std::string url :
       {"http://example.com", "http://api.mem0.ai", "http://127.evil.com",
        "http://127.0.0.1.evil.com", "http://10.0.0.1", "http://192.168.1.10:8080",
        "http://localhost.evil.com", "http://localhost@evil.com", "http://localhost:80@evil.com/",
        "http://evil.com/localhost", "http://[::2]:80", "ftp://api.mem0.ai", "file:///etc/passwd",
        "api.mem0.ai", ""}) {
    INFO(url);
    const auto refused = refuse_base_url(url);
    REQUIRE(refused.has_value());
    CHECK_FALSE(refused->empty());
  }
}

TEST_CASE("refuse_base_url sees through a fragment or query before the at sign") {
  // The authority of `http://evil.com#@localhost` is evil.com: libcurl connects there and the
  // `#@localhost...` part is a fragment. The key would travel in clear text to evil.com.
  for (const std::string url : {"http://evil.com#@localhost", "http://evil.com?@127.0.0.1:8080"}) {
    INFO(url);
    CHECK(refuse_base_url(url).has_value());
  }
}

// ---------------------------------------------------------------------------------------------
// ErrorKind names and Retry-After parsing

TEST_CASE("to_string names every ErrorKind") {
  CHECK(to_string(ErrorKind::unauthorized) == "unauthorized");
  CHECK(to_string(ErrorKind::rate_limited) == "rate_limited");
  CHECK(to_string(ErrorKind::server) == "server");
  CHECK(to_string(ErrorKind::client) == "client");
  CHECK(to_string(ErrorKind::timeout) == "timeout");
  CHECK(to_string(ErrorKind::transport) == "transport");
  CHECK(to_string(ErrorKind::bad_response) == "bad_response");
  CHECK(to_string(ErrorKind::no_libcurl) == "no_libcurl");
  CHECK(to_string(ErrorKind::io) == "io");
}

TEST_CASE("parse_retry_after reads delay seconds") {
  CHECK(parse_retry_after("30") == std::optional<std::chrono::seconds>(30s));
  CHECK(parse_retry_after(" 7\r\n") == std::optional<std::chrono::seconds>(7s));
  CHECK(parse_retry_after("0") == std::optional<std::chrono::seconds>(0s));
  CHECK(parse_retry_after("\t120 ") == std::optional<std::chrono::seconds>(120s));
}

TEST_CASE("parse_retry_after rejects dates and garbage") {
  for (const std::string value :
       {"Wed, 21 Oct 2015 07:28:00 GMT", "", "   ", "abc", "-5", "1.5", "30s", "3 0", "0x10"}) {
    INFO("value: '" << value << "'");
    CHECK_FALSE(parse_retry_after(value).has_value());
  }
}

// ---------------------------------------------------------------------------------------------
// The write side: add, list with count, event, delete (docs/api.md#add)

TEST_CASE("add_request sends real roles, the identity and metadata, never a run_id") {
  AddSpec spec;
  spec.messages = {{"user", "we chose \"postgres\""}, {"assistant", "noted\nand stored"}};
  spec.metadata = {{"type", "session_summary"}, {"source", "stop"}, {"session_id", "s-1"}};
  spec.expiration_date = "2027-03-01";
  const HttpRequest req = add_request(write_target(), queued_add(spec, {"alice", "proj", "s-1"}));
  CHECK(req.method == "POST");
  CHECK(req.url == "https://api.mem0.ai/v3/memories/add/");
  CHECK(std::find(req.headers.begin(), req.headers.end(), "Authorization: Token m0-w") !=
        req.headers.end());

  const auto body = parse_json(req.body);
  REQUIRE(body["messages"].IsArray());
  REQUIRE(body["messages"].Size() == 2);
  CHECK(str(body["messages"][0]["role"]) == "user");
  CHECK(str(body["messages"][0]["content"]) == "we chose \"postgres\"");
  CHECK(str(body["messages"][1]["role"]) == "assistant");
  CHECK(str(body["messages"][1]["content"]) == "noted\nand stored");
  CHECK(str(body["user_id"]) == "alice");
  CHECK(str(body["app_id"]) == "proj");
  CHECK(str(body["metadata"]["type"]) == "session_summary");
  CHECK(str(body["metadata"]["session_id"]) == "s-1");
  CHECK(body["infer"].IsTrue());
  CHECK(str(body["expiration_date"]) == "2027-03-01");
  CHECK_FALSE(body.HasMember("run_id"));
  CHECK_FALSE(body.HasMember("custom_instructions"));

  spec.infer = false;
  spec.expiration_date.clear();
  spec.custom_instructions = "keep decisions";
  const auto second = parse_json(add_body(spec, {"alice", "proj", ""}));
  CHECK(second["infer"].IsFalse());
  CHECK_FALSE(second.HasMember("expiration_date"));
  CHECK(str(second["custom_instructions"]) == "keep decisions");
}

TEST_CASE("parse_add_response accepts the queued and the stored shapes, and classifies errors") {
  const auto queued =
      parse_add_response(response(200, R"({"event_id":"ev-1","status":"PENDING","message":"ok"})"));
  REQUIRE(queued.has_value());
  CHECK(queued->event_id == "ev-1");
  CHECK(queued->ids.empty());

  const auto stored = parse_add_response(response(
      200, R"({"results":[{"id":"a1","memory":"x","event":"ADD"},{"id":"bad id!"},{"x":1}]})"));
  REQUIRE(stored.has_value());
  CHECK(stored->ids == std::vector<std::string>{"a1"});

  CHECK(parse_add_response(response(200, "[]")).error().kind == ErrorKind::bad_response);
  CHECK(parse_add_response(response(200, "{}")).error().kind == ErrorKind::bad_response);
  CHECK(
      parse_add_response(response(422, R"({"detail":"messages: field required"})")).error().kind ==
      ErrorKind::client);
  CHECK(parse_add_response(response(429, "{}")).error().kind == ErrorKind::rate_limited);
  CHECK(parse_add_response(response(503, "down")).error().kind == ErrorKind::server);
}

TEST_CASE("list_request asks for one page with the project filters; the count is read back") {
  const HttpRequest req = list_request(write_target(), {"alice", "proj", "s"}, 5);
  CHECK(req.method == "POST");
  CHECK(req.url == "https://api.mem0.ai/v3/memories/?page=1&page_size=5");
  const auto body = parse_json(req.body);
  const auto &clauses = and_clauses(body);
  CHECK(count_leaf(clauses, "user_id", "alice") == 1);
  CHECK(count_leaf(clauses, "app_id", "proj") == 1);
  CHECK_FALSE(has_key_anywhere(clauses, "run_id"));

  const auto page = parse_list_response(response(
      200, R"({"count":42,"next":null,"results":[{"id":"m1","memory":"t","created_at":"x"}]})"));
  REQUIRE(page.has_value());
  CHECK(page->count == 42);
  REQUIRE(page->memories.size() == 1);
  CHECK(page->memories[0].id == "m1");
  const auto bare = parse_list_response(response(200, R"([{"id":"m1","memory":"t"}])"));
  REQUIRE(bare.has_value());
  CHECK(bare->count == 1);
  CHECK(parse_list_response(response(401, "{}")).error().kind == ErrorKind::unauthorized);
}

TEST_CASE("event and delete requests, and check_status") {
  const auto event = event_request(write_target(), "ev-1");
  REQUIRE(event.has_value());
  CHECK(event->url == "https://api.mem0.ai/v1/event/ev-1/");
  CHECK(event->method == "GET");
  const HttpRequest del = delete_request(write_target(), "m1");
  CHECK(del.method == "DELETE");
  CHECK(del.url == "https://api.mem0.ai/v1/memories/m1/");
  CHECK(check_status(response(200, "{}")).has_value());
  CHECK(check_status(response(404, R"({"error":"Memory not found!"})")).error().kind ==
        ErrorKind::client);
}

TEST_CASE("ApiTarget::make refuses control bytes in the key and the base URL", "[reliability]") {
  for (const std::string &bad :
       std::vector<std::string>{"m0-abc\r\nX-Evil: 1", "m0-a\nb", "m0-a\x01-z", "m0-a\x7f-z",
                                std::string("m0-a\0b", 6)}) {
    CAPTURE(bad);
    const auto t = ApiTarget::make("https://api.mem0.ai", bad);
    REQUIRE_FALSE(t.has_value());
    CHECK(t.error().kind == ErrorKind::unauthorized);
    CHECK(t.error().message.find("m0-a") == std::string::npos); // never the value
  }
  for (const std::string &bad : std::vector<std::string>{
           "https://api.mem0.ai\r\nX-Evil: 1", "https://api.mem0.ai/\n", "http://127.0.0.1\t:1"}) {
    CAPTURE(bad);
    const auto t = ApiTarget::make(bad, "m0-good-key");
    REQUIRE_FALSE(t.has_value());
    CHECK(t.error().kind == ErrorKind::transport);
  }
  CHECK(ApiTarget::make("https://api.mem0.ai", "m0-good-key").has_value());
}

// ---------------------------------------------------------------------------------------------
// Backends and shared memory (docs/api.md#self-hosted-server, docs/api.md#shared-memory)

namespace {

// sha256("https://github.com/mem0ai/mem0")[:10], computed with Python's hashlib.
constexpr const char *k_shared = "acme-webapp-cddc9a2d07";
const Identity k_shared_identity{"alice", "acme-webapp", "sess-42", k_shared};

const ApiTarget &selfhosted_target() {
  static const ApiTarget api =
      ApiTarget::make("http://localhost:8888/", "sh-key", true, 0.3, selfhosted_dialect()).value();
  return api;
}

bool has_header(const HttpRequest &req, const std::string &header) {
  return std::find(req.headers.begin(), req.headers.end(), header) != req.headers.end();
}

bool has_header_named(const HttpRequest &req, const std::string &name) {
  return std::any_of(req.headers.begin(), req.headers.end(),
                     [&](const std::string &h) { return h.rfind(name + ":", 0) == 0; });
}

std::string list_item(const std::string &id, const std::string &created_at) {
  return R"({"id":")" + id + R"(","memory":"text of )" + id + R"(")" +
         (created_at.empty() ? std::string() : R"(,"created_at":")" + created_at + "\"") + "}";
}

std::vector<std::string> ids_of(const std::vector<Memory> &memories) {
  std::vector<std::string> out;
  for (const auto &m : memories)
    out.push_back(m.id);
  return out;
}

// A listing body of `n` memories m0..m{n-1}, with or without a count.
std::string listing(std::size_t n, std::optional<long> count = std::nullopt) {
  std::string body = count ? R"({"count":)" + std::to_string(*count) + R"(,"results":[)"
                           : std::string(R"({"results":[)");
  for (std::size_t i = 0; i < n; ++i)
    body += (i ? "," : "") + list_item("m" + std::to_string(i), "2026-01-01T00:00:00Z");
  return body + "]}";
}

} // namespace

namespace {

// The filters `dialect` writes into a search or a listing (docs/api.md#filters), as JSON text.
std::string filters(const SearchSpec &spec, const Identity &identity,
                    const Dialect &dialect = platform_dialect()) {
  JsonWriter w;
  dialect.write_filters(w, spec, identity);
  return w.text();
}

} // namespace

// One filters expectation: a scope, a type or none, the JSON text.
struct FilterCase {
  Scope scope;
  std::optional<std::string> type;
  std::string json;
};

TEST_CASE("filters: the platform's AND filters for every scope, typed and untyped", "[backend]") {
  const std::optional<std::string> none, decision("decision");
  const std::vector<FilterCase> cases{
      {Scope::project, none, R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]})"},
      {Scope::project, decision,
       R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"},{"metadata":{"type":"decision"}}]})"},
      {Scope::session, none,
       R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"},{"run_id":"sess-42"}]})"},
      {Scope::session, decision,
       R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"},{"run_id":"sess-42"},)"
       R"({"metadata":{"type":"decision"}}]})"},
      {Scope::global, none, R"({"AND":[{"user_id":"alice"},{"app_id":"*"}]})"},
      {Scope::global, decision,
       R"({"AND":[{"user_id":"alice"},{"app_id":"*"},{"metadata":{"type":"decision"}}]})"},
  };
  for (const auto &c : cases) {
    CAPTURE(static_cast<int>(c.scope), c.type.value_or("<untyped>"));
    const SearchSpec spec{"q", c.type, 10, c.scope};
    CHECK(filters(spec, k_identity) == c.json);
    if (c.scope == Scope::project && !c.type) continue; // the one layout shared memory changes
    // A shared agent id widens only the untyped project search.
    CHECK(filters(spec, k_shared_identity, platform_dialect()) == c.json);
  }
}

TEST_CASE("filters: the untyped project search with shared memory is an OR of three layouts",
          "[backend]") {
  const SearchSpec spec{"q", std::nullopt, 10, Scope::project};
  CHECK(filters(spec, k_shared_identity) ==
        R"({"OR":[)"
        R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"agent_id":"acme-webapp-cddc9a2d07"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"agent_id":"acme-webapp"},{"app_id":"acme-webapp"}]}]})");
  // An empty shared id is no shared memory.
  CHECK(filters(spec, {"alice", "acme-webapp", "sess-42", ""}) ==
        R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]})");
  // The search body carries the same filters.
  CHECK(search_body(spec, k_shared_identity, true, 0.3) ==
        R"({"query":"q","filters":)" + filters(spec, k_shared_identity) +
            R"(,"top_k":10,"threshold":0.3,"rerank":true,"latest_only":true})");
}

TEST_CASE("filters: a directory narrows the two shared lanes, not the user's own", "[backend]") {
  const SearchSpec spec{"q", std::nullopt, 10, Scope::project, "src/api"};
  CHECK(filters(spec, k_shared_identity) ==
        R"({"OR":[)"
        R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"OR":[)"
        R"({"AND":[{"agent_id":"acme-webapp-cddc9a2d07"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"agent_id":"acme-webapp"},{"app_id":"acme-webapp"}]}]},)"
        R"({"metadata":{"dirs":{"contains":"src/api"}}}]}]})");
  // Without shared memory there is nothing to narrow; a self-hosted server has none either.
  CHECK(filters(spec, {"alice", "acme-webapp", "sess-42", ""}) ==
        R"({"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]})");
  CHECK(filters(spec, k_shared_identity, selfhosted_dialect()) ==
        R"({"user_id":"alice","agent_id":"acme-webapp"})");
}

TEST_CASE("parse_search_response: a memory without metadata.type is named by 0.3's category",
          "[backend]") {
  const HttpResponse r = response(200, R"({"results":[
    {"id":"m1","memory":"a","categories":["technology","workflows"],"metadata":{"dirs":["a"]}},
    {"id":"m2","memory":"b","categories":["technology"]},
    {"id":"m3","memory":"c","categories":["problems_and_fixes"],"metadata":{"type":"decision"}}
  ]})");
  const auto parsed = parse_search_response(r);
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 3);
  CHECK((*parsed)[0].type == "workflows");
  CHECK((*parsed)[1].type == "technology");
  CHECK((*parsed)[2].type == "decision"); // our own type wins
}

TEST_CASE("filters: a self-hosted server's filters are flat, the project as agent_id",
          "[backend]") {
  const std::optional<std::string> none, decision("decision");
  const std::vector<FilterCase> cases{
      {Scope::project, none, R"({"user_id":"alice","agent_id":"acme-webapp"})"},
      {Scope::project, decision,
       R"({"user_id":"alice","agent_id":"acme-webapp","type":"decision"})"},
      {Scope::session, none, R"({"user_id":"alice","agent_id":"acme-webapp","run_id":"sess-42"})"},
      {Scope::session, decision,
       R"({"user_id":"alice","agent_id":"acme-webapp","run_id":"sess-42","type":"decision"})"},
      {Scope::global, none, R"({"user_id":"alice"})"},
      {Scope::global, decision, R"({"user_id":"alice","type":"decision"})"},
  };
  for (const auto &c : cases) {
    CAPTURE(static_cast<int>(c.scope), c.type.value_or("<untyped>"));
    const SearchSpec spec{"q", c.type, 10, c.scope};
    CHECK(filters(spec, k_identity, selfhosted_dialect()) == c.json);
    // Never an OR on a self-hosted server, shared id or not.
    CHECK(filters(spec, k_shared_identity, selfhosted_dialect()) == c.json);
  }
}

TEST_CASE("search_body: a self-hosted search never asks for rerank", "[backend]") {
  const SearchSpec spec{"how do we deploy", std::nullopt, 7, Scope::project};
  const std::string expected =
      R"({"query":"how do we deploy","filters":{"user_id":"alice","agent_id":"acme-webapp"},)"
      R"("top_k":7,"threshold":0.3})";
  CHECK(search_body(spec, k_identity, true, 0.3, selfhosted_dialect()) == expected);
  CHECK(search_body(spec, k_identity, false, 0.3, selfhosted_dialect()) == expected);
  // The platform keeps it, as before.
  CHECK(
      parse_json(search_body(spec, k_identity, true, 0.3, platform_dialect()))["rerank"].IsTrue());
}

TEST_CASE("ApiTarget: the key travels as X-API-Key to a self-hosted server", "[backend]") {
  const ApiTarget &api = selfhosted_target();
  CHECK(api.base_url() == "http://localhost:8888");
  CHECK(&api.dialect() == &selfhosted_dialect());
  CHECK_FALSE(api.rerank()); // asked for, but a self-hosted server has none
  const auto headers = api.headers();
  REQUIRE(headers.size() == 4);
  CHECK(headers[0] == "X-API-Key: sh-key");
  CHECK(headers[1] == "Content-Type: application/json");
  CHECK(headers[2] == "Accept: application/json");
  CHECK(headers[3] == "User-Agent: " + user_agent());
  for (const auto &h : headers)
    CHECK(h.rfind("Authorization", 0) == std::string::npos);

  const ApiTarget platform = ApiTarget::make("https://api.mem0.ai", "m0-key", true).value();
  CHECK(&platform.dialect() == &platform_dialect());
  CHECK(platform.rerank());
  CHECK(platform.headers()[0] == "Authorization: Token m0-key");
}

TEST_CASE("ApiTarget::server_key names the base URL and key, not the backend", "[backend]") {
  // sha256("https://api.mem0.ai\nm0-key-one")[:16], computed with Python's hashlib.
  CHECK(ApiTarget::make("https://api.mem0.ai", "m0-key-one")->server_key() == "c267faaa7880c3c6");
  // sha256("http://localhost:8888\nsh-key")[:16]: the trailing slash is not part of the base URL.
  CHECK(selfhosted_target().server_key() == "13cdb4a8f417b17f");
  CHECK(ApiTarget::make("http://localhost:8888", "sh-key", true, 0.3, platform_dialect())
            ->server_key() == "13cdb4a8f417b17f");
}

TEST_CASE("requests to a self-hosted server: paths, method and headers", "[backend]") {
  const ApiTarget &api = selfhosted_target();
  const std::string id = "0a1b2c3d-4e5f-6789-abcd-ef0123456789";

  SECTION("search: POST {base}/search") {
    const SearchSpec spec{"q", std::string("decision"), 3, Scope::session};
    const HttpRequest req = search_request(api, spec, k_shared_identity);
    CHECK(req.method == "POST");
    CHECK(req.url == "http://localhost:8888/search");
    CHECK(has_header(req, "X-API-Key: sh-key"));
    CHECK_FALSE(has_header_named(req, "Authorization"));
    CHECK(
        req.body ==
        R"({"query":"q","filters":{"user_id":"alice","agent_id":"acme-webapp","run_id":"sess-42",)"
        R"("type":"decision"},"top_k":3,"threshold":0.3})");
  }
  SECTION("get: GET {base}/memories/{id}, no trailing slash") {
    const HttpRequest req = get_memory_request(api, id);
    CHECK(req.method == "GET");
    CHECK(req.url == "http://localhost:8888/memories/" + id);
    CHECK(req.body.empty());
    CHECK(has_header(req, "X-API-Key: sh-key"));
    CHECK_FALSE(has_header_named(req, "Authorization"));
    // The id is one path segment, whatever it holds.
    CHECK(get_memory_request(api, "a/../b c").url ==
          "http://localhost:8888/memories/a%2F..%2Fb%20c");
  }
  SECTION("delete: DELETE {base}/memories/{id}") {
    const HttpRequest req = delete_request(api, id);
    CHECK(req.method == "DELETE");
    CHECK(req.url == "http://localhost:8888/memories/" + id);
    CHECK(req.body.empty());
    CHECK(has_header(req, "X-API-Key: sh-key"));
    CHECK_FALSE(has_header_named(req, "Authorization"));
  }
  SECTION("ping: none") {
    CHECK_FALSE(ping_request(api).has_value());
    const auto platform = ping_request(write_target());
    REQUIRE(platform.has_value());
    CHECK(platform->method == "GET");
    CHECK(platform->url == "https://api.mem0.ai/v1/ping/");
    CHECK(has_header(*platform, "Authorization: Token m0-w"));
  }
}

TEST_CASE("add_request: a self-hosted add renames app_id and drops custom_instructions",
          "[backend]") {
  AddSpec spec;
  spec.messages = {{"user", "we chose \"postgres\""}, {"assistant", "noted"}};
  spec.metadata = {{"type", "decision"}, {"source", "stop"}};
  spec.infer = false;
  spec.expiration_date = "2027-03-01";
  spec.custom_instructions = "keep decisions";
  const std::string queued = add_body(spec, {"alice", "proj", "s-1"});
  REQUIRE(queued == R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
                    R"({"role":"assistant","content":"noted"}],"user_id":"alice","app_id":"proj",)"
                    R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
                    R"("expiration_date":"2027-03-01","custom_instructions":"keep decisions"})");

  const QueuedAdd capture = queued_add(spec, {"alice", "proj", "s-1"});
  const HttpRequest req = add_request(selfhosted_target(), capture);
  CHECK(req.method == "POST");
  CHECK(req.url == "http://localhost:8888/memories");
  CHECK(has_header(req, "X-API-Key: sh-key"));
  CHECK_FALSE(has_header_named(req, "Authorization"));
  CHECK(req.body ==
        R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
        R"({"role":"assistant","content":"noted"}],"user_id":"alice","agent_id":"proj",)"
        R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
        R"("expiration_date":"2027-03-01"})");

  // The platform gets add_body's body.
  CHECK(add_request(write_target(), capture).body == queued);
}

TEST_CASE("list_request: a self-hosted listing is one GET with url-encoded ids", "[backend]") {
  const HttpRequest req = list_request(selfhosted_target(), {"a b&c", "proj/x=1", "s"}, 5);
  CHECK(req.method == "GET");
  CHECK(req.url ==
        "http://localhost:8888/memories?user_id=a%20b%26c&agent_id=proj%2Fx%3D1&top_k=1000");
  CHECK(req.body.empty());
  CHECK(has_header(req, "X-API-Key: sh-key"));
  CHECK_FALSE(has_header_named(req, "Authorization"));
  CHECK(list_request(selfhosted_target(), {"caf\xC3\xA9", "a-b_c.d~e", ""}, 5).url ==
        "http://localhost:8888/memories?user_id=caf%C3%A9&agent_id=a-b_c.d~e&top_k=1000");
  CHECK(k_unpaged_list_limit == 1000);
  // The platform's listing takes the project filters of an untyped search: with a shared id, the
  // OR of the three layouts (so the count at session start includes the shared memory).
  CHECK(list_request(write_target(), k_identity, 5).body ==
        R"({"filters":{"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]}})");
  CHECK(list_request(write_target(), k_shared_identity, 5).body ==
        R"({"filters":{"OR":[{"AND":[{"user_id":"alice"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"agent_id":"acme-webapp-cddc9a2d07"},{"app_id":"acme-webapp"}]},)"
        R"({"AND":[{"agent_id":"acme-webapp"},{"app_id":"acme-webapp"}]}]}})");
}

TEST_CASE("parse_memory_response: a 200 with null is not found", "[backend]") {
  for (const std::string body : {"null", " null\n"}) {
    CAPTURE(body);
    const auto r = parse_memory_response(response(200, body), selfhosted_dialect());
    REQUIRE(r.has_value());
    CHECK_FALSE(r->has_value());
  }
}

TEST_CASE("parse_list_response: without a count, newest first across offsets, undated last",
          "[backend]") {
  // In UTC: n2 18:00, n1 17:30, n6 17:30 (its fraction dropped), n4 the day before; n3 and n5
  // have no usable date.
  const std::string items = list_item("n3", "") + "," + list_item("n1", "2026-11-30T17:30:00Z") +
                            "," + list_item("n5", "yesterday") + "," +
                            list_item("n4", "2026-11-29T23:59:59+00:00") + "," +
                            list_item("n6", "2026-11-30T18:30:00.5+01:00") + "," +
                            list_item("n2", "2026-11-30T10:00:00-08:00");
  const std::vector<std::string> newest_first{"n2", "n1", "n6", "n4", "n3", "n5"};
  for (const std::string &body : {R"({"results":[)" + items + "]}", "[" + items + "]"}) {
    CAPTURE(body);
    const auto page = parse_list_response(response(200, body), selfhosted_dialect());
    REQUIRE(page.has_value());
    CHECK(ids_of(page->memories) == newest_first);
    CHECK(page->count == 6);
    CHECK_FALSE(page->at_least);
  }
}

TEST_CASE("parse_list_response: a listing without a count is a lower bound at its limit",
          "[backend]") {
  const auto full = parse_list_response(response(200, listing(1000)), selfhosted_dialect());
  REQUIRE(full.has_value());
  CHECK(full->count == 1000);
  CHECK(full->memories.size() == 1000);
  CHECK(full->at_least);

  const auto short_of = parse_list_response(response(200, listing(999)), selfhosted_dialect());
  REQUIRE(short_of.has_value());
  CHECK(short_of->count == 999);
  CHECK_FALSE(short_of->at_least);

  // With a count, even 1000 items are all there is.
  const auto counted =
      parse_list_response(response(200, listing(1000, 1000)), selfhosted_dialect());
  REQUIRE(counted.has_value());
  CHECK(counted->count == 1000);
  CHECK_FALSE(counted->at_least);
}

TEST_CASE("parse_list_response: with a count the server's order is kept", "[backend]") {
  const std::string body =
      R"({"count":5000,"results":[)" + list_item("old", "2020-01-01T00:00:00Z") + "," +
      list_item("nodate", "") + "," + list_item("new", "2026-11-30T10:00:00-08:00") + "]}";
  const auto page = parse_list_response(response(200, body));
  REQUIRE(page.has_value());
  CHECK(ids_of(page->memories) == std::vector<std::string>{"old", "nodate", "new"});
  CHECK(page->count == 5000);
  CHECK_FALSE(page->at_least);
}

TEST_CASE("one list of dialects serves the settings' names", "[backend]") {
  REQUIRE(dialects().size() == 2);
  for (const Dialect *d : dialects()) {
    CAPTURE(d->traits().name);
    CHECK(find_dialect(d->traits().name) == d);
  }
  CHECK(find_dialect(" Self-Hosted ") == &selfhosted_dialect());
  CHECK(find_dialect("PLATFORM") == &platform_dialect());
  CHECK(find_dialect("mem0") == nullptr);
  CHECK(find_dialect("") == nullptr);
}

TEST_CASE("each dialect reads its own answers", "[backend]") {
  // A get: the self-hosted server's `null` is its "not found"; the Platform's is a 404, and a
  // `null` from it is not a memory.
  CHECK(parse_memory_response(response(200, "null"), platform_dialect()).error().kind ==
        ErrorKind::bad_response);
  CHECK_FALSE(parse_memory_response(response(404, "{}"), selfhosted_dialect()).value());
  // A listing without a count: the Platform's page as it came, a self-hosted one sorted here.
  const std::string body = "[" + list_item("old", "2020-01-01T00:00:00Z") + "," +
                           list_item("new", "2026-11-30T10:00:00Z") + "]";
  const auto platform = parse_list_response(response(200, body), platform_dialect());
  REQUIRE(platform.has_value());
  CHECK(ids_of(platform->memories) == std::vector<std::string>{"old", "new"});
  CHECK(platform->paged);
  const auto selfhosted = parse_list_response(response(200, body), selfhosted_dialect());
  REQUIRE(selfhosted.has_value());
  CHECK(ids_of(selfhosted->memories) == std::vector<std::string>{"new", "old"});
  CHECK_FALSE(selfhosted->paged);
  // An add's body follows the backend asked for: the project as agent_id, no instructions.
  AddSpec spec;
  spec.messages = {{"user", "x"}};
  spec.custom_instructions = "keep decisions";
  const std::string sh = add_body(spec, {"alice", "proj", "s-1"}, selfhosted_dialect());
  CHECK(sh.find(R"("agent_id":"proj")") != std::string::npos);
  CHECK(sh.find("app_id") == std::string::npos);
  CHECK(sh.find("custom_instructions") == std::string::npos);
  // Both read an add's answer alike.
  for (const Dialect *d : dialects())
    CHECK(parse_add_response(response(200, R"({"results":[{"id":"m1","memory":"x"}]})"), *d)->ids ==
          std::vector<std::string>{"m1"});
}
