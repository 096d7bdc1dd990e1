#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "common/state.hpp"

using namespace mem0;
using Outcome = BackoffStore::Outcome;
using std::chrono::seconds;

TEST_CASE("back-off: a rate limit pauses for Retry-After, then expires") {
  testing::TempDir dir;
  BackoffStore store(dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  CHECK_FALSE(store.active_pause(t0));
  REQUIRE(store.record_outcome(t0, Outcome::rate_limited, seconds(45)));
  const auto pause = store.active_pause(t0 + seconds(5));
  REQUIRE(pause);
  CHECK(pause->remaining == seconds(40));
  CHECK(pause->reason == "rate limited by Mem0");
  CHECK_FALSE(store.active_pause(t0 + seconds(45)));
}

TEST_CASE("back-off: three unreachable invocations in a row pause, an answer resets the count") {
  testing::TempDir dir;
  BackoffStore store(dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  REQUIRE(store.record_outcome(t0, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, Outcome::answered));
  REQUIRE(store.record_outcome(t0, Outcome::unreachable));
  REQUIRE(store.record_outcome(t0, Outcome::unreachable));
  CHECK_FALSE(store.active_pause(t0));
  REQUIRE(store.record_outcome(t0, Outcome::unreachable));
  const auto pause = store.active_pause(t0 + seconds(1));
  REQUIRE(pause);
  CHECK(pause->remaining == BackoffStore::k_default_pause - seconds(1));
  CHECK(pause->reason == "Mem0 unreachable after 3 failed attempts");
}

TEST_CASE("back-off: a garbled back-off file means no pause") {
  testing::TempDir dir;
  BackoffStore store(dir.path());
  testing::write_file(dir.path() / "backoff.json", "{not json");
  CHECK_FALSE(store.active_pause(std::chrono::system_clock::now()));
}

TEST_CASE("back-off: record_run reads a run's failures") {
  testing::TempDir dir;
  BackoffStore backoff(dir.path());
  const auto t0 = std::chrono::system_clock::time_point(seconds(1'800'000'000));
  const Error refused = make_error(ErrorKind::transport, "refused");
  const Error timeout = make_error(ErrorKind::timeout, "deadline");
  Error limited = make_error(ErrorKind::rate_limited, "429", 429);
  limited.retry_after = seconds(12);

  SECTION("nothing sent records nothing") {
    for (int i = 0; i < 5; ++i)
      REQUIRE(backoff.record_run(t0, {refused}, 0));
    CHECK_FALSE(backoff.active_pause(t0));
  }
  SECTION("a partly answered run is an answer") {
    for (int i = 0; i < 5; ++i)
      REQUIRE(backoff.record_run(t0, {refused}, 2));
    CHECK_FALSE(backoff.active_pause(t0));
  }
  SECTION("three runs that reached nothing pause") {
    for (int i = 0; i < 3; ++i)
      REQUIRE(backoff.record_run(t0, {refused, timeout}, 2));
    CHECK(backoff.active_pause(t0));
  }
  SECTION("a 429 pauses for the longest Retry-After") {
    REQUIRE(backoff.record_run(t0, {limited, refused}, 3));
    const auto pause = backoff.active_pause(t0);
    REQUIRE(pause);
    CHECK(pause->remaining == seconds(12));
  }
}
