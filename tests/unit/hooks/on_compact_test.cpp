// The compaction capture (hooks/on_compact, docs/capture.md).
#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_compact/on_compact.hpp"
#include "store/outbox.hpp"

using namespace mem0;
using namespace mem0::testing;

TEST_CASE("on_compact: the summary, once per content", "[capture]") {
  HookFixture f;
  CompactInput in;
  in.session_id = "s";
  in.cwd = f.project.string();
  in.compact_summary = long_text("Summary of the work on the billing module.");
  CHECK(handled(on_compact::handle, in, f).context.empty());
  CHECK(handled(on_compact::handle, in, f).context.empty());
  Outbox outbox(f.disk(), f.config.state_dir);
  REQUIRE(outbox.pending().size() == 1);
  CHECK(contains(platform_body(outbox.load(outbox.pending()[0])), R"("type":"compact_summary")"));
  in.compact_summary = "short";
  handled(on_compact::handle, in, f);
  CHECK(outbox.pending().size() == 1);

  SECTION("the model's scratchpad is left out, the summary kept") {
    in.compact_summary = "<analysis>Thinking about what matters: " + long_text("scratch") +
                         "</analysis>\n\n<summary>" + long_text("The billing work is done.") +
                         "</summary>";
    handled(on_compact::handle, in, f);
    REQUIRE(outbox.pending().size() == 2);
    const auto body = json_of(platform_body(outbox.load(outbox.pending()[1])));
    const std::string stored = body["messages"][0]["content"].GetString();
    CHECK(stored.starts_with("The billing work is done."));
    CHECK_FALSE(contains(stored, "scratch"));
    CHECK_FALSE(contains(stored, "summary>"));
  }
  CHECK(f.http.requests.empty());
}
