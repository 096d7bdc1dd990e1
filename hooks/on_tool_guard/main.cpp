#include "hooks/on_tool_guard/on_tool_guard.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_tool_guard", &mem0::Agent::tool,
                        mem0::on_tool_guard::handle);
}
