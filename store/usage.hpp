#pragma once
#include "store/disk.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

#include <chrono>
#include <filesystem>
#include <string_view>

namespace mem0 {

// What the hooks sent on one UTC day.
struct DailyUsage {
  long searches = 0; // automatic searches
  long adds = 0;     // captured memories delivered
};

// The per-day counts in `<state dir>/usage.json` (docs/state.md#daily-counts), which the daily
// caps read and `doctor` shows. Older files held a bare number per day: the searches.
class UsageStore {
public:
  UsageStore(StateDisk &disk, std::filesystem::path state_dir);

  // The counts of `day` ("YYYY-MM-DD", UTC): usage.json's and those of the day's log it has not
  // taken in yet; zero when none are stored.
  DailyUsage on(std::string_view day) const;

  // Add `searches` and `adds` to `day`: a line appended to the day's log, which no lock holds
  // up, then taken into usage.json under its lock if it is free within `wait` (else by a later
  // add). Counts saturate at the largest value. Keeps `day`, the 30 days before it and the day
  // after. An error only when the count could not be recorded at all.
  Result<void> add(std::string_view day, DailyUsage counts,
                   std::chrono::milliseconds wait = k_lock_wait);

private:
  // `usage.<day>.log`: the day's counts as appended, one "<searches> <adds>" line per add.
  std::filesystem::path log_of(std::string_view day) const;
  // Take today's and yesterday's log lines into usage.json, under its lock.
  Result<void> fold(std::string_view day, std::chrono::milliseconds wait) const;

  StateDisk *m_disk;
  std::filesystem::path m_file;
};

} // namespace mem0
