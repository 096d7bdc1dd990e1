// The memory operations `mcp`, `remember` and `forget` share (docs/cli.md#mcp).
#include "cli/cli.hpp"
#include "hook/remember.hpp"
#include "hook/sender.hpp"
#include "mem0/format.hpp"

#include <algorithm>

namespace mem0::cli {
namespace {

Error failure(ErrorKind kind, std::string message) { return make_error(kind, std::move(message)); }

// Send `request` (the server not paused), feed its outcome to the back-off, and return the
// answer when it is 2xx or 404 (the caller's "not found"); the classified error otherwise.
Result<HttpResponse> send_one(const CliContext &ctx, const ApiTarget &api, HttpRequest request) {
  if (auto ready = not_paused(ctx, api); !ready) return unexpected(ready.error());
  auto responses = ctx.http.run({std::move(request)}, ctx.deadline);
  auto &response = responses[0];
  std::vector<Error> failures;
  if (!response)
    failures.push_back(response.error());
  else if ((response->status < 200 || response->status >= 300) && response->status != 404)
    failures.push_back(classify_status(*response));
  if (auto noted = ctx.state.backoff.record_run(ctx.now(), api.server_key(), failures, 1); !noted)
    ctx.log.warn("back-off state not saved: " + noted.error().message);
  if (!failures.empty()) return unexpected(failures[0]);
  return std::move(*response);
}

// The full id `id_text` names: a uuid as it is, a short id or citation through the sessions' id
// maps; a client error saying why there is none.
Result<std::string> full_id(const CliContext &ctx, std::string_view id_text) {
  const auto id = detect_id(id_text);
  if (!id)
    return unexpected(failure(ErrorKind::client, "not a memory id: '" +
                                                     truncate_code_points(clean_text(id_text), 60) +
                                                     "' (give the full id, its first 8 characters "
                                                     "or [mem0:id8])"));
  if (id->is_uuid) return id->hex;
  if (auto resolved = resolve_short_id(id->hex, ctx.state.sessions.all_sessions()))
    return *resolved;
  return unexpected(failure(ErrorKind::client, "unknown short id " + id->hex +
                                                   ": it was not shown in any session; give the "
                                                   "full id"));
}

// The memory `id_text` names, checked to be `identity`'s user's (`verb`: what would be done).
Result<Memory> own_memory(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                          std::string_view id_text, std::string_view verb) {
  auto memory = fetch_memory(ctx, api, id_text);
  if (!memory) return memory;
  if (memory->user_id != identity.user_id)
    return unexpected(
        failure(ErrorKind::client, "memory " + id8(memory->id) + " is not a memory of user " +
                                       identity.user_id + "; not " + std::string(verb)));
  return memory;
}

} // namespace

std::string tool_session(const CliContext &ctx) {
  const std::string session = session_in_env(ctx.env, true);
  return session.empty() ? std::string(k_tool_session) : session;
}

Result<ApiTarget> api_for(const CliContext &ctx) {
  auto api = api_target(ctx.config);
  if (api) return api;
  if (!has_access(ctx.config))
    return unexpected(
        failure(ErrorKind::no_key, "no API key; set MEM0_API_KEY (see mem0-hooks doctor)"));
  return unexpected(api.error());
}

Result<void> not_paused(const CliContext &ctx, const ApiTarget &api) {
  if (const auto pause = ctx.state.backoff.active_pause(ctx.now(), api.server_key())) {
    std::string when = pause->until_key_changes
                           ? "until the key changes"
                           : "for " + std::to_string(pause->remaining.count()) + " s";
    return unexpected(
        failure(pause->until_key_changes ? ErrorKind::unauthorized : ErrorKind::rate_limited,
                "Mem0 is paused " + when + " (" + pause->reason +
                    "); mem0-hooks doctor --reset tries again now"));
  }
  return {};
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

std::optional<Scope> scope_named(const std::optional<std::string> &name, const Config &config) {
  if (!name) return config.global_search ? Scope::global : Scope::project;
  if (*name == "project") return Scope::project;
  if (*name == "session") return Scope::session;
  if (*name == "global") return Scope::global;
  return std::nullopt;
}

std::vector<SearchSpec> search_plan(const std::string &query, int top_k, Scope scope,
                                    const std::optional<std::string> &type) {
  if (type) return {{query, type, top_k, scope}};
  return {{query, std::nullopt, top_k, scope},
          {query, std::string(memory_type::decision), 5, scope}};
}

Result<std::vector<Memory>> search_memories(const CliContext &ctx, const ApiTarget &api,
                                            const Identity &identity,
                                            const std::vector<SearchSpec> &plan) {
  if (auto ready = not_paused(ctx, api); !ready) return unexpected(ready.error());
  const PlanOutcome outcome = run_searches(ctx, api, identity, plan);
  if (!outcome.failures.empty() && outcome.failures.size() == plan.size())
    return unexpected(outcome.failures[0]);
  auto memories = merge_results(outcome.results);
  if (memories.size() > static_cast<std::size_t>(plan[0].top_k)) memories.resize(plan[0].top_k);
  return memories;
}

Result<Memory> fetch_memory(const CliContext &ctx, const ApiTarget &api, std::string_view id_text) {
  const auto id = full_id(ctx, id_text);
  if (!id) return unexpected(id.error());
  const auto response = send_one(ctx, api, get_memory_request(api, *id));
  if (!response) return unexpected(response.error());
  auto parsed = parse_memory_response(*response);
  if (!parsed) return unexpected(parsed.error());
  if (!*parsed) return unexpected(failure(ErrorKind::client, "no memory " + *id + " found"));
  return std::move(**parsed);
}

Result<MemoryPage> list_memories(const CliContext &ctx, const ApiTarget &api,
                                 const Identity &identity, const ListSpec &spec) {
  const auto response = send_one(ctx, api, list_request(api, identity, spec));
  if (!response) return unexpected(response.error());
  if (response->status == 404) return MemoryPage{}; // past the last page
  return parse_list_response(*response, spec);
}

Result<Memory> update_memory(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                             std::string_view id_text, std::string_view text) {
  const std::string safe = prepare_capture_text(text, ctx.config.redact);
  if (safe.empty())
    return unexpected(failure(ErrorKind::empty, "nothing left of the text to store"));
  auto memory = own_memory(ctx, api, identity, id_text, "updated");
  if (!memory) return memory;
  const auto response = send_one(ctx, api, update_request(api, memory->id, safe));
  if (!response) return unexpected(response.error());
  if (response->status == 404)
    return unexpected(failure(ErrorKind::client, "no memory " + memory->id + " found"));
  memory->text = safe;
  return memory;
}

Result<Memory> delete_memory(const CliContext &ctx, const ApiTarget &api, const Identity &identity,
                             std::string_view id_text) {
  auto memory = own_memory(ctx, api, identity, id_text, "deleted");
  if (!memory) return memory;
  const auto response = send_one(ctx, api, delete_request(api, memory->id));
  if (!response) return unexpected(response.error());
  if (response->status == 404)
    return unexpected(failure(ErrorKind::client, "no memory " + memory->id + " found"));
  return memory;
}

Result<Stored> store_memory(const CliContext &ctx, std::string_view text, std::string type,
                            std::string source, const Agent &agent) {
  const HookContext hook = make_context(ctx, ctx.deadline, agent);
  HookInput input; // the session: the agent's session variable when set
  input.cwd = ctx.cwd.string();
  Capture capture;
  capture.messages = {{"user", std::string(text)}};
  capture.type = std::move(type);
  capture.source = std::move(source);
  capture.infer = false; // stored verbatim
  capture.asked = true;
  const auto queued = remember(hook, input, std::move(capture));
  if (!queued) {
    const ErrorKind kind = queued.error().kind;
    if (kind == ErrorKind::no_key) return unexpected(api_for(ctx).error());
    if (kind == ErrorKind::empty)
      return unexpected(failure(kind, "nothing left of the text to store"));
    if (kind == ErrorKind::duplicate)
      return unexpected(failure(kind, "already stored: the same text was added lately"));
    return unexpected(queued.error());
  }
  // While the user pauses, the automatic captures already queued wait
  // (docs/cli.md#pause-and-resume).
  const bool paused = hook.facts->bind(input).user_pause().has_value();
  const SendReport report = send_round(hook, ctx.deadline, paused ? *queued : std::string());
  Stored stored;
  if (const auto it = report.added.find(*queued); it != report.added.end()) {
    stored.delivered = true;
    if (!it->second.empty()) {
      stored.id = it->second.front();
      Memory added;
      added.id = stored.id;
      register_ids(ctx, tool_session(ctx), {added});
    }
  } else if (report.stopped) {
    stored.reason = failure_line(*report.stopped);
  } else if (report.busy) {
    stored.reason = "another sender is delivering the outbox";
  } else if (const auto api = api_for(ctx); api) {
    if (auto ready = not_paused(ctx, *api); !ready) stored.reason = failure_line(ready.error());
  }
  // Left queued by the call's budget, not by a failure (the next runs retry those, after the
  // back-off): a sender of its own delivers it, even with capture off
  // (docs/capture.md#the-sender).
  if (!stored.delivered && !report.busy && !report.stopped && ctx.detach)
    if (const auto work = sender_work(hook); work && !ctx.detach(work))
      ctx.log.warn("cannot start the sender: the memory stays queued");
  return stored;
}

std::string stored_line(const Stored &stored) {
  if (!stored.delivered)
    return "queued: the memory waits in the outbox for the sender" +
           (stored.reason.empty() ? std::string() : " (" + stored.reason + ")");
  if (stored.id.empty()) return "stored";
  return "stored as " + stored.id + " [mem0:" + id8(stored.id) + "]";
}

void register_ids(const CliContext &ctx, const std::string &session,
                  const std::vector<Memory> &memories) {
  if (memories.empty()) return;
  const auto saved = ctx.state.sessions.update(session, [&](SessionState &s) {
    for (const auto &m : memories)
      if (!s.was_injected(m.id)) s.injected.push_back(m.id);
  });
  if (!saved) ctx.log.warn("id map of session " + session + " not saved: " + saved.error().message);
}

} // namespace mem0::cli
