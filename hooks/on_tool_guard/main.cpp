#include "hook/runner.hpp"
#include "hooks/on_tool_guard/on_tool_guard.hpp"

int main() {
  return mem0::run_hook("on_tool_guard", mem0::parse_tool_input, mem0::on_tool_guard::handle);
}
