#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "common/session_state.hpp"

using namespace mem0;
using Outcome = StateStore::Outcome;
using std::chrono::seconds;

TEST_CASE("back-off: a rate limit pauses for Retry-After, then expires") {
  testing::TempDir dir;
  StateStore store(dir.path());
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
  StateStore store(dir.path());
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
  CHECK(pause->remaining == StateStore::k_default_pause - seconds(1));
  CHECK(pause->reason == "Mem0 unreachable after 3 failed attempts");
}

TEST_CASE("back-off: a garbled back-off file means no pause") {
  testing::TempDir dir;
  StateStore store(dir.path());
  testing::write_file(dir.path() / "backoff.json", "{not json");
  CHECK_FALSE(store.active_pause(std::chrono::system_clock::now()));
}
