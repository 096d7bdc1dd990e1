#pragma once
#include "console/console.hpp"

#include <chrono>
#include <ostream>
#include <string>

// The console on a socket (docs/console.md#start): Boost.Beast on 127.0.0.1, until Ctrl-C,
// SIGTERM or an idle spell; one console per state directory.

namespace mem0::console {

struct ServeOptions {
  int port = 0;            // 0: a free port
  bool open = true;        // open the default browser
  bool background = false; // serve from a detached process and return once the URL is printed
  std::chrono::seconds idle = std::chrono::minutes(30);
};

// The address `console` answers at: http://127.0.0.1:<port>/?token=<token>.
std::string console_url(int port, const std::string &token);

// The address of a console already serving this state directory (its `console.json`, answering
// a ping with its token); "" when none.
std::string running_console(const RunDeps &deps);

// Serve `console` on 127.0.0.1: print `mem0 console: <url>` first on `out`, open the browser
// unless told not to (a failure is one line on `err`), answer until a signal or `idle` without a
// request; in the background, return once the URL is printed (POSIX only). The exit status: 0,
// or 1 when the port could not be bound.
int serve(Console &console, const RunDeps &deps, const ServeOptions &options, std::ostream &out,
          std::ostream &err);

// Open `url` in the default browser (xdg-open, open, start); false when that failed
// (console/browser_*.cpp).
bool open_browser(const std::string &url);

} // namespace mem0::console
