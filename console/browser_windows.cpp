// open_browser on Windows (docs/contributing.md#platforms).
#include "console/server.hpp"
#include "util/windows.hpp"

#include <shellapi.h>

namespace mem0::console {

bool open_browser(const std::string &url) {
  // ShellExecute returns a value above 32 on success.
  return reinterpret_cast<INT_PTR>(
             ShellExecuteA(nullptr, "open", url.c_str(), nullptr, nullptr, SW_SHOWNORMAL)) > 32;
}

} // namespace mem0::console
