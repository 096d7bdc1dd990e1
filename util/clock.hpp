#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>

namespace mem0 {

// Durations and deadlines run on the steady clock; dates and ages on the system clock.
using SteadyClock = std::chrono::steady_clock;
using Deadline = SteadyClock::time_point;
using WallTime = std::chrono::system_clock::time_point;
using WallClock = std::function<WallTime()>;

// The time left until `deadline`, never negative.
inline std::chrono::milliseconds time_left(Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

// Whole seconds since the Unix epoch.
inline long long unix_seconds(WallTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// "YYYY-MM-DD" of `t` in UTC.
inline std::string utc_day(WallTime t) {
  const std::chrono::year_month_day ymd{std::chrono::floor<std::chrono::days>(t)};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

// `unix_seconds` as `format` (strftime) gives it, in the local time zone or in UTC.
inline std::string format_time(long long unix_seconds, const char *format, bool local) {
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (local)
    localtime_r(&t, &tm);
  else
    gmtime_r(&t, &tm);
  char buf[64];
  return std::strftime(buf, sizeof buf, format, &tm) ? buf : "";
}

inline std::string local_time(long long unix_seconds, const char *format = "%Y-%m-%d %H:%M") {
  return format_time(unix_seconds, format, true);
}

inline std::string utc_time(long long unix_seconds, const char *format) {
  return format_time(unix_seconds, format, false);
}

} // namespace mem0
