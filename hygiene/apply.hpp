#pragma once
#include "hygiene/gather.hpp"
#include "runtime/memory_service.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// Applying a dream's plan (docs/hygiene.md#dream): exactly its deletions, after an undo file.

namespace mem0::hygiene {

// What an apply did: the undo file, and of the plan's deletions those the server took and those
// left queued in the outbox for the sender.
struct Applied {
  std::filesystem::path undo; // empty when there was nothing to delete
  std::vector<std::string> deleted;
  std::vector<std::string> queued;
};

// Where the undo file of an apply at `now` goes: `<mem0 dir>/undo/dream-<UTC>.jsonl`.
std::filesystem::path undo_path(const Config &config, WallTime now);

// Apply `dream`'s plan: refuse (a client error) a plan that did not read the whole scope; under
// `<state dir>/dream.lock` (a client error when another apply holds it), write every memory it
// deletes to the undo file in export's format, durably (an error, deleting nothing, when it
// cannot be written), then queue their deletes in the outbox and deliver them under the
// service's deadline; what is left stays queued for the sender.
Result<Applied> apply_dream(const RunDeps &deps, const MemoryService &service, const Dream &dream);

// dream --auto's gates: at least this many memories, at most once a UTC day per project.
inline constexpr std::size_t k_auto_min_memories = 20;

// True when `project`'s last automatic dream was not today (UTC); records today when `claim`.
bool auto_due(const StateStore &state, std::string_view project, WallTime now, bool claim);

// dream --auto: nullopt (with why in `skipped`) when not due, the scope is small or incomplete
// or there is nothing to delete; else apply_dream of the plan's duplicates and expired.
Result<std::optional<Applied>> auto_dream(const RunDeps &deps, const MemoryService &service,
                                          const Dream &dream, std::string_view project,
                                          std::string &skipped);

} // namespace mem0::hygiene
