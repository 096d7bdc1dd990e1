// The outbox (store/outbox.cpp, docs/capture.md#the-outbox): order, the stored shape, the
// 30-day identity, the limits, rejected items, the team lane.
#include "tests/unit/capture_support.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/store/memory_disk.hpp"
#include "tests/unit/test_support.hpp"

#include "store/outbox.hpp"

#include <algorithm>
#include <set>

using namespace mem0;
using namespace mem0::testing;
using std::chrono::hours;
using std::chrono::seconds;

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

TEST_CASE("outbox: an item that cannot wait for the lock is parked whole, and queued later",
          "[capture]") {
  MemoryDisk disk;
  const fs::path state = "/state";
  Outbox outbox(disk, state);
  const auto now = fixed_now();
  REQUIRE(outbox.put(add_item("before the crowd"), "first", now));
  auto holder = disk.try_lock(state / "outbox" / "state.json.lock");
  REQUIRE(holder->held());

  const auto parked = outbox.put(add_item("a capture in the crowd"), "crowd", now);
  REQUIRE(parked);
  CHECK(*parked == "parked/i-crowd.json");
  OutboxItem remove;
  remove.kind = OutboxItem::Kind::remove;
  remove.memory_id = "abc-123";
  const auto without_identity = outbox.put(remove, "", now).value();
  CHECK(without_identity.starts_with("parked/c-"));
  CHECK(outbox.put(add_item("first again"), "first", now)); // parked: the record is locked
  CHECK(outbox.pending().size() == 1);
  CHECK(outbox.parked().size() == 3);
  CHECK(outbox.waiting().size() == 4);
  CHECK(outbox.stats().pending == 4);
  CHECK(first_content(platform_body(outbox.load(*parked))) == "a capture in the crowd");

  outbox.admit_parked(now); // the lock still busy: everything stays
  CHECK(outbox.parked().size() == 3);

  holder.reset();
  outbox.admit_parked(now);
  CHECK(outbox.parked().empty());
  const auto names = outbox.pending();
  REQUIRE(names.size() == 3); // the duplicate of "first" went
  CHECK(first_content(platform_body(outbox.load(names[0]))) == "before the crowd");
  std::set<std::string> admitted; // parked at once: in either order
  for (const auto &name : {names[1], names[2]}) {
    const auto item = outbox.load(name);
    REQUIRE(item);
    admitted.insert(item->kind == OutboxItem::Kind::remove ? item->memory_id
                                                           : first_content(platform_body(item)));
  }
  CHECK(admitted == std::set<std::string>{"a capture in the crowd", "abc-123"});
  const auto again = outbox.put(add_item("a capture in the crowd"), "crowd", now);
  REQUIRE_FALSE(again);
  CHECK(again.error().kind == ErrorKind::duplicate);
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
  const auto doc = json_of(kept);
  CHECK(doc["status"].GetInt() == 422);
  CHECK(std::string(doc["error"].GetString()) == "messages: field required");
  CHECK(contains(doc["item"].GetString(), "refused"));
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
