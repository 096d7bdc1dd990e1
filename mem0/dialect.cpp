#include "mem0/dialect.hpp"
#include "util/strings.hpp"

#include <array>

namespace mem0 {
namespace {

// What the Platform is asked to keep in each lane of a team capture (docs/api.md#two-layouts):
// the project's, which the whole team reads, and the user's own.
constexpr std::string_view k_project_instructions =
    "Keep concise facts about this repository that will help anyone working on it later: how "
    "its code behaves and where, the decisions taken and the constraints they set, how to build, "
    "run, test and deploy it, and failures with their fixes. Write about the repository, not "
    "about the user, the assistant or the session. Leave out personal preferences, temporary "
    "state, and failures a rerun would settle. When nothing lasting was learnt, keep nothing.";
constexpr std::string_view k_personal_instructions =
    "Keep concise facts about the user that will help in any repository: the tools, languages, "
    "coding style and ways of working they prefer, and what they asked to be remembered about "
    "themselves. Write about the user in the third person. Leave out facts about the "
    "repository, its decisions and what was built. When nothing was learnt about the user, keep "
    "nothing.";

} // namespace

std::span<const Dialect *const> dialects() {
  static const std::array<const Dialect *, 2> all{&platform_dialect(), &selfhosted_dialect()};
  return all;
}

const Dialect *find_dialect(std::string_view name) {
  const std::string v = ascii_lower(trim(name));
  for (const Dialect *d : dialects())
    if (v == d->traits().name || (!d->traits().alias.empty() && v == d->traits().alias)) return d;
  return nullptr;
}

std::string_view dialect_names() {
  static const std::string names = [] {
    std::string out;
    for (const Dialect *d : dialects()) {
      if (!out.empty()) out += d == dialects().back() ? " or " : ", ";
      out += d->traits().name;
    }
    return out;
  }();
  return names;
}

std::string Dialect::search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                                 double threshold) const {
  JsonWriter w;
  w.begin_object().member("query", spec.query).key("filters");
  write_filters(w, spec, identity);
  w.key("top_k").int64(spec.top_k).key("threshold").number(threshold);
  if (rerank && m_traits.rerank) w.key("rerank").boolean(true);
  if (m_traits.latest_only) w.key("latest_only").boolean(true);
  w.end_object();
  return w.text();
}

std::string Dialect::update_body(std::string_view text) {
  JsonWriter w;
  w.begin_object().member("text", text).end_object();
  return w.text();
}

std::string Dialect::add_body(const QueuedAdd &capture) const {
  const TeamLane &team = capture.team;
  const bool lane = !team.agent_id.empty();
  const bool layout = lane && m_traits.shared_memory; // 0.3's add fields
  JsonWriter w;
  w.begin_object().key("messages").begin_array();
  for (const auto &m : capture.messages)
    w.begin_object().member("role", m.role).member("content", m.content).end_object();
  w.end_array();
  if (!(lane && team.shared_only)) w.member("user_id", capture.user_id);
  if (layout) w.member("agent_id", team.agent_id);
  w.member(m_traits.project_field, capture.project_id);
  if (layout && !team.run_id.empty()) w.member("run_id", team.run_id);
  w.key("metadata").begin_object();
  for (const auto &[key, value] : capture.metadata)
    w.member(key, value);
  if (lane) {
    w.member("author", capture.user_id).key("dirs").begin_array();
    for (const auto &dir : team.dirs)
      w.str(dir);
    w.end_array();
  }
  w.end_object().key("infer").boolean(capture.infer);
  if (!capture.expiration_date.empty()) w.member("expiration_date", capture.expiration_date);
  if (layout && m_traits.custom_instructions) {
    // The Platform sorts each memory into the project's lane or the user's by these
    // (docs/api.md#two-layouts); mem0.md's instructions are the project's.
    w.key("custom_categories").begin_array();
    for (const auto &c : memory_category::all)
      w.begin_object().member(c.name, c.description).end_object();
    w.end_array();
    w.member("custom_instructions", k_personal_instructions);
    w.member("agent_custom_instructions",
             capture.custom_instructions.empty()
                 ? std::string(k_project_instructions)
                 : std::string(k_project_instructions) + "\n\n" + capture.custom_instructions);
  } else if (m_traits.custom_instructions && !capture.custom_instructions.empty()) {
    w.member("custom_instructions", capture.custom_instructions);
  }
  w.end_object();
  return w.text();
}

} // namespace mem0
