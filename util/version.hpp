#pragma once
#include <string_view>

namespace mem0 {

// The project's version. Its one source is `version` in .claude-plugin/plugin.json, which the
// build reads (CMakeLists.txt).
constexpr std::string_view version() { return MEM0_VERSION; }

} // namespace mem0
