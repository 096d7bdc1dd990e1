// The write path (docs/capture.md): outbox, the capture pipeline, the sender and detaching.
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
#include "util/detach.hpp"
#include "util/utf8.hpp"

#include <chrono>
#include <thread>

using namespace mem0;
using namespace mem0::testing;
using std::chrono::hours;
using std::chrono::seconds;

namespace {

OutboxItem add_item(std::string text) {
  OutboxItem item;
  item.add.messages = {{"user", std::move(text)}};
  item.add.user_id = "u";
  return item;
}

// The text of the first message of an add body.
std::string first_content(const std::string &body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("messages")) return {};
  return doc["messages"][0]["content"].GetString();
}

rapidjson::Document parsed(const std::string &json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

std::string long_text(const std::string &seed) { return repeated(seed + " ", 150); }

} // namespace

TEST_CASE("outbox: items keep the order of capture and read back", "[capture]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  const auto now = fixed_now();
  std::vector<std::string> names;
  for (int i = 0; i < 12; ++i)
    names.push_back(outbox.put(add_item("item " + std::to_string(i)), "", now).value());
  CHECK(outbox.pending() == names);
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(first_content(platform_body(outbox.load(names[3]))) == "item 3");
  CHECK(mode_of(tmp / "outbox") == dir_mode_as_kept(0700));
  CHECK(mode_of(tmp / "outbox" / names[0]) == file_mode_as_kept(0600));

  OutboxItem remove;
  remove.kind = OutboxItem::Kind::remove;
  remove.memory_id = "abc-123";
  const auto name = outbox.put(remove, "", now).value();
  const auto back = outbox.load(name);
  REQUIRE(back);
  CHECK(back->kind == OutboxItem::Kind::remove);
  CHECK(back->memory_id == "abc-123");

  SECTION("a lost state file never makes a name be reused") {
    fs::remove(tmp / "outbox" / "state.json");
    const auto later = outbox.put(add_item("after the loss"), "", now).value();
    CHECK(later > name);
    CHECK(outbox.pending().size() == 14);
  }
}

namespace {

// A capture with every field set, and the Platform's add body of it as the outbox stored it
// before the neutral capture (docs/capture.md#the-outbox), and a self-hosted server's.
QueuedAdd full_capture() {
  QueuedAdd add;
  add.messages = {{"user", "we chose \"postgres\""}, {"assistant", "noted"}};
  add.user_id = "alice";
  add.project_id = "proj";
  add.metadata = {{"type", "decision"}, {"source", "stop"}};
  add.infer = false;
  add.expiration_date = "2027-03-01";
  add.custom_instructions = "keep decisions";
  return add;
}
constexpr const char *k_legacy_body =
    R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
    R"({"role":"assistant","content":"noted"}],"user_id":"alice","app_id":"proj",)"
    R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
    R"("expiration_date":"2027-03-01","custom_instructions":"keep decisions"})";
constexpr const char *k_selfhosted_body =
    R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
    R"({"role":"assistant","content":"noted"}],"user_id":"alice","agent_id":"proj",)"
    R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
    R"("expiration_date":"2027-03-01"})";

} // namespace

TEST_CASE("outbox: an add is stored as a neutral capture in the documented shape", "[capture]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  OutboxItem item;
  item.add = full_capture();
  item.import_file = "proj/CLAUDE.md";
  item.import_claim = "h-1";
  const auto name = outbox.put(item, "", fixed_now()).value();
  CHECK(read_file(outbox.dir() / name) ==
        R"({"kind":"add","capture":{"messages":[{"role":"user","content":"we chose \"postgres\""},)"
        R"({"role":"assistant","content":"noted"}],"user_id":"alice","project_id":"proj",)"
        R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
        R"("expiration_date":"2027-03-01","custom_instructions":"keep decisions"},)"
        R"("import_file":"proj/CLAUDE.md","import_hash":"h-1"})");
  const auto back = outbox.load(name);
  REQUIRE(back);
  CHECK(back->kind == OutboxItem::Kind::add);
  CHECK(platform_body(back) == k_legacy_body); // every field came back, in order
  CHECK(back->import_file == "proj/CLAUDE.md");
  CHECK(back->import_claim == "h-1");

  // Optional fields are left out when empty; an item of the neutral shape needs no other.
  item.add.expiration_date.clear();
  item.add.custom_instructions.clear();
  item.import_file.clear();
  CHECK(read_file(outbox.dir() / outbox.put(item, "", fixed_now()).value()) ==
        R"({"kind":"add","capture":{"messages":[{"role":"user","content":"we chose \"postgres\""},)"
        R"({"role":"assistant","content":"noted"}],"user_id":"alice","project_id":"proj",)"
        R"("metadata":{"type":"decision","source":"stop"},"infer":false}})");
}

TEST_CASE("sender: an item queued with the Platform's body goes to each backend as it did",
          "[capture][backend]") {
  for (const std::string backend : {"platform", "selfhosted"}) {
    CAPTURE(backend);
    HookFixture f;
    f.set_env("MEM0_BACKEND", backend);
    Outbox outbox(f.disk(), f.config.state_dir);
    f.write_state("outbox/000000000001.json",
                  std::string(R"({"kind":"add","body":)") + k_legacy_body + "}");
    // A body that is not a JSON object was never sent: the item is set aside as unreadable.
    int n = 2;
    for (const std::string body : {"[1,2,3]", R"("text")", "null"})
      f.write_state("outbox/00000000000" + std::to_string(n++) + ".json",
                    R"({"kind":"add","body":)" + body + "}");
    f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
    const SendReport report = send_round(f.context());
    CHECK(report.delivered == 1);
    CHECK(report.rejected == 3);
    CHECK(outbox.pending().empty());
    REQUIRE(f.http.requests.size() == 1);
    const HttpRequest &sent = f.http.requests[0];
    if (backend == "platform") {
      CHECK(sent.url == "https://api.mem0.ai/v3/memories/add/");
      CHECK(sent.body == k_legacy_body);
    } else {
      CHECK(sent.url == "http://localhost:8888/memories");
      CHECK(sent.body == k_selfhosted_body);
    }
  }
}

TEST_CASE("outbox: the same identity is queued once within 30 days", "[capture]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  const auto now = fixed_now();
  REQUIRE(outbox.put(add_item("a"), "same", now));
  const auto again = outbox.put(add_item("a"), "same", now + hours(24 * 29));
  REQUIRE_FALSE(again);
  CHECK(again.error().kind == ErrorKind::duplicate);
  CHECK(outbox.put(add_item("a"), "same", now + hours(24 * 31)));
  CHECK(outbox.put(add_item("b"), "other", now));
  CHECK(outbox.pending().size() == 3);
}

TEST_CASE("outbox: a full outbox refuses new items and keeps every stored one", "[capture]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  const auto now = fixed_now();
  SECTION("by count") {
    for (std::size_t i = 0; i < Outbox::k_max_items; ++i)
      REQUIRE(outbox.put(add_item("x"), "", now));
    const auto refused = outbox.put(add_item("one too many"), "", now);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().kind == ErrorKind::full);
    CHECK(outbox.pending().size() == Outbox::k_max_items);
  }
  SECTION("by size") {
    const std::string big(6 * 1024 * 1024, 'b');
    for (int i = 0; i < 3; ++i)
      REQUIRE(outbox.put(add_item(big), "", now));
    CHECK(outbox.put(add_item(big), "", now).error().kind == ErrorKind::full);
    CHECK(outbox.pending().size() == 3);
  }
}

TEST_CASE("outbox: a rejected item is kept aside with its status and the server's text",
          "[capture]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  const auto name = outbox.put(add_item("refused"), "", fixed_now()).value();
  outbox.reject(name, 422, "messages: field required");
  CHECK(outbox.pending().empty());
  const auto stats = outbox.stats();
  CHECK(stats.rejected == 1);
  const auto kept = read_file(tmp / "outbox" / "rejected" / name);
  const auto doc = parsed(kept);
  CHECK(doc["status"].GetInt() == 422);
  CHECK(std::string(doc["error"].GetString()) == "messages: field required");
  CHECK(contains(doc["item"].GetString(), "refused"));
}

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
  const auto body = parsed(platform_body(outbox.load(outbox.pending()[0])));
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
  fs::create_directories(f.project / "src" / "api");
  StopInput in = stop_input(f, "");
  in.cwd = (f.project / "src" / "api").string();
  Capture c;
  c.messages = {{"assistant", "the api answers in integer cents"}};
  c.type = "auto_capture";
  c.source = "auto_capture";
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto last_body = [&] {
    return parsed(platform_body(outbox.load(outbox.pending().back())));
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
    const auto sent = parsed(selfhosted_dialect().add_body(item->add));
    CHECK_FALSE(sent.HasMember("user_id"));
    CHECK(std::string(sent["agent_id"].GetString()) == "proj");
    CHECK_FALSE(sent.HasMember("custom_categories"));
  }
}

TEST_CASE("outbox: a team capture reads back whole; an item without one is the user's lane",
          "[capture][team]") {
  TempDir tmp;
  Outbox outbox(real_state_disk(), tmp.path());
  OutboxItem item;
  item.add = full_capture();
  item.add.team = {"proj-0123456789", true, "s-1", {"a", "a/b"}};
  const auto back = outbox.load(outbox.put(item, "", fixed_now()).value());
  REQUIRE(back);
  CHECK(back->add.team.agent_id == "proj-0123456789");
  CHECK(back->add.team.shared_only);
  CHECK(back->add.team.run_id == "s-1");
  CHECK(back->add.team.dirs == std::vector<std::string>{"a", "a/b"});
  item.add.team = {};
  const auto plain = outbox.load(outbox.put(item, "", fixed_now()).value());
  REQUIRE(plain);
  CHECK(plain->add.team.agent_id.empty());
  CHECK(platform_body(plain) == k_legacy_body);
}

TEST_CASE("sender: items go oldest first, a batch at a time, and leave once delivered",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (int i = 0; i < 6; ++i)
    REQUIRE(outbox.put(add_item("n" + std::to_string(i)), "", f.now));
  f.http.responder = [](const HttpRequest &) {
    return http_status(200, R"({"event_id":"e","status":"PENDING"})");
  };
  const SendReport report = send_round(f.context());
  CHECK(report.delivered == 6);
  CHECK_FALSE(report.stopped);
  CHECK(outbox.pending().empty());
  REQUIRE(f.http.requests.size() == 6);
  CHECK(f.http.batches == 2); // 4 + 2
  for (int i = 0; i < 6; ++i) {
    CHECK(f.http.requests[i].url == "https://api.mem0.ai/v3/memories/add/");
    CHECK(first_content(f.http.requests[i].body) == "n" + std::to_string(i));
  }
  CHECK(f.store().usage.on(f.today()).adds == 6);
  CHECK(outbox.stats().last_delivery > 0);
}

TEST_CASE("sender: the report names the ids of each add delivered, and a round ends at `end`",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto first = outbox.put(add_item("one"), "", f.now);
  const auto second = outbox.put(add_item("two"), "", f.now);
  REQUIRE(first);
  REQUIRE(second);
  SECTION("delivered") {
    f.http.responder = [](const HttpRequest &r) {
      return http_status(200, first_content(r.body) == "one"
                                  ? R"({"results":[{"id":"id-1","memory":"one","event":"ADD"}]})"
                                  : R"({"event_id":"e","status":"PENDING"})");
    };
    const SendReport report = send_round(f.context());
    CHECK(report.added.at(*first) == std::vector<std::string>{"id-1"});
    CHECK(report.added.at(*second).empty()); // asynchronous: no id yet
  }
  SECTION("an end already passed sends nothing") {
    const SendReport report = send_round(f.context(), SteadyClock::now());
    CHECK(report.added.empty());
    CHECK(f.http.requests.empty());
    CHECK(outbox.pending().size() == 2);
  }
}

TEST_CASE("sender: retryable failures keep the items and end the round", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (int i = 0; i < 3; ++i)
    REQUIRE(outbox.put(add_item("k" + std::to_string(i)), "", f.now));

  SECTION("429 pauses everyone") {
    f.http.responder = [](const HttpRequest &) { return http_status(429, "{}", seconds(40)); };
    const auto report = send_round(f.context());
    REQUIRE(report.stopped);
    CHECK(report.stopped->kind == ErrorKind::rate_limited);
    CHECK(outbox.pending().size() == 3);
    CHECK(f.store().backoff.active_pause(f.now, server_of(f.config)));
    CHECK(f.http.batches == 1);
    SECTION("and while paused nothing is sent") {
      CHECK(send_round(f.context()).delivered == 0);
      CHECK(f.http.batches == 1);
    }
  }
  SECTION("offline") {
    f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::transport); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::transport);
    CHECK(outbox.pending().size() == 3);
  }
  SECTION("a rejected key keeps the items for a fixed key, and pauses that key until it changes") {
    const int status = GENERATE(401, 403);
    f.http.responder = [status](const HttpRequest &) { return http_status(status, "{}"); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::unauthorized);
    CHECK(outbox.pending().size() == 3);
    CHECK(outbox.stats().rejected == 0);
    CHECK(f.http.batches == 1);
    // No later run starts a sender, and a round sends nothing, however much later.
    const auto pause =
        f.store().backoff.active_pause(f.now + std::chrono::hours(48), server_of(f.config));
    REQUIRE(pause);
    CHECK(pause->until_key_changes);
    CHECK_FALSE(sender_work_in(f));
    CHECK(send_round(f.context()).delivered == 0);
    CHECK(f.http.batches == 1);
    SECTION("a prompt says so once in the session") {
      const auto said = [&] {
        RecallRequest request;
        request.plan = {SearchSpec{"how are invoices rounded", std::nullopt}};
        request.identity = {"alice", "proj", "s-key"};
        return recall(f.context(), request).user_notices;
      };
      CHECK(said() == std::vector<std::string>{std::string(k_key_paused_line)});
      CHECK(said().empty());
      CHECK(f.http.batches == 1); // no search sent either
    }
    SECTION("another key is not held up") {
      f.set_env("MEM0_API_KEY", "m0-another-key");
      f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
      CHECK(send_round(f.context()).delivered == 3);
    }
    SECTION("doctor --reset ends it") {
      REQUIRE(f.store().backoff.reset(f.now).value() == 1);
      CHECK_FALSE(f.store().backoff.active_pause(f.now, server_of(f.config)));
    }
  }
  SECTION("5xx") {
    f.http.responder = [](const HttpRequest &) { return http_status(503, "down"); };
    CHECK(send_round(f.context()).stopped->kind == ErrorKind::server);
    CHECK(outbox.pending().size() == 3);
  }
}

TEST_CASE("sender: an item the server refuses is set aside, the others still go", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  for (const char *t : {"good one", "bad one", "good two"})
    REQUIRE(outbox.put(add_item(t), "", f.now));
  f.http.responder = [](const HttpRequest &r) {
    return first_content(r.body) == "bad one" ? http_status(422, R"({"detail":"invalid"})")
                                              : http_status(200, R"({"results":[]})");
  };
  const auto report = send_round(f.context());
  CHECK(report.delivered == 2);
  CHECK(report.rejected == 1);
  CHECK(outbox.pending().empty());
  CHECK(outbox.stats().rejected == 1);
}

TEST_CASE("sender: delivered at least once when a crash came between send and delete",
          "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  const auto name = outbox.put(add_item("sent, then the sender died"), "", f.now).value();
  // The request went out, but the process died before removing the item: it is still pending.
  f.http.run({add_request(target("https://api.mem0.ai", "k"), outbox.load(name)->add)},
             SteadyClock::now());
  f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };
  CHECK(send_round(f.context()).delivered == 1);
  CHECK(outbox.pending().empty());
  CHECK(f.http.requests.size() == 2);
}

TEST_CASE("sender: deletes, corrupt items, the lock and the daily cap", "[capture]") {
  HookFixture f;
  Outbox outbox(f.disk(), f.config.state_dir);
  OutboxItem remove;
  remove.kind = OutboxItem::Kind::remove;
  remove.memory_id = "gone-already";
  REQUIRE(outbox.put(remove, "", f.now));
  f.write_state("outbox/000000000099.json", "{not json");
  f.http.responder = [](const HttpRequest &r) {
    return r.method == "DELETE" ? http_status(404, R"({"error":"Memory not found!"})")
                                : http_status(200, "{}");
  };
  const auto report = send_round(f.context());
  CHECK(report.delivered == 1); // a 404 delete: already gone
  CHECK(report.rejected == 1);  // the corrupt item, kept aside
  CHECK(outbox.pending().empty());
  REQUIRE(f.http.requests.size() == 1);
  CHECK(f.http.requests[0].url == "https://api.mem0.ai/v1/memories/gone-already/");

  SECTION("the daily add cap leaves items waiting") {
    f.set_env("MEM0_DAILY_ADD_LIMIT", "2");
    REQUIRE(f.store().usage.add(f.today(), {0, 2}));
    REQUIRE(outbox.put(add_item("waits"), "", f.now));
    CHECK(send_round(f.context()).delivered == 0);
    CHECK(outbox.pending().size() == 1);
  }
}

TEST_CASE("on_stop: Claude's last message and the files touched, or nothing", "[capture]") {
  HookFixture f;
  write_file(
      f.home / "t.jsonl",
      R"({"type":"assistant","uuid":"a1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/p/src/a.py"}}]}})"
      "\n");
  StopInput in = stop_input(f, long_text("We moved the retry logic into the worker."));
  in.transcript_path = (f.home / "t.jsonl").string();
  const auto c = on_stop::summary_capture(in, f.config, f.now);
  REQUIRE(c);
  CHECK(c->type == "session_summary");
  REQUIRE(c->messages.size() == 1);
  CHECK(c->messages[0].role == "assistant");
  CHECK(contains(c->messages[0].content, "Files touched: /p/src/a.py"));
  CHECK(c->expiration_date == "2025-06-08"); // 90 days after 2025-03-10

  CHECK_FALSE(on_stop::summary_capture(stop_input(f, "too short"), f.config, f.now));
  StopInput sub = in;
  sub.agent_id = "agent-7";
  CHECK_FALSE(on_stop::summary_capture(sub, f.config, f.now));
  CHECK_FALSE(on_stop::summary_capture(
      stop_input(f, "<system-reminder>" + long_text("x") + "</system-reminder>"), f.config, f.now));

  CHECK(handled(on_stop::handle, in, f).context.empty());
  CHECK(f.state->outbox.pending().size() == 1);
  CHECK(f.http.requests.empty()); // a capture hook never talks to the network itself
}

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
    const auto body = parsed(platform_body(outbox.load(outbox.pending()[1])));
    const std::string stored = body["messages"][0]["content"].GetString();
    CHECK(stored.starts_with("The billing work is done."));
    CHECK_FALSE(contains(stored, "scratch"));
    CHECK_FALSE(contains(stored, "summary>"));
  }
  CHECK(f.http.requests.empty());
}

TEST_CASE("auto-capture: every third prompt, the new conversation only, with real roles",
          "[capture]") {
  HookFixture f;
  const fs::path transcript = f.home / "session.jsonl";
  auto line = [](const std::string &uuid, const std::string &role, const std::string &text) {
    return R"({"type":")" + role + R"(","uuid":")" + uuid + R"(","message":{"role":")" + role +
           R"(","content":")" + text + "\"}}\n";
  };
  write_file(transcript,
             line("u1", "user", "Please move the retry helper into sync/retry.py") +
                 line("a1", "assistant",
                      "Moved it, and updated the two callers in the worker and the CLI."));
  PromptInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  in.transcript_path = transcript.string();
  in.prompt = "A prompt long enough to count as a prompt";
  const HookContext ctx = f.context(in);
  CHECK_FALSE(on_user_prompt::handle(in, ctx).detached);
  CHECK_FALSE(on_user_prompt::handle(in, ctx).detached);
  const HookOutput third = on_user_prompt::handle(in, ctx);
  REQUIRE(third.detached);
  third.detached();
  Outbox outbox(f.disk(), f.config.state_dir);
  REQUIRE(outbox.pending().size() == 1);
  const auto body = parsed(platform_body(outbox.load(outbox.pending()[0])));
  REQUIRE(body["messages"].Size() == 2);
  CHECK(std::string(body["messages"][0]["role"].GetString()) == "user");
  CHECK(std::string(body["messages"][1]["role"].GetString()) == "assistant");
  CHECK(std::string(body["metadata"]["type"].GetString()) == "auto_capture");

  SECTION("what was captured is not captured again") {
    third.detached();
    CHECK(outbox.pending().size() == 1);
    write_file(
        transcript,
        read_file(transcript) +
            line("u2", "user", "Now add a jittered backoff to the retry helper") +
            line("a2", "assistant", "Added full jitter with a 30 s ceiling, and a test for it."));
    third.detached();
    REQUIRE(outbox.pending().size() == 2);
    const auto next = parsed(platform_body(outbox.load(outbox.pending()[1])));
    REQUIRE(next["messages"].Size() == 2);
    CHECK(contains(next["messages"][0]["content"].GetString(), "jittered backoff"));
  }
  SECTION("what was sent is never sent again, even when its uuid is not found") {
    // The conversation so far under other uuids (a transcript written again), or under none,
    // then one new exchange: only the new exchange is sent, and only once.
    const std::string uuid = GENERATE(std::string("-copy"), std::string("none"));
    auto id = [&](const std::string &base) { return uuid == "none" ? "" : base + uuid; };
    const std::string earlier =
        line(id("u1"), "user", "Please move the retry helper into sync/retry.py") +
        line(id("a1"), "assistant",
             "Moved it, and updated the two callers in the worker and the CLI.");
    write_file(transcript, earlier);
    third.detached();
    CHECK(outbox.pending().size() == 1);
    write_file(transcript,
               earlier + line(id("u3"), "user", "Then rename the retry helper to with_retries") +
                   line(id("a3"), "assistant",
                        "Renamed it in sync/retry.py and in its 4 callers; tests pass."));
    third.detached();
    REQUIRE(outbox.pending().size() == 2);
    const auto next = parsed(platform_body(outbox.load(outbox.pending().back())));
    REQUIRE(next["messages"].Size() == 2);
    CHECK(contains(next["messages"][0]["content"].GetString(), "with_retries"));
    third.detached();
    CHECK(outbox.pending().size() == 2);
  }
  SECTION("capture off asks for nothing") {
    f.set_env("MEM0_AUTO_SAVE", "off");
    for (int i = 0; i < 3; ++i)
      CHECK_FALSE(handled(on_user_prompt::handle, in, f).detached);
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
  const auto body = parsed(platform_body(outbox.load(outbox.pending()[0])));
  CHECK(std::string(body["metadata"]["agent"].GetString()) == "other-agent");
  // Same user and project as Claude Code's captures: one memory across agents.
  CHECK(std::string(body["user_id"].GetString()) == "alice");
  CHECK(std::string(body["app_id"].GetString()) == "proj");
  CHECK(std::string(body["metadata"]["session_id"].GetString()) == "other-agent-session-1");
}
