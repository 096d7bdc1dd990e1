#include "store/usage.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <string>

namespace mem0 {
namespace {

long count_member(const rapidjson::Value &object, const char *name) {
  return static_cast<long>(int64_member(object, name).value_or(0));
}

// One day's entry: {"searches": N, "adds": M}, or the bare search count of older files.
DailyUsage parse_day(const rapidjson::Value &v) {
  if (v.IsInt64()) return {static_cast<long>(v.GetInt64()), 0};
  if (!v.IsObject()) return {};
  return {count_member(v, "searches"), count_member(v, "adds")};
}

std::map<std::string, DailyUsage> parse_usage(std::string_view json) {
  std::map<std::string, DailyUsage> days;
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

} // namespace

UsageStore::UsageStore(std::filesystem::path state_dir) : m_file(state_dir / "usage.json") {}

DailyUsage UsageStore::on(std::string_view day) const {
  const auto text = read_small_file(m_file, 1 << 16);
  if (!text) return {};
  const auto days = parse_usage(*text);
  const auto it = days.find(std::string(day));
  return it == days.end() ? DailyUsage{} : it->second;
}

Result<void> UsageStore::add(std::string_view day, DailyUsage counts,
                             std::chrono::milliseconds wait) {
  if (!ensure_private_dir(m_file.parent_path()))
    return unexpected(make_error(ErrorKind::io, "cannot create " + m_file.parent_path().string()));
  const auto today = date_of(day);
  const FileChange change = [&](const std::string &current) {
    auto days = parse_usage(current);
    DailyUsage &sum = days[std::string(day)];
    sum.searches = add_saturating(std::max(sum.searches, 0L), counts.searches);
    sum.adds = add_saturating(std::max(sum.adds, 0L), counts.adds);
    // Trim by distance from `day`, not by count: dates written under a clock that was ahead must
    // neither push today out nor stay for ever.
    std::erase_if(days, [&](const auto &entry) {
      const auto date = date_of(entry.first);
      return entry.first != day && (!date || !today || *date < *today - std::chrono::days(30) ||
                                    *date > *today + std::chrono::days(1));
    });
    JsonWriter w;
    w.begin_object();
    for (const auto &[d, n] : days)
      w.key(d)
          .begin_object()
          .key("searches")
          .int64(n.searches)
          .key("adds")
          .int64(n.adds)
          .end_object();
    w.end_object();
    return std::optional<std::string>(w.text());
  };
  return update_file_locked(m_file, change, wait);
}

} // namespace mem0
