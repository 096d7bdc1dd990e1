#pragma once
#include "common/error.hpp"
#include "common/http.hpp"
#include "common/memory.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mem0 {

// The Mem0 requests the hooks send and the responses they accept (docs/api.md).

enum class Scope { project, session, global };

// Who is searching or writing: the filters every request carries.
struct Identity {
  std::string user_id;
  std::string project_id;
  std::string session_id; // used by the session scope only
};

// One search of a plan.
struct SearchSpec {
  std::string query;
  std::optional<std::string> type; // metadata.type filter
  int top_k = 10;
  Scope scope = Scope::project;
};

// Where requests go, validated once: only `make` builds one, so every request carries a key and
// goes to a base URL that keeps the key safe (https://, or http:// to a loopback host).
class ApiTarget {
public:
  // A target for `base_url` (trailing slashes dropped) and `api_key`; an error (kind
  // `transport`, or `unauthorized` without a usable key) says why there is none.
  static Result<ApiTarget> make(std::string base_url, std::string api_key, bool rerank = true,
                                double threshold = 0.3);

  const std::string &base_url() const { return m_base_url; }
  bool rerank() const { return m_rerank; }
  double threshold() const { return m_threshold; }
  // The headers of every request: the token, JSON, and our User-Agent.
  std::vector<std::string> headers() const;

private:
  ApiTarget() = default;
  std::string m_base_url;
  std::string m_api_key;
  bool m_rerank = true;
  double m_threshold = 0.3;
};

// "mem0-native-hooks/<version>"
std::string user_agent();

// The JSON body of a search: query, filters (docs/api.md#search), top_k, threshold, and
// `"rerank": true` only when rerank is on.
std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                        double threshold);

// POST {base}/v3/memories/search/
HttpRequest search_request(const ApiTarget &api, const SearchSpec &spec, const Identity &identity);

// GET {base}/v1/memories/{id}/
HttpRequest get_memory_request(const ApiTarget &api, std::string_view id);

// GET {base}/v1/ping/: checks the key.
HttpRequest ping_request(const ApiTarget &api);

// One memory to add (docs/api.md#add).
struct AddSpec {
  struct Message {
    std::string role; // "user" or "assistant"
    std::string content;
  };
  std::vector<Message> messages;
  std::vector<std::pair<std::string, std::string>> metadata; // type, source, session_id, ...
  bool infer = true;
  std::string expiration_date;     // "YYYY-MM-DD", or empty
  std::string custom_instructions; // or empty
};

// The JSON body of an add: messages, user_id, app_id, metadata, infer, and the optional fields
// when set. Never a run_id: it would hide the memory from the user + app filters.
std::string add_body(const AddSpec &spec, const Identity &identity);

// POST {base}/v3/memories/add/ with `body` (add_body's, as queued in the outbox).
HttpRequest add_request(const ApiTarget &api, std::string body);

// What an accepted add returned: an event id (asynchronous, infer on) or the ids of the memories
// stored at once (infer off).
struct AddResult {
  std::string event_id;
  std::vector<std::string> ids;
};
Result<AddResult> parse_add_response(const HttpResponse &response);

// POST {base}/v3/memories/?page=1&page_size=N with the project filters: one page of the
// project's memories, newest first, and their count.
HttpRequest list_request(const ApiTarget &api, const Identity &identity, int page_size);

struct MemoryPage {
  long count = 0;
  std::vector<Memory> memories;
};
Result<MemoryPage> parse_list_response(const HttpResponse &response);

// GET {base}/v1/event/{id}/: how an asynchronous add went.
HttpRequest event_request(const ApiTarget &api, std::string_view event_id);

// DELETE {base}/v1/memories/{id}/
HttpRequest delete_request(const ApiTarget &api, std::string_view id);

// Classify a non-2xx response into an Error (status, Retry-After and the server's message).
Error classify_status(const HttpResponse &response);

// Parse a search response: `{"results": [...]}`, `{"memories": [...]}` or a bare array.
// Malformed items are skipped; a non-2xx status or an unusable body is an Error.
Result<std::vector<Memory>> parse_search_response(const HttpResponse &response);

// Parse a single-memory response; 404 is "not found" (nullopt), not an error.
Result<std::optional<Memory>> parse_memory_response(const HttpResponse &response);

// A response that only needs a 2xx status (delete); otherwise the classified error.
Result<void> check_status(const HttpResponse &response);

// Refuse base URLs that would send the key in clear text to another machine: only https://, or
// http:// to a loopback host. Returns the reason when refused.
std::optional<std::string> refuse_base_url(std::string_view base_url);

} // namespace mem0
