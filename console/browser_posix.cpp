// open_browser on Linux and macOS (docs/contributing.md#platforms).
#include "console/server.hpp"

#include <cstdlib>

namespace mem0::console {

bool open_browser(const std::string &url) {
  // The url is ours (digits and hex), so quoting it in single quotes is safe.
#ifdef __APPLE__
  const std::string command = "open '" + url + "' >/dev/null 2>&1";
#else
  const std::string command = "xdg-open '" + url + "' >/dev/null 2>&1";
#endif
  return std::system(command.c_str()) == 0;
}

} // namespace mem0::console
