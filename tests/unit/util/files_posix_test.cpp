// Files of the state directory never follow a symbolic link, an unsafe state directory is told
// apart, and a new file is never written through a link (docs/state.md#state-directory). POSIX
// only: a symbolic link needs a privilege on Windows.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "util/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// A link at `link` to the missing `target`.
void plant(const fs::path &link, const fs::path &target) {
  REQUIRE(::symlink(target.c_str(), link.c_str()) == 0);
}

bool lexists(const fs::path &path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

} // namespace

TEST_CASE("files: appends and locks never follow a link planted at their name") {
  TempDir tmp;
  const fs::path outside = tmp / "outside";
  fs::create_directories(outside);
  int n = 0;
  // A link to a missing file outside: following it would create that file.
  auto planted = [&] {
    const fs::path target = outside / std::to_string(++n);
    const fs::path link = tmp / ("link-" + std::to_string(n));
    plant(link, target);
    return std::pair{link, target};
  };

  const auto [log, log_target] = planted();
  append_log(log, "a line\n", 1 << 20);
  CHECK_FALSE(lexists(log_target));

  const auto [line, line_target] = planted();
  CHECK_FALSE(append_line(line, "a line\n"));
  CHECK_FALSE(lexists(line_target));

  const auto [bounded, bounded_target] = planted();
  CHECK_FALSE(append_bounded(
      bounded, "a line\n", 1 << 20, [](const std::string &s) { return s; }, 100ms));
  CHECK_FALSE(lexists(bounded_target));

  const auto [lock, lock_target] = planted();
  CHECK_FALSE(TryLock(lock).held());
  CHECK_FALSE(lexists(lock_target));

  // update_file_locked's `<file>.lock`.
  const fs::path target = outside / "state.lock";
  plant(tmp / "state.json.lock", target);
  CHECK_FALSE(update_file_locked(
      tmp / "state.json", [](const std::string &) { return "{}"; }, Durability::saves_work, 100ms));
  CHECK_FALSE(lexists(target));
  CHECK_FALSE(fs::exists(tmp / "state.json"));

  // A link to an existing file is not written through either.
  write_file(outside / "kept", "kept\n");
  plant(tmp / "to-kept", outside / "kept");
  CHECK_FALSE(append_line(tmp / "to-kept", "more\n"));
  append_log(tmp / "to-kept", "more\n", 1 << 20);
  CHECK(read_file(outside / "kept") == "kept\n");

  // Regular files work as before.
  CHECK(append_line(tmp / "plain", "a\n"));
  CHECK(append_bounded(
      tmp / "plain", "b\n", 1 << 20, [](const std::string &s) { return s; }, 100ms));
  CHECK(read_file(tmp / "plain") == "a\nb\n");
  CHECK(TryLock(tmp / "plain.lock").held());
}

TEST_CASE("files: read_small_file with Links::refuse reads no link") {
  TempDir tmp;
  write_file(tmp / "secret.env", "DATABASE_URL=postgres://u:p@db/x\n");
  plant(tmp / "CLAUDE.md", tmp / "secret.env");
  CHECK(read_small_file(tmp / "CLAUDE.md").has_value());
  CHECK_FALSE(read_small_file(tmp / "CLAUDE.md", 1 << 20, Links::refuse).has_value());
  CHECK(read_small_file(tmp / "secret.env", 1 << 20, Links::refuse).has_value());
}

TEST_CASE("files: a state directory of another user, or writable by others, is unsafe") {
  TempDir tmp;
  const fs::path dir = tmp / "state";
  CHECK_FALSE(unsafe_dir_problem(dir)); // missing: it is created private
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0700);
  CHECK_FALSE(unsafe_dir_problem(dir));
  ::chmod(dir.c_str(), 0755);
  CHECK_FALSE(unsafe_dir_problem(dir));
  ::chmod(dir.c_str(), 0777);
  const auto writable = unsafe_dir_problem(dir);
  REQUIRE(writable);
  CHECK(*writable == "state directory " + dir.string() + " is writable by others");
  ::chmod(dir.c_str(), 0700);
  if (::geteuid() == 0) { // giving it away needs root
    REQUIRE(::chown(dir.c_str(), 65534, 65534) == 0);
    const auto theirs = unsafe_dir_problem(dir);
    REQUIRE(theirs);
    CHECK(contains(*theirs, "is owned by another user"));
  }
}

TEST_CASE("files: write_new_file creates, replaces only when asked, and never through a link") {
  TempDir tmp;
  CHECK(write_new_file(tmp / "out.jsonl", "one\n", false));
  CHECK(read_file(tmp / "out.jsonl") == "one\n");
  CHECK_FALSE(write_new_file(tmp / "out.jsonl", "two\n", false));
  CHECK(read_file(tmp / "out.jsonl") == "one\n");
  CHECK(write_new_file(tmp / "out.jsonl", "two\n", true));
  CHECK(read_file(tmp / "out.jsonl") == "two\n");
  struct stat st {};
  REQUIRE(::stat((tmp / "out.jsonl").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  plant(tmp / "dangling", tmp / "created-elsewhere");
  for (const bool replace : {false, true}) {
    CHECK_FALSE(write_new_file(tmp / "dangling", "x\n", replace));
    CHECK_FALSE(lexists(tmp / "created-elsewhere"));
  }
  write_file(tmp / "target", "kept\n");
  plant(tmp / "to-target", tmp / "target");
  for (const bool replace : {false, true})
    CHECK_FALSE(write_new_file(tmp / "to-target", "x\n", replace));
  CHECK(read_file(tmp / "target") == "kept\n");
  CHECK(fs::is_symlink(tmp / "to-target"));
  fs::create_directories(tmp / "a-dir");
  CHECK_FALSE(write_new_file(tmp / "a-dir", "x\n", true));
}
