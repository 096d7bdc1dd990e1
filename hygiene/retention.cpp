#include "hygiene/retention.hpp"
#include "mem0/memory.hpp"
#include "util/strings.hpp"

#include <charconv>
#include <chrono>

namespace mem0::hygiene {
namespace {

std::optional<long> number(std::string_view s) {
  long n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return n;
}

} // namespace

RetentionPolicy parse_retention(std::string_view text, long session_days) {
  RetentionPolicy policy;
  policy.session_days = session_days;
  bool inside = false;
  while (!text.empty()) {
    const auto nl = std::min(text.find('\n'), text.size());
    std::string_view line = trim(text.substr(0, nl));
    text.remove_prefix(std::min(nl + 1, text.size()));
    if (line.starts_with("#")) {
      const auto title = trim(line.substr(line.find_first_not_of('#')));
      inside = line.starts_with("## ") && ascii_lower(title) == "retention";
      continue;
    }
    if (!inside || line.empty()) continue;
    if (line.starts_with("-") || line.starts_with("*")) line = trim(line.substr(1));
    const auto colon = line.find(':');
    const std::string type =
        colon == std::string_view::npos ? std::string() : std::string(trim(line.substr(0, colon)));
    const std::string value =
        colon == std::string_view::npos ? std::string() : ascii_lower(trim(line.substr(colon + 1)));
    if (type.empty() || value.empty()) {
      policy.problems.push_back("mem0.md: not a retention line: " + std::string(line));
      continue;
    }
    if (value == "forever") {
      policy.by_type[type] = std::nullopt;
    } else if (const auto days = value.ends_with("d")
                                     ? number(std::string_view(value).substr(0, value.size() - 1))
                                     : std::nullopt;
               days && *days > 0) {
      policy.by_type[type] = *days;
    } else {
      policy.problems.push_back("mem0.md: not a retention line: " + std::string(line));
    }
  }
  return policy;
}

Retention retention_of(const RetentionPolicy &policy, std::string_view type) {
  if (const auto it = policy.by_type.find(type); it != policy.by_type.end())
    return {it->second, "mem0.md: " + std::string(type) + ": " +
                            (it->second ? std::to_string(*it->second) + "d" : "forever")};
  if (type == memory_type::session_state || type == memory_type::compact_summary)
    return {policy.session_days, "retention_session_days: " + std::to_string(policy.session_days)};
  return {std::nullopt, "never"};
}

std::optional<long long> parse_time(std::string_view s) {
  s = trim(s);
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  const auto y = number(s.substr(0, 4)), mo = number(s.substr(5, 2)), d = number(s.substr(8, 2));
  if (!y || !mo || !d) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*y)),
                                        std::chrono::month(static_cast<unsigned>(*mo)),
                                        std::chrono::day(static_cast<unsigned>(*d))};
  if (!ymd.ok()) return std::nullopt;
  long long t = std::chrono::sys_days(ymd).time_since_epoch().count() * 86400LL;
  s.remove_prefix(10);
  if (s.empty()) return t;
  if ((s[0] != 'T' && s[0] != ' ') || s.size() < 9 || s[3] != ':' || s[6] != ':')
    return std::nullopt;
  const auto h = number(s.substr(1, 2)), mi = number(s.substr(4, 2)), se = number(s.substr(7, 2));
  if (!h || !mi || !se) return std::nullopt;
  t += *h * 3600 + *mi * 60 + *se;
  s.remove_prefix(9);
  if (!s.empty() && s[0] == '.') {
    s.remove_prefix(1);
    while (!s.empty() && s[0] >= '0' && s[0] <= '9')
      s.remove_prefix(1);
  }
  if (s.empty() || s == "Z" || s == "z") return t;
  if ((s[0] == '+' || s[0] == '-') && s.size() >= 5) {
    const std::string_view zone = s.substr(1);
    const auto zh = number(zone.substr(0, 2));
    const auto zm =
        number(zone.size() >= 5 && zone[2] == ':' ? zone.substr(3, 2) : zone.substr(2, 2));
    if (!zh || !zm) return std::nullopt;
    const long long offset = *zh * 3600 + *zm * 60;
    return s[0] == '+' ? t - offset : t + offset;
  }
  return std::nullopt;
}

} // namespace mem0::hygiene
