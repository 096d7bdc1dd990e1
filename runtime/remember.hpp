#pragma once
#include "mem0/api.hpp"
#include "runtime/facts.hpp"
#include "runtime/runtime.hpp"
#include "store/outbox.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mem0 {

// The write pipeline (docs/capture.md): capture → redact and strip → dedupe → outbox item
// (atomic) → detached sender → add → delete the item, keep it (retryable) or set it aside
// (rejected). A hook that captures never talks to the network itself; the memory service's adds
// (MemoryService::add) take the same way.

// What a hook captures.
struct Capture {
  std::vector<AddSpec::Message> messages;
  std::string type;                                          // metadata.type
  std::string source;                                        // metadata.source
  std::vector<std::pair<std::string, std::string>> metadata; // more metadata
  bool infer = true;
  std::string expiration_date; // "YYYY-MM-DD", or empty
  std::string import_file;     // a project-file section: its file and import claim
  std::string import_claim;
  bool prepared = false; // the messages went through prepare_capture_text already
  // Asked for by the user or the model (`remember`, the add_memory tool), not automatic: stored
  // even when automatic capture is off (auto_save) or the user paused the hooks.
  bool asked = false;
  // Team memory for this capture (docs/capture.md#team-memory): true the project's shared lane
  // only (`remember --team`), false the user's own (`--personal`); unset, the team_memory setting.
  std::optional<bool> team = std::nullopt;
};

// The most characters (code points) of one captured text
// (docs/capture.md#before-anything-touches-the-disk).
inline constexpr std::size_t k_max_capture_chars = 20000;

// Text made safe to store: cut to `max_chars` characters first (without a word the cut would
// halve, and then ending in `…`), then `<system-reminder>`, `<private>` and similar wrapper tags
// removed with what they wrap, secrets redacted unless `redact` is off, surrounding space
// trimmed. Linear in the size of `text`.
std::string prepare_capture_text(std::string_view text, bool redact,
                                 std::size_t max_chars = k_max_capture_chars);

// Prepare `capture` (metadata: type, source, session_id, branch; the project's custom
// instructions from mem0.md) and queue it in the outbox; returns the item's name. No network.
// When nothing was queued, the error's kind says why: disabled (capture is off), no_key, empty
// (nothing left to capture), duplicate, full or io (the outbox). Identity, repository, the agent
// and the user's pause come from the run's `facts` (bound to the event's input), and what was
// skipped is noted there; the caller declares the sender start (HookOutput::detached).
Result<std::string> remember(const RunDeps &deps, RunFacts &facts, Capture capture);

} // namespace mem0
