#pragma once
#include "mem0/config.hpp"
#include "mem0/http.hpp"
#include "store/state.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"

#include <optional>
#include <string>

namespace mem0 {

// What every executable sets up first, the hooks and the CLI alike: the environment, the
// configuration, the log (with the key hidden and the debug file when debug is on), the HTTP
// client (libcurl, where used, is loaded only when a request is made) and the state store. A
// state directory owned by another user or writable by others is refused: `state_refused` says
// why (one line), and the store then reads and writes nothing (docs/state.md#state-directory).
struct Runtime {
  explicit Runtime(std::string component);

  Environment env;
  Config config;
  Log log;
  SystemHttpClient http;
  std::optional<std::string> state_refused;
  StateStore state;
};

// What a run takes from its process, the hooks and the CLI alike: the Runtime's parts, or a
// test's fakes.
struct RunDeps {
  const Environment &env;
  const Config &config;
  HttpClient &http;
  const Log &log;
  StateStore &state;
  WallClock now = std::chrono::system_clock::now;
};

} // namespace mem0
