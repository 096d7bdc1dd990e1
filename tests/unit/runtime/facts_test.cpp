// A run's facts (docs/contributing.md#a-runs-facts): each computed once, on first use.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/identity.hpp"
#include "runtime/facts.hpp"

using namespace mem0;
using namespace mem0::testing;

namespace {

// A checkout with an origin remote under the fixture's home.
fs::path make_checkout(HookFixture &f, const std::string &name, const std::string &origin) {
  const fs::path repo = f.home / name;
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(repo / ".git/config", "[remote \"origin\"]\n\turl = " + origin + "\n");
  return repo;
}

HookInput input_in(const fs::path &cwd, std::string session = "s-1") {
  HookInput in;
  in.cwd = cwd.string();
  in.session_id = std::move(session);
  return in;
}

} // namespace

TEST_CASE("facts: where and who, as the resolvers say, computed once", "[facts]") {
  HookFixture f;
  f.unset_env("MEM0_PROJECT_ID");
  const fs::path repo = make_checkout(f, "billing", "git@github.com:acme/billing.git");
  const HookContext ctx = f.context();
  RunFacts &facts = ctx.facts->bind(input_in(repo / "src"));

  CHECK(facts.session() == "s-1");
  CHECK(facts.cwd() == repo / "src");
  REQUIRE(facts.repo());
  CHECK(facts.repo()->top == repo);
  CHECK(facts.project_root() == repo);
  CHECK(facts.branch() == "main");
  CHECK(facts.origin() == "git@github.com:acme/billing.git");
  CHECK(facts.project_id() ==
        resolve_project_id(f.config, f.env, repo / "src", Log("unit-test")).id);
  const Identity searching =
      project_identity(f.config, f.env, repo / "src", "s-1", Log("unit-test"));
  CHECK(facts.search_identity().shared_agent_id == searching.shared_agent_id);
  CHECK(facts.search_identity().project_id == searching.project_id);
  CHECK(facts.identity().shared_agent_id.empty()); // writes keep the user's own layout

  // Later changes on disk are not seen again in this run.
  write_file(repo / ".git/config", "[remote \"origin\"]\n\turl = git@github.com:acme/other.git\n");
  write_file(repo / ".git/HEAD", "ref: refs/heads/next\n");
  CHECK(facts.origin() == "git@github.com:acme/billing.git");
  CHECK(facts.branch() == "main");

  SECTION("binding the same input again keeps them") {
    CHECK(ctx.facts->bind(input_in(repo / "src")).branch() == "main");
  }
  SECTION("another working directory or session forgets them") {
    CHECK(ctx.facts->bind(input_in(repo / "src", "s-2")).branch() == "next");
    CHECK(facts.session() == "s-2");
  }
  SECTION("a new run reads them afresh") {
    CHECK(f.context().facts->bind(input_in(repo)).origin() == "git@github.com:acme/other.git");
  }
}

TEST_CASE("facts: the back-off, today's counts and the outbox as the run first found them",
          "[facts]") {
  HookFixture f;
  const HookContext ctx = f.context();
  RunFacts &facts = *ctx.facts;
  REQUIRE(facts.api());
  CHECK(facts.api()->server_key() == server_of(f.config));
  CHECK_FALSE(facts.backoff());
  CHECK(facts.usage_today().searches == 0);
  CHECK_FALSE(facts.outbox_has_pending());

  REQUIRE(f.store().backoff.record_outcome(f.now, server_of(f.config),
                                           BackoffStore::Outcome::rate_limited));
  REQUIRE(f.store().usage.add(f.today(), {3, 1}));
  CHECK_FALSE(facts.backoff());
  CHECK(facts.usage_today().searches == 0);

  facts.note_queued();
  CHECK(facts.outbox_has_pending()); // what the run itself queued counts

  const HookContext next = f.context();
  CHECK(next.facts->backoff());
  CHECK(next.facts->usage_today().searches == 3);
  CHECK(next.facts->usage_today().adds == 1);
}

TEST_CASE("facts: without a target there is no pause to consult", "[facts]") {
  HookFixture f;
  f.unset_env("MEM0_API_KEY");
  const HookContext ctx = f.context();
  CHECK_FALSE(ctx.facts->api());
  CHECK_FALSE(ctx.facts->backoff());
}
