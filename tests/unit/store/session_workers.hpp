#pragma once
// What the concurrency cases of session_state_test.cpp and session_state_posix_test.cpp share:
// workers (threads or processes) that each record `per_worker` ids in one session.
#include "tests/unit/catch.hpp"

#include "store/session_state.hpp"

#include <algorithm>
#include <string>

namespace mem0::testing {

inline std::string worker_id(int worker, int i) {
  return "w" + std::to_string(worker) + "-" + std::to_string(i);
}

// Check that `state` holds exactly the ids of `workers` x `per_worker` updates, each once.
inline void check_all_ids_once(const SessionState &state, int workers, int per_worker) {
  CHECK(state.injected.size() == static_cast<std::size_t>(workers * per_worker));
  CHECK(state.prompts == workers * per_worker);
  for (int w = 0; w < workers; ++w)
    for (int i = 0; i < per_worker; ++i) {
      const std::string id = worker_id(w, i);
      const auto n = std::count(state.injected.begin(), state.injected.end(), id);
      if (n != 1) FAIL_CHECK(id << " appears " << n << " times");
    }
}

} // namespace mem0::testing
