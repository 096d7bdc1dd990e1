#include "store/usage.hpp"
#include "util/clock.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {
namespace {

// `n` as a count, held at the largest (or smallest) count where a long has 32 bits (Windows)
// instead of wrapping.
long to_count(std::int64_t n) {
  return static_cast<long>(std::clamp<std::int64_t>(n, std::numeric_limits<long>::min(),
                                                    std::numeric_limits<long>::max()));
}

long count_member(const rapidjson::Value &object, const char *name) {
  return to_count(int64_member(object, name).value_or(0));
}

// One day in usage.json: its counts, and how many bytes of the day's log they include.
struct DayEntry {
  DailyUsage counts;
  std::int64_t folded = 0;
};

// One day's entry: {"searches": N, "adds": M, "folded": B}, or the bare search count of older
// files.
DayEntry parse_day(const rapidjson::Value &v) {
  if (v.IsInt64()) return {{to_count(v.GetInt64()), 0}};
  if (!v.IsObject()) return {};
  return {{count_member(v, "searches"), count_member(v, "adds")},
          std::max<std::int64_t>(0, int64_member(v, "folded").value_or(0))};
}

std::map<std::string, DayEntry> parse_usage(std::string_view json) {
  std::map<std::string, DayEntry> days;
  rapidjson::Document doc;
  parse_json(doc, json);
  if (!doc.HasParseError() && doc.IsObject())
    for (const auto &m : doc.GetObject())
      days[m.name.GetString()] = parse_day(m.value);
  return days;
}

// `a + b`, held at the largest (or smallest) value instead of overflowing.
long add_saturating(long a, long b) {
  long sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<long>::max() : std::numeric_limits<long>::min();
}

// The date of a "YYYY-MM-DD" key; nullopt for anything else.
std::optional<std::chrono::sys_days> date_of(std::string_view key) {
  if (key.size() != 10 || key[4] != '-' || key[7] != '-') return std::nullopt;
  auto digits = [&](std::size_t from, std::size_t size, unsigned &out) {
    const char *end = key.data() + from + size;
    return std::from_chars(key.data() + from, end, out).ptr == end;
  };
  unsigned y = 0, m = 0, d = 0;
  if (!digits(0, 4, y) || !digits(5, 2, m) || !digits(8, 2, d)) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(static_cast<int>(y)),
                                         std::chrono::month(m), std::chrono::day(d)};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days(date);
}

constexpr std::size_t k_max_log_bytes = 1 << 20;

// The complete lines "<searches> <adds>" of a day's log from byte `from` on (all of them when the
// log is shorter: it was started again), and the offset after the last.
struct LogTail {
  DailyUsage counts;
  std::int64_t end = 0;
};

LogTail read_log(const StateDisk &disk, const std::filesystem::path &log, std::int64_t from) {
  LogTail tail;
  const auto text = disk.read(log, k_max_log_bytes);
  if (!text) return tail;
  std::string_view rest(*text);
  if (static_cast<std::size_t>(from) > rest.size()) from = 0;
  rest.remove_prefix(static_cast<std::size_t>(from));
  tail.end = from;
  for (auto nl = rest.find('\n'); nl != std::string_view::npos; nl = rest.find('\n')) {
    const std::string_view line = rest.substr(0, nl);
    long searches = 0, adds = 0;
    const auto space = line.find(' ');
    if (space != std::string_view::npos &&
        std::from_chars(line.data(), line.data() + space, searches).ec == std::errc() &&
        std::from_chars(line.data() + space + 1, line.data() + line.size(), adds).ec ==
            std::errc()) {
      tail.counts.searches = add_saturating(tail.counts.searches, std::max(searches, 0L));
      tail.counts.adds = add_saturating(tail.counts.adds, std::max(adds, 0L));
    }
    rest.remove_prefix(nl + 1);
    tail.end += static_cast<std::int64_t>(nl + 1);
  }
  return tail;
}

} // namespace

UsageStore::UsageStore(StateDisk &disk, std::filesystem::path state_dir)
    : m_disk(&disk), m_file(state_dir / "usage.json") {}

std::filesystem::path UsageStore::log_of(std::string_view day) const {
  return m_file.parent_path() / ("usage." + std::string(day) + ".log");
}

DailyUsage UsageStore::on(std::string_view day) const {
  const auto text = m_disk->read(m_file, 1 << 16);
  const auto days = text ? parse_usage(*text) : std::map<std::string, DayEntry>{};
  const auto it = days.find(std::string(day));
  const DayEntry entry = it == days.end() ? DayEntry{} : it->second;
  const DailyUsage logged = read_log(*m_disk, log_of(day), entry.folded).counts;
  return {add_saturating(std::max(entry.counts.searches, 0L), logged.searches),
          add_saturating(std::max(entry.counts.adds, 0L), logged.adds)};
}

Result<void> UsageStore::add(std::string_view day, DailyUsage counts,
                             std::chrono::milliseconds wait) {
  if (!m_disk->make_dir(m_file.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_file.parent_path().string()));
  // The record is the line in the day's log, written without a lock; usage.json takes it in
  // when its lock is free (docs/state.md#daily-counts).
  if (!m_disk->append_line(log_of(day), std::to_string(counts.searches) + " " +
                                            std::to_string(counts.adds) + "\n"))
    return unexpected(make_error(ErrorKind::io, "cannot append to " + log_of(day).string()));
  // Counted all the same when the lock is busy: a later add folds it in.
  (void)fold(day, wait);
  return {};
}

Result<void> UsageStore::fold(std::string_view day, std::chrono::milliseconds wait) const {
  const auto today = date_of(day);
  std::vector<std::string> dropped;
  const FileChange change = [&](const std::string &current) {
    auto days = parse_usage(current);
    dropped.clear();
    // Today's log and yesterday's (a count made just before midnight).
    std::vector<std::string> logged{std::string(day)};
    if (today) logged.push_back(utc_day(*today - std::chrono::days(1)));
    for (const auto &d : logged) {
      DayEntry &entry = days[d];
      const LogTail tail = read_log(*m_disk, log_of(d), entry.folded);
      if (tail.end == entry.folded && entry.counts.searches == 0 && entry.counts.adds == 0) {
        if (d != day) days.erase(d); // nothing that day
        continue;
      }
      entry.counts.searches =
          add_saturating(std::max(entry.counts.searches, 0L), tail.counts.searches);
      entry.counts.adds = add_saturating(std::max(entry.counts.adds, 0L), tail.counts.adds);
      entry.folded = tail.end;
    }
    // Trim by distance from `day`, not by count: dates written under a clock that was ahead must
    // neither push today out nor stay for ever.
    std::erase_if(days, [&](const auto &entry) {
      const auto date = date_of(entry.first);
      const bool drop =
          entry.first != day && (!date || !today || *date < *today - std::chrono::days(30) ||
                                 *date > *today + std::chrono::days(1));
      if (drop) dropped.push_back(entry.first);
      return drop;
    });
    JsonWriter w;
    w.begin_object();
    for (const auto &[d, e] : days)
      w.key(d)
          .begin_object()
          .key("searches")
          .int64(e.counts.searches)
          .key("adds")
          .int64(e.counts.adds)
          .key("folded")
          .int64(e.folded)
          .end_object();
    w.end_object();
    return std::optional<std::string>(w.text());
  };
  auto updated = m_disk->update_locked(m_file, change, Durability::saves_work, wait);
  if (updated) {
    for (const auto &d : dropped)
      m_disk->remove(log_of(d));
    if (today) m_disk->remove(log_of(utc_day(*today - std::chrono::days(2))));
  }
  return updated;
}

} // namespace mem0
