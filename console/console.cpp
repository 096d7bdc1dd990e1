// The console's handlers (docs/console.md): access rules, the page's assets and one handler per
// API resource, over the memory service.
#include "console/console.hpp"
#include "console/assets.hpp"
#include "hygiene/logs.hpp"
#include "mem0/config.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "runtime/agent.hpp"
#include "runtime/memory_service.hpp"
#include "util/clock.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>
#include <set>

namespace mem0::console {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Equal without an early exit, so the time of a comparison tells nothing of the token.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size() || a.empty()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The value of cookie `name` in a Cookie header; "" when absent.
std::string cookie_value(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const auto end = header.find(';');
    std::string_view part = header.substr(0, end);
    while (!part.empty() && part.front() == ' ')
      part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=')
      return std::string(part.substr(name.size() + 1));
    if (end == std::string_view::npos) break;
    header.remove_prefix(end + 1);
  }
  return {};
}

Response json(int status, std::string body) {
  return {status, "application/json", std::move(body)};
}

// {"error": "<line>", "kind": "<kind>"}: what a view shows in its one line.
Response error(int status, std::string_view line, std::string_view kind = "") {
  JsonWriter w;
  w.begin_object().member("error", line);
  if (!kind.empty()) w.member("kind", kind);
  w.end_object();
  return json(status, w.text());
}

// A failure of the backend or the pause rules: 502 for what the server said or did not say, 503
// for a request held back, 400 for a request that names nothing.
Response failed(const Error &e) {
  const int status = e.kind == ErrorKind::client || e.kind == ErrorKind::empty ? 400
                     : e.kind == ErrorKind::rate_limited                       ? 503
                                                                               : 502;
  return error(status, failure_line(e), to_string(e.kind));
}

Response page_error(int status, std::string_view text) {
  return {status, "text/plain; charset=utf-8", std::string(text) + "\n"};
}

// The metadata members the page shows: the agent that captured it and the pin mark.
struct Shown {
  std::string agent;
  bool pinned = false;
};
Shown shown(const Memory &m) {
  Shown out;
  rapidjson::Document doc;
  if (m.metadata.empty() || !parse_json(doc, m.metadata) || !doc.IsObject()) return out;
  out.agent = std::string(string_member(doc, "agent").value_or(""));
  if (const auto p = doc.FindMember("pinned"); p != doc.MemberEnd() && p->value.IsBool())
    out.pinned = p->value.GetBool();
  return out;
}

void write_memory(JsonWriter &w, const Memory &m) {
  const Shown s = shown(m);
  w.begin_object()
      .member("id", m.id)
      .member("type", m.type)
      .member("memory", clean_text(m.text))
      .member("created_at", m.created_at)
      .member("agent", s.agent)
      .key("pinned")
      .boolean(s.pinned);
  if (m.score) w.key("score").number(*m.score);
  w.end_object();
}

std::string memories_json(const std::vector<Memory> &memories) {
  JsonWriter w;
  w.begin_object().key("memories").begin_array();
  for (const auto &m : memories)
    write_memory(w, m);
  w.end_array().end_object();
  return w.text();
}

// A body's JSON object; nullopt when it is not one.
std::optional<rapidjson::Document> body_object(const Request &request) {
  rapidjson::Document doc;
  if (!parse_json(doc, request.body) || !doc.IsObject()) return std::nullopt;
  return doc;
}

int int_param(const Request &request, const std::string &name, int fallback, int low, int high) {
  const auto it = request.query.find(name);
  if (it == request.query.end()) return fallback;
  try {
    return std::clamp(std::stoi(it->second), low, high);
  } catch (...) {
    return fallback;
  }
}

constexpr std::string_view k_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

} // namespace

std::string Request::header(std::string_view name) const {
  const auto it = headers.find(lower(name));
  return it == headers.end() ? std::string() : it->second;
}

std::string Response::header(std::string_view name) const {
  for (const auto &[k, v] : headers)
    if (lower(k) == lower(name)) return v;
  return {};
}

std::string percent_decoded(std::string_view text, bool plus) {
  const auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
      i += 2;
    } else {
      out += plus && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::map<std::string, std::string> query_params(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const auto end = query.find('&');
    const std::string_view pair = query.substr(0, end);
    const auto eq = pair.find('=');
    if (!pair.empty())
      out.emplace(percent_decoded(pair.substr(0, eq), true),
                  eq == std::string_view::npos ? "" : percent_decoded(pair.substr(eq + 1), true));
    if (end == std::string_view::npos) break;
    query.remove_prefix(end + 1);
  }
  return out;
}

std::string new_token() {
  std::random_device random;
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t word = random();
    for (int nibble = 0; nibble < 8; ++nibble)
      out += k_hex[(word >> (nibble * 4)) & 0xf];
  }
  return out;
}

Console::Console(const RunDeps &deps, Options options, Sources sources)
    : m_deps(deps), m_options(std::move(options)), m_sources(std::move(sources)) {}

Response Console::handle(const Request &request) const {
  const std::string port = std::to_string(m_options.port);
  const std::string host = lower(request.header("host"));
  const std::string origin = request.header("origin");
  Response out;
  if (host != "127.0.0.1:" + port && host != "localhost:" + port) {
    out = page_error(403, "mem0 console: this server answers only 127.0.0.1:" + port);
  } else if (!origin.empty() && origin != "http://127.0.0.1:" + port &&
             origin != "http://localhost:" + port) {
    out = page_error(403, "mem0 console: requests from other pages are refused");
  } else if (request.path == "/" && request.query.count("token")) {
    // The token is traded for a cookie, and the address bar loses it (docs/console.md#access).
    if (same_secret(request.query.at("token"), m_options.token)) {
      out = {303,
             "text/plain; charset=utf-8",
             "",
             {{"Location", "/"},
              {"Set-Cookie", std::string(k_cookie) + "=" + m_options.token +
                                 "; HttpOnly; SameSite=Strict; Path=/"}}};
    } else {
      out = page_error(401, "mem0 console: that token is not this console's; open the address "
                            "mem0-hooks ui printed");
    }
  } else {
    const std::string bearer = request.header("authorization");
    const bool authorized =
        same_secret(cookie_value(request.header("cookie"), k_cookie), m_options.token) ||
        (bearer.rfind("Bearer ", 0) == 0 && same_secret(bearer.substr(7), m_options.token));
    if (!authorized)
      out = request.path.rfind("/api/", 0) == 0
                ? error(401, "no console token: open the address mem0-hooks ui printed")
                : page_error(401, "mem0 console: open the address mem0-hooks ui printed (it "
                                  "carries the token)");
    else
      out = route(request);
  }
  // The key never reaches the page, whatever a source said.
  if (const auto &key = m_deps.config.api_key; key && key->size() >= 8)
    for (auto at = out.body.find(*key); at != std::string::npos; at = out.body.find(*key, at))
      out.body.replace(at, key->size(), mask_key(*key));
  out.headers.emplace_back("Cache-Control", "no-store");
  out.headers.emplace_back("Content-Security-Policy", std::string(k_csp));
  out.headers.emplace_back("X-Content-Type-Options", "nosniff");
  out.headers.emplace_back("Referrer-Policy", "no-referrer");
  out.headers.emplace_back("X-Frame-Options", "DENY");
  return out;
}

Response Console::route(const Request &request) const {
  const std::string &path = request.path;
  if (path.rfind("/api/", 0) != 0) {
    if (request.method != "GET" && request.method != "HEAD")
      return page_error(405, "mem0 console: GET only");
    const std::string_view name = path == "/" ? "/index.html" : std::string_view(path);
    for (const Asset &asset : assets())
      if (asset.path == name) return {200, std::string(asset.type), std::string(asset.body)};
    return page_error(404, "mem0 console: no such page");
  }
  const std::string_view api = std::string_view(path).substr(5);
  const auto under = [&](std::string_view name) -> std::optional<std::string_view> {
    if (api == name) return std::string_view();
    if (api.size() > name.size() && api.substr(0, name.size()) == name && api[name.size()] == '/')
      return api.substr(name.size() + 1);
    return std::nullopt;
  };
  if (api == "ping") return json(200, R"({"console":"mem0"})");
  if (const auto rest = under("memories")) return memories(request, *rest);
  if (api == "search") return search(request);
  if (const auto rest = under("sessions")) return sessions(request, *rest);
  if (api == "health") return health(request);
  if (api == "pause") return pause(request);
  if (api == "stats") return stats(request);
  if (const auto rest = under("hygiene")) return hygiene(request, *rest);
  return error(404, "no such resource");
}

// GET memories?page=N&size=M: a page, newest first. PUT memories/<id> {"text"}: the backend's
// update. DELETE memories/<id>. POST memories/<id>/pin {"pinned": bool}.
Response Console::memories(const Request &request, std::string_view rest) const {
  const MemoryService service(m_deps, m_options.cwd, SteadyClock::now() + m_deps.config.timeout);
  const auto api = service.api();
  if (!api) return failed(api.error());
  const Identity identity = service.identity("");
  if (rest.empty()) {
    if (request.method != "GET") return error(405, "GET only");
    ListSpec spec{m_options.scope, std::nullopt, int_param(request, "page", 1, 1, 100000),
                  int_param(request, "size", 100, 1, 1000)};
    const auto page = service.list(*api, identity, spec);
    if (!page) return failed(page.error());
    JsonWriter w;
    w.begin_object()
        .key("page")
        .int64(spec.page)
        .key("size")
        .int64(spec.page_size)
        .key("count")
        .int64(page->count)
        .key("at_least")
        .boolean(page->at_least)
        .member("scope", m_options.scope == Scope::global ? "global" : "project")
        .key("memories")
        .begin_array();
    for (const auto &m : page->memories)
      write_memory(w, m);
    w.end_array().end_object();
    return json(200, w.text());
  }
  const auto slash = rest.find('/');
  const std::string id(rest.substr(0, slash));
  const std::string_view action = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  if (action == "pin") {
    if (request.method != "POST") return error(405, "POST only");
    const auto body = body_object(request);
    const auto pinned = body ? body->FindMember("pinned") : rapidjson::Value::ConstMemberIterator();
    if (!body || pinned == body->MemberEnd() || !pinned->value.IsBool())
      return error(400, "send {\"pinned\": true or false}");
    if (!m_sources.pin) return error(501, "pinning is not available in this build");
    if (auto done = m_sources.pin(id, pinned->value.GetBool()); !done) return failed(done.error());
    JsonWriter w;
    w.begin_object().member("id", id).key("pinned").boolean(pinned->value.GetBool()).end_object();
    return json(200, w.text());
  }
  if (!action.empty()) return error(404, "no such resource");
  if (request.method == "DELETE") {
    const auto removed = service.remove(*api, identity, id);
    if (!removed) return failed(removed.error());
    JsonWriter w;
    w.begin_object().member("deleted", removed->id).end_object();
    return json(200, w.text());
  }
  if (request.method == "PUT") {
    const auto body = body_object(request);
    const auto text = body ? string_member(*body, "text") : std::nullopt;
    if (!text) return error(400, "send {\"text\": \"…\"}");
    const auto updated = service.update(*api, identity, id, *text);
    if (!updated) return failed(updated.error());
    JsonWriter w;
    w.begin_object().key("memory");
    write_memory(w, *updated);
    w.end_object();
    return json(200, w.text());
  }
  return error(405, "PUT or DELETE");
}

// POST search {"query"}: the hooks' own search (docs/cli.md#peek's plan, rerank as configured).
Response Console::search(const Request &request) const {
  if (request.method != "POST") return error(405, "POST only");
  const auto body = body_object(request);
  const auto text = body ? string_member(*body, "query") : std::nullopt;
  if (!text) return error(400, "send {\"query\": \"…\"}");
  const std::string query = make_query(*text, m_deps.config.redact);
  if (query.empty()) return error(400, "the query is empty");
  const MemoryService service(m_deps, m_options.cwd, SteadyClock::now() + m_deps.config.timeout);
  const auto api = service.api();
  if (!api) return failed(api.error());
  const std::vector<SearchSpec> plan{
      {query, std::nullopt, 20, m_options.scope},
      {query, std::string(memory_type::decision), 5, m_options.scope}};
  const auto found = service.search(*api, service.identity(""), plan);
  if (!found) return failed(found.error());
  return json(200, memories_json(*found));
}

// GET sessions: every session of this machine's state, newest first. GET sessions/<key>: its
// run log.
Response Console::sessions(const Request &request, std::string_view rest) const {
  if (request.method != "GET") return error(405, "GET only");
  const StateStore &state = m_deps.state;
  if (rest.empty()) {
    struct Row {
      long long time = 0;
      std::string key;
      std::size_t runs = 0, injected = 0;
    };
    std::set<std::string> keys;
    for (const auto &entry : state.disk->list(state.dir / "sessions")) {
      const fs::path name = entry.name;
      if (entry.file && (name.extension() == ".json" || name.extension() == ".runs"))
        keys.insert(name.stem().string());
    }
    std::vector<Row> rows;
    for (const auto &key : keys) {
      const auto runs = state.sessions.runs(key);
      if (runs.empty()) continue; // an id map without a run log (the memory tools')
      Row row{0, key, runs.size(), 0};
      for (const auto &r : runs) {
        row.injected += r.memories.size();
        row.time = std::max(row.time, r.time);
      }
      rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
      return a.time != b.time ? a.time > b.time : a.key < b.key;
    });
    JsonWriter w;
    w.begin_object().key("sessions").begin_array();
    for (const auto &row : rows)
      w.begin_object()
          .member("id", row.key)
          .member("agent", hygiene::agent_of_session(row.key))
          .key("time")
          .int64(row.time)
          .key("runs")
          .int64(static_cast<long long>(row.runs))
          .key("injected")
          .int64(static_cast<long long>(row.injected))
          .end_object();
    w.end_array().end_object();
    return json(200, w.text());
  }
  const std::string key(rest);
  const auto runs = state.sessions.runs(key);
  JsonWriter w;
  w.begin_object()
      .member("id", key)
      .member("agent", hygiene::agent_of_session(key))
      .key("runs")
      .begin_array();
  for (const auto &r : runs)
    write_run_json(w, r);
  w.end_array().end_object();
  return json(200, w.text());
}

// GET health: doctor's checks, and the user's pause of this project.
Response Console::health(const Request &request) const {
  if (request.method != "GET") return error(405, "GET only");
  const MemoryService service(m_deps, m_options.cwd, SteadyClock::now());
  const std::string project = service.identity("").project_id;
  const auto paused = m_deps.state.pauses.active(m_deps.now(), [&] { return project; });
  JsonWriter w;
  w.begin_object().member("project", project).key("paused").boolean(paused.has_value());
  if (paused) w.key("paused_everywhere").boolean(paused->project.empty());
  w.key("doctor");
  if (!m_sources.health) {
    w.null();
  } else if (auto report = m_sources.health(); !report) {
    w.null().member("error", report.error().message);
  } else {
    rapidjson::Document doc;
    if (parse_json(doc, *report))
      w.value(doc);
    else
      w.null();
  }
  w.end_object();
  return json(200, w.text());
}

// POST pause {"paused": bool}: the user's pause of this project (docs/cli.md#pause-and-resume).
Response Console::pause(const Request &request) const {
  if (request.method != "POST") return error(405, "POST only");
  const auto body = body_object(request);
  const auto paused = body ? body->FindMember("paused") : rapidjson::Value::ConstMemberIterator();
  if (!body || paused == body->MemberEnd() || !paused->value.IsBool())
    return error(400, "send {\"paused\": true or false}");
  const MemoryService service(m_deps, m_options.cwd, SteadyClock::now());
  const std::string project = service.identity("").project_id;
  if (paused->value.GetBool()) {
    if (auto saved = m_deps.state.pauses.pause(m_deps.now(), project, 0); !saved)
      return error(500, "not saved: " + saved.error().message);
  } else if (auto ended = m_deps.state.pauses.resume(m_deps.now(), project); !ended) {
    return error(500, "not saved: " + ended.error().message);
  }
  const bool now_paused =
      m_deps.state.pauses.active(m_deps.now(), [&] { return project; }).has_value();
  JsonWriter w;
  w.begin_object().key("paused").boolean(now_paused).end_object();
  return json(200, w.text());
}

// GET stats?days=N: stats --json (docs/cli.md#stats-pin-and-dream).
Response Console::stats(const Request &request) const {
  if (request.method != "GET") return error(405, "GET only");
  if (!m_sources.stats) return error(501, "stats are not available in this build");
  auto figures = m_sources.stats(int_param(request, "days", 30, 1, 365));
  if (!figures) return failed(figures.error());
  return json(200, std::move(*figures));
}

// GET hygiene: dream --json and the undo files of earlier runs. POST hygiene/apply: apply it.
Response Console::hygiene(const Request &request, std::string_view rest) const {
  if (rest == "apply") {
    if (request.method != "POST") return error(405, "POST only");
    if (!m_sources.dream_apply) return error(501, "dream is not available in this build");
    auto applied = m_sources.dream_apply();
    if (!applied) return failed(applied.error());
    return json(200, std::move(*applied));
  }
  if (!rest.empty()) return error(404, "no such resource");
  if (request.method != "GET") return error(405, "GET only");
  JsonWriter w;
  w.begin_object().key("undo").begin_array();
  std::vector<std::string> undo;
  std::error_code ec;
  for (fs::directory_iterator it(m_deps.config.mem0_dir / "undo", ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".jsonl") undo.push_back(it->path().string());
  std::sort(undo.rbegin(), undo.rend());
  for (const auto &file : undo)
    w.str(file);
  w.end_array().key("report");
  if (!m_sources.dream) {
    w.null().member("error", "dream is not available in this build");
  } else if (auto report = m_sources.dream(); !report) {
    w.null().member("error", failure_line(report.error()));
  } else {
    rapidjson::Document doc;
    if (parse_json(doc, *report))
      w.value(doc);
    else
      w.null().member("error", "dream's report is not JSON");
  }
  w.end_object();
  return json(200, w.text());
}

} // namespace mem0::console
