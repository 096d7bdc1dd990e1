#pragma once
#include "store/disk.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {

// The back-off shared by every hook process (docs/failures.md#back-off), kept in
// `<state dir>/backoff.json` per server and key (`ApiTarget::server_key`): after a 429, or after
// `k_failures_before_pause` runs in a row whose requests all failed to reach the server, hooks
// skip the network to that server with that key until the pause ends or a request it answers
// ends it early; after the server rejected the key for a capture, until the key changes (the
// key is part of the server key) or `reset`. Another server, or another key, is not held up.
class BackoffStore {
public:
  BackoffStore(StateDisk &disk, std::filesystem::path state_dir);

  static constexpr int k_failures_before_pause = 3;
  static constexpr std::chrono::seconds k_default_pause{30};
  static constexpr std::chrono::seconds k_longest_pause{3600}; // the longest Retry-After honoured
  static constexpr std::size_t k_max_servers = 16;             // entries kept in the file

  struct Pause {
    std::chrono::seconds remaining; // 0 when it lasts until the key changes
    std::string reason;
    bool until_key_changes = false; // the server rejected the key
  };
  // The pause of `server` in force at `now`, if any. A stored pause is trusted only when it ends
  // within `k_longest_pause` of `now` and has a known reason; `reason` is always a fixed text.
  std::optional<Pause> active_pause(WallTime now, std::string_view server) const;

  // How one run's requests to `server` went: `rate_limited` pauses for `retry_after`,
  // `unreachable` counts towards a pause, `key_rejected` pauses until the key changes,
  // `answered` ends the pause and clears the count, `refused` (answered, but no request
  // succeeded) too, but for a rejected key's pause. Waits at most `wait` for the file's lock.
  enum class Outcome { answered, refused, unreachable, rate_limited, key_rejected };
  Result<void> record_outcome(WallTime now, std::string_view server, Outcome outcome,
                              std::chrono::seconds retry_after = k_default_pause,
                              std::chrono::milliseconds wait = k_lock_wait);

  // Record the outcome of a run that sent `sent` requests to `server` and got `failures`: a 429
  // pauses for the longest Retry-After; every request unreachable (transport or timeout) counts
  // as an unreachable run; anything else is an answer (`refused` when every request failed).
  // Nothing is recorded when nothing was sent; a request libcurl could not make (no_libcurl)
  // was not sent: the server did not fail it.
  Result<void> record_run(WallTime now, std::string_view server, const std::vector<Error> &failures,
                          std::size_t sent, std::chrono::milliseconds wait = k_lock_wait);

  // Forget every pause and failure count (`mem0-hooks doctor --reset`); returns how many pauses
  // were in force at `now`.
  Result<std::size_t> reset(WallTime now);

private:
  StateDisk *m_disk;
  std::filesystem::path m_file;
};

} // namespace mem0
