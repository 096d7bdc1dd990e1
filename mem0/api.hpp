#pragma once
#include "mem0/http.hpp"
#include "mem0/memory.hpp"
#include "store/outbox.hpp"
#include "util/error.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mem0 {

// The Mem0 requests the hooks send and the responses they accept (docs/api.md).

enum class Scope { project, session, global };

// Which Mem0 the requests go to (docs/api.md#self-hosted-server) is a dialect (mem0/dialect.hpp):
// the Mem0 Platform's, or the open-source Mem0 REST server's (`MEM0_BACKEND=selfhosted`), each with
// its paths, header, filters, bodies and answers. The configuration and the API target hold it.
class Dialect;
// The Mem0 Platform's dialect, the default (mem0/platform_dialect.cpp).
const Dialect &platform_dialect();

// Who is searching or writing: the filters every request carries.
struct Identity {
  std::string user_id;
  std::string project_id;
  std::string session_id; // used by the session scope only
  // The project's shared memory as Mem0's newer plugin files it (docs/api.md#shared-memory):
  // searched next to the user's own in the project scope; empty when that is off.
  std::string shared_agent_id = {};
};

// One search of a plan.
struct SearchSpec {
  std::string query;
  std::optional<std::string> type; // metadata.type filter
  int top_k = 10;
  Scope scope = Scope::project;
  // The directory scope (docs/api.md#filters): the project's shared memory only where it was
  // written in `dir` or below (`metadata.dirs` contains it); the user's own is not narrowed.
  std::optional<std::string> dir = {};
};

// Where requests go, validated once: only `make` builds one, so every request carries a key and
// goes to a base URL that keeps the key safe (https://, or http:// to a loopback host).
class ApiTarget {
public:
  // A target for `base_url` (trailing slashes dropped) and `api_key` (may be empty for a
  // self-hosted server); an error (kind `transport`, or `unauthorized` without a usable key)
  // says why there is none.
  static Result<ApiTarget> make(std::string base_url, std::string api_key, bool rerank = true,
                                double threshold = 0.3,
                                const Dialect &dialect = platform_dialect());

  const std::string &base_url() const { return m_base_url; }
  // How this backend spells the requests.
  const Dialect &dialect() const { return *m_dialect; }
  // Whether searches ask for rerank: when asked for and the backend has it.
  bool rerank() const;
  double threshold() const { return m_threshold; }
  // The headers of every request: the key in the dialect's header (`Authorization: Token` for
  // the platform, `X-API-Key` for a self-hosted server, none for one without a key), JSON, and
  // our User-Agent.
  std::vector<std::string> headers() const;
  // Names this server and key without revealing the key: the back-off is kept per server key.
  std::string server_key() const;

private:
  ApiTarget() = default;
  std::string m_base_url;
  std::string m_api_key;
  bool m_rerank = true;
  double m_threshold = 0.3;
  const Dialect *m_dialect = nullptr;
};

// "mem0-native-hooks/<version>"
std::string user_agent();

// The JSON body of a search: query, filters, top_k, threshold, and `"rerank": true` only when
// rerank is on (never for a self-hosted server).
std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                        double threshold, const Dialect &dialect = platform_dialect());

// POST {base}/v3/memories/search/, or POST {base}/search (self-hosted)
HttpRequest search_request(const ApiTarget &api, const SearchSpec &spec, const Identity &identity);

// GET {base}/v1/memories/{id}/, or GET {base}/memories/{id} (self-hosted)
HttpRequest get_memory_request(const ApiTarget &api, std::string_view id);

// GET {base}/v1/ping/: checks the key. A self-hosted server has no ping: nullopt.
std::optional<HttpRequest> ping_request(const ApiTarget &api);

// One memory to add (docs/api.md#add).
struct AddSpec {
  using Message = QueuedAdd::Message;
  std::vector<Message> messages;
  std::vector<std::pair<std::string, std::string>> metadata; // type, source, session_id, ...
  bool infer = true;
  std::string expiration_date;     // "YYYY-MM-DD", or empty
  std::string custom_instructions; // or empty
  TeamLane team = {};              // team memory's lane (docs/capture.md#team-memory), or none
};

// The Platform's JSON body of an add: messages, user_id, app_id, metadata, infer, and the optional
// fields when set; with a team lane, 0.3's fields too (Dialect::add_body). (What an outbox item
// held before the neutral capture.)
std::string add_body(const AddSpec &spec, const Identity &identity,
                     const Dialect &dialect = platform_dialect());

// The neutral capture of an add, as the outbox keeps it (docs/capture.md#the-outbox).
QueuedAdd queued_add(const AddSpec &spec, const Identity &identity);

// POST {base}/v3/memories/add/ with `capture` in the Platform's body (add_body's). For a
// self-hosted server POST {base}/memories, with its fields (the project as `agent_id`;
// docs/api.md#self-hosted-add).
HttpRequest add_request(const ApiTarget &api, const QueuedAdd &capture);

// What an accepted add returned: an event id (asynchronous, infer on) or the ids of the memories
// stored at once (infer off).
struct AddResult {
  std::string event_id;
  std::vector<std::string> ids;
};
// Read by the backend's dialect, like every answer below.
Result<AddResult> parse_add_response(const HttpResponse &response,
                                     const Dialect &dialect = platform_dialect());

// POST {base}/v3/memories/?page=1&page_size=N with the project filters: one page of the
// project's memories, newest first, and their count. A self-hosted server has neither pages nor
// a count: GET {base}/memories?user_id=U&agent_id=P&top_k=1000, its largest listing.
HttpRequest list_request(const ApiTarget &api, const Identity &identity, int page_size);

// Which page of which memories a listing asks for.
struct ListSpec {
  Scope scope = Scope::project;
  std::optional<std::string> type; // metadata.type
  int page = 1;                    // from 1
  int page_size = 10;
};
// list_request for `spec`: the platform's filters of a search in that scope and of that type, and
// that page; a self-hosted server's largest listing of the scope's ids (user, project unless
// global, session for the session scope), which parse_list_response(response, spec) pages.
HttpRequest list_request(const ApiTarget &api, const Identity &identity, const ListSpec &spec);

struct MemoryPage {
  long count = 0;
  bool at_least = false; // a listing without a count that was cut at its limit
  bool paged = false;    // the server paged and counted it
  std::vector<Memory> memories;
};
// The Platform's listing is paged and counted by the server; a self-hosted one (no count) is
// sorted newest first and counted, and is a lower bound at k_unpaged_list_limit items.
Result<MemoryPage> parse_list_response(const HttpResponse &response,
                                       const Dialect &dialect = platform_dialect());
// The same, and a listing the server did not page is filtered by `spec`'s type and cut to its
// page here (count: the memories of that type).
Result<MemoryPage> parse_list_response(const HttpResponse &response, const ListSpec &spec,
                                       const Dialect &dialect = platform_dialect());
// The most a listing without pages returns (the self-hosted server's `top_k` for it).
inline constexpr long k_unpaged_list_limit = 1000;

// GET {base}/v1/event/{id}/: how an asynchronous add went. A self-hosted server adds
// synchronously and has no events: nullopt.
std::optional<HttpRequest> event_request(const ApiTarget &api, std::string_view event_id);

// DELETE {base}/v1/memories/{id}/, or DELETE {base}/memories/{id} (self-hosted)
HttpRequest delete_request(const ApiTarget &api, std::string_view id);

// PUT {base}/v1/memories/{id}/, or PUT {base}/memories/{id} (self-hosted), body {"text": text}:
// the memory's new text (docs/api.md#update).
HttpRequest update_request(const ApiTarget &api, std::string_view id, std::string_view text);
// The same update with the memory's whole `metadata` object (JSON text) too, which the Platform
// stores in place of the old and the self-hosted server merges into it (docs/api.md#update): how a
// memory is pinned.
HttpRequest update_request(const ApiTarget &api, std::string_view id, std::string_view text,
                           std::string_view metadata);

// Classify a non-2xx response into an Error (status, Retry-After and the server's message).
Error classify_status(const HttpResponse &response);

// Parse a search response: `{"results": [...]}`, `{"memories": [...]}` or a bare array.
// Malformed items are skipped; a non-2xx status or an unusable body is an Error.
Result<std::vector<Memory>> parse_search_response(const HttpResponse &response,
                                                  const Dialect &dialect = platform_dialect());

// Parse a single-memory response; "not found" (nullopt: the Platform's 404, a self-hosted
// server's 200 with `null`) is not an error.
Result<std::optional<Memory>> parse_memory_response(const HttpResponse &response,
                                                    const Dialect &dialect = platform_dialect());

// A response that only needs a 2xx status (delete); otherwise the classified error.
Result<void> check_status(const HttpResponse &response);

// Refuse base URLs that would send the key in clear text to another machine: only https://, or
// http:// to a loopback host. Returns the reason when refused.
std::optional<std::string> refuse_base_url(std::string_view base_url);

} // namespace mem0
