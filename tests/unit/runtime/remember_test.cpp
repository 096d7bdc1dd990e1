// The capture pipeline (runtime/remember.cpp, docs/capture.md): cleaning and redacting the text,
// the item it queues (identity, roles, metadata, team memory), and what a capture path cuts.
#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "hooks/on_compact/on_compact.hpp"
#include "hooks/on_stop/on_stop.hpp"
#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "mem0/dialect.hpp"
#include "mem0/identity.hpp"
#include "runtime/remember.hpp"
#include "runtime/sender.hpp"
#include "store/outbox.hpp"
#include "util/utf8.hpp"

#include <chrono>
#include <thread>

using namespace mem0;
using namespace mem0::testing;
using std::chrono::hours;
using std::chrono::seconds;

TEST_CASE("capture text: wrapper tags go with what they wrap, secrets are redacted", "[capture]") {
  CHECK(prepare_capture_text("keep <system-reminder>drop\nthis</system-reminder> this", true) ==
        "keep  this");
  CHECK(prepare_capture_text("a <private>secret plan</private> b <PRIVATE>x</PRIVATE>", true) ==
        "a  b");
  CHECK(prepare_capture_text("a <private>never closed", true) == "a");
  CHECK(prepare_capture_text("nested <private>1 <private>2</private> 3</private> out", true) ==
        "nested  out");
  CHECK(prepare_capture_text("stray </private> closing", true) == "stray  closing");
  CHECK(prepare_capture_text("<command-name>/clear</command-name>", true).empty());
  CHECK(prepare_capture_text("a <b>bold</b> tag", true) == "a <b>bold</b> tag");
  const std::string key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
  CHECK_FALSE(contains(prepare_capture_text("use " + key + " here", true), key));
  CHECK(contains(prepare_capture_text("use " + key + " here", false), key));
}

TEST_CASE("remember: the item carries the identity, real roles and metadata, never a run_id",
          "[capture]") {
  HookFixture f;
  f.set_env("MEM0_TEAM_MEMORY", "off"); // the user's own lane, as before team memory
  write_file(f.project / "mem0.md",
             "# Notes\n\n## Instructions\nKeep only decisions.\n\n## Other\nx\n");
  StopInput in = stop_input(f, "");
  Capture c;
  c.messages = {{"user", "we picked postgres <private>pw hunter2</private>"},
                {"assistant", "noted: postgres"}};
  c.type = "auto_capture";
  c.source = "auto_capture";
  REQUIRE(remember_in(f, in, c).has_value());
  Outbox outbox(f.disk(), f.config.state_dir);
  REQUIRE(outbox.pending().size() == 1);
  const auto body = json_of(platform_body(outbox.load(outbox.pending()[0])));
  CHECK(std::string(body["user_id"].GetString()) == "alice");
  CHECK(std::string(body["app_id"].GetString()) == "proj");
  CHECK_FALSE(body.HasMember("run_id"));
  CHECK(std::string(body["messages"][0]["role"].GetString()) == "user");
  CHECK(std::string(body["messages"][0]["content"].GetString()) == "we picked postgres");
  CHECK(std::string(body["messages"][1]["role"].GetString()) == "assistant");
  CHECK(std::string(body["metadata"]["type"].GetString()) == "auto_capture");
  CHECK(std::string(body["metadata"]["session_id"].GetString()) == "session-1");
  CHECK(std::string(body["metadata"]["agent"].GetString()) == "claude-code");
  CHECK(std::string(body["custom_instructions"].GetString()) == "Keep only decisions.");
  CHECK(body["infer"].IsTrue());
  CHECK_FALSE(contains(f.read_state(fs::path("outbox") / outbox.pending()[0]), "hunter2"));

  SECTION("the same text again is not queued twice") {
    CHECK(error_kind(remember_in(f, in, c)) == ErrorKind::duplicate);
  }
  SECTION("the same text for another server or backend is queued for it") {
    f.set_env("MEM0_BASE_URL", "http://127.0.0.1:1");
    CHECK(remember_in(f, in, c).has_value());
    f.set_env("MEM0_BACKEND", "selfhosted");
    CHECK(remember_in(f, in, c).has_value());
    CHECK(error_kind(remember_in(f, in, c)) == ErrorKind::duplicate);
    CHECK(outbox.pending().size() == 3);
  }
  SECTION("capture off, or no key, queues nothing") {
    f.set_env("MEM0_AUTO_SAVE", "false");
    CHECK(error_kind(remember_in(f, in, c)) == ErrorKind::disabled);
    Capture asked = c;
    asked.messages = {{"user", "Asked for: keep invoices in integer cents"}};
    asked.asked = true;
    CHECK(remember_in(f, in, asked)); // remember / add_memory: capture off is no bar
    f.unset_env("MEM0_AUTO_SAVE");
    f.unset_env("MEM0_API_KEY");
    CHECK(error_kind(remember_in(f, in, c)) == ErrorKind::no_key);
  }
  SECTION("nothing left after stripping") {
    Capture empty;
    empty.messages = {{"user", "<private>all of it</private>"}};
    CHECK(error_kind(remember_in(f, in, empty)) == ErrorKind::empty);
  }
}

TEST_CASE("remember: team memory sends 0.3's add fields; --team and --personal choose",
          "[capture][team]") {
  HookFixture f;
  write_file(f.project / "mem0.md", "## Instructions\nKeep only decisions.\n");
  write_file(f.project / ".git/HEAD", "ref: refs/heads/main\n"); // the root of `dirs`
  const std::string head = "3f5e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f";
  write_file(f.project / ".git/refs/heads/main", head + "\n");
  fs::create_directories(f.project / "src" / "api");
  StopInput in = stop_input(f, "");
  in.cwd = (f.project / "src" / "api").string();
  Capture c;
  c.messages = {{"assistant", "the api answers in integer cents"}};
  c.type = "auto_capture";
  c.source = "auto_capture";
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto last_body = [&] {
    return json_of(platform_body(outbox.load(outbox.pending().back())));
  };
  const std::string shared = shared_agent_id("proj", f.project / "src" / "api");

  REQUIRE(remember_in(f, in, c).has_value());
  auto body = last_body();
  CHECK(std::string(body["agent_id"].GetString()) == shared);
  CHECK(std::string(body["user_id"].GetString()) == "alice");
  CHECK(std::string(body["app_id"].GetString()) == "proj");
  CHECK(std::string(body["run_id"].GetString()) == "session-1");
  CHECK(std::string(body["metadata"]["author"].GetString()) == "alice");
  REQUIRE(body["metadata"]["dirs"].IsArray());
  REQUIRE(body["metadata"]["dirs"].Size() == 2);
  CHECK(std::string(body["metadata"]["dirs"][0].GetString()) == "src");
  CHECK(std::string(body["metadata"]["dirs"][1].GetString()) == "src/api");
  CHECK(std::string(body["metadata"]["type"].GetString()) == "auto_capture");
  CHECK(std::string(body["metadata"]["branch"].GetString()) == "main");
  CHECK(std::string(body["metadata"]["git_sha"].GetString()) == head);
  REQUIRE(body["custom_categories"].IsArray());
  REQUIRE(body["custom_categories"].Size() == 5);
  CHECK(body["custom_categories"][1].HasMember("decisions_and_constraints"));
  CHECK(contains(body["custom_instructions"].GetString(), "about the user"));
  CHECK(contains(body["agent_custom_instructions"].GetString(), "about this repository"));
  CHECK(std::string(body["agent_custom_instructions"].GetString())
            .ends_with("\n\nKeep only decisions."));

  SECTION("--team: the shared lane only; --personal: the user's own") {
    Capture team = c;
    team.messages = {{"user", "every endpoint answers in cents"}};
    team.team = true;
    REQUIRE(remember_in(f, in, team).has_value());
    body = last_body();
    CHECK(std::string(body["agent_id"].GetString()) == shared);
    CHECK_FALSE(body.HasMember("user_id"));
    Capture personal = c;
    personal.messages = {{"user", "alice reviews in the mornings"}};
    personal.team = false;
    REQUIRE(remember_in(f, in, personal).has_value());
    body = last_body();
    CHECK_FALSE(body.HasMember("agent_id"));
    CHECK_FALSE(body.HasMember("run_id"));
    CHECK_FALSE(body.HasMember("custom_categories"));
    CHECK(std::string(body["custom_instructions"].GetString()) == "Keep only decisions.");
  }
  SECTION("off: today's body") {
    f.set_env("MEM0_TEAM_MEMORY", "off");
    c.messages = {{"user", "another text"}};
    REQUIRE(remember_in(f, in, c).has_value());
    body = last_body();
    CHECK_FALSE(body.HasMember("agent_id"));
    CHECK_FALSE(body["metadata"].HasMember("author"));
    CHECK_FALSE(body["metadata"].HasMember("git_sha"));
  }
  SECTION("self-hosted: only --team writes the shared lane, the project as agent_id") {
    f.set_env("MEM0_BACKEND", "selfhosted");
    c.messages = {{"user", "a third text"}};
    REQUIRE(remember_in(f, in, c).has_value());
    const auto own = outbox.load(outbox.pending().back());
    REQUIRE(own);
    CHECK(own->add.team.agent_id.empty());
    Capture team = c;
    team.messages = {{"user", "a fourth text"}};
    team.team = true;
    REQUIRE(remember_in(f, in, team).has_value());
    const auto item = outbox.load(outbox.pending().back());
    REQUIRE(item);
    CHECK(item->add.team.agent_id == "proj");
    CHECK(item->add.team.shared_only);
    const auto sent = json_of(selfhosted_dialect().add_body(item->add));
    CHECK_FALSE(sent.HasMember("user_id"));
    CHECK(std::string(sent["agent_id"].GetString()) == "proj");
    CHECK_FALSE(sent.HasMember("custom_categories"));
  }
}

TEST_CASE("remember: an outbox that cannot be written loses the capture loudly, never the hook",
          "[capture]") {
  HookFixture f;
  // A file where the outbox directory belongs: every write fails, as on a full or broken disk
  // (root ignores permission bits, so a read-only directory would not do in CI).
  f.write_state("outbox", "not a directory");
  Capture c;
  c.messages = {{"assistant", long_text("A capture that cannot be stored.")}};
  c.type = "session_summary";
  CHECK(error_kind(remember_in(f, stop_input(f, ""), c)) == ErrorKind::io);
  CHECK(handled(on_stop::handle, stop_input(f, long_text("Nothing to store it in.")), f)
            .context.empty());
  CHECK(send_round(f.context()).delivered == 0);
  CHECK(f.http.requests.empty());
}

TEST_CASE("prepare_capture_text removes a wrapper block that removing another one forms") {
  const std::string text =
      "Summary text <sys<private>x</private>tem-reminder>SECRET-INJECTED</system-reminder> end";
  // Once `<private>x</private>` is gone the pieces around it form `<system-reminder>`, whose
  // block runs to its closing tag.
  const std::string out = prepare_capture_text(text, false);
  CHECK_FALSE(contains(out, "SECRET"));
  CHECK_FALSE(contains(out, "reminder"));
  CHECK(out.starts_with("Summary text"));
  CHECK(prepare_capture_text("a <pri<private>x</private>vate>b</private> c <private>d", false) ==
        "a  c");
  // A closing tag holds no `<`: it never swallows the opening tag after it.
  CHECK(prepare_capture_text("a </private b <private>SECRET</private> c", false) ==
        "a </private b  c");
  CHECK(prepare_capture_text("a <private x<y>SECRET</private> c", false) == "a  c");
}

TEST_CASE("prepare_capture_text is linear on a 2 MB input", "[capture][no-qemu]") {
  struct Unit {
    const char *name;
    std::string text;
  };
  // Each repeated to 2 MB: tags without their `>`, unclosed and nested blocks, blocks whose
  // removal forms another tag, and look-alikes. (A stripper that looks for each tag's `>` from
  // the tag took over 8 s on some of them.)
  const std::vector<Unit> units = {
      {"opening tags never closed", "<private "},
      {"opening tags, nothing between", "<private"},
      {"opening tags, no `>` anywhere", "<system-reminder"},
      {"nested blocks", "<private>"},
      {"stray closing tags", "</private>"},
      {"a block that forms another", "<sys<private>x</private>tem-reminder>"},
      {"a name cut by a block", "<pri<private>x</private>"},
      {"angle brackets", "<<>>"},
      {"other tags", "<b>x</b> "},
      {"a tag among words", "words <private a=1 b=2 words"},
      {"closing tags without `>`", "</private"},
  };
  constexpr std::size_t size = 2 * 1024 * 1024;
  for (const auto &unit : units) {
    INFO(unit.name);
    const std::string text = repeated(unit.text, size) + " <private>SECRET</private> end";
    for (const bool redact : {false, true})
      REQUIRE(finishes_within(
          [&] { return !contains(prepare_capture_text(text, redact, size * 2), "SECRET"); },
          std::chrono::seconds(5)));
  }
}

TEST_CASE("every capture path cuts a long text before it prepares it", "[capture][no-qemu]") {
  HookFixture f;
  // 400 KB whose every `<` opens a wrapper tag that never closes: slow to strip whole, and
  // nothing of it is kept past the bound anyway.
  const std::string reply =
      long_text("We moved the retry logic into the worker.") + repeated("<private ", 400 * 1024);
  const auto bounded = [](const std::string &stored, std::size_t max) {
    return code_points(stored) <= max + 1 && stored.ends_with("\xE2\x80\xA6");
  };

  SECTION("Stop") {
    REQUIRE(finishes_within(
        [&] { return on_stop::summary_capture(stop_input(f, reply), f.config, f.now).has_value(); },
        std::chrono::seconds(2)));
    const auto c = on_stop::summary_capture(stop_input(f, reply), f.config, f.now);
    REQUIRE(c);
    CHECK(bounded(c->messages[0].content, on_stop::k_max_chars));
  }
  SECTION("compact") {
    CompactInput in;
    in.session_id = "s";
    in.cwd = f.project.string();
    in.compact_summary = reply;
    REQUIRE(finishes_within(
        [&] {
          on_compact::handle(in, f.context());
          return true;
        },
        std::chrono::seconds(2)));
  }
  SECTION("remember, the memory tools and import: a memory asked for") {
    Capture c;
    c.messages = {{"user", reply}};
    c.type = "decision";
    c.source = "cli";
    c.asked = true;
    REQUIRE(finishes_within([&] { return remember(f.context(), stop_input(f, ""), c).has_value(); },
                            std::chrono::seconds(2)));
    // Windows runs the timed call in a thread of this process, so its capture is queued here
    // already and this one is its duplicate; POSIX ran it in a child, and this one queues it.
    (void)remember(f.context(), stop_input(f, ""), c);
    Outbox outbox(f.disk(), f.config.state_dir);
    REQUIRE(outbox.pending().size() == 1);
    CHECK(bounded(first_content(platform_body(outbox.load(outbox.pending()[0]))),
                  k_max_capture_chars));
  }
}

TEST_CASE("prepare_capture_text never keeps half of a word it cuts", "[capture]") {
  const std::string key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
  const std::string text = std::string(90, 'a') + " see " + key + " here";
  // The cut falls inside the key: the key goes whole, not its first half unredacted.
  const std::string out = prepare_capture_text(text, true, 110);
  CHECK(out == std::string(90, 'a') + " see\xE2\x80\xA6");
  CHECK(prepare_capture_text("short text", true, 110) == "short text");
  // One word of less than 4 KB before the cut goes whole; a longer one is cut where it is.
  CHECK(prepare_capture_text(std::string(300, 'x'), true, 100).empty());
  CHECK(prepare_capture_text(std::string(5000, 'x') + " tail", true, 4500) ==
        std::string(4500, 'x') + "\xE2\x80\xA6");
}

TEST_CASE("remember: another agent's capture names the agent and keys its session apart",
          "[capture][agents]") {
  HookFixture f;
  Agent other = claude_code();
  other.name = "other-agent";
  const HookContext ctx = f.context(stop_input(f, ""), other);
  Capture c;
  c.messages = {{"assistant", "we keep migrations in db/migrate and never edit an applied one"}};
  c.type = "session_summary";
  c.source = "stop";
  REQUIRE(remember(ctx, *ctx.facts, c).has_value());
  Outbox outbox(f.disk(), f.config.state_dir);
  REQUIRE(outbox.pending().size() == 1);
  const auto body = json_of(platform_body(outbox.load(outbox.pending()[0])));
  CHECK(std::string(body["metadata"]["agent"].GetString()) == "other-agent");
  // Same user and project as Claude Code's captures: one memory across agents.
  CHECK(std::string(body["user_id"].GetString()) == "alice");
  CHECK(std::string(body["app_id"].GetString()) == "proj");
  CHECK(std::string(body["metadata"]["session_id"].GetString()) == "other-agent-session-1");
}
