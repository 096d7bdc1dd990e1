// Project files that are symbolic links are never read (docs/capture.md#project-files). POSIX
// only: a symbolic link needs a privilege on Windows.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/project_files.hpp"
#include "runtime/remember.hpp"
#include "store/outbox.hpp"

#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

const std::string k_secret =
    "## Instructions\n\nDATABASE_URL=postgres://billing:CorrectHorse42@db/b "
    "and a note long enough to be imported as a section of its own.\n";

HookInput start_input(const HookFixture &f) {
  HookInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  return in;
}

} // namespace

TEST_CASE("project files: a symbolic link is never read, inside the project or out", "[start]") {
  HookFixture f;
  const fs::path outside = f.home / "config" / ".env";
  write_file(outside, k_secret);
  write_file(f.project / "notes.md", k_secret);
  REQUIRE(::symlink(outside.c_str(), (f.project / "CLAUDE.md").c_str()) == 0);
  REQUIRE(::symlink("notes.md", (f.project / "AGENTS.md").c_str()) == 0);
  REQUIRE(::symlink(outside.c_str(), (f.project / "mem0.md").c_str()) == 0);
  // A link to nothing is no file either.
  REQUIRE(::symlink((f.home / "missing").c_str(), (f.project / ".cursorrules").c_str()) == 0);

  HookContext ctx = f.context(start_input(f));
  CHECK_FALSE(project_files_changed(ctx, *ctx.facts));
  import_project_files(ctx, *ctx.facts);
  Outbox outbox(f.disk(), f.config.state_dir);
  CHECK(outbox.pending().empty());

  // mem0.md's instructions are not sent with a capture either.
  Capture c;
  c.messages = {{"user", "We keep invoices in integer cents everywhere."}};
  c.type = "decision";
  c.source = "cli";
  c.asked = true;
  REQUIRE(remember_in(f, start_input(f), c));
  REQUIRE(outbox.pending().size() == 1);
  const std::string item = f.read_state(fs::path("outbox") / outbox.pending()[0]);
  CHECK_FALSE(contains(item, "CorrectHorse"));
  CHECK_FALSE(contains(item, "custom_instructions"));

  SECTION("the same files, regular, are read") {
    for (const char *name : {"CLAUDE.md", "mem0.md"}) {
      fs::remove(f.project / name);
      write_file(f.project / name, k_secret);
    }
    HookContext again = f.context(start_input(f));
    CHECK(project_files_changed(again, *again.facts));
    c.messages = {{"user", "We keep invoices in integer cents, always."}};
    REQUIRE(remember_in(f, start_input(f), c));
    CHECK(contains(f.read_state(fs::path("outbox") / outbox.pending().back()),
                   "custom_instructions"));
  }
}
