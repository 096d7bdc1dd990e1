#pragma once
// What the concurrency cases of session_state_test.cpp and session_state_posix_test.cpp share:
// workers (threads or processes) that each record `per_worker` ids in one session, or append
// `per_worker` runs to one session's run log.
#include "tests/unit/catch.hpp"

#include "store/disk.hpp"
#include "store/session_state.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
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

// Worker `worker`'s `per_worker` runs, appended to the run log of one session in `state_dir`, each
// big enough that the log passes its bound and is shrunk every few runs: how many failed.
inline int append_worker_runs(const std::filesystem::path &state_dir, int worker, int per_worker) {
  SessionStore store(real_state_disk(), state_dir);
  int failed = 0;
  for (int i = 0; i < per_worker; ++i) {
    RunRecord r;
    r.hook = "worker-" + std::to_string(worker);
    r.chars = static_cast<std::size_t>(i);
    r.skipped.push_back({"gated", std::string(550, 'x')});
    failed += !store.append_run("shared-session", r);
  }
  return failed;
}

// Check that no run was lost: the log keeps k_max_runs, and of each worker's runs those kept are
// its last ones, with no gap.
inline void check_last_runs_kept(const std::filesystem::path &state_dir, int per_worker) {
  std::map<std::string, std::vector<std::size_t>> kept;
  const auto runs = SessionStore(real_state_disk(), state_dir).runs("shared-session");
  CHECK(runs.size() == k_max_runs);
  for (const auto &r : runs)
    kept[r.hook].push_back(r.chars);
  for (const auto &[worker, seqs] : kept)
    for (std::size_t i = 0; i < seqs.size(); ++i)
      CHECK(seqs[i] == per_worker - seqs.size() + i);
}

} // namespace mem0::testing
