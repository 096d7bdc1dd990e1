#pragma once
#include "hygiene/logs.hpp"
#include "hygiene/retention.hpp"
#include "mem0/memory.hpp"
#include "util/json_writer.hpp"

#include <cstddef>
#include <string>
#include <vector>

// Dream (docs/hygiene.md#dream): a deterministic review of a scope's memories. plan_dream
// computes a plan (a value); the CLI and the console print it (write_dream_json, dream_report)
// and apply it (hygiene/apply.hpp) as it is.

namespace mem0::hygiene {

// What dream reads: the memories (and whether that is all of the scope), retention, the use
// counts of the run logs, the time, and the near-duplicate threshold.
struct DreamInput {
  std::vector<Memory> memories;
  bool complete = true;              // every memory of the scope was read
  std::vector<std::string> problems; // what could not be read, for the report
  RetentionPolicy retention;
  UseCounts uses;
  long long now = 0; // unix seconds
  double near = 0.8; // Jaccard similarity of word sets for `near`
};

// Texts longer than this (bytes) are not compared for duplicates or conflicts (the report says
// so); retention still applies.
inline constexpr std::size_t k_max_compared_bytes = 16 * 1024;
// `unused`: injected at least this often in at least this many sessions, never used.
inline constexpr std::size_t k_unused_injections = 5;
inline constexpr std::size_t k_unused_sessions = 3;

struct DuplicateGroup {
  std::string keep;
  std::vector<std::string> drop;
  std::string reason;      // "exact" or "near"
  double similarity = 1.0; // the least similarity of a dropped one to the kept one
};
struct ExpiredMemory {
  std::string id;
  std::string type;
  long age_days = 0;
  std::string rule; // retention_of's rule
};
struct ConflictPair {
  std::vector<std::string> ids;
  std::string why; // the words that differ: "`15` vs `14`"
};
struct UnusedMemory {
  std::string id;
  std::size_t injected = 0;
  std::size_t sessions = 0;
};

// A dream's plan: what it read, what it would delete (duplicates' drops and the expired), what
// it lists for the user (conflicts, unused), and how many pinned memories it left alone.
struct DreamPlan {
  std::size_t memories = 0;
  std::vector<DuplicateGroup> duplicates;
  std::vector<ExpiredMemory> expired;
  std::vector<ConflictPair> conflicts;
  std::vector<UnusedMemory> unused;
  std::size_t pinned_skipped = 0;
  bool complete = true;
  std::vector<std::string> problems;

  // The ids the plan deletes: the duplicates' drops, then the expired.
  std::vector<std::string> deletions() const;
};

// True when `m`'s metadata says `"pinned": true`.
bool is_pinned(const Memory &m);

// Jaccard similarity of the word sets of two texts.
double similarity(std::string_view a, std::string_view b);

// The plan for `input`. Duplicates: the same type and the same normalised words (exact) or a
// Jaccard similarity of at least `input.near` (near), found by prefix filtering over the rarest
// words of each type (no comparison of every pair); the kept one is pinned, else the most
// recently updated, and each dropped one is similar to it directly. Conflicts: the same type, at
// least 3 words in common, 1 or 2 words apart on each side, a number or a name among them; a
// conflict is never a duplicate. Expired: older than retention_of its type. Unused: see
// k_unused_*. Pinned memories are never dropped nor expired.
DreamPlan plan_dream(const DreamInput &input);

// The plan as JSON (docs/hygiene.md#dream): memories, duplicates, expired, conflicts, unused,
// pinned_skipped, complete, problems.
void write_dream_json(JsonWriter &w, const DreamPlan &plan);
std::string dream_json(const DreamPlan &plan);

// The plan for people, quoting the texts of `memories`.
std::string dream_report(const DreamPlan &plan, const std::vector<Memory> &memories);

} // namespace mem0::hygiene
