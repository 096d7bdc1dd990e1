// The state disk's contract (store/disk.hpp), checked on the real disk and on the unit tests'
// in-memory one alike: what the tests run on in memory behaves as the disk does.
#include "tests/unit/catch.hpp"
#include "tests/unit/store/memory_disk.hpp"
#include "tests/unit/test_support.hpp"

#include "store/disk.hpp"

#include <algorithm>

using namespace mem0;
using namespace mem0::testing;
using std::chrono::milliseconds;

namespace {

std::vector<std::string> names_in(const StateDisk &disk, const fs::path &dir) {
  std::vector<std::string> names;
  for (const auto &entry : disk.list(dir))
    names.push_back(entry.name + (entry.file ? "" : "/"));
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace

TEST_CASE("state disk: the real and the in-memory disk keep the same contract", "[disk]") {
  TempDir tmp;
  MemoryDisk memory;
  const bool real = GENERATE(true, false);
  CAPTURE(real);
  StateDisk &disk = real ? real_state_disk() : static_cast<StateDisk &>(memory);
  const fs::path dir = tmp / "state";

  // A write needs its directory; make_dir makes it and its parents.
  CHECK_FALSE(disk.write(dir / "a.json", "{}", Durability::saves_work));
  CHECK_FALSE(disk.exists(dir));
  REQUIRE(disk.make_dir(dir / "sessions"));
  REQUIRE(disk.write(dir / "a.json", "{}", Durability::durable));
  CHECK(disk.read(dir / "a.json", 100) == "{}");
  CHECK_FALSE(disk.read(dir / "a.json", 1)); // over the bound
  CHECK_FALSE(disk.read(dir / "missing.json", 100));
  CHECK(disk.size(dir / "a.json") == 2u);
  CHECK(disk.modified(dir / "a.json").has_value());
  CHECK_FALSE(disk.size(dir / "sessions")); // no regular file

  // A file where a directory should be.
  CHECK_FALSE(disk.make_dir(dir / "a.json" / "sub"));

  // A locked update: the lock file stays, an unchanged content is not written.
  REQUIRE(disk.update_locked(
      dir / "a.json", [](const std::string &s) { return std::optional(s + "x"); },
      Durability::saves_work, milliseconds(0)));
  CHECK(disk.read(dir / "a.json", 100) == "{}x");
  CHECK(names_in(disk, dir) == std::vector<std::string>{"a.json", "a.json.lock", "sessions/"});

  {
    // Held by another holder: the update gives up with a timeout, the unheld removal refuses.
    const auto held = disk.try_lock(dir / "a.json.lock");
    REQUIRE(held->held());
    CHECK_FALSE(disk.try_lock(dir / "a.json.lock")->held());
    const auto busy = disk.update_locked(
        dir / "a.json", [](const std::string &) { return std::optional<std::string>("y"); },
        Durability::saves_work, milliseconds(0));
    CHECK(error_kind(busy) == ErrorKind::timeout);
    CHECK_FALSE(disk.remove_unheld_lock(dir / "a.json.lock"));
  }
  CHECK(disk.remove_unheld_lock(dir / "a.json.lock"));
  CHECK_FALSE(disk.exists(dir / "a.json.lock"));
  CHECK(disk.read(dir / "a.json", 100) == "{}x");

  // Appends, a bounded append that shrinks past its bound, a marker made once.
  CHECK_FALSE(disk.append_line(dir / "none" / "log", "1\n"));
  REQUIRE(disk.append_line(dir / "log", "1\n"));
  REQUIRE(disk.append_line(dir / "log", "2\n"));
  CHECK(disk.read(dir / "log", 100) == "1\n2\n");
  const auto keep_last = [](const std::string &s) { return s.substr(s.size() - 2); };
  REQUIRE(disk.append_bounded(dir / "log", "3\n", 3, keep_last, milliseconds(0)));
  CHECK(disk.read(dir / "log", 100) == "2\n3\n");
  CHECK(disk.create_marker(dir / ".marker"));
  CHECK_FALSE(disk.create_marker(dir / ".marker"));
  CHECK_FALSE(disk.create_marker(dir / "none" / ".marker"));

  disk.remove(dir / "log");
  disk.remove(dir / "log"); // missing: nothing
  CHECK_FALSE(disk.exists(dir / "log"));
  CHECK(names_in(disk, dir) == std::vector<std::string>{".marker", "a.json", "sessions/"});
  CHECK(names_in(disk, dir / "missing").empty());
}
