#pragma once
#include "store/backoff.hpp"
#include "store/disk.hpp"
#include "store/outbox.hpp"
#include "store/pause.hpp"
#include "store/session_state.hpp"
#include "store/usage.hpp"

#include <filesystem>

namespace mem0 {

// Everything the hooks keep between runs, under one private state dir (docs/state.md):
// per-session memory, the daily counts, the shared back-off, the user's pause and the outbox of
// writes, all on `disk` (the machine's, or a test's in-memory one), which outlives the store.
// Built once per process.
struct StateStore {
  explicit StateStore(const std::filesystem::path &state_dir,
                      StateDisk &state_disk = real_state_disk())
      : dir(state_dir), disk(&state_disk), sessions(state_disk, state_dir),
        usage(state_disk, state_dir), backoff(state_disk, state_dir), pauses(state_disk, state_dir),
        outbox(state_disk, state_dir) {}

  std::filesystem::path dir;
  StateDisk *disk;
  SessionStore sessions;
  UsageStore usage;
  BackoffStore backoff;
  PauseStore pauses;
  Outbox outbox;
};

} // namespace mem0
