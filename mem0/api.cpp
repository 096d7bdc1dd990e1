#include "mem0/api.hpp"

#include "mem0/dialect.hpp"
#include "mem0/format.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/redact.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/version.hpp"
#include <rapidjson/document.h>

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
      meta != item.MemberEnd() && meta->value.IsObject()) {
    if (const auto type = string_member(meta->value, "type")) m.type = std::string(*type);
    JsonWriter w;
    w.value(meta->value);
    m.metadata = w.text();
  }
  if (m.type.empty())
    if (const auto cats = item.FindMember("categories");
        cats != item.MemberEnd() && cats->value.IsArray()) {
      // One of 0.3's categories names it best; else the first the Platform gave.
      for (const auto &c : cats->value.GetArray())
        if (c.IsString() && memory_category::known(c.GetString())) {
          m.type = c.GetString();
          break;
        }
      if (m.type.empty() && !cats->value.Empty() && cats->value[0].IsString())
        m.type = cats->value[0].GetString();
    }
  if (const auto created = string_member(item, "created_at")) m.created_at = std::string(*created);
  if (const auto updated = string_member(item, "updated_at")) m.updated_at = std::string(*updated);
  if (const auto user = string_member(item, "user_id")) m.user_id = std::string(*user);
  if (const auto agent = string_member(item, "agent_id")) m.agent_id = std::string(*agent);
  if (const auto app = string_member(item, "app_id")) m.app_id = std::string(*app);
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

} // namespace

bool is_success(long status) { return status >= 200 && status < 300; }

Result<Listing> read_listing(const HttpResponse &response) {
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
  Listing out;
  for (const auto &item : items->GetArray())
    if (auto m = parse_item(item)) out.memories.push_back(std::move(*m));
  if (const auto count = doc.IsObject() ? int64_member(doc, "count") : std::nullopt)
    out.count = static_cast<long>(*count);
  return out;
}

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

std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                        double threshold, const Dialect &dialect) {
  return dialect.search_body(spec, identity, rerank, threshold);
}

Result<ApiTarget> ApiTarget::make(std::string base_url, std::string api_key, bool rerank,
                                  double threshold, const Dialect &dialect) {
  if (api_key.empty() && dialect.traits().requires_key) // a self-hosted server may need none
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
  t.m_dialect = &dialect;
  return t;
}

std::vector<std::string> ApiTarget::headers() const {
  std::vector<std::string> h;
  h.reserve(4);
  if (const auto key = m_dialect->key_header(m_api_key)) h.push_back(*key);
  h.emplace_back("Content-Type: application/json");
  h.emplace_back("Accept: application/json");
  h.push_back("User-Agent: " + user_agent());
  return h;
}

bool ApiTarget::rerank() const { return m_rerank && m_dialect->traits().rerank; }

std::string ApiTarget::server_key() const {
  return sha256_hex(m_base_url + '\n' + m_api_key).substr(0, 16);
}

std::string user_agent() { return "mem0-native-hooks/" + std::string(version()); }

HttpRequest search_request(const ApiTarget &api, const SearchSpec &spec, const Identity &identity) {
  return api.dialect().search(api, spec, identity);
}

HttpRequest get_memory_request(const ApiTarget &api, std::string_view id) {
  return api.dialect().get(api, id);
}

std::optional<HttpRequest> ping_request(const ApiTarget &api) { return api.dialect().ping(api); }

QueuedAdd queued_add(const AddSpec &spec, const Identity &identity) {
  return {spec.messages, identity.user_id,     identity.project_id,      spec.metadata,
          spec.infer,    spec.expiration_date, spec.custom_instructions, spec.team};
}

std::string add_body(const AddSpec &spec, const Identity &identity, const Dialect &dialect) {
  return dialect.add_body(queued_add(spec, identity));
}

HttpRequest add_request(const ApiTarget &api, const QueuedAdd &capture) {
  return api.dialect().add(api, capture);
}

Result<AddResult> parse_add_response(const HttpResponse &response, const Dialect &dialect) {
  return dialect.parse_add(response);
}

Result<AddResult> read_add(const HttpResponse &response) {
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
  ListSpec spec;
  spec.page_size = page_size;
  return list_request(api, identity, spec);
}

HttpRequest list_request(const ApiTarget &api, const Identity &identity, const ListSpec &spec) {
  return api.dialect().list(api, identity, spec);
}

HttpRequest update_request(const ApiTarget &api, std::string_view id, std::string_view text) {
  return api.dialect().update(api, id, text);
}

HttpRequest update_request(const ApiTarget &api, std::string_view id, std::string_view text,
                           std::string_view metadata) {
  HttpRequest request = api.dialect().update(api, id, text);
  rapidjson::Document doc;
  parse_json(doc, metadata);
  JsonWriter w;
  w.begin_object().member("text", text).key("metadata");
  if (!doc.HasParseError() && doc.IsObject())
    w.value(doc);
  else
    w.begin_object().end_object();
  request.body = w.end_object().text();
  return request;
}

Result<MemoryPage> parse_list_response(const HttpResponse &response, const ListSpec &spec,
                                       const Dialect &dialect) {
  auto page = parse_list_response(response, dialect);
  if (!page || page->paged) return page;
  // The whole listing: the server filtered by neither type nor page.
  auto &all = page->memories;
  if (spec.type) std::erase_if(all, [&](const Memory &m) { return m.type != *spec.type; });
  page->count = static_cast<long>(all.size());
  const auto size = static_cast<std::size_t>(std::max(spec.page_size, 1));
  const std::size_t first =
      std::min(all.size(), size * static_cast<std::size_t>(std::max(spec.page - 1, 0)));
  all.erase(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(first));
  if (all.size() > size) all.resize(size);
  return page;
}

Result<MemoryPage> parse_list_response(const HttpResponse &response, const Dialect &dialect) {
  return dialect.parse_list(response);
}

std::optional<HttpRequest> event_request(const ApiTarget &api, std::string_view event_id) {
  return api.dialect().event(api, event_id);
}

HttpRequest delete_request(const ApiTarget &api, std::string_view id) {
  return api.dialect().remove(api, id);
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

Result<std::vector<Memory>> parse_search_response(const HttpResponse &response,
                                                  const Dialect &dialect) {
  return dialect.parse_search(response);
}

Result<std::optional<Memory>> parse_memory_response(const HttpResponse &response,
                                                    const Dialect &dialect) {
  return dialect.parse_memory(response);
}

Result<std::optional<Memory>> read_memory(const HttpResponse &response) {
  if (response.status == 404) return std::optional<Memory>{};
  if (!is_success(response.status)) return unexpected(classify_status(response));
  rapidjson::Document doc;
  parse_json(doc, response.body);
  if (doc.HasParseError())
    return unexpected(make_error(ErrorKind::bad_response, "response is not JSON", response.status));
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
