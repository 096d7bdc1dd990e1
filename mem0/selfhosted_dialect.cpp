// The dialect of open-source Mem0's REST server (docs/api.md#self-hosted-server): `X-API-Key` or
// no key, paths without a version or a trailing slash, flat filters with `user_id` at the top and
// the project as `agent_id`, synchronous adds, a listing without pages or a count, `null` for an
// unknown id; no ping, rerank, shared memory, events or custom instructions.
#include "mem0/dialect.hpp"
#include "mem0/format.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace mem0 {
namespace {

class SelfhostedDialect final : public Dialect {
public:
  SelfhostedDialect()
      : Dialect({.name = "selfhosted",
                 .alias = "self-hosted",
                 .display_name = "self-hosted Mem0 server",
                 .place = "a self-hosted server",
                 .default_base_url = "http://localhost:8888", // the server's docker set-up
                 .key_rejected_fix = "the server rejected the API key: create one in its "
                                     "dashboard and set MEM0_API_KEY",
                 .requires_key = false,
                 .rerank = false,
                 .shared_memory = false,
                 .synchronous_adds = true,
                 .project_field = "agent_id",
                 // Its nearest field, `prompt`, would replace the server's whole extraction
                 // prompt (docs/api.md#self-hosted-add).
                 .custom_instructions = false}) {}

  // None without a key: the way to a server run with AUTH_DISABLED=true, which still rejects a
  // key it does not know.
  std::optional<std::string> key_header(std::string_view key) const override {
    if (key.empty()) return std::nullopt;
    return "X-API-Key: " + std::string(key);
  }

  // Flat, `user_id` at the top, the project as `agent_id`; other keys match the metadata. Never
  // an OR: the server takes one only below a top-level id (docs/api.md#self-hosted-filters).
  void write_filters(JsonWriter &w, const SearchSpec &spec,
                     const Identity &identity) const override {
    w.begin_object().member("user_id", identity.user_id);
    if (spec.scope != Scope::global) w.member("agent_id", identity.project_id);
    if (spec.scope == Scope::session) w.member("run_id", identity.session_id);
    if (spec.type) w.member("type", *spec.type);
    w.end_object();
  }

  HttpRequest search(const ApiTarget &api, const SearchSpec &spec,
                     const Identity &identity) const override {
    return {"POST", api.base_url() + "/search", api.headers(),
            search_body(spec, identity, false, api.threshold())};
  }
  HttpRequest get(const ApiTarget &api, std::string_view id) const override {
    return {"GET", memory_url(api, id), api.headers(), {}};
  }
  HttpRequest remove(const ApiTarget &api, std::string_view id) const override {
    return {"DELETE", memory_url(api, id), api.headers(), {}};
  }
  HttpRequest add(const ApiTarget &api, const QueuedAdd &capture) const override {
    return {"POST", api.base_url() + "/memories", api.headers(), add_body(capture)};
  }
  HttpRequest update(const ApiTarget &api, std::string_view id,
                     std::string_view text) const override {
    return {"PUT", memory_url(api, id), api.headers(), update_body(text)};
  }
  // No pages and no type filter: the largest listing the server gives of the scope's ids
  // (parse_list_response pages it).
  HttpRequest list(const ApiTarget &api, const Identity &identity,
                   const ListSpec &spec) const override {
    std::string url = api.base_url() + "/memories?user_id=" + url_encode(identity.user_id);
    if (spec.scope != Scope::global) url += "&agent_id=" + url_encode(identity.project_id);
    if (spec.scope == Scope::session) url += "&run_id=" + url_encode(identity.session_id);
    return {"GET", url + "&top_k=" + std::to_string(k_unpaged_list_limit), api.headers(), {}};
  }
  std::optional<HttpRequest> event(const ApiTarget &, std::string_view) const override {
    return std::nullopt;
  }
  std::optional<HttpRequest> ping(const ApiTarget &) const override { return std::nullopt; }

  Result<std::vector<Memory>> parse_search(const HttpResponse &response) const override {
    auto listing = read_listing(response);
    if (!listing) return unexpected(listing.error());
    return std::move(listing->memories);
  }
  // A 200 with `null` when the id is unknown.
  Result<std::optional<Memory>> parse_memory(const HttpResponse &response) const override {
    if (is_success(response.status) && trim(response.body) == "null")
      return std::optional<Memory>{};
    return read_memory(response);
  }
  // No pages and no count: the listing in storage order, sorted here newest first (undated ones
  // last), a lower bound at k_unpaged_list_limit items. A count, should the server send one, is
  // used as it is.
  Result<MemoryPage> parse_list(const HttpResponse &response) const override {
    auto listing = read_listing(response);
    if (!listing) return unexpected(listing.error());
    MemoryPage page;
    page.memories = std::move(listing->memories);
    page.count = listing->count.value_or(static_cast<long>(page.memories.size()));
    page.paged = listing->count.has_value();
    if (page.paged) return page;
    const auto seconds = [](const Memory &m) {
      return parse_iso8601(m.created_at).value_or(std::chrono::sys_seconds::min());
    };
    std::stable_sort(page.memories.begin(), page.memories.end(),
                     [&](const Memory &a, const Memory &b) { return seconds(a) > seconds(b); });
    page.at_least = page.count >= k_unpaged_list_limit;
    return page;
  }
  // Stored at once: the ids of what was stored, like the Platform's answer with infer off.
  Result<AddResult> parse_add(const HttpResponse &response) const override {
    return read_add(response);
  }

private:
  // One path segment, whatever the id holds.
  static std::string memory_url(const ApiTarget &api, std::string_view id) {
    return api.base_url() + "/memories/" + url_encode(id);
  }
};

} // namespace

const Dialect &selfhosted_dialect() {
  static const SelfhostedDialect dialect;
  return dialect;
}

} // namespace mem0
