#pragma once
#include <span>
#include <string_view>

// The page's files (console/page/), compiled in at build time (console/CMakeLists.txt), so the
// console fetches nothing from outside and needs no files beside the executable.

namespace mem0::console {

struct Asset {
  std::string_view path; // as requested: /index.html, /console.css, ...
  std::string_view type; // its Content-Type
  std::string_view body;
};

// Every file of the page.
std::span<const Asset> assets();

} // namespace mem0::console
