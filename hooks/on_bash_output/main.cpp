#include "hook/runner.hpp"
#include "hooks/on_bash_output/on_bash_output.hpp"

int main() {
  return mem0::run_hook("on_bash_output", mem0::parse_tool_input, mem0::on_bash_output::handle);
}
