#include "store/backoff.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>

namespace mem0 {
namespace {

// Why recall is paused. Stored as a code and shown as a fixed text, so that nothing read from the
// file reaches the context or stderr.
enum class Reason { none, rate_limited, unreachable, key_rejected };

struct BackoffState {
  long long until = 0; // unix seconds; 0: no pause
  Reason reason = Reason::none;
  long long failures = 0;
};

constexpr std::string_view k_rate_limited_text = "rate limited by Mem0";

// `a + b`, held at the largest (or smallest) value instead of overflowing.
long long add_saturating(long long a, long long b) {
  long long sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<long long>::max() : std::numeric_limits<long long>::min();
}

// A stored reason: a code, or the text an older version stored when it is one of the two.
Reason parse_reason(std::string_view s) {
  if (s == "rate_limited" || s == k_rate_limited_text) return Reason::rate_limited;
  if (s == "unreachable") return Reason::unreachable;
  if (s == "key_rejected") return Reason::key_rejected;
  constexpr std::string_view head = "Mem0 unreachable after ", tail = " failed attempts";
  if (s.size() <= head.size() + tail.size() || !s.starts_with(head) || !s.ends_with(tail))
    return Reason::none;
  const auto count = s.substr(head.size(), s.size() - head.size() - tail.size());
  const bool digits =
      std::all_of(count.begin(), count.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? Reason::unreachable : Reason::none;
}

std::string_view reason_code(Reason reason) {
  switch (reason) {
  case Reason::rate_limited: return "rate_limited";
  case Reason::unreachable: return "unreachable";
  case Reason::key_rejected: return "key_rejected";
  case Reason::none: break;
  }
  return "";
}

// One server's state as of `now`. A pause that ends more than `k_longest_pause` after `now`
// (written under a clock that was ahead, or not by us) or has no known reason is no pause; a
// rejected key's pause has no end (`until` 0).
BackoffState parse_state(const rapidjson::Value &v, long long now) {
  BackoffState b;
  if (!v.IsObject()) return b;
  b.until = int64_member(v, "until").value_or(0);
  b.reason = parse_reason(string_member(v, "reason").value_or(""));
  b.failures = std::max<long long>(int64_member(v, "failures").value_or(0), 0);
  if (b.reason == Reason::key_rejected) {
    b.until = 0;
    return b;
  }
  long long left = 0;
  if (b.reason == Reason::none || __builtin_sub_overflow(b.until, now, &left) || left <= 0 ||
      left > BackoffStore::k_longest_pause.count())
    b.until = 0;
  if (b.until == 0) b.reason = Reason::none;
  return b;
}

bool paused(const BackoffState &b) { return b.until != 0 || b.reason == Reason::key_rejected; }

// Every server's state as of `now`, by server key; entries with neither a pause nor a failure
// are dropped. A file in the single-server format of earlier versions holds no entry.
using Servers = std::map<std::string, BackoffState, std::less<>>;
Servers parse_servers(std::string_view json, long long now) {
  Servers servers;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) return servers;
  for (const auto &m : doc.GetObject()) {
    const BackoffState b = parse_state(m.value, now);
    if ((paused(b) || b.failures != 0) && m.name.GetStringLength() <= 64)
      servers.emplace(std::string(m.name.GetString(), m.name.GetStringLength()), b);
  }
  return servers;
}

// At most `k_max_servers` entries, the pauses that end last kept first.
std::string serialize_servers(Servers servers) {
  while (servers.size() > BackoffStore::k_max_servers)
    servers.erase(
        std::min_element(servers.begin(), servers.end(), [](const auto &a, const auto &b) {
          return std::pair(a.second.until, a.second.failures) <
                 std::pair(b.second.until, b.second.failures);
        }));
  JsonWriter w;
  w.begin_object();
  for (const auto &[server, b] : servers)
    w.key(server)
        .begin_object()
        .key("until")
        .int64(b.until)
        .member("reason", reason_code(b.reason))
        .key("failures")
        .int64(b.failures)
        .end_object();
  w.end_object();
  return w.text();
}

} // namespace

BackoffStore::BackoffStore(StateDisk &disk, std::filesystem::path state_dir)
    : m_disk(&disk), m_file(state_dir / "backoff.json") {}

std::optional<BackoffStore::Pause> BackoffStore::active_pause(WallTime now,
                                                              std::string_view server) const {
  const auto text = m_disk->read(m_file, 1 << 16);
  if (!text) return std::nullopt;
  const long long now_s = unix_seconds(now);
  const Servers servers = parse_servers(*text, now_s);
  const auto it = servers.find(server);
  if (it == servers.end() || !paused(it->second)) return std::nullopt;
  const BackoffState &b = it->second;
  if (b.reason == Reason::key_rejected)
    return Pause{std::chrono::seconds(0), "the API key was rejected", true};
  // parse_state checked that now_s < until <= now_s + 1 h
  const std::string reason =
      b.reason == Reason::rate_limited
          ? std::string(k_rate_limited_text)
          : "Mem0 unreachable after " +
                std::to_string(std::max<long long>(b.failures, k_failures_before_pause)) +
                " failed attempts";
  return Pause{std::chrono::seconds(b.until - now_s), reason};
}

Result<void> BackoffStore::record_outcome(WallTime now, std::string_view server, Outcome outcome,
                                          std::chrono::seconds retry_after,
                                          std::chrono::milliseconds wait) {
  const long long now_s = unix_seconds(now);
  // An answer from a server with nothing recorded, the common case, costs one read: no lock.
  const bool answered = outcome == Outcome::answered || outcome == Outcome::refused;
  if (answered &&
      !parse_servers(m_disk->read(m_file, 1 << 16).value_or(""), now_s).contains(server))
    return {};
  if (!m_disk->make_dir(m_file.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_file.parent_path().string()));
  const FileChange change = [&](const std::string &current) -> std::optional<std::string> {
    Servers servers = parse_servers(current, now_s);
    if (answered) {
      // Nothing to clear: leave the file alone (the common case costs no write). A rejected key
      // is paused until a request with it succeeds, whatever else answers.
      const auto it = servers.find(std::string(server));
      if (it == servers.end() ||
          (outcome == Outcome::refused && it->second.reason == Reason::key_rejected))
        return std::nullopt;
      servers.erase(it);
      return serialize_servers(std::move(servers));
    }
    BackoffState &b = servers[std::string(server)];
    if (outcome == Outcome::key_rejected) {
      b.until = 0;
      b.reason = Reason::key_rejected;
    } else if (outcome == Outcome::rate_limited) {
      b.until = add_saturating(
          now_s, std::clamp<long long>(retry_after.count(), 1, k_longest_pause.count()));
      b.reason = Reason::rate_limited;
    } else {
      b.failures = add_saturating(b.failures, 1);
      if (b.failures >= k_failures_before_pause) {
        b.until = add_saturating(now_s, k_default_pause.count());
        b.reason = Reason::unreachable;
      }
    }
    return serialize_servers(std::move(servers));
  };
  return m_disk->update_locked(m_file, change, Durability::saves_work, wait);
}

Result<void> BackoffStore::record_run(WallTime now, std::string_view server,
                                      const std::vector<Error> &failures, std::size_t sent,
                                      std::chrono::milliseconds wait) {
  std::vector<Error> answered;
  for (const auto &e : failures)
    if (e.kind != ErrorKind::no_libcurl)
      answered.push_back(e);
    else if (sent > 0)
      --sent;
  if (sent == 0) return {};
  std::optional<std::chrono::seconds> retry_after;
  std::size_t unreachable = 0;
  for (const auto &e : answered) {
    if (e.kind == ErrorKind::rate_limited)
      retry_after = std::max(retry_after.value_or(std::chrono::seconds(0)),
                             e.retry_after.value_or(k_default_pause));
    if (e.kind == ErrorKind::transport || e.kind == ErrorKind::timeout) ++unreachable;
  }
  const Outcome outcome = retry_after               ? Outcome::rate_limited
                          : unreachable == sent     ? Outcome::unreachable
                          : answered.size() >= sent ? Outcome::refused
                                                    : Outcome::answered;
  return record_outcome(now, server, outcome, retry_after.value_or(k_default_pause), wait);
}

Result<std::size_t> BackoffStore::reset(WallTime now) {
  std::size_t ended = 0;
  const FileChange change = [&](const std::string &current) -> std::optional<std::string> {
    for (const auto &[server, b] : parse_servers(current, unix_seconds(now)))
      ended += paused(b);
    if (current.empty()) return std::nullopt;
    return std::string("{}");
  };
  if (!m_disk->exists(m_file)) return ended;
  if (auto done = m_disk->update_locked(m_file, change, Durability::saves_work, k_lock_wait); !done)
    return unexpected(done.error());
  return ended;
}

} // namespace mem0
