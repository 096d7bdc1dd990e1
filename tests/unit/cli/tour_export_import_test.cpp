// `mem0-hooks tour`, `export` and `import` (cli/tour.cpp, cli/export.cpp, cli/import.cpp).
#include "tests/unit/catch.hpp"
#include "tests/unit/cli/cli_home.hpp"

#include "mem0/format.hpp"
#include "util/json.hpp"

#include <rapidjson/document.h>

#include <string>
#include <vector>

using namespace mem0;
using namespace mem0::testing;
namespace mt = mem0::testing;

namespace {

bool is_listing(const HttpRequest &r) {
  return r.url.find("/v3/memories/?page=") != std::string::npos;
}
bool is_add(const HttpRequest &r) { return r.url.find("/v3/memories/add/") != std::string::npos; }

// A listing body of `memories` with its count (the Platform's shape).
std::string listing(const std::vector<Memory> &memories) {
  std::string body = mt::results_json(memories);
  body.insert(1, "\"count\":" + std::to_string(memories.size()) + ",");
  return body;
}

std::vector<Memory> typed(unsigned from, unsigned count, const std::string &type) {
  std::vector<Memory> out;
  for (unsigned i = 0; i < count; ++i)
    out.push_back(mt::memory(from + i, type, type + " number " + std::to_string(i + 1),
                             "2025-03-0" + std::to_string(1 + i % 9) + "T10:00:00Z"));
  return out;
}

// The text of the first message of an add request.
std::string added_text(const HttpRequest &r) {
  rapidjson::Document doc;
  parse_json(doc, r.body);
  return doc["messages"][0]["content"].GetString();
}

} // namespace

TEST_CASE("tour: a listing and three untyped searches in one batch, grouped by type, at most 5 "
          "per type",
          "[cli][tour]") {
  CliHome cli;
  std::vector<Memory> listed = typed(1, 7, "decision");
  for (auto &m : typed(10, 2, "convention"))
    listed.push_back(m);
  cli.f.http.responder = [&](const HttpRequest &r) {
    if (is_listing(r)) return mt::http_status(200, listing(listed));
    // Each search finds one anti-pattern, and a decision the listing has too.
    return mt::found({mt::memory(20, "anti_pattern", "Never retry a 4xx"), listed[0]});
  };
  REQUIRE(cli.run({"tour"}) == cli::k_ok);
  CHECK(cli.f.http.batches == 1);
  REQUIRE(cli.f.http.requests.size() == 4);
  for (const auto &sent : cli.f.http.sent())
    CHECK_FALSE(sent.type); // no type filter: a type may be only a category
  const auto lines = mt::lines_of(cli.out.str());
  REQUIRE(lines.size() >= 14);
  CHECK(lines[0] == "## mem0 tour: project proj (10 memories)");
  CHECK(lines[2] == "### decision (7)");
  CHECK(lines[3] == "- decision number 1 (2025-03-01) [mem0:" + mt::id8_of(1) + "]");
  CHECK(lines[7] == "- decision number 5 (2025-03-05) [mem0:" + mt::id8_of(5) + "]");
  CHECK(lines[8] == "  ... and 2 more");
  CHECK(lines[10] == "### convention (2)");
  CHECK(lines[14] == "### anti_pattern (1)");
  CHECK(lines[15] == "- Never retry a 4xx [mem0:" + mt::id8_of(20) + "]");
  CHECK(cli.err.str().empty());
}

TEST_CASE("tour: Platform categories fold into the types; --plain drops Markdown", "[cli][tour]") {
  CliHome cli;
  cli.f.http.responder = [](const HttpRequest &r) {
    if (!is_listing(r)) return mt::found({});
    return mt::http_status(
        200,
        R"({"count":1,"results":[{"id":")" + mt::id_of(3) +
            R"(","memory":"Queue writes through the outbox","categories":["architecture decisions"]}]})");
  };
  REQUIRE(cli.run({"tour", "--plain"}) == cli::k_ok);
  const auto lines = mt::lines_of(cli.out.str());
  REQUIRE(lines.size() == 5); // the last one empty, after the final newline
  CHECK(lines[0] == "mem0 tour: project proj (1 memory)");
  CHECK(lines[2] == "decision (1)");
}

TEST_CASE("tour: nothing yet; a back-off pause answers rate limited without sending",
          "[cli][tour]") {
  CliHome cli;
  SECTION("nothing") {
    REQUIRE(cli.run({"tour"}) == cli::k_ok);
    CHECK(cli.out.str() == "No memories for project proj yet.\n");
  }
  SECTION("paused") {
    REQUIRE(cli.f.store()
                .backoff
                .record_outcome(cli.f.now, mt::server_of(cli.f.config),
                                BackoffStore::Outcome::rate_limited, std::chrono::seconds(90))
                .has_value());
    CHECK(cli.run({"tour"}) == cli::k_failure);
    CHECK(cli.f.http.requests.empty());
    CHECK(cli.err.str().starts_with("mem0-hooks tour: rate limited: Mem0 is paused for 90 s"));
  }
  SECTION("a scope it has no use for") {
    CHECK(cli.run({"tour", "--scope", "session"}) == cli::k_usage);
  }
}

TEST_CASE("export: one JSON line per memory with id, text, type, metadata and created_at",
          "[cli][export]") {
  CliHome cli;
  cli.f.http.responder = [](const HttpRequest &r) {
    REQUIRE(is_listing(r));
    return mt::http_status(
        200,
        R"({"count":2,"results":[)"
        R"({"id":")" +
            mt::id_of(1) +
            R"(","memory":"Retry invoices \"five\" times","metadata":{"type":"decision","source":"cli","branch":"main"},"created_at":"2025-03-01T10:00:00Z"},)"
            R"({"id":")" +
            mt::id_of(2) + R"(","memory":"No metadata here","categories":["misc"]}]})");
  };
  SECTION("to standard output") {
    REQUIRE(cli.run({"export"}) == cli::k_ok);
    const auto lines = mt::lines_of(cli.out.str());
    REQUIRE(lines.size() == 3); // the last one empty, after the final newline
    CHECK(lines[2].empty());
    CHECK(lines[0] == R"({"id":")" + mt::id_of(1) +
                          R"(","text":"Retry invoices \"five\" times","type":"decision",)"
                          R"("metadata":{"type":"decision","source":"cli","branch":"main"},)"
                          R"("created_at":"2025-03-01T10:00:00Z"})");
    CHECK(lines[1] ==
          R"({"id":")" + mt::id_of(2) +
              R"(","text":"No metadata here","type":"misc","metadata":{},"created_at":""})");
    CHECK(cli.err.str() == "mem0: exported 2 memories of project proj\n");
  }
  SECTION("to a file") {
    REQUIRE(cli.run({"export", "--output", "out.jsonl"}) == cli::k_ok);
    CHECK(cli.out.str().empty());
    const auto written = read_small_file(cli.f.project / "out.jsonl");
    REQUIRE(written);
    CHECK(mt::lines_of(*written).size() == 3);
    CHECK(cli.err.str() == "mem0: exported 2 memories of project proj to out.jsonl\n");
  }
}

TEST_CASE("import: verbatim through the outbox, idempotent by text, a bad line reported by its "
          "number while the rest goes in",
          "[cli][import]") {
  CliHome cli;
  std::vector<std::string> stored{"Already in the project"};
  cli.f.http.responder = [&](const HttpRequest &r) {
    if (is_listing(r)) {
      std::vector<Memory> memories;
      for (std::size_t i = 0; i < stored.size(); ++i)
        memories.push_back(mt::memory(static_cast<unsigned>(i + 1), "decision", stored[i]));
      return mt::http_status(200, listing(memories));
    }
    REQUIRE(is_add(r));
    stored.push_back(added_text(r));
    return mt::http_status(200, R"({"results":[{"id":")" + mt::id_of(100 + stored.size()) +
                                    R"(","memory":"x","event":"ADD"}]})");
  };
  mt::write_file(
      cli.f.project / "in.jsonl",
      R"({"id":"a","text":"Invoices retry five times","type":"convention","metadata":{"type":"convention","source":"cli","ticket":"BILL-7","agent":"codex"}})"
      "\n"
      R"({"text":"Already in the project","type":"decision"})"
      "\n"
      "{not json\n"
      "\n"
      R"({"memory":"Webhooks are idempotent by event id"})"
      "\n"
      R"({"text":"Invoices retry five times"})"
      "\n"
      R"({"text":42})"
      "\n");
  CHECK(cli.run({"import", "in.jsonl"}) == cli::k_failure);
  CHECK(cli.err.str() ==
        "mem0-hooks import: line 3: not JSON\nmem0-hooks import: line 7: no \"text\"\n");
  CHECK(cli.out.str() == "mem0: imported in.jsonl into project proj: 2 added, 0 queued, 2 already "
                         "there, 2 failed\n");
  REQUIRE(stored.size() == 3);
  CHECK(stored[1] == "Invoices retry five times");
  CHECK(stored[2] == "Webhooks are idempotent by event id");
  std::vector<HttpRequest> adds;
  for (const auto &r : cli.f.http.requests)
    if (is_add(r)) adds.push_back(r);
  REQUIRE(adds.size() == 2);
  rapidjson::Document first;
  parse_json(first, adds[0].body);
  CHECK_FALSE(first["infer"].GetBool()); // verbatim
  CHECK(std::string(first["metadata"]["type"].GetString()) == "convention");
  CHECK(std::string(first["metadata"]["source"].GetString()) == "cli");
  CHECK(std::string(first["metadata"]["ticket"].GetString()) == "BILL-7");
  CHECK(std::string(first["metadata"]["agent"].GetString()) == "claude-code"); // this import's

  SECTION("a second import adds nothing") {
    mt::write_file(cli.f.project / "again.jsonl", R"({"text":"Invoices retry five times"})"
                                                  "\n");
    CHECK(cli.run({"import", "again.jsonl"}) == cli::k_ok);
    CHECK(cli.out.str() == "mem0: imported again.jsonl into project proj: 0 added, 0 queued, 1 "
                           "already there, 0 failed\n");
    CHECK(stored.size() == 3);
  }
}

TEST_CASE("import: a file it cannot read, and a listing it cannot get, add nothing",
          "[cli][import]") {
  CliHome cli;
  SECTION("no file") {
    CHECK(cli.run({"import", "missing.jsonl"}) == cli::k_failure);
    CHECK(cli.err.str().starts_with("mem0-hooks import: cannot read missing.jsonl"));
    CHECK(cli.f.http.requests.empty());
  }
  SECTION("the listing fails") {
    mt::write_file(cli.f.project / "in.jsonl", R"({"text":"Invoices retry five times"})"
                                               "\n");
    cli.f.http.responder = [](const HttpRequest &) { return mt::http_status(500, "{}"); };
    CHECK(cli.run({"import", "in.jsonl"}) == cli::k_failure);
    CHECK(cli.err.str().starts_with(
        "mem0-hooks import: cannot list the memories already there: Mem0 server error"));
    CHECK(cli.f.http.requests.size() == 1);
  }
}
