#include "runtime/facts.hpp"
#include "mem0/identity.hpp"
#include "util/platform.hpp"

namespace mem0 {

namespace {

// The value of the environment variable `name`; "" when unset, or when `name` is "".
std::string env_value(const Environment &env, std::string_view name) {
  return name.empty() ? std::string() : env.get(name).value_or("");
}

} // namespace

std::string session_of(const HookInput &input, const Environment &env, const Agent &agent) {
  return agent_session(agent, input.session_id.empty() ? env_value(env, agent.session_env)
                                                       : input.session_id);
}

std::filesystem::path cwd_of(const HookInput &input, const Environment &env, const Agent &agent) {
  std::filesystem::path cwd;
  if (!input.cwd.empty())
    cwd = platform::input_path(input.cwd);
  else if (auto dir = env_value(env, agent.project_dir_env); !dir.empty())
    cwd = platform::input_path(dir);
  else {
    std::error_code ec;
    cwd = std::filesystem::current_path(ec);
  }
  cwd = cwd.lexically_normal();
  if (cwd.has_relative_path() && !cwd.has_filename())
    cwd = cwd.parent_path(); // drop a trailing '/'
  return cwd;
}

namespace {

// The value of `memo`, computed by `make` the first time.
template <class T, class Make> const T &once(std::optional<T> &memo, Make &&make) {
  if (!memo) memo.emplace(make());
  return *memo;
}

} // namespace

RunFacts::RunFacts(const Environment &env, const Config &config, const Log &log,
                   const StateStore &state, WallClock now, const Agent &agent)
    : m_env(env), m_config(config), m_log(log), m_state(state), m_now(std::move(now)),
      m_agent(agent) {}

RunFacts::RunFacts(const RunDeps &deps, const Agent &agent)
    : RunFacts(deps.env, deps.config, deps.log, deps.state, deps.now, agent) {}

RunFacts &RunFacts::bind(const HookInput &input) {
  if (input.cwd != m_input.cwd || input.session_id != m_input.session_id) {
    m_input.cwd = input.cwd;
    m_input.session_id = input.session_id;
    forget_place();
  }
  return *this;
}

void RunFacts::forget_place() {
  m_session.reset();
  m_cwd.reset();
  m_repo.reset();
  m_origin.reset();
  m_branch.reset();
  m_project_root.reset();
  m_project_id.reset();
  m_search_identity.reset();
  m_user_pause.reset(); // a project's pause follows the project
}

const std::string &RunFacts::session() {
  return once(m_session, [&] { return session_of(m_input, m_env, m_agent); });
}

const std::filesystem::path &RunFacts::cwd() {
  return once(m_cwd, [&] { return cwd_of(m_input, m_env, m_agent); });
}

const std::optional<GitRepo> &RunFacts::repo() {
  return once(m_repo, [&] { return find_repo(cwd()); });
}

const std::optional<std::string> &RunFacts::origin() {
  return once(m_origin, [&] { return repo() ? origin_url_as_written(*repo()) : std::nullopt; });
}

const std::optional<std::string> &RunFacts::branch() {
  return once(m_branch, [&] { return repo() ? current_branch(*repo()) : std::nullopt; });
}

const std::filesystem::path &RunFacts::project_root() {
  return once(m_project_root, [&] { return repo() ? repo()->top : cwd(); });
}

const std::string &RunFacts::project_id() {
  return once(m_project_id, [&] {
    return resolve_project_id(
               m_config, m_env, cwd(), [&]() -> const auto & { return repo(); },
               [&] { return origin(); }, m_log)
        .id;
  });
}

Identity RunFacts::identity() { return {m_config.user_id, project_id(), session(), {}}; }

const Identity &RunFacts::search_identity() {
  return once(m_search_identity, [&] {
    Identity id = identity();
    if (searches_shared_memory(m_config))
      id.shared_agent_id = shared_agent_id(id.project_id, cwd(), repo(), origin());
    return id;
  });
}

const Result<ApiTarget> &RunFacts::api() {
  return once(m_api, [&] { return api_target(m_config); });
}

const std::optional<BackoffStore::Pause> &RunFacts::backoff() {
  return once(m_backoff, [&]() -> std::optional<BackoffStore::Pause> {
    if (!api()) return std::nullopt;
    return m_state.backoff.active_pause(m_now(), api()->server_key());
  });
}

const DailyUsage &RunFacts::usage_today() {
  return once(m_usage, [&] { return m_state.usage.on(utc_day(m_now())); });
}

const Outbox::Stats &RunFacts::outbox_stats() {
  return once(m_outbox, [&] { return m_state.outbox.stats(); });
}

bool RunFacts::outbox_has_pending() {
  if (m_queued) return true;
  if (m_outbox) return m_outbox->pending > 0;
  return once(m_pending, [&] { return !m_state.outbox.waiting().empty(); });
}

void RunFacts::note_queued() { m_queued = true; }

void RunFacts::note_skip(std::string reason, std::string detail) {
  for (const auto &skip : m_record.skipped)
    if (skip.reason == reason && skip.detail == detail) return;
  m_record.skipped.push_back({std::move(reason), std::move(detail)});
}

const std::optional<PauseStore::UserPause> &RunFacts::user_pause() {
  return once(m_user_pause,
              [&] { return m_state.pauses.active(m_now(), [&] { return project_id(); }); });
}

} // namespace mem0
