#pragma once
#include "mem0/api.hpp"
#include "mem0/search.hpp"
#include "runtime/agent.hpp"
#include "runtime/facts.hpp"
#include "runtime/runtime.hpp"
#include "store/backoff.hpp"
#include "store/pause.hpp"
#include "util/clock.hpp"
#include "util/detach.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mem0 {

// The one memory service (docs/contributing.md#the-memory-service): search, get, list, add,
// update and delete over the configured backend, for the hooks' recall, the CLI and the MCP
// server alike, with the same pause rules, back-off, daily count and id map.

// Who asks: the hooks' automatic recall, which the user's pause stops, or a request of the user
// or the model (the CLI's commands, the memory tools), which it does not
// (docs/cli.md#pause-and-resume). A back-off pause holds both.
enum class Caller { automatic, request };

// What keeps a request from being sent now (daily_limit: the automatic caller's daily search
// cap, MemoryService::lookup).
struct Hold {
  enum class Kind { user_pause, key_rejected, backoff, daily_limit };
  Kind kind = Kind::backoff;
  std::optional<PauseStore::UserPause> user_pause; // Kind::user_pause
  std::optional<BackoffStore::Pause> backoff;      // key_rejected, backoff
};

// What an automatic caller's searches (or listing) got, or what held them: MemoryService::lookup.
struct Lookup {
  PlanOutcome outcome;            // a result per search (a listing's: one), failures, sent
  std::optional<Hold> hold;       // held: nothing was sent
  std::optional<MemoryPage> page; // a listing's answer
};

// The pause rules: the user's pause holds an automatic caller; a back-off pause of the server
// and key holds every caller (a rejected key's as key_rejected). nullopt: send.
std::optional<Hold> hold_for(Caller caller, const std::optional<PauseStore::UserPause> &user_pause,
                             const std::optional<BackoffStore::Pause> &backoff);

// Feed what a run of requests to `api`'s server got to the back-off (an answer ends a pause, a
// 429 starts one), waiting at most `wait` for its lock; a failure to save is logged.
void feed_backoff(const RunDeps &deps, const ApiTarget &api, const PlanOutcome &outcome,
                  std::chrono::milliseconds wait = k_lock_wait);

// One line for `e`, never the key: no key, key rejected, rate limited, timed out, not found, ...
std::string failure_line(const Error &e);

// What `peek` and the tools take for an id: a full id, a short id, or nothing (plain search).
struct IdQuery {
  std::string hex;
  bool is_uuid = false;
};
// `^[a-f0-9]{8}$`, a uuid, or a `[mem0:<hex>]` citation anywhere in `query`.
std::optional<IdQuery> detect_id(std::string_view query);

// Resolve a short id to the one full id it prefixes among the injected ids of `sessions` (the id
// map); nullopt when none or several match.
std::optional<std::string> resolve_short_id(std::string_view short_id,
                                            const std::vector<SessionState> &sessions);

// What storing a memory did: delivered (with its id when the server gave one), rejected by the
// server (set aside, never retried), or queued in the outbox for the sender, and why.
struct Stored {
  bool delivered = false;
  bool rejected = false;
  std::string id;
  std::string reason; // queued: why it was not delivered, when known; rejected: the server's why
};
// What `stored` says to the user or the model: `stored as <id> [mem0:id8]`, `stored`,
// `rejected by Mem0: …`, or `queued: …` with the reason when known.
std::string stored_line(const Stored &stored);

// A memory to add: its text (stored verbatim, infer off, redacted), type, source and further
// metadata, and the agent named in metadata.agent.
struct NewMemory {
  std::string text;
  std::string type = std::string(memory_type::decision);
  std::string source;
  std::vector<std::pair<std::string, std::string>> metadata = {};
  const Agent *agent = &claude_code();
  std::optional<bool> team = std::nullopt; // Capture::team: --team, --personal, or the setting
};

// Starts a sender for what a call left queued (util/detach.hpp's run_detached); none when empty.
using Detach = std::function<Result<void>(const DetachedWork &)>;

// The service for one call: its dependencies, the directory whose project it serves, the call's
// deadline and who asks. Every request runs under the deadline; a request held by the pause
// rules fails at once without sending (rate_limited, or unauthorized for a rejected key); what
// the server answers feeds the back-off.
class MemoryService {
public:
  MemoryService(const RunDeps &deps, std::filesystem::path cwd, Deadline deadline,
                Detach detach = {}, Caller caller = Caller::request);
  // The service of a hook run: the automatic caller, over the run's `facts` (bound to the event's
  // input), which its pause rules, daily cap and target read.
  MemoryService(const RunDeps &deps, std::shared_ptr<RunFacts> facts, Deadline deadline);

  // The API target; a no_key error (saying how to set one) or the reason there is none.
  Result<ApiTarget> api() const;
  // Who is asking: the configured user, the project of the directory, `session`.
  Identity identity(std::string session) const;
  // An error when the pause rules hold this caller's requests to `api` now.
  Result<void> ready(const ApiTarget &api) const;

  // The hooks' searches of `plan` for `identity` (docs/hooks.md#the-recall-pipeline): held,
  // sending nothing, by the pause rules (the run's facts as it first found them) or the daily
  // search cap; failed at once without a target or with too little time left; otherwise sent in
  // parallel under the deadline, counted for today (UTC) and fed to the back-off. Why nothing was
  // sent is logged and noted in the run's entry of the run log.
  Lookup lookup(const Identity &identity, const std::vector<SearchSpec> &plan) const;
  // `lookup` for the first `page_size` of `identity`'s memories, newest first: one request, counted
  // as a search; Lookup::page holds the page, outcome.results[0] its memories.
  Lookup lookup_recent(const Identity &identity, int page_size) const;

  // Run `plan` in parallel, fed to the back-off; an error, sending nothing, when held.
  Result<PlanOutcome> run(const ApiTarget &api, const Identity &identity,
                          const std::vector<SearchSpec> &plan) const;
  // `run`, merged in plan order, at most the first search's top_k; an error when every search
  // failed.
  Result<std::vector<Memory>> search(const ApiTarget &api, const Identity &identity,
                                     const std::vector<SearchSpec> &plan) const;
  // The memory `id_text` names (full id, id8 or [mem0:id8], short ids through the id map); "not
  // found" and an id that names nothing are client errors.
  Result<Memory> get(const ApiTarget &api, std::string_view id_text) const;
  // `get`, for a memory of `identity`'s user or of its project's team (no user, the project's
  // shared agent id or the project id as agent_id): another's is a client error saying it is not
  // theirs and not `verb` (shown, updated, deleted), without its text.
  Result<Memory> own_memory(const ApiTarget &api, const Identity &identity,
                            std::string_view id_text, std::string_view verb = "shown") const;
  // One page of `identity`'s memories, newest first.
  Result<MemoryPage> list(const ApiTarget &api, const Identity &identity,
                          const ListSpec &spec) const;
  // A listing and the searches of `plan`, sent together in parallel and fed to the back-off
  // together (the tour, docs/cli.md#tour); an error, sending nothing, when held.
  struct Survey {
    Result<MemoryPage> page;
    PlanOutcome searches;
  };
  Result<Survey> survey(const ApiTarget &api, const Identity &identity, const ListSpec &list,
                        const std::vector<SearchSpec> &plan) const;
  // Pages of `page_size` until the last one or `most` memories, newest first.
  Result<std::vector<Memory>> list_all(const ApiTarget &api, const Identity &identity, Scope scope,
                                       std::size_t most, int page_size = 100) const;
  // Store `memory` through the outbox (runtime/remember.hpp), then one sender round under the
  // deadline, and a detached sender when that round did not deliver it (sender_work's rules); a
  // delivered memory's id goes into the id map. An error when nothing was queued (no key,
  // nothing left, a duplicate, the outbox full).
  Result<Stored> add(const NewMemory &memory) const;
  // Queue `memory` in the outbox only; its item's name. `add`'s errors.
  Result<std::string> queue(const NewMemory &memory) const;
  // One sender round for the queued `items` (only those while the user pauses), then a detached
  // sender for what is left (of `agent`); what became of each, in order.
  std::vector<Stored> deliver(const std::vector<std::string> &items,
                              const Agent &agent = claude_code()) const;
  // Replace the text of a memory of `identity`'s user with `text`, redacted; the memory as
  // updated.
  Result<Memory> update(const ApiTarget &api, const Identity &identity, std::string_view id_text,
                        std::string_view text) const;
  // Set `metadata.pinned` (a JSON boolean) of a memory of `identity`'s user, keeping its text and
  // other metadata (docs/hygiene.md#pin); the memory as updated.
  Result<Memory> set_pinned(const ApiTarget &api, const Identity &identity,
                            std::string_view id_text, bool pinned) const;
  // Delete a memory of `identity`'s user (a get checks whose it is first); returns it.
  Result<Memory> remove(const ApiTarget &api, const Identity &identity,
                        std::string_view id_text) const;

  // Add the ids of `memories` to the id map of `session`, so `peek <id8>` resolves them.
  void show(const std::string &session, const std::vector<Memory> &memories) const;
  // The session the ids a request shows are registered in: the agent's session when one runs
  // it (session_in_env), else k_tool_session.
  std::string tool_session() const;

private:
  std::optional<Hold> automatic_hold() const;
  Lookup automatic(std::size_t requests, std::size_t results,
                   const std::function<PlanOutcome(const ApiTarget &)> &send) const;
  RunFacts &run_facts() const;
  RunFacts facts_for(const Agent &agent) const;
  Result<HttpResponse> send_one(const ApiTarget &api, HttpRequest request) const;
  Result<std::string> full_id(std::string_view id_text) const;

  const RunDeps &m_deps;
  std::filesystem::path m_cwd;
  Deadline m_deadline;
  Detach m_detach;
  Caller m_caller;
  mutable std::shared_ptr<RunFacts> m_facts; // the run's, else made on first use (run_facts)
};

// Where the ids are registered when no agent's session runs the request.
inline constexpr std::string_view k_tool_session = "mcp";

} // namespace mem0
