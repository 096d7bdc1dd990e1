#include "mem0/dialect.hpp"
#include "util/strings.hpp"

#include <array>

namespace mem0 {

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
  w.end_object();
  return w.text();
}

std::string Dialect::update_body(std::string_view text) {
  JsonWriter w;
  w.begin_object().member("text", text).end_object();
  return w.text();
}

std::string Dialect::add_body(const QueuedAdd &capture) const {
  JsonWriter w;
  w.begin_object().key("messages").begin_array();
  for (const auto &m : capture.messages)
    w.begin_object().member("role", m.role).member("content", m.content).end_object();
  w.end_array().member("user_id", capture.user_id);
  w.member(m_traits.project_field, capture.project_id);
  w.key("metadata").begin_object();
  for (const auto &[key, value] : capture.metadata)
    w.member(key, value);
  w.end_object().key("infer").boolean(capture.infer);
  if (!capture.expiration_date.empty()) w.member("expiration_date", capture.expiration_date);
  if (m_traits.custom_instructions && !capture.custom_instructions.empty())
    w.member("custom_instructions", capture.custom_instructions);
  w.end_object();
  return w.text();
}

} // namespace mem0
