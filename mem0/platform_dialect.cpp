// The Mem0 Platform's dialect (docs/api.md): `Authorization: Token`, versioned paths with a
// trailing slash, `AND`/`OR` filters, rerank, shared memory, pages with a count, events.
#include "mem0/dialect.hpp"

namespace mem0 {
namespace {

class PlatformDialect final : public Dialect {
public:
  PlatformDialect()
      : Dialect({.name = "platform",
                 .alias = "",
                 .display_name = "Mem0 Platform",
                 .place = "the Mem0 Platform",
                 .default_base_url = "https://api.mem0.ai",
                 .key_rejected_fix =
                     "the API key was rejected: create a new one at app.mem0.ai and set "
                     "MEM0_API_KEY",
                 .requires_key = true,
                 .rerank = true,
                 .shared_memory = true,
                 .synchronous_adds = false,
                 .project_field = "app_id",
                 .custom_instructions = true,
                 .latest_only = true}) {}

  std::optional<std::string> key_header(std::string_view key) const override {
    return "Authorization: Token " + std::string(key);
  }

  // `AND[user, app, …]`, or for the project scope with shared memory
  // `OR[AND[user, app], AND[agent A, app], AND[agent P, app]]` (docs/api.md#shared-memory); with a
  // directory, the two shared lanes ANDed with `metadata.dirs` containing it, as 0.3's `dir`
  // scope (docs/api.md#filters).
  void write_filters(JsonWriter &w, const SearchSpec &spec,
                     const Identity &identity) const override {
    const bool shared =
        spec.scope == Scope::project && !spec.type && !identity.shared_agent_id.empty();
    auto anchored = [&](std::string_view key, std::string_view value) {
      w.begin_object().key("AND").begin_array();
      w.begin_object().member(key, value).end_object();
      w.begin_object()
          .member("app_id", spec.scope == Scope::global ? "*" : identity.project_id)
          .end_object();
      if (spec.scope == Scope::session)
        w.begin_object().member("run_id", identity.session_id).end_object();
      if (spec.type)
        w.begin_object()
            .key("metadata")
            .begin_object()
            .member("type", *spec.type)
            .end_object()
            .end_object();
      w.end_array().end_object();
    };
    if (!shared) return anchored("user_id", identity.user_id);
    w.begin_object().key("OR").begin_array();
    anchored("user_id", identity.user_id);
    const bool dir = spec.dir && !spec.dir->empty();
    if (dir) w.begin_object().key("AND").begin_array().begin_object().key("OR").begin_array();
    anchored("agent_id", identity.shared_agent_id);
    anchored("agent_id", identity.project_id);
    if (dir) {
      w.end_array().end_object();
      w.begin_object().key("metadata").begin_object().key("dirs").begin_object();
      w.member("contains", *spec.dir).end_object().end_object().end_object();
      w.end_array().end_object();
    }
    w.end_array().end_object();
  }

  HttpRequest search(const ApiTarget &api, const SearchSpec &spec,
                     const Identity &identity) const override {
    return {"POST", api.base_url() + "/v3/memories/search/", api.headers(),
            search_body(spec, identity, api.rerank(), api.threshold())};
  }
  HttpRequest get(const ApiTarget &api, std::string_view id) const override {
    return {"GET", memory_url(api, id), api.headers(), {}};
  }
  HttpRequest remove(const ApiTarget &api, std::string_view id) const override {
    return {"DELETE", memory_url(api, id), api.headers(), {}};
  }
  HttpRequest add(const ApiTarget &api, const QueuedAdd &capture) const override {
    return {"POST", api.base_url() + "/v3/memories/add/", api.headers(), add_body(capture)};
  }
  HttpRequest update(const ApiTarget &api, std::string_view id,
                     std::string_view text) const override {
    return {"PUT", memory_url(api, id), api.headers(), update_body(text)};
  }
  // One page of memories, newest first, with the filters of a search of the same scope and type
  // (for an untyped project listing with shared memory, the OR of the three layouts).
  HttpRequest list(const ApiTarget &api, const Identity &identity,
                   const ListSpec &spec) const override {
    JsonWriter w;
    w.begin_object().key("filters");
    SearchSpec filters;
    filters.type = spec.type;
    filters.scope = spec.scope;
    write_filters(w, filters, identity);
    w.end_object();
    return {"POST",
            api.base_url() + "/v3/memories/?page=" + std::to_string(spec.page) +
                "&page_size=" + std::to_string(spec.page_size),
            api.headers(), w.text()};
  }
  std::optional<HttpRequest> event(const ApiTarget &api, std::string_view event_id) const override {
    return HttpRequest{
        "GET", api.base_url() + "/v1/event/" + std::string(event_id) + "/", api.headers(), {}};
  }
  std::optional<HttpRequest> ping(const ApiTarget &api) const override {
    return HttpRequest{"GET", api.base_url() + "/v1/ping/", api.headers(), {}};
  }

  Result<std::vector<Memory>> parse_search(const HttpResponse &response) const override {
    auto listing = read_listing(response);
    if (!listing) return unexpected(listing.error());
    return std::move(listing->memories);
  }
  // A 404 when the id is unknown.
  Result<std::optional<Memory>> parse_memory(const HttpResponse &response) const override {
    return read_memory(response);
  }
  // Paged and counted by the server, newest first (a bare page counts its own items).
  Result<MemoryPage> parse_list(const HttpResponse &response) const override {
    auto listing = read_listing(response);
    if (!listing) return unexpected(listing.error());
    MemoryPage page;
    page.memories = std::move(listing->memories);
    page.count = listing->count.value_or(static_cast<long>(page.memories.size()));
    page.paged = true;
    return page;
  }
  Result<AddResult> parse_add(const HttpResponse &response) const override {
    return read_add(response);
  }

private:
  static std::string memory_url(const ApiTarget &api, std::string_view id) {
    return api.base_url() + "/v1/memories/" + std::string(id) + "/";
  }
};

} // namespace

const Dialect &platform_dialect() {
  static const PlatformDialect dialect;
  return dialect;
}

} // namespace mem0
