#pragma once
#include "common/error.hpp"
#include "common/http.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

struct Memory {
  std::string id;
  std::string text;
  std::string type; // metadata.type, else categories[0], else empty
  std::string created_at;
  std::optional<double> score;
};

enum class Scope { project, session, global };

// Who is searching: the filters every request carries.
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

// How to reach the API.
struct ApiTarget {
  std::string base_url; // without trailing slash
  std::string api_key;
  bool rerank = true;
  double threshold = 0.3;
};

inline constexpr std::string_view k_user_agent = "mem0-native-hooks/0.1.0";

// The JSON body of a search: query, filters (SPEC §5), top_k, threshold, and `"rerank": true`
// only when rerank is on.
std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                        double threshold);

// POST {base}/v3/memories/search/ with the token header.
HttpRequest search_request(const ApiTarget &api, const SearchSpec &spec, const Identity &identity);

// GET {base}/v1/memories/{id}/
HttpRequest get_memory_request(const ApiTarget &api, std::string_view id);

// GET {base}/v1/ping/: checks the key.
HttpRequest ping_request(const ApiTarget &api);

// Classify a non-2xx response into an Error (status, Retry-After and the server's message).
Error classify_status(const HttpResponse &response);

// Parse a search response: `{"results": [...]}`, `{"memories": [...]}` or a bare array.
// Malformed items are skipped; a non-2xx status or an unusable body is an Error.
Result<std::vector<Memory>> parse_search_response(const HttpResponse &response);

// Parse a single-memory response; 404 is "not found" (nullopt), not an error.
Result<std::optional<Memory>> parse_memory_response(const HttpResponse &response);

// Refuse base URLs that would send the key in clear text to another machine: only https://, or
// http:// to a loopback host. Returns the reason when refused.
std::optional<std::string> refuse_base_url(std::string_view base_url);

} // namespace mem0
