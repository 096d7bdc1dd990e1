#pragma once
#include "runtime/facts.hpp"
#include "runtime/runtime.hpp"
#include "util/clock.hpp"
#include "util/detach.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {

// The sender (docs/capture.md#the-sender): the one process at a time that delivers the outbox,
// started detached when a run declares it.

// What a declared sender start runs in its detached process: `before` (a capture too slow for
// the hook itself), then one send_round, which the arguments `--send --agent <agent>` make a
// hook or mem0-hooks do on its own (run_sender). Empty, so that no process starts, when there is no
// key, while the user pauses (then `before` is dropped too), or, without `before`, when nothing is
// pending or a back-off pause holds. With capture off (auto_save) the handlers declare no capture
// as `before` (auto dream still runs), and of the queue only an add the user asked for (remember,
// add_memory) starts a sender. The user's pause, the pending items and the agent come from the
// run's `facts`.
DetachedWork sender_work(const RunDeps &deps, RunFacts &facts,
                         const std::function<void()> &before = {});

// What one sender round did.
struct SendReport {
  std::size_t delivered = 0;
  std::size_t rejected = 0;
  bool busy = false;            // another sender holds the lock: nothing was done
  std::optional<Error> stopped; // the retryable failure that ended the round
  // The adds delivered, by item name: the ids the server gave (none for an asynchronous add).
  std::map<std::string, std::vector<std::string>> added;
  // The items set aside as rejected, by name: why.
  std::map<std::string, std::string> refused;
};

// One sender round, under the sender lock: items oldest first, k_send_batch at a time, each
// deleted once the server took it; 429, 5xx, timeouts and transport failures keep the item and
// end the round (and feed the back-off); other refusals of the item set it aside as rejected.
// An add whose answer never came (a timeout, a lost connection) is marked unanswered, and its
// retry first searches for its text: found, it counts as delivered and is not added again
// (docs/capture.md#the-outbox; an add of one message with infer off, stored as sent).
// With capture off (auto_save), only the adds the user asked for are sent; the rest wait.
// Ends when the outbox is empty, at a pause, at the daily add cap, or at `end` (k_send_round
// from now by default; `remember` and the MCP server pass their call's deadline). With `only`,
// that item alone is sent (an explicit add while the user pauses: the rest waits).
SendReport send_round(const RunDeps &deps, std::optional<Deadline> end = std::nullopt,
                      const std::string &only = {});

inline constexpr std::size_t k_send_batch = 4;
inline constexpr std::chrono::seconds k_send_round{60};

} // namespace mem0
