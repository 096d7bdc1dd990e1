#pragma once
#include "store/disk.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mem0 {

// Where a capture goes besides the user's own memory (docs/capture.md#team-memory): empty for the
// user's lane only, the layout before team memory, which an item queued before it reads as.
struct TeamLane {
  std::string agent_id;          // the project's shared id (a self-hosted server: the project id)
  bool shared_only = false;      // `remember --team`: the shared lane only, without the user's id
  std::string run_id;            // the session
  std::vector<std::string> dirs; // metadata.dirs: the cwd's directories under the root
};

// A capture as the outbox keeps it: what to add and for whom, in no backend's shape
// (docs/capture.md#the-outbox). The backend's dialect (mem0/dialect.hpp) turns it into its add
// request when it is sent, so a queued capture survives a change of backend.
struct QueuedAdd {
  struct Message {
    std::string role; // "user" or "assistant"
    std::string content;
  };
  std::vector<Message> messages;
  std::string user_id;
  std::string project_id;
  std::vector<std::pair<std::string, std::string>> metadata; // type, source, session_id, ...
  bool infer = true;
  std::string expiration_date;     // "YYYY-MM-DD", or empty
  std::string custom_instructions; // or empty: mem0.md's, the project's own
  TeamLane team = {};
};

// One queued write (docs/capture.md#the-outbox).
struct OutboxItem {
  enum class Kind { add, remove };
  Kind kind = Kind::add;
  QueuedAdd add;            // add: the capture
  std::string memory_id;    // remove: the memory to delete
  std::string import_file;  // add of a project-file section: the file and the import (its
  std::string import_claim; // claim) it belongs to, so that the ids it gets are recorded
  bool asked = false;       // an add the user asked for (remember, add_memory): sent even while
                            // automatic capture is off (docs/capture.md#the-sender)
  bool unanswered = false;  // an add sent whose answer never came (a timeout, a lost connection):
                            // the server may hold it already (docs/capture.md#the-outbox)
};

// The durable queue of writes under `<state dir>/outbox/`: one private file per item, named by
// a sequence number so that the order of capture is the order of sending; rejected items under
// `outbox/rejected/`; the sequence, the dedupe record and the last delivery in `outbox/state.json`.
// Queueing is made under `outbox/state.json.lock`; an item that could not wait for it is parked
// in `outbox/parked/` until the sender queues it. Only the one sender (under its own lock)
// removes or rejects items. On `disk`.
class Outbox {
public:
  Outbox(StateDisk &disk, const std::filesystem::path &state_dir);

  static constexpr std::size_t k_max_items = 1000;
  static constexpr std::size_t k_max_bytes = 20 * 1024 * 1024;
  static constexpr auto k_dedupe_window = std::chrono::hours(24 * 30);
  static constexpr std::size_t k_max_identities = 5000;

  // Queue `item` unless `identity` (a content hash; empty for none) was queued within the
  // dedupe window (a `duplicate` error), or the outbox holds k_max_items items or k_max_bytes
  // already (`full`). Stored items are never dropped to make room. Returns the item's name; an
  // `io` error when it could not be written. When the queue's lock stays busy for k_lock_wait
  // (a crowd of captures), the item is parked instead, written whole to `parked/`, and its name
  // is `parked/…`: the sender queues it by these rules (admit_parked).
  Result<std::string> put(const OutboxItem &item, const std::string &identity, WallTime now);
  // Queue the parked items, oldest first, as put does; one that cannot be yet (the lock busy,
  // the outbox full) stays parked, and so do those after it. A duplicate goes.
  void admit_parked(WallTime now);
  // The names of the pending items, oldest first.
  std::vector<std::string> pending() const;
  // The names of the parked items (`parked/…`), oldest first.
  std::vector<std::string> parked() const;
  // The pending items, then the parked ones: what is still to be sent.
  std::vector<std::string> waiting() const;
  // Whether a waiting item is `asked`: read newest first, the way explicit adds are found.
  bool has_asked() const;
  // The item called `name`; nullopt when it is gone or unreadable.
  std::optional<OutboxItem> load(const std::string &name) const;
  // Delete a delivered item.
  void remove(const std::string &name);
  // Note that the add `name` was sent and its answer never came (OutboxItem::unanswered), so that
  // whichever sender retries it looks for it first.
  void mark_unanswered(const std::string &name);
  // Move an item the server refused to `rejected/`, with the status and the server's text.
  void reject(const std::string &name, long status, const std::string &message);
  // Note a delivery at `now` (for `doctor`).
  void delivered(WallTime now);

  struct Stats {
    std::size_t pending = 0; // waiting: parked items count
    std::size_t bytes = 0;
    std::size_t rejected = 0;
    long long last_delivery = 0; // unix seconds; 0 = never
  };
  Stats stats() const;

  const std::filesystem::path &dir() const { return m_dir; }

private:
  // The pending items, oldest first; `with_parked`: then the parked ones.
  std::vector<std::string> items(bool with_parked) const;
  // put under the lock: a `timeout` error when the lock stays busy.
  Result<std::string> queue(const std::string &content, const std::string &identity, WallTime now);

  StateDisk *m_disk;
  std::filesystem::path m_dir;
};

// The identity of a capture for dedupe: a hash of its normalised text, type and project, and of
// its target (the backend and server it goes to: the same text for another one is queued).
std::string capture_identity(std::string_view text, std::string_view type, std::string_view project,
                             std::string_view target);

} // namespace mem0
