#include "util/platform.hpp"

#if defined(__APPLE__)
#include <cstdint>
#include <mach-o/dyld.h> // _NSGetExecutablePath
#include <string>
#endif

namespace mem0::platform {

std::optional<std::filesystem::path> executable_path() {
  std::error_code ec;
#if defined(__APPLE__)
  std::uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size); // sets the size needed
  std::string raw(size, '\0');
  if (_NSGetExecutablePath(raw.data(), &size) != 0) return std::nullopt;
  // The path it gives may hold symlinks and `..`; Linux's /proc/self/exe never does.
  auto path = std::filesystem::canonical(raw.c_str(), ec);
#else
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
#endif
  if (ec || path.empty()) return std::nullopt;
  return path;
}

} // namespace mem0::platform
