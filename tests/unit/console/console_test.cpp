// The memory console's handlers (console/console.hpp), without a socket: the access rules, the
// headers of every answer, and each API resource over a fake Mem0.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "cli/commands.hpp"
#include "console/assets.hpp"
#include "console/console.hpp"
#include "util/json.hpp"

#include <string>

using namespace mem0;
namespace mt = mem0::testing;
using console::Request;
using console::Response;

namespace {

constexpr int k_port = 4567;
const std::string k_token(64, 'a');

struct ConsoleFixture {
  mt::HookFixture f;
  RunDeps deps = f.deps();
  console::Sources sources;
  std::optional<console::Console> c;

  console::Console &get() {
    if (!c) c.emplace(deps, console::Options{f.project, Scope::project, k_token, k_port}, sources);
    return *c;
  }
  // A request from the page: the right Host and the cookie.
  Response page(std::string method, std::string path, std::string body = "") {
    Request r;
    r.method = std::move(method);
    r.path = std::move(path);
    r.body = std::move(body);
    r.headers = {{"host", "127.0.0.1:" + std::to_string(k_port)},
                 {"cookie", "theme=dark; mem0_console=" + k_token}};
    return get().handle(r);
  }
};

rapidjson::Document parsed(const Response &r) {
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, r.body));
  return doc;
}

// A memory of alice's as the Platform's get answers it.
std::string got(const Memory &m, std::string user = "alice", std::string metadata = "") {
  return R"({"id":")" + m.id + R"(","memory":")" + m.text + R"(","user_id":")" + user +
         R"(","metadata":)" + (metadata.empty() ? R"({"type":")" + m.type + R"("})" : metadata) +
         "}";
}

void check_common_headers(const Response &r) {
  CHECK(r.header("Cache-Control") == "no-store");
  const std::string csp = r.header("Content-Security-Policy");
  CHECK(csp.find("default-src 'none'") != std::string::npos);
  CHECK(csp.find("script-src 'self'") != std::string::npos);
  CHECK(csp.find("connect-src 'self'") != std::string::npos);
  CHECK(r.header("Access-Control-Allow-Origin").empty());
}

} // namespace

TEST_CASE("console access: the token is traded for a strict cookie and dropped from the address",
          "[console][access]") {
  ConsoleFixture s;
  Request r;
  r.path = "/";
  r.query = {{"token", k_token}};
  r.headers = {{"host", "127.0.0.1:4567"}};
  const Response traded = s.get().handle(r);
  CHECK(traded.status == 303);
  CHECK(traded.header("Location") == "/");
  const std::string cookie = traded.header("Set-Cookie");
  CHECK(cookie.find("mem0_console=" + k_token) == 0);
  CHECK(cookie.find("HttpOnly") != std::string::npos);
  CHECK(cookie.find("SameSite=Strict") != std::string::npos);
  check_common_headers(traded);

  r.query = {{"token", std::string(64, 'b')}};
  CHECK(s.get().handle(r).status == 401);
  r.query = {{"token", ""}};
  CHECK(s.get().handle(r).status == 401);
}

TEST_CASE("console access: the API needs the cookie or the bearer token", "[console][access]") {
  ConsoleFixture s;
  Request r;
  r.path = "/api/sessions";
  r.headers = {{"host", "localhost:4567"}};
  Response denied = s.get().handle(r);
  CHECK(denied.status == 401);
  CHECK(denied.content_type == "application/json");
  check_common_headers(denied);
  r.headers["cookie"] = "mem0_console=" + std::string(64, 'b');
  CHECK(s.get().handle(r).status == 401);
  r.headers["cookie"] = "mem0_console=" + k_token.substr(1);
  CHECK(s.get().handle(r).status == 401);
  r.headers.erase("cookie");
  r.headers["authorization"] = "Bearer " + k_token;
  CHECK(s.get().handle(r).status == 200);
  r.headers["authorization"] = "Basic " + k_token;
  CHECK(s.get().handle(r).status == 401);
  // The page itself needs the cookie too.
  r.path = "/";
  r.headers.erase("authorization");
  CHECK(s.get().handle(r).status == 401);
  CHECK(s.f.http.requests.empty());
}

TEST_CASE("console access: a foreign Host or Origin is refused, token or not",
          "[console][access]") {
  ConsoleFixture s;
  for (const std::string host : {"evil.example:4567", "127.0.0.1:80", "127.0.0.1", "",
                                 "localhost.evil.example:4567", "127.0.0.2:4567"}) {
    INFO(host);
    Request r;
    r.path = "/api/sessions";
    r.headers = {{"host", host}, {"authorization", "Bearer " + k_token}};
    const Response refused = s.get().handle(r);
    CHECK(refused.status == 403);
    check_common_headers(refused);
    r.path = "/";
    r.query = {{"token", k_token}};
    CHECK(s.get().handle(r).status == 403); // no cookie for a rebound name
  }
  Request r;
  r.method = "DELETE";
  r.path = "/api/memories/x";
  r.headers = {{"host", "127.0.0.1:4567"},
               {"cookie", "mem0_console=" + k_token},
               {"origin", "http://evil.example"}};
  CHECK(s.get().handle(r).status == 403);
  CHECK(s.f.http.requests.empty());
}

TEST_CASE("console page: its own files, each with no-store and the CSP, nothing from outside",
          "[console][page]") {
  ConsoleFixture s;
  const Response index = s.page("GET", "/");
  CHECK(index.status == 200);
  CHECK(index.content_type.starts_with("text/html"));
  CHECK(index.body.find("aria-label=\"Search memories\"") != std::string::npos);
  for (const char *view : {">Memories<", ">Sessions<", ">Stats<", ">Hygiene<", ">Health<"})
    CHECK(index.body.find(view) != std::string::npos);
  check_common_headers(index);
  std::size_t total = 0;
  for (const auto &asset : console::assets()) {
    INFO(asset.path);
    const Response r = s.page("GET", std::string(asset.path));
    CHECK(r.status == 200);
    CHECK(r.content_type == asset.type);
    CHECK(r.body == asset.body);
    // No address of another host: the SVG namespace is a name, never fetched.
    std::string body = r.body;
    for (std::size_t at; (at = body.find("http://www.w3.org/2000/svg")) != std::string::npos;)
      body.erase(at, 26);
    CHECK(body.find("http://") == std::string::npos);
    CHECK(body.find("https://") == std::string::npos);
    CHECK(body.find("//cdn") == std::string::npos);
    total += r.body.size();
  }
  CHECK(total <= 150 * 1024); // the page's weight (docs/console.md#weight)
  CHECK(s.page("GET", "/nothing.js").status == 404);
  CHECK(s.page("POST", "/").status == 405);
  CHECK(s.page("GET", "/api/nothing").status == 404);
}

TEST_CASE("console memories: a page of the project's memories, with agent and pin mark",
          "[console][memories]") {
  ConsoleFixture s;
  s.f.http.responder = [](const HttpRequest &r) {
    CHECK(r.method == "POST");
    CHECK(r.url.find("page=2") != std::string::npos);
    CHECK(r.url.find("page_size=50") != std::string::npos);
    return mt::http_status(200,
                           R"({"count":51,"results":[{"id":"m1","memory":"Use Postgres 16",)"
                           R"("metadata":{"type":"decision","agent":"codex","pinned":true},)"
                           R"("created_at":"2026-12-01T10:00:00Z"},{"id":"m2","memory":"Tabs",)"
                           R"("metadata":{"type":"convention"}}]})");
  };
  // The query string decoded, as the server passes it.
  Request req;
  req.path = "/api/memories";
  req.query = {{"page", "2"}, {"size", "50"}};
  req.headers = {{"host", "127.0.0.1:4567"}, {"cookie", "mem0_console=" + k_token}};
  const Response listed = s.get().handle(req);
  REQUIRE(listed.status == 200);
  const auto doc = parsed(listed);
  CHECK(doc["count"].GetInt() == 51);
  CHECK(doc["page"].GetInt() == 2);
  REQUIRE(doc["memories"].Size() == 2);
  CHECK(std::string(doc["memories"][0]["id"].GetString()) == "m1");
  CHECK(std::string(doc["memories"][0]["agent"].GetString()) == "codex");
  CHECK(doc["memories"][0]["pinned"].GetBool());
  CHECK(std::string(doc["memories"][1]["type"].GetString()) == "convention");
  CHECK_FALSE(doc["memories"][1]["pinned"].GetBool());
}

TEST_CASE("console memories: the backend down or rate limited is one line, not a crash",
          "[console][memories][failures]") {
  ConsoleFixture s;
  SECTION("down") {
    s.f.http.responder = [](const HttpRequest &) {
      return mt::transport_failure(ErrorKind::transport);
    };
    const Response r = s.page("GET", "/api/memories");
    CHECK(r.status == 502);
    CHECK(std::string(parsed(r)["kind"].GetString()) == "transport");
  }
  SECTION("rate limited") {
    s.f.http.responder = [](const HttpRequest &) { return mt::http_status(429, "{}"); };
    const Response r = s.page("GET", "/api/memories");
    CHECK(r.status == 503);
    CHECK(std::string(parsed(r)["error"].GetString()).find("rate") != std::string::npos);
  }
  SECTION("key rejected") {
    s.f.http.responder = [](const HttpRequest &) { return mt::http_status(401, "{}"); };
    const Response r = s.page("GET", "/api/memories");
    CHECK(r.status == 502);
    CHECK(std::string(parsed(r)["kind"].GetString()) == "unauthorized");
  }
  // Local views keep working.
  CHECK(s.page("GET", "/api/sessions").status == 200);
}

TEST_CASE("console memories: edit and forget go through the service, the user's own only",
          "[console][memories]") {
  ConsoleFixture s;
  const Memory m = mt::memory(7, "decision", "Retry invoices five times");
  SECTION("edit") {
    s.f.http.responder = [&](const HttpRequest &r) {
      return r.method == "GET" ? mt::http_status(200, got(m)) : mt::http_status(200, "{}");
    };
    const Response r =
        s.page("PUT", "/api/memories/" + m.id, R"({"text":"Retry invoices three times"})");
    REQUIRE(r.status == 200);
    CHECK(std::string(parsed(r)["memory"]["memory"].GetString()) == "Retry invoices three times");
    REQUIRE(s.f.http.requests.size() == 2);
    CHECK(s.f.http.requests[1].method == "PUT");
    CHECK(s.f.http.requests[1].body.find("Retry invoices three times") != std::string::npos);
  }
  SECTION("edit without text") {
    CHECK(s.page("PUT", "/api/memories/" + m.id, R"({"words":1})").status == 400);
    CHECK(s.page("PUT", "/api/memories/" + m.id, "not json").status == 400);
    CHECK(s.f.http.requests.empty());
  }
  SECTION("forget") {
    s.f.http.responder = [&](const HttpRequest &r) {
      return r.method == "GET" ? mt::http_status(200, got(m)) : mt::http_status(204, "");
    };
    const Response r = s.page("DELETE", "/api/memories/" + m.id);
    REQUIRE(r.status == 200);
    CHECK(std::string(parsed(r)["deleted"].GetString()) == m.id);
    REQUIRE(s.f.http.requests.size() == 2);
    CHECK(s.f.http.requests[1].method == "DELETE");
  }
  SECTION("another user's memory is neither edited nor forgotten") {
    s.f.http.responder = [&](const HttpRequest &) { return mt::http_status(200, got(m, "bob")); };
    const Response forgotten = s.page("DELETE", "/api/memories/" + m.id);
    CHECK(forgotten.status == 400);
    CHECK(std::string(parsed(forgotten)["error"].GetString()).find("not a memory of user alice") !=
          std::string::npos);
    CHECK(s.page("PUT", "/api/memories/" + m.id, R"({"text":"mine now"})").status == 400);
    for (const auto &sent : s.f.http.requests)
      CHECK(sent.method == "GET");
  }
}

TEST_CASE("console search: Enter runs the hooks' search on the server", "[console][memories]") {
  ConsoleFixture s;
  s.f.http.answer({mt::memory(1, "decision", "Use Postgres 16")});
  const Response r = s.page("POST", "/api/search", R"({"query":"which database"})");
  REQUIRE(r.status == 200);
  CHECK(parsed(r)["memories"].Size() == 1);
  const auto sent = s.f.http.sent();
  REQUIRE(sent.size() == 2);
  CHECK(sent[0].query == "which database");
  CHECK(sent[1].type == std::optional<std::string>("decision"));
  CHECK(s.page("POST", "/api/search", R"({"query":"  "})").status == 400);
  CHECK(s.page("GET", "/api/search").status == 405);
}

TEST_CASE("console pin: through the pin source, or 501 without one", "[console][memories]") {
  ConsoleFixture s;
  SECTION("no source") {
    CHECK(s.page("POST", "/api/memories/m1/pin", R"({"pinned":true})").status == 501);
  }
  SECTION("a source") {
    std::vector<std::pair<std::string, bool>> calls;
    s.sources.pin = [&](const std::string &id, bool pinned) -> Result<void> {
      calls.emplace_back(id, pinned);
      if (id == "gone") return unexpected(make_error(ErrorKind::client, "no memory gone found"));
      return {};
    };
    CHECK(s.page("POST", "/api/memories/m1/pin", R"({"pinned":true})").status == 200);
    CHECK(s.page("POST", "/api/memories/m1/pin", R"({"pinned":false})").status == 200);
    const Response failed = s.page("POST", "/api/memories/gone/pin", R"({"pinned":true})");
    CHECK(failed.status == 400);
    CHECK(s.page("POST", "/api/memories/m1/pin", R"({"pinned":"yes"})").status == 400);
    CHECK(calls ==
          std::vector<std::pair<std::string, bool>>{{"m1", true}, {"m1", false}, {"gone", true}});
  }
}

TEST_CASE("console sessions: every session's run log, newest first, with the injected ids",
          "[console][sessions]") {
  ConsoleFixture s;
  RunRecord early, late;
  early.time = 1000;
  early.hook = "on_user_prompt";
  early.memories = {{mt::id_of(1), "decision"}};
  early.chars = 40;
  late.time = 2000;
  late.hook = "on_file_read";
  late.skipped = {{"gated", "no new file"}};
  REQUIRE(s.f.state->sessions.append_run("abc", early));
  REQUIRE(s.f.state->sessions.append_run("codex-xyz", late));
  const auto list = parsed(s.page("GET", "/api/sessions"));
  REQUIRE(list["sessions"].Size() == 2);
  CHECK(std::string(list["sessions"][0]["id"].GetString()) == "codex-xyz");
  CHECK(std::string(list["sessions"][0]["agent"].GetString()) == "codex");
  CHECK(std::string(list["sessions"][1]["agent"].GetString()) == "claude-code");
  CHECK(list["sessions"][1]["injected"].GetInt() == 1);

  const auto runs = parsed(s.page("GET", "/api/sessions/abc"));
  REQUIRE(runs["runs"].Size() == 1);
  CHECK(std::string(runs["runs"][0]["hook"].GetString()) == "on_user_prompt");
  CHECK(std::string(runs["runs"][0]["memories"][0]["id"].GetString()) == mt::id_of(1));
  CHECK(runs["runs"][0]["tokens"].GetInt() == 10);
  const auto skipped = parsed(s.page("GET", "/api/sessions/codex-xyz"));
  CHECK(std::string(skipped["runs"][0]["skipped"][0]["reason"].GetString()) == "gated");
  CHECK(s.f.http.requests.empty());
}

TEST_CASE("console health: doctor's checks, the pause, and never the key", "[console][health]") {
  ConsoleFixture s;
  const std::string key = *s.f.config.api_key;
  s.sources.health = [&]() -> Result<std::string> {
    return cli::doctor_json({.rows = {{"api key", "m0-t…1234 (MEM0_API_KEY)"},
                                      {"settings", "/h/.mem0/settings.json (missing)"},
                                      {"timeout", "5000 (default)", true, 16},
                                      {"leaked", key}},
                             .warnings = {"the hooks are wired 2 times"},
                             .fixes = {"run `mem0-hooks install`"}});
  };
  const Response r = s.page("GET", "/api/health");
  REQUIRE(r.status == 200);
  CHECK(r.body.find(key) == std::string::npos); // masked on its way out
  const auto doc = parsed(r);
  CHECK_FALSE(doc["paused"].GetBool());
  const auto &rows = doc["doctor"]["rows"];
  REQUIRE(rows.Size() == 4);
  CHECK(std::string(rows[0]["name"].GetString()) == "api key");
  CHECK(std::string(rows[0]["value"].GetString()) == "m0-t…1234 (MEM0_API_KEY)");
  CHECK(std::string(rows[2]["name"].GetString()) == "timeout");
  CHECK(rows[2]["sub"].GetBool());
  CHECK(std::string(doc["doctor"]["fixes"][0].GetString()) == "run `mem0-hooks install`");
  CHECK(doc["doctor"]["warnings"].Size() == 1);

  CHECK(parsed(s.page("POST", "/api/pause", R"({"paused":true})"))["paused"].GetBool());
  CHECK(s.f.store().pauses.active(s.f.now, [] { return std::string("proj"); }));
  CHECK(parsed(s.page("GET", "/api/health"))["paused"].GetBool());
  CHECK_FALSE(parsed(s.page("POST", "/api/pause", R"({"paused":false})"))["paused"].GetBool());
  CHECK_FALSE(s.f.store().pauses.active(s.f.now, [] { return std::string("proj"); }));
  CHECK(s.page("POST", "/api/pause", "{}").status == 400);
}

TEST_CASE("console stats and hygiene: their sources' JSON, or a 501 line without them",
          "[console][stats]") {
  ConsoleFixture s;
  SECTION("no sources: nothing invented") {
    CHECK(s.page("GET", "/api/stats").status == 501);
    const auto hygiene = parsed(s.page("GET", "/api/hygiene"));
    CHECK(hygiene["report"].IsNull());
    CHECK(hygiene.HasMember("error"));
    CHECK(s.page("POST", "/api/hygiene/apply", "{}").status == 501);
  }
  SECTION("sources") {
    int days = 0;
    s.sources.stats = [&](int d) -> Result<std::string> {
      days = d;
      return std::string(R"({"memories":{"total":3}})");
    };
    s.sources.dream = []() -> Result<std::string> { return std::string(R"({"memories":3})"); };
    const Response stats = s.page("GET", "/api/stats");
    CHECK(stats.status == 200);
    CHECK(parsed(stats)["memories"]["total"].GetInt() == 3);
    CHECK(days == 30);
    CHECK(parsed(s.page("GET", "/api/hygiene"))["report"]["memories"].GetInt() == 3);
  }
}

TEST_CASE("console token: 256 random bits as hex, fresh each time", "[console][access]") {
  const std::string a = console::new_token(), b = console::new_token();
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}
