// Detaching on POSIX: fork + setsid, the work in a session of its own with its output on
// /dev/null (Windows starts the sender as a process of its own instead; docs/windows.md).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "util/detach.hpp"

#include <chrono>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

TEST_CASE("detach: the work runs in another session with no terminal, the caller does not wait",
          "[capture][no-qemu]") {
  TempDir tmp;
  const fs::path out = tmp / "worker.txt";
  const auto started = SteadyClock::now();
  REQUIRE(run_detached({.work = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // Standard output is /dev/null when it is the same file (no /proc on macOS).
    struct stat fd1 {
    }, null{};
    const bool to_null = ::fstat(1, &fd1) == 0 && ::stat("/dev/null", &null) == 0 &&
                         fd1.st_dev == null.st_dev && fd1.st_ino == null.st_ino;
    write_file(out, std::to_string(::getsid(0)) + (to_null ? " /dev/null" : " elsewhere"));
  }}));
  CHECK(SteadyClock::now() - started < std::chrono::milliseconds(250));
  for (int i = 0; i < 300 && !fs::exists(out); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(out));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string seen = read_file(out);
  CHECK(seen.find(std::to_string(::getsid(0)) + " ") != 0);
  CHECK(contains(seen, "/dev/null"));
}

TEST_CASE("detach: the work leaves the caller's directory for its own once prepared",
          "[capture][no-qemu]") {
  TempDir tmp;
  const fs::path project = tmp / "project";
  const fs::path state = tmp / "state";
  fs::create_directories(project);
  fs::create_directories(state);
  const fs::path before = fs::current_path();
  fs::current_path(project); // the agent runs the hook in the project
  const auto where = [] {
    std::error_code ec;
    return fs::current_path(ec).string();
  };
  const fs::path prepared = tmp / "prepared.txt", worked = tmp / "worked.txt";
  DetachedWork work{
      [&] { write_file(prepared, where()); }, [&] { write_file(worked, where()); }, {}, state};
  const auto started = run_detached(work);
  fs::current_path(before);
  REQUIRE(started);
  for (int i = 0; i < 300 && !fs::exists(worked); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(worked));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(fs::equivalent(read_file(prepared), project));
  CHECK(fs::equivalent(read_file(worked), state));
}
