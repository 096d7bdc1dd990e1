#include "common/backoff.hpp"
#include "common/files.hpp"
#include "common/json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>

namespace mem0 {
namespace {

struct BackoffState {
  long long until = 0; // unix seconds
  std::string reason;
  long failures = 0;
};

BackoffState parse_backoff(std::string_view json) {
  BackoffState b;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return b;
  if (const auto it = doc.FindMember("until"); it != doc.MemberEnd() && it->value.IsInt64())
    b.until = it->value.GetInt64();
  b.reason = string_member(doc, "reason").value_or("");
  if (const auto it = doc.FindMember("failures"); it != doc.MemberEnd() && it->value.IsInt64())
    b.failures = static_cast<long>(it->value.GetInt64());
  return b;
}

std::string serialize_backoff(const BackoffState &b) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("until");
  w.Int64(b.until);
  w.Key("reason");
  w.String(b.reason.data(), static_cast<rapidjson::SizeType>(b.reason.size()));
  w.Key("failures");
  w.Int64(b.failures);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

} // namespace

BackoffStore::BackoffStore(std::filesystem::path state_dir) : m_file(state_dir / "backoff.json") {}

std::optional<BackoffStore::Pause> BackoffStore::active_pause(WallTime now) const {
  const auto text = read_small_file(m_file, 1 << 16);
  if (!text) return std::nullopt;
  const BackoffState b = parse_backoff(*text);
  const long long left = b.until - unix_seconds(now);
  if (left <= 0) return std::nullopt;
  return Pause{std::chrono::seconds(left), b.reason};
}

Result<void> BackoffStore::record_outcome(WallTime now, Outcome outcome,
                                          std::chrono::seconds retry_after) {
  if (!ensure_private_dir(m_file.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_file.parent_path().string()));
  return update_file_locked(m_file, [&](const std::string &current) {
    BackoffState b = parse_backoff(current);
    if (outcome == Outcome::answered) {
      if (b.failures == 0 && b.until == 0) return std::optional<std::string>(); // nothing to clear
      b = {};
    } else if (outcome == Outcome::rate_limited) {
      b.until = unix_seconds(now) + std::clamp<long long>(retry_after.count(), 1, 3600);
      b.reason = "rate limited by Mem0";
    } else if (++b.failures >= k_failures_before_pause) {
      b.until = unix_seconds(now) + k_default_pause.count();
      b.reason = "Mem0 unreachable after " + std::to_string(b.failures) + " failed attempts";
    }
    return std::optional<std::string>(serialize_backoff(b));
  });
}

Result<void> BackoffStore::record_run(WallTime now, const std::vector<Error> &failures,
                                      std::size_t sent) {
  if (sent == 0) return {};
  std::optional<std::chrono::seconds> retry_after;
  std::size_t unreachable = 0;
  for (const auto &e : failures) {
    if (e.kind == ErrorKind::rate_limited)
      retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)),
                             e.retry_after.value_or(k_default_pause));
    if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout) ++unreachable;
  }
  const Outcome outcome = retry_after           ? Outcome::rate_limited
                          : unreachable == sent ? Outcome::unreachable
                                                : Outcome::answered;
  return record_outcome(now, outcome, retry_after.value_or(k_default_pause));
}

} // namespace mem0
