#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "store/state.hpp"

using namespace mem0;
using Outcome = BackoffStore::Outcome;
using std::chrono::seconds;

namespace {
constexpr std::string_view k_server = "server-a";
} // namespace

TEST_CASE("back-off: a rate limit pauses for Retry-After, then expires") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  CHECK_FALSE(store.active_pause(t0, k_server));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::rate_limited, seconds(45)));
  const auto pause = store.active_pause(t0 + seconds(5), k_server);
  REQUIRE(pause);
  CHECK(pause->remaining == seconds(40));
  CHECK(pause->reason == "rate limited by Mem0");
  CHECK_FALSE(store.active_pause(t0 + seconds(45), k_server));
}

TEST_CASE("back-off: three unreachable invocations in a row pause, an answer resets the count") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::answered));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  CHECK_FALSE(store.active_pause(t0, k_server));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  const auto pause = store.active_pause(t0 + seconds(1), k_server);
  REQUIRE(pause);
  CHECK(pause->remaining == BackoffStore::k_default_pause - seconds(1));
  CHECK(pause->reason == "Mem0 unreachable after 3 failed attempts");
}

TEST_CASE("back-off: a garbled back-off file means no pause") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  testing::write_file(dir.path() / "backoff.json", "{not json");
  CHECK_FALSE(store.active_pause(std::chrono::system_clock::now(), k_server));
}

TEST_CASE("back-off: record_run reads a run's failures") {
  testing::TempDir dir;
  BackoffStore backoff(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  const Error refused = make_error(ErrorKind::transport, "refused");
  const Error timeout = make_error(ErrorKind::timeout, "deadline");
  Error limited = make_error(ErrorKind::rate_limited, "429", 429);
  limited.retry_after = seconds(12);

  SECTION("nothing sent records nothing") {
    for (int i = 0; i < 5; ++i)
      REQUIRE(backoff.record_run(t0, k_server, {refused}, 0));
    CHECK_FALSE(backoff.active_pause(t0, k_server));
  }
  SECTION("a partly answered run is an answer") {
    for (int i = 0; i < 5; ++i)
      REQUIRE(backoff.record_run(t0, k_server, {refused}, 2));
    CHECK_FALSE(backoff.active_pause(t0, k_server));
  }
  SECTION("three runs that reached nothing pause") {
    for (int i = 0; i < 3; ++i)
      REQUIRE(backoff.record_run(t0, k_server, {refused, timeout}, 2));
    CHECK(backoff.active_pause(t0, k_server));
  }
  SECTION("requests libcurl could not make were not sent: no outage, and they do not count") {
    const Error no_libcurl = make_error(ErrorKind::no_libcurl, "cannot load libcurl");
    for (int i = 0; i < 5; ++i)
      REQUIRE(backoff.record_run(t0, k_server, {no_libcurl, no_libcurl}, 2));
    CHECK_FALSE(backoff.active_pause(t0, k_server));
    for (int i = 0; i < 3; ++i) // the one sent reached nothing: that is an unreachable run
      REQUIRE(backoff.record_run(t0, k_server, {no_libcurl, refused}, 2));
    CHECK(backoff.active_pause(t0, k_server));
  }
  SECTION("a 429 pauses for the longest Retry-After") {
    REQUIRE(backoff.record_run(t0, k_server, {limited, refused}, 3));
    const auto pause = backoff.active_pause(t0, k_server);
    REQUIRE(pause);
    CHECK(pause->remaining == seconds(12));
  }
}

TEST_CASE("back-off: a rejected key stays paused until a request with it succeeds") {
  testing::TempDir dir;
  BackoffStore backoff(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  REQUIRE(backoff.record_outcome(t0, k_server, Outcome::key_rejected));
  // doctor's or peek's own search, with the same key: answered, but refused.
  REQUIRE(backoff.record_run(t0, k_server, {make_error(ErrorKind::unauthorized, "401", 401)}, 1));
  REQUIRE(backoff.record_run(t0, k_server, {make_error(ErrorKind::client, "400", 400)}, 1));
  const auto pause = backoff.active_pause(t0, k_server);
  REQUIRE(pause);
  CHECK(pause->until_key_changes);
  REQUIRE(backoff.record_run(t0, k_server, {make_error(ErrorKind::unauthorized, "401", 401)}, 2));
  CHECK_FALSE(backoff.active_pause(t0, k_server)); // one of the two succeeded
}

TEST_CASE("back-off: a pause holds only the server and key that caused it") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::rate_limited, seconds(30)));
  for (int i = 0; i < 3; ++i)
    REQUIRE(store.record_outcome(t0, "server-b", Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, "server-c", Outcome::unreachable));
  CHECK(store.active_pause(t0, k_server)->reason == "rate limited by Mem0");
  CHECK(store.active_pause(t0, "server-b")->reason == "Mem0 unreachable after 3 failed attempts");
  CHECK_FALSE(store.active_pause(t0, "server-c")); // one failure: counted, no pause
  CHECK_FALSE(store.active_pause(t0, "server-d"));

  SECTION("an answer ends that server's pause early, and only that one") {
    REQUIRE(store.record_outcome(t0 + seconds(1), "server-b", Outcome::answered));
    CHECK_FALSE(store.active_pause(t0 + seconds(1), "server-b"));
    CHECK(store.active_pause(t0 + seconds(1), k_server));
  }
  SECTION("the same base URL with another key is another server") {
    const auto a = ApiTarget::make("https://api.mem0.ai", "m0-key-one").value();
    const auto b = ApiTarget::make("https://api.mem0.ai/", "m0-key-two").value();
    const auto c = ApiTarget::make("https://mem0.example.com", "m0-key-one").value();
    CHECK(a.server_key() != b.server_key());
    CHECK(a.server_key() != c.server_key());
    CHECK(a.server_key() == ApiTarget::make("https://api.mem0.ai//", "m0-key-one")->server_key());
    CHECK(a.server_key().find("m0-key") == std::string::npos);
  }
  SECTION("reset ends every pause and says how many there were") {
    const auto cleared = store.reset(t0);
    REQUIRE(cleared);
    CHECK(*cleared == 2);
    CHECK_FALSE(store.active_pause(t0, k_server));
    CHECK_FALSE(store.active_pause(t0, "server-b"));
    REQUIRE(store.record_outcome(t0, "server-c", Outcome::unreachable));
    CHECK_FALSE(store.active_pause(t0, "server-c")); // its count went too
  }
}

TEST_CASE("back-off: the file keeps at most k_max_servers entries, the latest pauses first") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  for (std::size_t i = 0; i < BackoffStore::k_max_servers + 4; ++i)
    REQUIRE(store.record_outcome(t0, "s" + std::to_string(i), Outcome::rate_limited,
                                 seconds(100 + static_cast<long>(i))));
  std::size_t paused = 0;
  for (std::size_t i = 0; i < BackoffStore::k_max_servers + 4; ++i)
    paused += store.active_pause(t0, "s" + std::to_string(i)).has_value();
  CHECK(paused == BackoffStore::k_max_servers);
  CHECK_FALSE(store.active_pause(t0, "s0"));
  CHECK(store.active_pause(t0, "s" + std::to_string(BackoffStore::k_max_servers + 3)));
}

TEST_CASE("back-off: a file of the single-server format of earlier versions pauses nothing") {
  testing::TempDir dir;
  BackoffStore store(real_state_disk(), dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  testing::write_file(dir.path() / "backoff.json",
                      R"({"until":1800000020,"reason":"rate_limited","failures":0})");
  CHECK_FALSE(store.active_pause(t0, k_server));
  REQUIRE(store.record_outcome(t0, k_server, Outcome::unreachable));
  CHECK(testing::read_file(dir.path() / "backoff.json").find("\"until\":1800000020") ==
        std::string::npos);
}
