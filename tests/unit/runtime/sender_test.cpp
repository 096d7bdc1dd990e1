// The sender (runtime/sender.cpp, docs/capture.md#the-sender): one round of delivering the
// outbox, its batches, failures, refusals, crashes, the lock and the daily cap.
#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/sender.hpp"
#include "store/outbox.hpp"

using namespace mem0;
using namespace mem0::testing;
using std::chrono::hours;
using std::chrono::seconds;

TEST_CASE("sender: an item queued with the Platform's body goes to each backend as it did",
          "[capture][backend]") {
  for (const std::string backend : {"platform", "selfhosted"}) {
    CAPTURE(backend);
    HookFixture f;
    f.set_env("MEM0_BACKEND", backend);
    Outbox outbox(f.disk(), f.config.state_dir);
    f.write_state("outbox/000000000001.json",
                  std::string(R"({"kind":"add","body":)") + k_legacy_body + "}");
    // A body that is not a JSON object was never sent: the item is set aside as unreadable.
    int n = 2;
    for (const std::string body : {"[1,2,3]", R"("text")", "null"})
      f.write_state("outbox/00000000000" + std::to_string(n++) + ".json",
                    R"({"kind":"add","body":)" + body + "}");
    f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
    const SendReport report = send_round(f.context());
    CHECK(report.delivered == 1);
    CHECK(report.rejected == 3);
    CHECK(outbox.pending().empty());
    REQUIRE(f.http.requests.size() == 1);
    const HttpRequest &sent = f.http.requests[0];
    if (backend == "platform") {
      CHECK(sent.url == "https://api.mem0.ai/v3/memories/add/");
      CHECK(sent.body == k_legacy_body);
    } else {
      CHECK(sent.url == "http://localhost:8888/memories");
      CHECK(sent.body == k_selfhosted_body);
    }
  }
}

TEST_CASE("sender: items go oldest first, a batch at a time, and leave once delivered",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (int i = 0; i < 6; ++i)
    REQUIRE(outbox.put(add_item("n" + std::to_string(i)), "", f.now));
  f.http.responder = [](const HttpRequest &) {
    return http_status(200, R"({"event_id":"e","status":"PENDING"})");
  };
  const SendReport report = send_round(f.context());
  CHECK(report.delivered == 6);
  CHECK_FALSE(report.stopped);
  CHECK(outbox.pending().empty());
  REQUIRE(f.http.requests.size() == 6);
  CHECK(f.http.batches == 2); // 4 + 2
  for (int i = 0; i < 6; ++i) {
    CHECK(f.http.requests[i].url == "https://api.mem0.ai/v3/memories/add/");
    CHECK(first_content(f.http.requests[i].body) == "n" + std::to_string(i));
  }
  CHECK(f.store().usage.on(f.today()).adds == 6);
  CHECK(outbox.stats().last_delivery > 0);
}

TEST_CASE("sender: the report names the ids of each add delivered, and a round ends at `end`",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto first = outbox.put(add_item("one"), "", f.now);
  const auto second = outbox.put(add_item("two"), "", f.now);
  REQUIRE(first);
  REQUIRE(second);
  SECTION("delivered") {
    f.http.responder = [](const HttpRequest &r) {
      return http_status(200, first_content(r.body) == "one"
                                  ? R"({"results":[{"id":"id-1","memory":"one","event":"ADD"}]})"
                                  : R"({"event_id":"e","status":"PENDING"})");
    };
    const SendReport report = send_round(f.context());
    CHECK(report.added.at(*first) == std::vector<std::string>{"id-1"});
    CHECK(report.added.at(*second).empty()); // asynchronous: no id yet
  }
  SECTION("an end already passed sends nothing") {
    const SendReport report = send_round(f.context(), SteadyClock::now());
    CHECK(report.added.empty());
    CHECK(f.http.requests.empty());
    CHECK(outbox.pending().size() == 2);
  }
}

TEST_CASE("sender: retryable failures keep the items and end the round", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (int i = 0; i < 3; ++i)
    REQUIRE(outbox.put(add_item("k" + std::to_string(i)), "", f.now));

  SECTION("429 pauses everyone") {
    f.http.responder = [](const HttpRequest &) { return http_status(429, "{}", seconds(40)); };
    const auto report = send_round(f.context());
    REQUIRE(report.stopped);
    CHECK(report.stopped->kind == ErrorKind::rate_limited);
    CHECK(outbox.pending().size() == 3);
    CHECK(f.store().backoff.active_pause(f.now, server_of(f.config)));
    CHECK(f.http.batches == 1);
    SECTION("and while paused nothing is sent") {
      CHECK(send_round(f.context()).delivered == 0);
      CHECK(f.http.batches == 1);
    }
  }
  SECTION("offline") {
    f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::transport); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::transport);
    CHECK(outbox.pending().size() == 3);
  }
  SECTION("a rejected key keeps the items for a fixed key, and pauses that key until it changes") {
    const int status = GENERATE(401, 403);
    f.http.responder = [status](const HttpRequest &) { return http_status(status, "{}"); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::unauthorized);
    CHECK(outbox.pending().size() == 3);
    CHECK(outbox.stats().rejected == 0);
    CHECK(f.http.batches == 1);
    // No later run starts a sender, and a round sends nothing, however much later.
    const auto pause =
        f.store().backoff.active_pause(f.now + std::chrono::hours(48), server_of(f.config));
    REQUIRE(pause);
    CHECK(pause->until_key_changes);
    CHECK_FALSE(sender_work_in(f));
    CHECK(send_round(f.context()).delivered == 0);
    CHECK(f.http.batches == 1);
    SECTION("a prompt says so once in the session") {
      const auto said = [&] {
        RecallRequest request;
        request.plan = {SearchSpec{"how are invoices rounded", std::nullopt}};
        request.identity = {"alice", "proj", "s-key"};
        return recall(f.context(), request).user_notices;
      };
      CHECK(said() == std::vector<std::string>{std::string(k_key_paused_line)});
      CHECK(said().empty());
      CHECK(f.http.batches == 1); // no search sent either
    }
    SECTION("another key is not held up") {
      f.set_env("MEM0_API_KEY", "m0-another-key");
      f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
      CHECK(send_round(f.context()).delivered == 3);
    }
    SECTION("doctor --reset ends it") {
      REQUIRE(f.store().backoff.reset(f.now).value() == 1);
      CHECK_FALSE(f.store().backoff.active_pause(f.now, server_of(f.config)));
    }
  }
  SECTION("5xx") {
    f.http.responder = [](const HttpRequest &) { return http_status(503, "down"); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::server);
    CHECK(outbox.pending().size() == 3);
  }
}

TEST_CASE("sender: an item the server refuses is set aside, the others still go", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (const char *t : {"good one", "bad one", "good two"})
    REQUIRE(outbox.put(add_item(t), "", f.now));
  f.http.responder = [](const HttpRequest &r) {
    return first_content(r.body) == "bad one" ? http_status(422, R"({"detail":"invalid"})")
                                              : http_status(200, R"({"results":[]})");
  };
  const auto report = send_round(f.context());
  CHECK(report.delivered == 2);
  CHECK(report.rejected == 1);
  CHECK(outbox.pending().empty());
  CHECK(outbox.stats().rejected == 1);
}

TEST_CASE("sender: delivered at least once when a crash came between send and delete",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto name = outbox.put(add_item("sent, then the sender died"), "", f.now).value();
  // The request went out, but the process died before removing the item: it is still pending.
  f.http.run({add_request(target("https://api.mem0.ai", "k"), outbox.load(name)->add)},
             SteadyClock::now());
  f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
  CHECK(send_round(f.context()).delivered == 1);
  CHECK(outbox.pending().empty());
  CHECK(f.http.requests.size() == 2);
}

TEST_CASE("sender: deletes, corrupt items, the lock and the daily cap", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  OutboxItem remove;
  remove.kind = OutboxItem::Kind::remove;
  remove.memory_id = "gone-already";
  REQUIRE(outbox.put(remove, "", f.now));
  f.write_state("outbox/000000000099.json", "{not json");
  f.http.responder = [](const HttpRequest &r) {
    return r.method == "DELETE" ? http_status(404, R"({"error":"Memory not found!"})")
                                : http_status(200, "{}");
  };
  const auto report = send_round(f.context());
  CHECK(report.delivered == 1); // a 404 delete: already gone
  CHECK(report.rejected == 1);  // the corrupt item, kept aside
  CHECK(outbox.pending().empty());
  REQUIRE(f.http.requests.size() == 1);
  CHECK(f.http.requests[0].url == "https://api.mem0.ai/v1/memories/gone-already/");

  SECTION("the daily add cap leaves items waiting") {
    f.set_env("MEM0_DAILY_ADD_LIMIT", "2");
    REQUIRE(f.store().usage.add(f.today(), {0, 2}));
    REQUIRE(outbox.put(add_item("waits"), "", f.now));
    CHECK(send_round(f.context()).delivered == 0);
    CHECK(outbox.pending().size() == 1);
  }
}
