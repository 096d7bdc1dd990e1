#pragma once
// What the tests of the write path share (docs/capture.md): outbox items, add bodies and texts
// long enough to be captured.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "store/outbox.hpp"

#include <rapidjson/document.h>

#include <string>

namespace mem0::testing {

// An add of one user message.
inline OutboxItem add_item(std::string text) {
  OutboxItem item;
  item.add.messages = {{"user", std::move(text)}};
  item.add.user_id = "u";
  return item;
}

// The text of the first message of an add body.
inline std::string first_content(const std::string &body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("messages")) return {};
  return doc["messages"][0]["content"].GetString();
}

// `json` parsed; the test fails when it is not JSON.
inline rapidjson::Document json_of(const std::string &json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  REQUIRE_FALSE(doc.HasParseError());
  return doc;
}

// `seed` repeated past the length a capture needs.
inline std::string long_text(const std::string &seed) { return repeated(seed + " ", 150); }

// A capture with every field set, and the Platform's add body of it as the outbox stored it
// before the neutral capture (docs/capture.md#the-outbox), and a self-hosted server's.
inline QueuedAdd full_capture() {
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
inline constexpr const char *k_legacy_body =
    R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
    R"({"role":"assistant","content":"noted"}],"user_id":"alice","app_id":"proj",)"
    R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
    R"("expiration_date":"2027-03-01","custom_instructions":"keep decisions"})";
inline constexpr const char *k_selfhosted_body =
    R"({"messages":[{"role":"user","content":"we chose \"postgres\""},)"
    R"({"role":"assistant","content":"noted"}],"user_id":"alice","agent_id":"proj",)"
    R"("metadata":{"type":"decision","source":"stop"},"infer":false,)"
    R"("expiration_date":"2027-03-01"})";

} // namespace mem0::testing
