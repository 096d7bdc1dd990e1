#pragma once
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
  explicit UsageStore(std::filesystem::path state_dir);

  // The counts of `day` ("YYYY-MM-DD", UTC); zero when none are stored.
  DailyUsage on(std::string_view day) const;

  // Add `searches` and `adds` to `day` under the file's lock, waiting at most `wait` for it.
  // Counts saturate at the largest value. Keeps `day`, the 30 days before it and the day after.
  Result<void> add(std::string_view day, DailyUsage counts,
                   std::chrono::milliseconds wait = k_lock_wait);

private:
  std::filesystem::path m_file;
};

} // namespace mem0
