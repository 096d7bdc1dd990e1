// Failures that must not break a hook: the debug log's bounds, a child's environment, a write
// through a symbolic link (docs/failures.md). The special files only POSIX has:
// reliability_posix_test.cpp.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "util/detach.hpp"
#include "util/files.hpp"

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

TEST_CASE("log: a debug line given as a callable is built only when debugging", "[reliability]") {
  TempDir tmp;
  Log log("unit-test");
  int built = 0;
  const auto line = [&] {
    ++built;
    return "line " + std::to_string(built);
  };
  CHECK_FALSE(log.debugging());
  log.debug(line);
  CHECK(built == 0);
  log.enable_file(tmp / "hooks.log");
  CHECK(log.debugging());
  log.debug(line);
  CHECK(built == 1);
  CHECK(read_file(tmp / "hooks.log").find("unit-test debug line 1\n") != std::string::npos);
}

TEST_CASE("reliability: a child process's environment has no API key", "[reliability]") {
  std::string entries[] = {"PATH=/usr/bin", "MEM0_API_KEY=m0-secret", "HOME=/home/me",
                           "CLAUDE_PLUGIN_OPTION_API_KEY=m0-plugin", "MEM0_DEBUG=1"};
  char *env[] = {entries[0].data(), entries[1].data(), entries[2].data(),
                 entries[3].data(), entries[4].data(), nullptr};
  const ChildEnvironment child(env);
  std::vector<std::string> seen;
  for (char *const *e = child.get(); *e; ++e)
    seen.emplace_back(*e);
  CHECK(seen == std::vector<std::string>{"PATH=/usr/bin", "HOME=/home/me", "MEM0_DEBUG=1"});
}

TEST_CASE("reliability: the debug log past 1 MiB moves to hooks.log.1, one old file kept",
          "[reliability]") {
  TempDir tmp;
  const fs::path path = tmp / "hooks.log";
  Log log("unit-test");
  log.enable_file(path);
  write_file(path.string() + ".1", "the oldest lines\n");
  write_file(path, std::string((1 << 20) - 10, 'x') + "\n");
  log.debug("the line that fills it");
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::file_size(path.string() + ".1") > (1 << 20)); // the oldest file went
  CHECK(contains(read_file(path.string() + ".1"), "the line that fills it\n"));
  log.debug("a line in the new file");
  CHECK(contains(read_file(path), "a line in the new file\n"));
  CHECK(fs::file_size(path) < 200);
}

// [no-wine]: mingw's std::filesystem cannot make a symbolic link, and wine 8's CreateSymbolicLinkW
// makes none (docs/windows.md#testing-under-wine).
TEST_CASE("reliability: write_file_atomic writes through a symlink, never replaces it",
          "[reliability][no-wine]") {
  TempDir tmp;
  write_file(tmp / "real/data.json", "old");
  fs::permissions(tmp / "real/data.json", static_cast<fs::perms>(0640));
  fs::create_directories(tmp / "links");
  fs::create_symlink("../real/data.json", tmp / "links/hop.json");
  fs::create_symlink("hop.json", tmp / "links/data.json"); // a chain of two links
  REQUIRE(write_file_atomic(tmp / "links/data.json", "new", Durability::durable).has_value());
  CHECK(fs::is_symlink(tmp / "links/data.json"));
  CHECK(read_file(tmp / "real/data.json") == "new");
  CHECK(mode_of(tmp / "real/data.json") == 0640);

  // A dangling link is left alone: no file appears at either end.
  fs::create_symlink(tmp / "gone/data.json", tmp / "links/dangling.json");
  CHECK_FALSE(
      write_file_atomic(tmp / "links/dangling.json", "{}", Durability::durable).has_value());
  CHECK(fs::is_symlink(tmp / "links/dangling.json"));
  CHECK_FALSE(fs::exists(tmp / "gone"));
}
