#include "util/detach.hpp"

#include <string_view>

namespace mem0 {
namespace {

bool secret(std::string_view entry) {
  return entry.starts_with("MEM0_API_KEY=") || entry.starts_with("CLAUDE_PLUGIN_OPTION_");
}

} // namespace

ChildEnvironment::ChildEnvironment(char *const *env) {
  for (; env && *env; ++env)
    if (!secret(*env)) m_entries.emplace_back(*env);
  for (auto &entry : m_entries)
    m_pointers.push_back(entry.data());
  m_pointers.push_back(nullptr);
}

ChildEnvironment::ChildEnvironment(const std::vector<std::string> &env) {
  for (const auto &entry : env)
    if (!secret(entry)) m_entries.push_back(entry);
  for (auto &entry : m_entries)
    m_pointers.push_back(entry.data());
  m_pointers.push_back(nullptr);
}

} // namespace mem0
