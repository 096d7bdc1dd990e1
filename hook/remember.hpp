#pragma once
#include "hook/runner.hpp"
#include "mem0/api.hpp"
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
// (rejected). A hook that captures never talks to the network itself.

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
};

// Text made safe to store: `<system-reminder>`, `<private>` and similar wrapper tags removed
// with what they wrap, secrets redacted unless `redact` is off, surrounding space trimmed.
std::string prepare_capture_text(std::string_view text, bool redact);

// Prepare `capture` (metadata: type, source, session_id, branch; the project's custom
// instructions from mem0.md) and queue it in the outbox; returns the item's name. No network.
// When nothing was queued, the error's kind says why: disabled (capture is off), no_key, empty
// (nothing left to capture), duplicate, full or io (the outbox). Identity and repository come
// from the run's facts, bound to `input`; the caller declares the sender start (HookOutput::send).
Result<std::string> remember(const HookContext &ctx, const HookInput &input, Capture capture);

// What a declared sender start runs in its detached process: `before` (a capture too slow for
// the hook itself), then one send_round. Empty, so that no process starts, when capture is off or
// there is no key, or, without `before`, when the run's facts show nothing pending or a pause.
std::function<void()> sender_work(const HookContext &ctx, const std::function<void()> &before = {});

// What one sender round did.
struct SendReport {
  std::size_t delivered = 0;
  std::size_t rejected = 0;
  bool busy = false;            // another sender holds the lock: nothing was done
  std::optional<Error> stopped; // the retryable failure that ended the round
};

// One sender round, under the sender lock: items oldest first, k_send_batch at a time, each
// deleted once the server took it; 429, 5xx, timeouts and transport failures keep the item and
// end the round (and feed the back-off); other refusals of the item set it aside as rejected.
// Ends when the outbox is empty, at a pause, at the daily add cap, or after k_send_round.
SendReport send_round(const HookContext &ctx);

inline constexpr std::size_t k_send_batch = 4;
inline constexpr std::chrono::seconds k_send_round{60};

} // namespace mem0
