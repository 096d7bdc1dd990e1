#include "mem0/api.hpp"

#include "mem0/format.hpp"
#include "util/json.hpp"
#include "util/redact.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/version.hpp"
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>

namespace mem0 {
namespace {

using rapidjson::Value;

// Turn one result item into a Memory; nullopt when it lacks a usable id or text.
std::optional<Memory> parse_item(const Value &item) {
  if (!item.IsObject()) return std::nullopt;
  const auto id = string_member(item, "id");
  const auto text = string_member(item, "memory");
  if (!id || id->size() > 128 || !all_of_class(*id, is_id_char) || !text) return std::nullopt;
  Memory m;
  m.id = std::string(*id);
  m.text = std::string(*text);
  if (const auto meta = item.FindMember("metadata");
      meta != item.MemberEnd() && meta->value.IsObject())
    if (const auto type = string_member(meta->value, "type")) m.type = std::string(*type);
  if (m.type.empty())
    if (const auto cats = item.FindMember("categories");
        cats != item.MemberEnd() && cats->value.IsArray() && !cats->value.Empty() &&
        cats->value[0].IsString())
      m.type = cats->value[0].GetString();
  if (const auto created = string_member(item, "created_at")) m.created_at = std::string(*created);
  if (const auto score = item.FindMember("score");
      score != item.MemberEnd() && score->value.IsNumber())
    m.score = score->value.GetDouble();
  return m;
}

// The server's own words from an error body, if it has any (`detail` or `error`).
std::string server_message(std::string_view body) {
  rapidjson::Document doc;
  parse_json(doc, body);
  if (!doc.HasParseError() && doc.IsObject())
    for (const char *key : {"detail", "error", "message"})
      if (const auto text = string_member(doc, key)) // it may echo the key: it gets logged
        return redact_secrets(text->substr(0, 200));
  return {};
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_string(Writer &w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// `{"key": value}`
void write_leaf(Writer &w, const char *key, std::string_view value) {
  w.StartObject();
  w.Key(key);
  write_string(w, value);
  w.EndObject();
}

// The platform's filters: `AND[user, app, …]`, or for the project scope with shared memory
// `OR[AND[user, app], AND[agent A, app], AND[agent P, app]]` (docs/api.md#shared-memory).
void write_platform_filters(Writer &w, const SearchSpec &spec, const Identity &identity) {
  const bool shared =
      spec.scope == Scope::project && !spec.type && !identity.shared_agent_id.empty();
  auto anchored = [&](const char *key, std::string_view value) {
    w.StartObject();
    w.Key("AND");
    w.StartArray();
    write_leaf(w, key, value);
    write_leaf(w, "app_id", spec.scope == Scope::global ? "*" : identity.project_id);
    if (spec.scope == Scope::session) write_leaf(w, "run_id", identity.session_id);
    if (spec.type) {
      w.StartObject();
      w.Key("metadata");
      write_leaf(w, "type", *spec.type);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  };
  if (!shared) return anchored("user_id", identity.user_id);
  w.StartObject();
  w.Key("OR");
  w.StartArray();
  anchored("user_id", identity.user_id);
  anchored("agent_id", identity.shared_agent_id);
  anchored("agent_id", identity.project_id);
  w.EndArray();
  w.EndObject();
}

// A self-hosted server's filters: flat, `user_id` at the top, the project as `agent_id`.
void write_selfhosted_filters(Writer &w, const SearchSpec &spec, const Identity &identity) {
  w.StartObject();
  w.Key("user_id");
  write_string(w, identity.user_id);
  if (spec.scope != Scope::global) {
    w.Key("agent_id");
    write_string(w, identity.project_id);
  }
  if (spec.scope == Scope::session) {
    w.Key("run_id");
    write_string(w, identity.session_id);
  }
  if (spec.type) {
    w.Key("type");
    write_string(w, *spec.type);
  }
  w.EndObject();
}

void write_filters(Writer &w, const SearchSpec &spec, const Identity &identity, Backend backend) {
  if (backend == Backend::selfhosted)
    write_selfhosted_filters(w, spec, identity);
  else
    write_platform_filters(w, spec, identity);
}

// `value` for a URL's query string: unreserved characters as they are, the rest as %XX.
std::string url_encode(std::string_view value) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// {base}/v1/memories/{id}/, or {base}/memories/{id} on a self-hosted server.
std::string memory_url(const ApiTarget &api, std::string_view id) {
  if (api.backend() == Backend::selfhosted) return api.base_url() + "/memories/" + url_encode(id);
  return api.base_url() + "/v1/memories/" + std::string(id) + "/";
}

// The self-hosted server's add body, from the platform's as queued (docs/api.md#self-hosted-add):
// `app_id` travels as `agent_id`; `custom_instructions` has no counterpart and is dropped.
std::string selfhosted_add_body(std::string body) {
  rapidjson::Document doc;
  parse_json(doc, body);
  if (doc.HasParseError() || !doc.IsObject()) return body; // the server says what is wrong
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  for (const auto &member : doc.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (key == "custom_instructions") continue;
    if (key == "app_id")
      w.Key("agent_id");
    else
      w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    member.value.Accept(w);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

bool is_success(long status) { return status >= 200 && status < 300; }

} // namespace

std::string filters_json(const SearchSpec &spec, const Identity &identity, Backend backend) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  write_filters(w, spec, identity, backend);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                        double threshold, Backend backend) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("query");
  write_string(w, spec.query);
  w.Key("filters");
  write_filters(w, spec, identity, backend);
  w.Key("top_k");
  w.Int(spec.top_k);
  w.Key("threshold");
  w.Double(threshold);
  if (rerank && backend == Backend::platform) {
    w.Key("rerank");
    w.Bool(true);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Result<ApiTarget> ApiTarget::make(std::string base_url, std::string api_key, bool rerank,
                                  double threshold, Backend backend) {
  if (api_key.empty() && backend == Backend::platform) // a self-hosted server may need none
    return unexpected(make_error(ErrorKind::unauthorized, "no API key"));
  // A CR or LF would end a header line and start another: never let one reach the wire.
  const auto control = [](std::string_view s) {
    return std::any_of(s.begin(), s.end(), [](unsigned char b) { return b < 0x20 || b == 0x7F; });
  };
  if (control(api_key))
    return unexpected(
        make_error(ErrorKind::unauthorized, "the API key contains control characters; not used"));
  if (control(base_url))
    return unexpected(
        make_error(ErrorKind::transport, "the base URL contains control characters; not used"));
  while (base_url.ends_with('/'))
    base_url.pop_back();
  if (const auto refused = refuse_base_url(base_url))
    return unexpected(make_error(ErrorKind::transport, *refused));
  ApiTarget t;
  t.m_base_url = std::move(base_url);
  t.m_api_key = std::move(api_key);
  t.m_rerank = rerank;
  t.m_threshold = threshold;
  t.m_backend = backend;
  return t;
}

std::vector<std::string> ApiTarget::headers() const {
  std::vector<std::string> h{"Content-Type: application/json", "Accept: application/json",
                             "User-Agent: " + user_agent()};
  if (m_backend == Backend::platform)
    h.insert(h.begin(), "Authorization: Token " + m_api_key);
  else if (!m_api_key.empty())
    h.insert(h.begin(), "X-API-Key: " + m_api_key);
  return h;
}

std::string ApiTarget::server_key() const {
  return sha256_hex(m_base_url + '\n' + m_api_key).substr(0, 16);
}

std::string user_agent() { return "mem0-native-hooks/" + std::string(version()); }

HttpRequest search_request(const ApiTarget &api, const SearchSpec &spec, const Identity &identity) {
  const bool selfhosted = api.backend() == Backend::selfhosted;
  return {"POST", api.base_url() + (selfhosted ? "/search" : "/v3/memories/search/"), api.headers(),
          search_body(spec, identity, api.rerank(), api.threshold(), api.backend())};
}

HttpRequest get_memory_request(const ApiTarget &api, std::string_view id) {
  return {"GET", memory_url(api, id), api.headers(), {}};
}

std::optional<HttpRequest> ping_request(const ApiTarget &api) {
  if (api.backend() == Backend::selfhosted) return std::nullopt;
  return HttpRequest{"GET", api.base_url() + "/v1/ping/", api.headers(), {}};
}

std::string add_body(const AddSpec &spec, const Identity &identity) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("messages");
  w.StartArray();
  for (const auto &m : spec.messages) {
    w.StartObject();
    w.Key("role");
    str(m.role);
    w.Key("content");
    str(m.content);
    w.EndObject();
  }
  w.EndArray();
  w.Key("user_id");
  str(identity.user_id);
  w.Key("app_id");
  str(identity.project_id);
  w.Key("metadata");
  w.StartObject();
  for (const auto &[key, value] : spec.metadata) {
    w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    str(value);
  }
  w.EndObject();
  w.Key("infer");
  w.Bool(spec.infer);
  if (!spec.expiration_date.empty()) {
    w.Key("expiration_date");
    str(spec.expiration_date);
  }
  if (!spec.custom_instructions.empty()) {
    w.Key("custom_instructions");
    str(spec.custom_instructions);
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

HttpRequest add_request(const ApiTarget &api, std::string body) {
  if (api.backend() == Backend::selfhosted)
    return {"POST", api.base_url() + "/memories", api.headers(),
            selfhosted_add_body(std::move(body))};
  return {"POST", api.base_url() + "/v3/memories/add/", api.headers(), std::move(body)};
}

Result<AddResult> parse_add_response(const HttpResponse &response) {
  if (!is_success(response.status)) return unexpected(classify_status(response));
  rapidjson::Document doc;
  parse_json(doc, response.body);
  if (doc.HasParseError() || !doc.IsObject())
    return unexpected(
        make_error(ErrorKind::bad_response, "add response is not a JSON object", response.status));
  AddResult result;
  result.event_id = std::string(string_member(doc, "event_id").value_or(""));
  if (const auto it = doc.FindMember("results"); it != doc.MemberEnd() && it->value.IsArray())
    for (const auto &item : it->value.GetArray())
      if (item.IsObject())
        if (const auto id = string_member(item, "id"); id && all_of_class(*id, is_id_char))
          result.ids.emplace_back(*id);
  if (result.event_id.empty() && !doc.HasMember("results"))
    return unexpected(make_error(ErrorKind::bad_response,
                                 "add response has neither event_id nor results", response.status));
  return result;
}

HttpRequest list_request(const ApiTarget &api, const Identity &identity, int page_size) {
  if (api.backend() == Backend::selfhosted)
    return {"GET",
            api.base_url() + "/memories?user_id=" + url_encode(identity.user_id) +
                "&agent_id=" + url_encode(identity.project_id) +
                "&top_k=" + std::to_string(k_selfhosted_list_limit),
            api.headers(),
            {}};
  return {"POST", api.base_url() + "/v3/memories/?page=1&page_size=" + std::to_string(page_size),
          api.headers(), "{\"filters\":" + filters_json(SearchSpec{}, identity) + "}"};
}

Result<MemoryPage> parse_list_response(const HttpResponse &response) {
  auto memories = parse_search_response(response);
  if (!memories) return unexpected(memories.error());
  rapidjson::Document doc;
  parse_json(doc, response.body);
  MemoryPage page;
  page.memories = std::move(*memories);
  page.count = static_cast<long>(page.memories.size());
  if (const auto count = doc.IsObject() ? int64_member(doc, "count") : std::nullopt) {
    page.count = static_cast<long>(*count);
    return page;
  }
  // No count: a self-hosted listing, in storage order. Newest first; undated ones last.
  const auto seconds = [](const Memory &m) {
    return parse_iso8601(m.created_at).value_or(std::chrono::sys_seconds::min());
  };
  std::stable_sort(page.memories.begin(), page.memories.end(),
                   [&](const Memory &a, const Memory &b) { return seconds(a) > seconds(b); });
  page.at_least = page.count >= k_selfhosted_list_limit;
  return page;
}

HttpRequest event_request(const ApiTarget &api, std::string_view event_id) {
  return {"GET", api.base_url() + "/v1/event/" + std::string(event_id) + "/", api.headers(), {}};
}

HttpRequest delete_request(const ApiTarget &api, std::string_view id) {
  return {"DELETE", memory_url(api, id), api.headers(), {}};
}

Result<void> check_status(const HttpResponse &response) {
  if (!is_success(response.status)) return unexpected(classify_status(response));
  return {};
}

Error classify_status(const HttpResponse &response) {
  const long s = response.status;
  ErrorKind kind = ErrorKind::bad_response; // 1xx/3xx: redirects are never followed
  if (s == 401 || s == 403)
    kind = ErrorKind::unauthorized;
  else if (s == 429)
    kind = ErrorKind::rate_limited;
  else if (s >= 500)
    kind = ErrorKind::server;
  else if (s >= 400)
    kind = ErrorKind::client;
  std::string message = "HTTP " + std::to_string(s);
  if (const std::string detail = server_message(response.body); !detail.empty())
    message += ": " + detail;
  Error e = make_error(kind, std::move(message), s);
  e.retry_after = response.retry_after;
  return e;
}

Result<std::vector<Memory>> parse_search_response(const HttpResponse &response) {
  if (!is_success(response.status)) return unexpected(classify_status(response));
  rapidjson::Document doc;
  parse_json(doc, response.body);
  if (doc.HasParseError())
    return unexpected(make_error(ErrorKind::bad_response, "response is not JSON", response.status));
  const Value *items = nullptr;
  if (doc.IsArray()) {
    items = &doc;
  } else if (doc.IsObject()) {
    for (const char *key : {"results", "memories"})
      if (const auto it = doc.FindMember(key); it != doc.MemberEnd() && it->value.IsArray()) {
        items = &it->value;
        break;
      }
  }
  if (!items)
    return unexpected(
        make_error(ErrorKind::bad_response, "response has no results array", response.status));
  std::vector<Memory> out;
  for (const auto &item : items->GetArray())
    if (auto m = parse_item(item)) out.push_back(std::move(*m));
  return out;
}

Result<std::optional<Memory>> parse_memory_response(const HttpResponse &response) {
  if (response.status == 404) return std::optional<Memory>{};
  if (!is_success(response.status)) return unexpected(classify_status(response));
  rapidjson::Document doc;
  parse_json(doc, response.body);
  if (doc.HasParseError())
    return unexpected(make_error(ErrorKind::bad_response, "response is not JSON", response.status));
  if (doc.IsNull()) return std::optional<Memory>{}; // a self-hosted server's "not found"
  auto m = parse_item(doc);
  if (!m)
    return unexpected(
        make_error(ErrorKind::bad_response, "response is not a memory", response.status));
  return std::optional<Memory>(std::move(*m));
}

std::optional<std::string> refuse_base_url(std::string_view url) {
  if (url.starts_with("https://")) return std::nullopt;
  if (!url.starts_with("http://"))
    return "base URL must start with https:// (got '" + std::string(url.substr(0, 60)) + "')";
  std::string_view host = url.substr(7);
  host = host.substr(0, host.find_first_of("/?#")); // where libcurl ends the authority
  if (const auto at = host.rfind('@'); at != std::string_view::npos) host.remove_prefix(at + 1);
  if (host.starts_with("["))
    host = host.substr(0, host.find(']') + 1);
  else
    host = host.substr(0, host.find(':'));
  const bool ipv4_loopback =
      host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string_view::npos;
  if (host == "localhost" || host == "[::1]" || ipv4_loopback) return std::nullopt;
  return "refusing http:// to non-loopback host '" + std::string(host) + "': use https://";
}

} // namespace mem0
