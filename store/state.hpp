#pragma once
#include "store/backoff.hpp"
#include "store/pause.hpp"
#include "store/session_state.hpp"
#include "store/usage.hpp"

#include <filesystem>

namespace mem0 {

// Everything the hooks keep between runs, under one private state dir (docs/state.md):
// per-session memory, the daily counts, the shared back-off and the user's pause. Built once per
// process.
struct StateStore {
  explicit StateStore(const std::filesystem::path &state_dir)
      : dir(state_dir), sessions(state_dir), usage(state_dir), backoff(state_dir),
        pauses(state_dir) {}

  std::filesystem::path dir;
  SessionStore sessions;
  UsageStore usage;
  BackoffStore backoff;
  PauseStore pauses;
};

} // namespace mem0
