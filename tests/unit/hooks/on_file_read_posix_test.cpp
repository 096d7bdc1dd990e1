// on_file_read with what only POSIX has: FIFOs and /dev/null where a source file is expected,
// beside symbolic links (the rest: on_file_read_test.cpp).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_file_read/on_file_read.hpp"

#include <sys/stat.h>

using namespace mem0;
using namespace mem0::testing;
namespace ofr = mem0::on_file_read;
namespace fs = std::filesystem;

namespace {

fs::path source_file(const fs::path &path, std::size_t size = 2000) {
  write_file(path, std::string(size, 'x'));
  return path;
}

// What on_file_read adds to the context for a Read of `file`.
std::string read(HookFixture &f, const fs::path &file) {
  ToolInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  in.hook_event_name = "PreToolUse";
  in.tool_name = "Read";
  in.tool = ToolKind::read;
  in.file_path = file.string();
  return handled(ofr::handle, in, f).context;
}

} // namespace

TEST_CASE("on_file_read: stat_file gates whatever is not a regular file") {
  TempDir tmp;
  fs::create_directories(tmp / "dir.py");
  REQUIRE(::mkfifo((tmp / "pipe.py").c_str(), 0600) == 0);
  fs::create_symlink(tmp / "missing.py", tmp / "dangling.py");
  fs::create_symlink(tmp / "loop-b.py", tmp / "loop-a.py");
  fs::create_symlink(tmp / "loop-a.py", tmp / "loop-b.py");
  for (const char *name : {"dir.py", "pipe.py", "dangling.py", "loop-a.py", "missing.py"}) {
    CAPTURE(name);
    const auto v = ofr::stat_file(tmp / name);
    CHECK_FALSE(v.gated.empty());
    CHECK(v.version.empty());
  }
  CHECK_FALSE(ofr::stat_file("/dev/null").gated.empty());
}

TEST_CASE("on_file_read: small files and non-regular files send nothing") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "would be shown")});
  const fs::path dir = f.project / "src";
  source_file(dir / "small.py", 1499);
  fs::create_directories(dir / "package.py");
  REQUIRE(::mkfifo((dir / "fifo.py").c_str(), 0600) == 0);
  fs::create_symlink(dir / "gone.py", dir / "dangling.py");
  fs::create_symlink(dir / "loop2.py", dir / "loop1.py");
  fs::create_symlink(dir / "loop1.py", dir / "loop2.py");
  for (const char *name :
       {"small.py", "package.py", "fifo.py", "dangling.py", "loop1.py", "gone.py"}) {
    CAPTURE(name);
    CHECK(read(f, dir / name).empty());
  }
  CHECK(f.http.requests.empty());
}
