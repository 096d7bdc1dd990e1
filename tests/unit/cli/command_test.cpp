// The CLI's table of commands (cli/cli.cpp): each row carries its handler and arity, dispatch is a
// lookup, an unknown command is a usage error.
#include "tests/unit/catch.hpp"
#include "tests/unit/cli/cli_home.hpp"

#include "cli/command.hpp"

#include <set>
#include <string>

using namespace mem0;
using namespace mem0::testing;

TEST_CASE("cli table: every row has a name, a summary and a handler, once", "[cli][table]") {
  std::set<std::string_view> names;
  REQUIRE_FALSE(cli::commands().empty());
  for (const auto &c : cli::commands()) {
    INFO(c.name);
    CHECK_FALSE(c.name.empty());
    CHECK_FALSE(c.summary.empty());
    CHECK(c.run != nullptr);
    CHECK(c.words.min <= c.words.max);
    CHECK(names.insert(c.name).second);
    CHECK(cli::find_command(c.name) == &c);
  }
  for (const char *name :
       {"peek", "context", "doctor", "install", "uninstall", "mcp", "remember", "forget", "pause",
        "resume", "log", "tour", "export", "import", "stats", "pin", "unpin", "dream"})
    CHECK(names.count(name) == 1);
}

TEST_CASE("cli table: an unknown command is a usage error and runs nothing", "[cli][table]") {
  CliHome cli;
  CHECK(cli.run({"instal"}) == cli::k_usage);
  CHECK(cli.err.str() == "mem0-hooks: unknown command 'instal' (see mem0-hooks --help)\n");
  CHECK(cli.out.str().empty());
  CHECK(cli.f.http.requests.empty());
  // Nothing installed: the fallback of an if-chain would have written Claude Code's settings.
  CHECK_FALSE(std::filesystem::exists(cli.f.home / ".claude/settings.json"));
  CHECK(cli::find_command("instal") == nullptr);
}

TEST_CASE("cli table: the arity of a row is checked before its handler runs", "[cli][table]") {
  CliHome cli;
  SECTION("a command without words") {
    CHECK(cli.run({"tour", "everything"}) == cli::k_usage);
    CHECK(cli.err.str() == "mem0-hooks tour: unexpected argument 'everything'\n");
  }
  SECTION("a command of one word, none given") {
    CHECK(cli.run({"import"}) == cli::k_usage);
    CHECK(cli.err.str() == "mem0-hooks import: missing argument (usage: mem0-hooks import FILE)\n");
  }
  SECTION("a command of one word, two given") {
    CHECK(cli.run({"import", "a.jsonl", "b.jsonl"}) == cli::k_usage);
    CHECK(cli.err.str() == "mem0-hooks import: unexpected argument 'b.jsonl'\n");
  }
  CHECK(cli.f.http.requests.empty());
}

TEST_CASE("cli table: --help lists every row, and each row's help names its usage",
          "[cli][table]") {
  CliHome cli;
  REQUIRE(cli.run({"--help"}) == cli::k_ok);
  const std::string help = cli.out.str();
  for (const auto &c : cli::commands())
    CHECK(help.find("  " + std::string(c.name) + " ") != std::string::npos);
  REQUIRE(cli.run({"export", "--help"}) == cli::k_ok);
  CHECK(cli.out.str().starts_with("usage: mem0-hooks export [--output FILE [--force]] [--scope "
                                  "project|session|global]\n"));
}
