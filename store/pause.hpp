#pragma once
#include "store/disk.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// The user's own pause of automatic recall and capture (docs/cli.md#pause-and-resume), kept in
// `<state dir>/pause.json`: one pause for everywhere and one per project id, each until a time
// or until resumed. A pause whose end has passed is no pause; writes drop it.
class PauseStore {
public:
  PauseStore(StateDisk &disk, std::filesystem::path state_dir);

  struct UserPause {
    std::string project; // the project paused; "" for the pause of every project
    long long until = 0; // unix seconds; 0: until resumed
  };

  // The pause in force at `now` for the project `project()` names: the global one or the
  // project's, whichever ends last. Reads the file once (a missing file is no pause) and calls
  // `project` only when the file holds a project's pause, so that an unpaused run resolves
  // nothing.
  std::optional<UserPause> active(WallTime now, const std::function<std::string()> &project) const;

  // Pause `project` ("" for every project) until `until` (unix seconds; 0: until resumed),
  // replacing its earlier pause.
  Result<void> pause(WallTime now, const std::string &project, long long until);

  // End the pause of `project` ("" for the global one); true when one was in force.
  Result<bool> resume(WallTime now, const std::string &project);

  const std::filesystem::path &file() const { return m_file; }

private:
  StateDisk *m_disk;
  std::filesystem::path m_file;
};

// `30m`, `2h`, `1d`, `90s`: a positive whole number and a unit (s, m, h, d), at most 365 days;
// nullopt otherwise.
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

} // namespace mem0
