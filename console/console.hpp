#pragma once
#include "mem0/api.hpp"
#include "runtime/runtime.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The memory console (docs/console.md): one local page over the memory service. This header is
// its requests and answers as values, so every handler runs without a socket; console/server.hpp
// puts them on 127.0.0.1.

namespace mem0::console {

// A request as the server received it: header names in lower case, the query's parameters
// decoded.
struct Request {
  std::string method = "GET";
  std::string path = "/";
  std::map<std::string, std::string> query = {};
  std::map<std::string, std::string> headers = {};
  std::string body = {};

  std::string header(std::string_view name) const;
};

// An answer: status, content type, body and headers beyond the ones every answer carries.
struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body = {};
  std::vector<std::pair<std::string, std::string>> headers = {};

  std::string header(std::string_view name) const;
};

// What the console shows that other parts of the program compute: each may be empty, and its
// view then says it is not available rather than show figures it does not have. The CLI fills
// them in (cli/ui.cpp).
struct Sources {
  // Doctor's checks (docs/cli.md#doctor) as JSON: {"rows": [{"name", "value", "sub"}],
  // "warnings": [...], "fixes": [...], "summary"}.
  std::function<Result<std::string>()> health;
  // `mem0-hooks stats --json` for the last `days` days (docs/cli.md#stats-pin-and-dream).
  std::function<Result<std::string>(int days)> stats;
  // `mem0-hooks dream --json`, and applying that plan: the undo file's path.
  std::function<Result<std::string>()> dream;
  std::function<Result<std::string>()> dream_apply;
  // Pin or unpin the memory `id` (docs/cli.md#stats-pin-and-dream).
  std::function<Result<void>(const std::string &id, bool pinned)> pin;
};

// The console's settings: where the state is, the directory whose project it shows, the scope of
// its memories, its token and port.
struct Options {
  std::filesystem::path cwd;
  Scope scope = Scope::project;
  std::string token;
  int port = 0;
};

// `text` with its %XX escapes decoded (and `+` as a space when `plus`).
std::string percent_decoded(std::string_view text, bool plus = false);
// The parameters of a query string (`a=1&b=x%20y`), decoded.
std::map<std::string, std::string> query_params(std::string_view query);

// A fresh random token of 256 bits, as 64 hex digits.
std::string new_token();

// The name of the cookie the token is traded for.
inline constexpr std::string_view k_cookie = "mem0_console";

// The console's handlers over `deps` (which outlive it): each request in, its answer out.
class Console {
public:
  Console(const RunDeps &deps, Options options, Sources sources);

  // Answer `request`: the access rules (docs/console.md#access) first, then the page's assets or
  // the API resource the path names. Every answer carries no-store and the page's CSP.
  Response handle(const Request &request) const;

  void set_port(int port) { m_options.port = port; }
  const Options &options() const { return m_options; }

private:
  Response route(const Request &request) const;
  Response memories(const Request &request, std::string_view rest) const;
  Response search(const Request &request) const;
  Response sessions(const Request &request, std::string_view rest) const;
  Response health(const Request &request) const;
  Response pause(const Request &request) const;
  Response stats(const Request &request) const;
  Response hygiene(const Request &request, std::string_view rest) const;

  const RunDeps &m_deps;
  Options m_options;
  Sources m_sources;
};

} // namespace mem0::console
