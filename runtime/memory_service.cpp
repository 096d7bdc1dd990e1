#include "runtime/memory_service.hpp"

#include "mem0/format.hpp"
#include "mem0/identity.hpp"
#include "runtime/facts.hpp"
#include "runtime/remember.hpp"
#include "runtime/sender.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <set>

namespace mem0 {
namespace {

Error failure(ErrorKind kind, std::string message) { return make_error(kind, std::move(message)); }

// Under this much time left no search is sent: it could not be answered, yet would be counted,
// feed the back-off and may still cost the server's quota.
constexpr std::chrono::milliseconds k_min_search_time{50};
// For the hooks, the daily count and the back-off are not worth the budget: a short wait, which
// other hooks (each holding the lock for about a millisecond) do not outlast, never past the
// deadline.
constexpr std::chrono::milliseconds k_side_wait{100};

} // namespace

std::optional<Hold> hold_for(Caller caller, const std::optional<PauseStore::UserPause> &user_pause,
                             const std::optional<BackoffStore::Pause> &backoff) {
  if (caller == Caller::automatic && user_pause)
    return Hold{Hold::Kind::user_pause, user_pause, {}};
  if (backoff)
    return Hold{backoff->until_key_changes ? Hold::Kind::key_rejected : Hold::Kind::backoff,
                std::nullopt, backoff};
  return std::nullopt;
}

void feed_backoff(const RunDeps &deps, const ApiTarget &api, const PlanOutcome &outcome,
                  std::chrono::milliseconds wait) {
  if (auto noted = deps.state.backoff.record_run(deps.now(), api.server_key(), outcome.failures,
                                                 outcome.sent, wait);
      !noted)
    deps.log.warn("back-off state not saved: " + noted.error().message);
}

std::string failure_line(const Error &e) {
  std::string line;
  switch (e.kind) {
  case ErrorKind::unauthorized: line = "the API key was rejected (" + e.message + ")"; break;
  case ErrorKind::rate_limited: line = "rate limited: " + e.message; break;
  case ErrorKind::timeout: line = "timed out (" + e.message + ")"; break;
  case ErrorKind::transport: line = "Mem0 could not be reached: " + e.message; break;
  case ErrorKind::server: line = "Mem0 server error: " + e.message; break;
  default: line = e.message;
  }
  return clean_text(line);
}

std::optional<IdQuery> detect_id(std::string_view query) {
  const std::string_view q = trim(query);
  if (q.size() == 8 && all_of_class(q, is_lower_hex)) return IdQuery{std::string(q), false};
  if (q.size() > 9 && all_of_class(q.substr(0, 8), is_lower_hex) && q[8] == '-' &&
      q.find_first_not_of("0123456789abcdef-") == std::string_view::npos)
    return IdQuery{std::string(q), true};
  if (const auto at = q.find("[mem0:"); at != std::string_view::npos) {
    const auto close = q.find(']', at);
    if (close == std::string_view::npos) return std::nullopt;
    std::string hex(q.substr(at + 6, close - at - 6));
    std::transform(hex.begin(), hex.end(), hex.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (hex.size() >= 8 && all_of_class(hex.substr(0, 8), is_lower_hex) &&
        hex.find_first_not_of("0123456789abcdef-") == std::string::npos)
      return IdQuery{hex, hex.size() > 8};
  }
  return std::nullopt;
}

std::optional<std::string> resolve_short_id(std::string_view short_id,
                                            const std::vector<SessionState> &sessions) {
  std::set<std::string> matches;
  for (const auto &s : sessions)
    for (const auto &id : s.injected)
      if (id8(id) == short_id) matches.insert(id);
  if (matches.size() != 1) return std::nullopt;
  return *matches.begin();
}

std::string stored_line(const Stored &stored) {
  if (stored.rejected)
    return "rejected by Mem0" + (stored.reason.empty() ? std::string() : ": " + stored.reason);
  if (!stored.delivered)
    return "queued: the memory waits in the outbox for the sender" +
           (stored.reason.empty() ? std::string() : " (" + stored.reason + ")");
  if (stored.id.empty()) return "stored";
  return "stored as " + stored.id + " [mem0:" + id8(stored.id) + "]";
}

MemoryService::MemoryService(const RunDeps &deps, std::filesystem::path cwd, Deadline deadline,
                             Detach detach, Caller caller)
    : m_deps(deps), m_cwd(std::move(cwd)), m_deadline(deadline), m_detach(std::move(detach)),
      m_caller(caller) {}

MemoryService::MemoryService(const RunDeps &deps, std::shared_ptr<RunFacts> facts,
                             Deadline deadline)
    : m_deps(deps), m_cwd(facts->cwd()), m_deadline(deadline), m_caller(Caller::automatic),
      m_facts(std::move(facts)) {}

// The facts of a call of `agent` in the service's directory (the agent's session variable names
// the session).
RunFacts MemoryService::facts_for(const Agent &agent) const {
  RunFacts facts(m_deps, agent);
  HookInput input;
  input.cwd = m_cwd.string();
  facts.bind(input);
  return facts;
}

RunFacts &MemoryService::run_facts() const {
  if (!m_facts) m_facts = std::make_shared<RunFacts>(facts_for(claude_code()));
  return *m_facts;
}

// The pause rules and the daily search cap for this caller, as the run's facts first found them;
// why they hold is logged and noted for the run log.
std::optional<Hold> MemoryService::automatic_hold() const {
  RunFacts &facts = run_facts();
  const Log &log = m_deps.log;
  const std::optional<PauseStore::UserPause> none;
  const auto &user_pause = m_caller == Caller::automatic ? facts.user_pause() : none;
  const std::optional<BackoffStore::Pause> unread; // the back-off is read only when needed
  auto hold = hold_for(m_caller, user_pause, user_pause ? unread : facts.backoff());
  if (hold && hold->kind == Hold::Kind::user_pause) {
    facts.note_paused_work();
    facts.note_skip("paused", "recall paused by you (mem0-hooks resume)");
    log.debug("paused by the user; no search sent");
  } else if (hold && hold->kind == Hold::Kind::key_rejected) {
    facts.note_skip("backoff", "the API key was rejected; no search until it changes");
    log.warn("the API key was rejected; no search sent until it changes");
  } else if (hold) {
    const auto &pause = *hold->backoff;
    log.warn(pause.reason + "; no search sent for another " +
             std::to_string(pause.remaining.count()) + " s");
    facts.note_skip("backoff", pause.reason + "; no search for another " +
                                   std::to_string(pause.remaining.count()) + " s");
  } else if (const long cap = m_deps.config.daily_search_limit;
             cap > 0 && facts.usage_today().searches >= cap) {
    log.warn("daily search limit (" + std::to_string(cap) + ") reached; no search sent");
    facts.note_skip("daily_limit", "daily search limit (" + std::to_string(cap) + ") reached");
    hold = Hold{Hold::Kind::daily_limit, std::nullopt, std::nullopt};
  }
  return hold;
}

// `requests` requests (`results` results when they fail at once) through `send`, held, failed or
// sent, counted and fed as `lookup` says.
Lookup MemoryService::automatic(std::size_t requests, std::size_t results,
                                const std::function<PlanOutcome(const ApiTarget &)> &send) const {
  Lookup found;
  if ((found.hold = automatic_hold())) return found;
  RunFacts &facts = run_facts();
  const Log &log = m_deps.log;
  const Result<ApiTarget> &api = facts.api();
  if (!api) {
    log.warn(std::string(to_string(api.error().kind)) + ": " + api.error().message);
    found.outcome.results.resize(results);
    found.outcome.failures.assign(requests, api.error());
    return found;
  }
  if (const auto left = time_left(m_deadline); left < k_min_search_time) {
    log.warn("only " + std::to_string(left.count()) + " ms left; no search sent");
    facts.note_skip("budget", "only " + std::to_string(left.count()) +
                                  " ms left of the time budget; no search sent");
    found.outcome.results.resize(results);
    found.outcome.failures.assign(requests, make_error(ErrorKind::timeout, "too little time left"));
    return found;
  }
  const std::string today = utc_day(m_deps.now());
  found.outcome = send(*api);
  const PlanOutcome &o = found.outcome;
  if (o.sent > 0)
    if (auto counted = m_deps.state.usage.add(today, {static_cast<long>(o.sent), 0},
                                              std::min(time_left(m_deadline), k_side_wait));
        !counted)
      log.warn("search count not saved: " + counted.error().message);
  // A 429 pauses every hook talking to this server with this key; so do repeated runs that
  // reached nothing at all, so that an outage does not cost every prompt the whole budget.
  feed_backoff(m_deps, *api, o, std::min(time_left(m_deadline), k_side_wait));
  return found;
}

Lookup MemoryService::lookup(const Identity &identity, const std::vector<SearchSpec> &plan) const {
  return automatic(plan.size(), plan.size(), [&](const ApiTarget &api) {
    return run_plan(m_deps.http, api, identity, plan, m_deadline, m_deps.log);
  });
}

Lookup MemoryService::lookup_recent(const Identity &identity, int page_size) const {
  std::optional<MemoryPage> listed;
  Lookup found = automatic(1, 0, [&](const ApiTarget &api) {
    PlanOutcome outcome;
    outcome.results.resize(1);
    outcome.sent = 1;
    const auto responses = m_deps.http.run({list_request(api, identity, page_size)}, m_deadline);
    Result<MemoryPage> page = responses.at(0) ? parse_list_response(*responses[0], api.dialect())
                                              : unexpected(responses[0].error());
    if (!page) {
      m_deps.log.warn("list failed: " + std::string(to_string(page.error().kind)) + ": " +
                      page.error().message);
      outcome.failures.push_back(page.error());
      return outcome;
    }
    outcome.results[0] = page->memories;
    listed = std::move(*page);
    return outcome;
  });
  found.page = std::move(listed);
  return found;
}

Result<ApiTarget> MemoryService::api() const {
  auto api = api_target(m_deps.config);
  if (api) return api;
  if (!has_access(m_deps.config))
    return unexpected(
        failure(ErrorKind::no_key, "no API key; set MEM0_API_KEY (see mem0-hooks doctor)"));
  return unexpected(api.error());
}

Identity MemoryService::identity(std::string session) const {
  return project_identity(m_deps.config, m_deps.env, m_cwd, std::move(session), m_deps.log);
}

Result<void> MemoryService::ready(const ApiTarget &api) const {
  const auto now = m_deps.now();
  // The user's pause is read only for a caller it can hold.
  std::optional<PauseStore::UserPause> user_pause;
  if (m_caller == Caller::automatic)
    user_pause = m_deps.state.pauses.active(now, [&] { return identity("").project_id; });
  const auto hold =
      hold_for(m_caller, user_pause, m_deps.state.backoff.active_pause(now, api.server_key()));
  if (!hold) return {};
  if (hold->kind == Hold::Kind::user_pause)
    return unexpected(failure(ErrorKind::disabled, "paused by you (mem0-hooks resume)"));
  const auto &pause = *hold->backoff;
  const std::string when = pause.until_key_changes
                               ? "until the key changes"
                               : "for " + std::to_string(pause.remaining.count()) + " s";
  return unexpected(
      failure(pause.until_key_changes ? ErrorKind::unauthorized : ErrorKind::rate_limited,
              "Mem0 is paused " + when + " (" + pause.reason +
                  "); mem0-hooks doctor --reset tries again now"));
}

// Send `request` (not held), feed its outcome to the back-off, and return the answer when it is
// 2xx or 404 (the caller's "not found"); the classified error otherwise.
Result<HttpResponse> MemoryService::send_one(const ApiTarget &api, HttpRequest request) const {
  if (auto ready_now = ready(api); !ready_now) return unexpected(ready_now.error());
  auto responses = m_deps.http.run({std::move(request)}, m_deadline);
  auto &response = responses[0];
  PlanOutcome outcome;
  outcome.sent = 1;
  if (!response)
    outcome.failures.push_back(response.error());
  else if ((response->status < 200 || response->status >= 300) && response->status != 404)
    outcome.failures.push_back(classify_status(*response));
  feed_backoff(m_deps, api, outcome);
  if (!outcome.failures.empty()) return unexpected(outcome.failures[0]);
  return std::move(*response);
}

Result<PlanOutcome> MemoryService::run(const ApiTarget &api, const Identity &identity,
                                       const std::vector<SearchSpec> &plan) const {
  if (auto ready_now = ready(api); !ready_now) return unexpected(ready_now.error());
  PlanOutcome outcome = run_plan(m_deps.http, api, identity, plan, m_deadline, m_deps.log);
  feed_backoff(m_deps, api, outcome);
  return outcome;
}

Result<std::vector<Memory>> MemoryService::search(const ApiTarget &api, const Identity &identity,
                                                  const std::vector<SearchSpec> &plan) const {
  const auto outcome = run(api, identity, plan);
  if (!outcome) return unexpected(outcome.error());
  if (!outcome->failures.empty() && outcome->failures.size() == plan.size())
    return unexpected(outcome->failures[0]);
  auto memories = merge_results(outcome->results);
  if (!plan.empty() && memories.size() > static_cast<std::size_t>(plan[0].top_k))
    memories.resize(plan[0].top_k);
  return memories;
}

// The full id `id_text` names: a uuid as it is, a short id or citation through the sessions' id
// maps; a client error saying why there is none.
Result<std::string> MemoryService::full_id(std::string_view id_text) const {
  const auto id = detect_id(id_text);
  if (!id)
    return unexpected(failure(ErrorKind::client, "not a memory id: '" +
                                                     truncate_code_points(clean_text(id_text), 60) +
                                                     "' (give the full id, its first 8 characters "
                                                     "or [mem0:id8])"));
  if (id->is_uuid) return id->hex;
  if (auto resolved = resolve_short_id(id->hex, m_deps.state.sessions.all_sessions()))
    return *resolved;
  return unexpected(failure(ErrorKind::client, "unknown short id " + id->hex +
                                                   ": it was not shown in any session; give the "
                                                   "full id"));
}

Result<Memory> MemoryService::get(const ApiTarget &api, std::string_view id_text) const {
  const auto id = full_id(id_text);
  if (!id) return unexpected(id.error());
  const auto response = send_one(api, get_memory_request(api, *id));
  if (!response) return unexpected(response.error());
  auto parsed = parse_memory_response(*response, api.dialect());
  if (!parsed) return unexpected(parsed.error());
  if (!*parsed) return unexpected(failure(ErrorKind::client, "no memory " + *id + " found"));
  return std::move(**parsed);
}

Result<MemoryPage> MemoryService::list(const ApiTarget &api, const Identity &identity,
                                       const ListSpec &spec) const {
  const auto response = send_one(api, list_request(api, identity, spec));
  if (!response) return unexpected(response.error());
  if (response->status == 404) return MemoryPage{}; // past the last page
  return parse_list_response(*response, spec, api.dialect());
}

Result<MemoryService::Survey> MemoryService::survey(const ApiTarget &api, const Identity &identity,
                                                    const ListSpec &list,
                                                    const std::vector<SearchSpec> &plan) const {
  if (auto ready_now = ready(api); !ready_now) return unexpected(ready_now.error());
  Survey survey{MemoryPage{}, {}};
  survey.searches.results.resize(plan.size());
  if (SteadyClock::now() >= m_deadline) { // nothing would leave: not sent, so not fed
    survey.page = unexpected(make_error(ErrorKind::timeout, "deadline passed"));
    survey.searches.failures.assign(plan.size(), make_error(ErrorKind::timeout, "deadline passed"));
    return survey;
  }
  std::vector<HttpRequest> requests{list_request(api, identity, list)};
  for (const auto &spec : plan)
    requests.push_back(search_request(api, spec, identity));
  auto responses = m_deps.http.run(requests, m_deadline);
  PlanOutcome fed; // every request, for the back-off
  fed.sent = requests.size();
  if (!responses[0])
    survey.page = unexpected(responses[0].error());
  else if (responses[0]->status != 404) // 404: past the last page, none
    survey.page = parse_list_response(*responses[0], list, api.dialect());
  if (!survey.page) fed.failures.push_back(survey.page.error());
  survey.searches.sent = plan.size();
  for (std::size_t i = 0; i < plan.size(); ++i) {
    auto parsed = responses[i + 1]
                      ? parse_search_response(*responses[i + 1], api.dialect())
                      : Result<std::vector<Memory>>(unexpected(responses[i + 1].error()));
    if (parsed) {
      survey.searches.results[i] = std::move(*parsed);
    } else {
      m_deps.log.warn("tour search " + std::to_string(i + 1) +
                      " failed: " + std::string(to_string(parsed.error().kind)));
      survey.searches.failures.push_back(parsed.error());
      fed.failures.push_back(parsed.error());
    }
  }
  feed_backoff(m_deps, api, fed);
  return survey;
}

Result<std::vector<Memory>> MemoryService::list_all(const ApiTarget &api, const Identity &identity,
                                                    Scope scope, std::size_t most,
                                                    int page_size) const {
  std::vector<Memory> all;
  for (int page = 1; all.size() < most; ++page) {
    auto listed = list(api, identity, ListSpec{scope, std::nullopt, page, page_size});
    if (!listed) return unexpected(listed.error());
    for (auto &m : listed->memories)
      if (all.size() < most) all.push_back(std::move(m));
    const bool last = listed->memories.size() < static_cast<std::size_t>(page_size) ||
                      (listed->count > 0 && !listed->at_least &&
                       static_cast<long>(page) * page_size >= listed->count);
    if (last) break;
  }
  return all;
}

Result<Memory> MemoryService::own_memory(const ApiTarget &api, const Identity &identity,
                                         std::string_view id_text, std::string_view verb) const {
  auto memory = get(api, id_text);
  if (!memory) return memory;
  // The user's own, or the project's team memory: filed under no user, in one of the project's
  // shared lanes (docs/capture.md#team-memory), which the whole team reads and tends.
  const bool team =
      memory->user_id.empty() && !memory->agent_id.empty() &&
      (memory->agent_id == identity.shared_agent_id || memory->agent_id == identity.project_id) &&
      (memory->app_id.empty() || memory->app_id == identity.project_id);
  if (memory->user_id != identity.user_id && !team)
    return unexpected(
        failure(ErrorKind::client, "memory " + id8(memory->id) + " is not a memory of user " +
                                       identity.user_id + " nor of project " + identity.project_id +
                                       "'s team; not " + std::string(verb)));
  return memory;
}

Result<Memory> MemoryService::update(const ApiTarget &api, const Identity &identity,
                                     std::string_view id_text, std::string_view text) const {
  const std::string safe = prepare_capture_text(text, m_deps.config.redact);
  if (safe.empty())
    return unexpected(failure(ErrorKind::empty, "nothing left of the text to store"));
  auto memory = own_memory(api, identity, id_text, "updated");
  if (!memory) return memory;
  const auto response = send_one(api, update_request(api, memory->id, safe));
  if (!response) return unexpected(response.error());
  if (response->status == 404)
    return unexpected(failure(ErrorKind::client, "no memory " + memory->id + " found"));
  memory->text = safe;
  return memory;
}

Result<Memory> MemoryService::set_pinned(const ApiTarget &api, const Identity &identity,
                                         std::string_view id_text, bool pinned) const {
  auto memory = own_memory(api, identity, id_text, pinned ? "pinned" : "unpinned");
  if (!memory) return memory;
  rapidjson::Document metadata;
  parse_json(metadata, memory->metadata);
  if (metadata.HasParseError() || !metadata.IsObject()) metadata.SetObject();
  metadata.RemoveMember("pinned");
  metadata.AddMember("pinned", pinned, metadata.GetAllocator());
  JsonWriter w;
  w.value(metadata);
  memory->metadata = w.text();
  const auto response =
      send_one(api, update_request(api, memory->id, memory->text, memory->metadata));
  if (!response) return unexpected(response.error());
  if (response->status == 404)
    return unexpected(failure(ErrorKind::client, "no memory " + memory->id + " found"));
  return memory;
}

Result<Memory> MemoryService::remove(const ApiTarget &api, const Identity &identity,
                                     std::string_view id_text) const {
  auto memory = own_memory(api, identity, id_text, "deleted");
  if (!memory) return memory;
  const auto response = send_one(api, delete_request(api, memory->id));
  if (!response) return unexpected(response.error());
  if (response->status == 404)
    return unexpected(failure(ErrorKind::client, "no memory " + memory->id + " found"));
  return memory;
}

Result<std::string> MemoryService::queue(const NewMemory &memory) const {
  RunFacts facts = facts_for(*memory.agent);
  Capture capture;
  capture.messages = {{"user", memory.text}};
  capture.type = memory.type;
  capture.source = memory.source;
  capture.metadata = memory.metadata;
  capture.infer = false; // stored verbatim
  capture.asked = true;
  capture.team = memory.team;
  const auto queued = remember(m_deps, facts, std::move(capture));
  if (queued) return queued;
  const ErrorKind kind = queued.error().kind;
  if (kind == ErrorKind::no_key) return unexpected(api().error());
  if (kind == ErrorKind::empty)
    return unexpected(failure(kind, "nothing left of the text to store"));
  if (kind == ErrorKind::duplicate)
    return unexpected(failure(kind, "already stored: the same text was added lately"));
  return unexpected(queued.error());
}

std::vector<Stored> MemoryService::deliver(const std::vector<std::string> &items,
                                           const Agent &agent) const {
  std::vector<Stored> stored(items.size());
  if (items.empty()) return stored;
  RunFacts facts = facts_for(agent);
  // While the user pauses, the automatic captures already queued wait
  // (docs/cli.md#pause-and-resume): these items are sent one by one.
  const bool paused = facts.user_pause().has_value();
  SendReport report;
  for (const auto &item : paused ? items : std::vector<std::string>{std::string()}) {
    SendReport round = send_round(m_deps, m_deadline, item);
    report.added.merge(round.added);
    report.refused.merge(round.refused);
    report.busy = report.busy || round.busy;
    if (round.stopped) report.stopped = round.stopped;
    if (round.busy || round.stopped) break;
  }
  std::vector<Memory> added;
  std::string reason;
  if (report.stopped)
    reason = failure_line(*report.stopped);
  else if (report.busy)
    reason = "another sender is delivering the outbox";
  else if (const auto target = api(); target)
    if (auto ready_now = ready(*target); !ready_now) reason = failure_line(ready_now.error());
  bool left = false;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (const auto it = report.added.find(items[i]); it != report.added.end()) {
      stored[i].delivered = true;
      if (!it->second.empty()) {
        stored[i].id = it->second.front();
        Memory m;
        m.id = stored[i].id;
        added.push_back(std::move(m));
      }
    } else if (const auto refused = report.refused.find(items[i]);
               refused != report.refused.end()) {
      stored[i].rejected = true;
      stored[i].reason = clean_text(refused->second);
    } else {
      stored[i].reason = reason;
      left = true;
    }
  }
  show(tool_session(), added);
  // Left queued by the call's budget, not by a failure (the next runs retry those, after the
  // back-off): a sender of its own delivers them, even with capture off
  // (docs/capture.md#the-sender).
  if (left && !report.busy && !report.stopped && m_detach)
    if (const auto work = sender_work(m_deps, facts); work && !m_detach(work))
      m_deps.log.warn("cannot start the sender: the memory stays queued");
  return stored;
}

Result<Stored> MemoryService::add(const NewMemory &memory) const {
  const auto queued = queue(memory);
  if (!queued) return unexpected(queued.error());
  return deliver({*queued}, *memory.agent)[0];
}

void MemoryService::show(const std::string &session, const std::vector<Memory> &memories) const {
  if (memories.empty()) return;
  const auto saved = m_deps.state.sessions.update(session, [&](SessionState &s) {
    for (const auto &m : memories)
      if (!s.was_injected(m.id)) s.injected.push_back(m.id);
  });
  if (!saved)
    m_deps.log.warn("id map of session " + session + " not saved: " + saved.error().message);
}

std::string MemoryService::tool_session() const {
  const std::string session = session_in_env(m_deps.env, true);
  return session.empty() ? std::string(k_tool_session) : session;
}

} // namespace mem0
