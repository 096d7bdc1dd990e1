#include "tests/unit/catch.hpp"
#include "tests/unit/store/session_workers.hpp"
#include "tests/unit/test_support.hpp"

#include "store/state.hpp"
#include "util/files.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <thread>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

// Every regular file below `dir`, with the permission bits of each.
std::map<std::string, int> modes_below(const fs::path &dir) {
  std::map<std::string, int> out;
  for (const auto &entry : fs::recursive_directory_iterator(dir))
    out[entry.path().string()] = mode_of(entry.path());
  return out;
}

} // namespace

TEST_CASE("session state: serialize then parse gives back the same state") {
  SessionState s;
  s.injected = {id_of(1), id_of(2), id_of(3)};
  s.files = {{"/repo/src/app.py", "1700000000123456789:2048"}, {"/repo/a \"quoted\".md", "1:1600"}};
  s.errors = {"0123456789abcdef", "fedcba9876543210"};
  s.rubric_shown = true;
  s.limit_notice_shown = true;
  s.prompts = 5'000'000'017; // past 32 bits, which `long` is on Windows

  const SessionState back = parse_session_state(serialize_session_state(s));
  CHECK(back.injected == s.injected);
  CHECK(back.files == s.files);
  CHECK(back.errors == s.errors);
  CHECK(back.rubric_shown);
  CHECK(back.limit_notice_shown);
  CHECK(back.prompts == 5'000'000'017);
  CHECK(back.was_injected(id_of(2)));
  CHECK_FALSE(back.was_injected(id_of(4)));
}

TEST_CASE("session state: unreadable content gives an empty state") {
  for (const char *garbage : {"", "not json", "[1,2,3]", "{\"injected\": ", "null", "\"text\""}) {
    CAPTURE(garbage);
    const SessionState s = parse_session_state(garbage);
    CHECK(s.injected.empty());
    CHECK(s.files.empty());
    CHECK_FALSE(s.rubric_shown);
    CHECK(s.prompts == 0);
  }
}

TEST_CASE("session state: fields of the wrong type are ignored, the rest is kept") {
  const SessionState s = parse_session_state(
      R"({"injected": ["a", 5, null, "b"], "files": {"/x": "1:2000", "/y": 3},
          "rubric_shown": "yes", "prompts": 4})");
  CHECK(s.injected == std::vector<std::string>{"a", "b"});
  CHECK(s.files == std::map<std::string, std::string>{{"/x", "1:2000"}});
  CHECK_FALSE(s.rubric_shown);
  CHECK(s.prompts == 4);
}

TEST_CASE("session state: update stores the change and load reads it back") {
  TempDir tmp;
  StateStore store(tmp / "state");
  CHECK(store.sessions.load("session-1").injected.empty());

  auto first = store.sessions.update("session-1", [](SessionState &s) {
    s.injected.push_back(id_of(1));
    s.rubric_shown = true;
  });
  REQUIRE(first.has_value());
  CHECK(first->injected == std::vector<std::string>{id_of(1)});

  auto second =
      store.sessions.update("session-1", [](SessionState &s) { s.injected.push_back(id_of(2)); });
  REQUIRE(second.has_value());
  CHECK(second->injected == std::vector<std::string>{id_of(1), id_of(2)});
  CHECK(second->rubric_shown);

  const SessionState loaded = store.sessions.load("session-1");
  CHECK(loaded.injected == std::vector<std::string>{id_of(1), id_of(2)});
  CHECK(store.sessions.load("session-2").injected.empty());
}

TEST_CASE("session state: concurrent updates from threads lose nothing", "[no-qemu]") {
  TempDir tmp;
  constexpr int k_workers = 8, k_updates = 25;
  std::vector<std::thread> threads;
  std::vector<int> failures(k_workers, 0);
  for (int w = 0; w < k_workers; ++w)
    threads.emplace_back([&, w] {
      StateStore store(tmp / "state");
      for (int i = 0; i < k_updates; ++i) {
        auto done = store.sessions.update("shared-session", [&](SessionState &s) {
          s.injected.push_back(worker_id(w, i));
          ++s.prompts;
        });
        if (!done) ++failures[static_cast<std::size_t>(w)];
      }
    });
  for (auto &t : threads)
    t.join();

  CHECK(std::all_of(failures.begin(), failures.end(), [](int n) { return n == 0; }));
  check_all_ids_once(SessionStore(real_state_disk(), tmp / "state").load("shared-session"),
                     k_workers, k_updates);
}

TEST_CASE("session state: concurrent threads appending to the run log past its bound lose none",
          "[reliability][no-qemu]") {
  TempDir tmp;
  constexpr int k_workers = 6, k_runs = 120;
  std::vector<std::thread> threads;
  std::vector<int> failures(k_workers, 0);
  for (int w = 0; w < k_workers; ++w)
    threads.emplace_back([&, w] {
      failures[static_cast<std::size_t>(w)] = append_worker_runs(tmp / "state", w, k_runs);
    });
  for (auto &t : threads)
    t.join();
  CHECK(std::all_of(failures.begin(), failures.end(), [](int n) { return n == 0; }));
  check_last_runs_kept(tmp / "state", k_runs);
}

TEST_CASE("session state: state directories are 0700 and state files 0600") {
  TempDir tmp;
  const fs::path dir = tmp / "fresh/state";
  StateStore store(dir);
  REQUIRE(
      store.sessions.update("session-perm", [](SessionState &s) { s.prompts = 1; }).has_value());
  REQUIRE(store.usage.add("2025-03-10", {1, 0}).has_value());

  CHECK(mode_of(tmp / "fresh") == dir_mode_as_kept(0700));
  CHECK(mode_of(dir) == dir_mode_as_kept(0700));
  const auto modes = modes_below(dir);
  REQUIRE(modes.size() >= 3); // sessions/, the session file, usage.json
  for (const auto &[path, mode] : modes) {
    CAPTURE(path);
    if (fs::is_directory(path))
      CHECK(mode == dir_mode_as_kept(0700));
    else
      CHECK(mode == file_mode_as_kept(0600));
  }
}

TEST_CASE("session state: a session id cannot name a file outside the state dir") {
  TempDir tmp;
  StateStore store(tmp / "state");
  REQUIRE(
      store.sessions.update("../../escape", [](SessionState &s) { s.prompts = 1; }).has_value());
  CHECK(store.sessions.load("../../escape").prompts == 1);
  for (const auto &entry : fs::recursive_directory_iterator(tmp.path())) {
    CAPTURE(entry.path().string());
    CHECK(entry.path().string().starts_with((tmp / "state").string()));
  }
}

TEST_CASE("session state: all_sessions returns every stored session") {
  TempDir tmp;
  StateStore store(tmp / "state");
  REQUIRE(store.sessions.update("a", [](SessionState &s) { s.injected = {id_of(1)}; }).has_value());
  REQUIRE(store.sessions.update("b", [](SessionState &s) { s.injected = {id_of(2)}; }).has_value());
  std::vector<std::string> ids;
  for (const auto &s : store.sessions.all_sessions())
    ids.insert(ids.end(), s.injected.begin(), s.injected.end());
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{id_of(1), id_of(2)});
}

TEST_CASE("session state: idle session files older than 7 days go when a new session starts") {
  TempDir tmp;
  StateStore store(tmp / "state");
  REQUIRE(store.sessions.update("old-session", [](SessionState &s) { s.prompts = 1; }).has_value());
  REQUIRE(
      store.sessions.update("recent-session", [](SessionState &s) { s.prompts = 1; }).has_value());
  const auto now = fs::file_time_type::clock::now();
  for (const auto &entry : fs::directory_iterator(tmp / "state/sessions")) {
    const bool old = entry.path().filename().string().starts_with("old-session");
    fs::last_write_time(entry.path(), now - std::chrono::hours(24 * (old ? 8 : 6)));
  }

  REQUIRE(store.sessions.update("new-session", [](SessionState &s) { s.prompts = 1; }).has_value());

  CHECK(store.sessions.load("old-session").prompts == 0);
  CHECK(store.sessions.load("recent-session").prompts == 1);
  CHECK(store.sessions.load("new-session").prompts == 1);
}

TEST_CASE("session state: the daily sweep removes temporary files a killed process left") {
  TempDir tmp;
  StateStore store(tmp / "state");
  REQUIRE(store.usage.add("2025-03-10", {1, 0}).has_value());
  const auto now = fs::file_time_type::clock::now();
  write_file(tmp / "state/.usage.json.Ab12Cd", "{\"2025-03-10\": 1");
  fs::last_write_time(tmp / "state/.usage.json.Ab12Cd", now - std::chrono::hours(2));
  write_file(tmp / "state/.backoff.json.Zz99Yy", "{"); // may belong to a live writer: kept

  REQUIRE(
      store.sessions.update("first-session", [](SessionState &s) { s.prompts = 1; }).has_value());

  CHECK_FALSE(fs::exists(tmp / "state/.usage.json.Ab12Cd"));
  CHECK(fs::exists(tmp / "state/.backoff.json.Zz99Yy"));
  CHECK(store.usage.on("2025-03-10").searches == 1);
}

TEST_CASE("session state: searches are counted per day and only 31 days are kept") {
  TempDir tmp;
  StateStore store(tmp / "state");
  CHECK(store.usage.on("2025-03-10").searches == 0);

  REQUIRE(store.usage.add("2025-03-10", {2, 0}).has_value());
  REQUIRE(store.usage.add("2025-03-11", {3, 0}).has_value());
  REQUIRE(store.usage.add("2025-03-10", {1, 0}).has_value());
  CHECK(store.usage.on("2025-03-10").searches == 3);
  CHECK(store.usage.on("2025-03-11").searches == 3);
  CHECK(store.usage.on("2025-03-12").searches == 0);

  using namespace std::chrono;
  const sys_days start = year{2025} / April / 1;
  for (int i = 0; i < 40; ++i)
    REQUIRE(store.usage.add(utc_day(start + days{i}), {100 + i, 0}).has_value());

  // 40 new days: only the last 31 (2025-04-10 .. 2025-05-10) remain, older ones are dropped.
  CHECK(store.usage.on("2025-03-10").searches == 0);
  CHECK(store.usage.on("2025-04-01").searches == 0);
  CHECK(store.usage.on("2025-04-09").searches == 0);
  CHECK(store.usage.on("2025-04-10").searches == 109);
  CHECK(store.usage.on("2025-05-10").searches == 139);
}

TEST_CASE("session state: utc_day formats the UTC calendar day") {
  using namespace std::chrono;
  CHECK(utc_day(system_clock::time_point{}) == "1970-01-01");
  const auto leap = sys_days{year{2024} / February / 29};
  CHECK(utc_day(leap) == "2024-02-29");
  CHECK(utc_day(leap + hours{23} + minutes{59} + seconds{59}) == "2024-02-29");
  CHECK(utc_day(leap + hours{24}) == "2024-03-01");
  CHECK(utc_day(sys_days{year{2025} / December / 31} + hours{12}) == "2025-12-31");
}

TEST_CASE("atomic file: write_file_atomic replaces the file, private, leaving no temporary") {
  TempDir tmp;
  const fs::path target = tmp / "data.json";
  write_file(target, "old content");
  REQUIRE(write_file_atomic(target, "new content", Durability::durable).has_value());
  CHECK(read_file(target) == "new content");
  CHECK(mode_of(target) == file_mode_as_kept(0600));
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto &e : fs::directory_iterator(tmp.path()))
    ++entries;
  CHECK(entries == 1);
}

TEST_CASE("atomic file: ensure_private_dir creates missing parents as 0700") {
  TempDir tmp;
  REQUIRE(ensure_private_dir(tmp / "a/b/c"));
  CHECK(mode_of(tmp / "a") == dir_mode_as_kept(0700));
  CHECK(mode_of(tmp / "a/b") == dir_mode_as_kept(0700));
  CHECK(mode_of(tmp / "a/b/c") == dir_mode_as_kept(0700));
}

TEST_CASE("atomic file: update_file_locked passes the current content and stores the result") {
  TempDir tmp;
  const fs::path target = tmp / "counter.txt";
  std::string seen = "<not called>";
  REQUIRE(update_file_locked(
              target,
              [&](const std::string &current) {
                seen = current;
                return std::optional<std::string>("1");
              },
              Durability::saves_work)
              .has_value());
  CHECK(seen.empty());
  CHECK(read_file(target) == "1");

  REQUIRE(update_file_locked(
              target,
              [&](const std::string &current) {
                seen = current;
                return std::optional<std::string>(current + "2");
              },
              Durability::saves_work)
              .has_value());
  CHECK(seen == "1");
  CHECK(read_file(target) == "12");

  REQUIRE(update_file_locked(
              target, [](const std::string &) { return std::optional<std::string>(); },
              Durability::saves_work)
              .has_value());
  CHECK(read_file(target) == "12");
}

TEST_CASE("atomic file: update_file_locked gives up with a timeout while the lock is held") {
  TempDir tmp;
  const fs::path target = tmp / "locked.json";
  write_file(target, "original");
  std::optional<TryLock> holder(std::in_place, target.string() + ".lock");
  REQUIRE(holder->held());

  bool called = false;
  const auto started = std::chrono::steady_clock::now();
  const auto result = update_file_locked(
      target,
      [&](const std::string &) {
        called = true;
        return std::optional<std::string>("changed");
      },
      Durability::saves_work, std::chrono::milliseconds(60));
  const auto waited = std::chrono::steady_clock::now() - started;
  holder.reset();

  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().kind == ErrorKind::timeout);
  CHECK_FALSE(called);
  CHECK(read_file(target) == "original");
  CHECK(waited >= std::chrono::milliseconds(60));
  CHECK(waited < std::chrono::seconds(2));
}

TEST_CASE("session state: update reports an error instead of waiting forever on a held lock") {
  TempDir tmp;
  StateStore store(tmp / "state");
  REQUIRE(store.sessions.update("busy", [](SessionState &s) { s.prompts = 1; }).has_value());
  fs::path lock;
  for (const auto &entry : fs::directory_iterator(tmp / "state/sessions"))
    if (entry.path().extension() == ".lock") lock = entry.path();
  REQUIRE_FALSE(lock.empty());
  std::optional<TryLock> holder(std::in_place, lock);
  REQUIRE(holder->held());

  const auto started = std::chrono::steady_clock::now();
  const auto result = store.sessions.update("busy", [](SessionState &s) { s.prompts = 99; });
  const auto waited = std::chrono::steady_clock::now() - started;
  holder.reset();

  REQUIRE_FALSE(result.has_value());
  CHECK(result.error().kind == ErrorKind::timeout);
  CHECK(waited < std::chrono::seconds(5));
  CHECK(store.sessions.load("busy").prompts == 1);
}

TEST_CASE("usage: searches and adds are counted apart; an older file's bare numbers are searches") {
  TempDir tmp;
  write_file(tmp / "state/usage.json", R"({"2025-03-10": 7, "2025-03-11": "junk"})");
  UsageStore usage(real_state_disk(), tmp / "state");
  CHECK(usage.on("2025-03-10").searches == 7);
  CHECK(usage.on("2025-03-10").adds == 0);
  CHECK(usage.on("2025-03-11").searches == 0);

  REQUIRE(usage.add("2025-03-10", {1, 2}).has_value());
  REQUIRE(usage.add("2025-03-10", {0, 3}).has_value());
  CHECK(usage.on("2025-03-10").searches == 8);
  CHECK(usage.on("2025-03-10").adds == 5);
  CHECK(contains(read_file(tmp / "state/usage.json"), R"("2025-03-10":{"searches":8,"adds":5,)"));
}

TEST_CASE("session state: the error lines looked up are kept in order", "[bash]") {
  const SessionState s =
      parse_session_state(R"({"injected": [], "errors": ["b2", 7, null, "a1"], "prompts": 1})");
  CHECK(s.errors == std::vector<std::string>{"b2", "a1"});
  CHECK(parse_session_state(R"({"errors": "a1"})").errors.empty());
  CHECK(parse_session_state(R"({"injected": ["x"]})").errors.empty()); // files written before
  const std::string json = serialize_session_state(s);
  CHECK(json.find(R"("errors":["b2","a1"])") != std::string::npos);
  CHECK(parse_session_state(json).errors == s.errors);
}

TEST_CASE("session state: the daily sweep leaves a lock file alone while a process holds it",
          "[reliability]") {
  TempDir tmp;
  const fs::path state = tmp / "state";
  const fs::path held = state / "sessions/week-old.json.lock",
                 free = state / "sessions/gone.json.lock";
  write_file(held, "");
  write_file(free, "");
  const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(24 * 8);
  fs::last_write_time(held, long_ago);
  fs::last_write_time(free, long_ago);
  std::optional<TryLock> holder(std::in_place, held);
  REQUIRE(holder->held());

  StateStore store(state); // the first new session of the day sweeps
  REQUIRE(store.sessions.update("first-session", [](SessionState &) {}).has_value());
  holder.reset();
  CHECK(fs::exists(held));
  CHECK_FALSE(fs::exists(free));
}

TEST_CASE("session state: the daily sweep removes stale temporary files in sessions/ and outbox/",
          "[reliability]") {
  TempDir tmp;
  const fs::path state = tmp / "state";
  const auto now = fs::file_time_type::clock::now();
  auto plant = [&](const fs::path &path, std::chrono::hours age) {
    write_file(path, "{");
    fs::last_write_time(path, now - age);
  };
  plant(state / "sessions/.killed-session.json.Ab12Cd", std::chrono::hours(2));
  plant(state / "sessions/.live-session.json.Ef34Gh", std::chrono::hours(0)); // a live writer's
  plant(state / "outbox/.000000000007.json.Ij56Kl", std::chrono::hours(2));
  plant(state / "outbox/.state.json.Mn78Op", std::chrono::hours(2));
  plant(state / "outbox/.000000000008.json.Qr90St", std::chrono::hours(0)); // a live writer's
  plant(state / "outbox/000000000003.json", std::chrono::hours(24 * 30));   // an item: never
  plant(state / "outbox/state.json", std::chrono::hours(24 * 30));
  plant(state / "outbox/rejected/.000000000009.json.Uv12Wx", std::chrono::hours(2));
  plant(state / "outbox/rejected/000000000009.json", std::chrono::hours(24 * 30));

  StateStore store(state); // the first new session of the day sweeps
  REQUIRE(
      store.sessions.update("first-session", [](SessionState &s) { s.prompts = 1; }).has_value());

  CHECK_FALSE(fs::exists(state / "sessions/.killed-session.json.Ab12Cd"));
  CHECK(fs::exists(state / "sessions/.live-session.json.Ef34Gh"));
  CHECK_FALSE(fs::exists(state / "outbox/.000000000007.json.Ij56Kl"));
  CHECK_FALSE(fs::exists(state / "outbox/.state.json.Mn78Op"));
  CHECK(fs::exists(state / "outbox/.000000000008.json.Qr90St"));
  CHECK(fs::exists(state / "outbox/000000000003.json"));
  CHECK(fs::exists(state / "outbox/state.json"));
  CHECK_FALSE(fs::exists(state / "outbox/rejected/.000000000009.json.Uv12Wx"));
  CHECK(fs::exists(state / "outbox/rejected/000000000009.json"));
}
