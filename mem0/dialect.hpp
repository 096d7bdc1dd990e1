#pragma once
#include "mem0/api.hpp"
#include "store/outbox.hpp"
#include "util/json_writer.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mem0 {

// What a backend is called, and what it has and lacks: plain facts the generic code reads
// instead of asking which backend it talks to.
struct DialectTraits {
  std::string_view name;             // its value of MEM0_BACKEND and settings `backend`
  std::string_view alias;            // another spelling the settings take, or ""
  std::string_view display_name;     // doctor's `backend` row
  std::string_view place;            // doctor's notes: "not on <place>"
  std::string_view default_base_url; // where it listens when no base URL is set
  std::string_view key_rejected_fix; // doctor's advice when the key is refused
  bool requires_key = true;          // false: it may run without authentication
  bool rerank = false;               // a search may ask for rerank
  bool shared_memory = false;        // the project's shared memory (docs/api.md#shared-memory)
  bool synchronous_adds = false;     // it answers an add once stored: the sender waits longer
  std::string_view project_field;    // the add body's field for the project: app_id, agent_id
  bool custom_instructions = false;  // an add may carry the project's custom instructions
  bool latest_only = false;          // a search asks for the newest version of each memory only
};

// How one Mem0 backend spells the requests and its answers (docs/api.md; the self-hosted
// differences in docs/api.md#self-hosted-server). One implementation per backend, each in its own
// file (mem0/platform_dialect.cpp, mem0/selfhosted_dialect.cpp); recall, remember, the sender,
// doctor and configuration ask the dialect and never branch on the backend.
class Dialect {
public:
  explicit Dialect(DialectTraits traits) : m_traits(traits) {}
  virtual ~Dialect() = default;
  Dialect(const Dialect &) = delete;
  Dialect &operator=(const Dialect &) = delete;

  const DialectTraits &traits() const { return m_traits; }

  // The header that carries `key`; nullopt to send none.
  virtual std::optional<std::string> key_header(std::string_view key) const = 0;
  // Write the filters of a search or a listing (docs/api.md#filters).
  virtual void write_filters(JsonWriter &w, const SearchSpec &spec,
                             const Identity &identity) const = 0;
  // The body of a search; `rerank` only where the backend has it.
  std::string search_body(const SearchSpec &spec, const Identity &identity, bool rerank,
                          double threshold) const;
  // The body of an add of `capture` (docs/api.md#add, docs/api.md#self-hosted-add): the project
  // under the traits' field, custom instructions only where the backend takes them. With a team
  // lane (docs/api.md#two-layouts): where the backend has shared memory, 0.3's fields (agent_id,
  // run_id, metadata author and dirs, custom_categories, both instructions); elsewhere the
  // project's id only, without the user's, for `shared_only`.
  std::string add_body(const QueuedAdd &capture) const;
  // The body of an update: {"text": text}, in both backends (docs/api.md#update).
  static std::string update_body(std::string_view text);

  // The requests, with `api`'s base URL and headers.
  virtual HttpRequest search(const ApiTarget &api, const SearchSpec &spec,
                             const Identity &identity) const = 0;
  virtual HttpRequest get(const ApiTarget &api, std::string_view id) const = 0;
  virtual HttpRequest remove(const ApiTarget &api, std::string_view id) const = 0;
  virtual HttpRequest add(const ApiTarget &api, const QueuedAdd &capture) const = 0;
  virtual HttpRequest update(const ApiTarget &api, std::string_view id,
                             std::string_view text) const = 0;
  virtual HttpRequest list(const ApiTarget &api, const Identity &identity,
                           const ListSpec &spec) const = 0;
  // nullopt where the backend has no such call.
  virtual std::optional<HttpRequest> event(const ApiTarget &api,
                                           std::string_view event_id) const = 0;
  virtual std::optional<HttpRequest> ping(const ApiTarget &api) const = 0;

  // The answers (docs/api.md#response): a non-2xx status is the classified Error, a body of the
  // wrong shape a bad_response. A search's memories, malformed items skipped:
  virtual Result<std::vector<Memory>> parse_search(const HttpResponse &response) const = 0;
  // A get's memory; nullopt when the backend says it has none.
  virtual Result<std::optional<Memory>> parse_memory(const HttpResponse &response) const = 0;
  // A listing's memories, count and order (MemoryPage).
  virtual Result<MemoryPage> parse_list(const HttpResponse &response) const = 0;
  // An add's event id or stored ids.
  virtual Result<AddResult> parse_add(const HttpResponse &response) const = 0;

private:
  DialectTraits m_traits;
};

// Every dialect, one per backend, alive for the whole process: the one list that the settings
// (`backend`, MEM0_BACKEND, and its hint) read. A new backend adds its line here
// (mem0/dialect.cpp).
std::span<const Dialect *const> dialects();
// The dialect whose name or alias is `name` (any case, spaces around ignored); nullptr for none.
const Dialect *find_dialect(std::string_view name);
// Their names as a hint names them: "platform or selfhosted".
std::string_view dialect_names();
const Dialect &platform_dialect();
const Dialect &selfhosted_dialect();

// Shared by the dialects (mem0/api.cpp).

// The memories of a search or listing answer in any of its shapes (`{"results": [...]}`,
// `{"memories": [...]}`, a bare array), and its `count` when it has one.
struct Listing {
  std::vector<Memory> memories;
  std::optional<long> count;
};
Result<Listing> read_listing(const HttpResponse &response);
// The memory object of a get's answer; a 404 is nullopt.
Result<std::optional<Memory>> read_memory(const HttpResponse &response);
// The event id or the stored ids of an add's answer.
Result<AddResult> read_add(const HttpResponse &response);
// True for a 2xx status.
bool is_success(long status);

// `value` for a URL: unreserved characters as they are, the rest as %XX.
std::string url_encode(std::string_view value);
} // namespace mem0
