// The session state under what only POSIX has: separate processes made by fork, a lock file
// removed while it is waited on (the rest: session_state_test.cpp).
#include "tests/unit/catch.hpp"
#include "tests/unit/store/session_workers.hpp"
#include "tests/unit/test_support.hpp"

#include "store/state.hpp"
#include "util/files.hpp"

#include <algorithm>
#include <atomic>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

TEST_CASE("session state: concurrent updates from separate processes lose nothing", "[no-qemu]") {
  TempDir tmp;
  constexpr int k_workers = 4, k_updates = 25;
  std::vector<pid_t> children;
  for (int w = 0; w < k_workers; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // The child must never return into the test runner: every path ends in _exit.
      int code = 1;
      try {
        StateStore store(tmp / "state");
        int failed = 0;
        for (int i = 0; i < k_updates; ++i)
          if (!store.sessions.update("shared-session", [&](SessionState &s) {
                s.injected.push_back(worker_id(w, i));
                ++s.prompts;
              }))
            ++failed;
        code = failed == 0 ? 0 : 1;
      } catch (...) { // the worker fails
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  check_all_ids_once(SessionStore(real_state_disk(), tmp / "state").load("shared-session"),
                     k_workers, k_updates);
}

TEST_CASE("session state: concurrent runs appending to the run log past its bound lose none",
          "[reliability][no-qemu]") {
  TempDir tmp;
  constexpr int k_workers = 6, k_runs = 120;
  std::vector<pid_t> children;
  for (int w = 0; w < k_workers; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int failed = 1;
      try {
        failed = append_worker_runs(tmp / "state", w, k_runs);
      } catch (...) { // the worker fails
      }
      ::_exit(failed == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
  }
  check_last_runs_kept(tmp / "state", k_runs);
}

TEST_CASE("atomic file: a waiter whose lock file was removed under it locks the new one",
          "[reliability][no-qemu]") {
  TempDir tmp;
  const fs::path target = tmp / "data.json", lock = tmp / "data.json.lock";
  const int holder = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  REQUIRE(holder >= 0);
  REQUIRE(::flock(holder, LOCK_EX) == 0);
  std::atomic<bool> waiting{false}, named_while_held{false};
  std::thread waiter([&] {
    waiting = true;
    (void)update_file_locked(
        target,
        [&](const std::string &) {
          named_while_held = fs::exists(lock); // the file the path names, not the removed one
          return std::optional<std::string>("written");
        },
        Durability::saves_work, std::chrono::seconds(5));
  });
  while (!waiting)
    std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(50)); // it opened the lock and waits
  ::unlink(lock.c_str()); // the sweep removes a lock only while holding it
  ::close(holder);
  waiter.join();
  CHECK(read_file(target) == "written");
  CHECK(named_while_held);
}
