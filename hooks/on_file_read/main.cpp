#include "hook/runner.hpp"
#include "hooks/on_file_read/on_file_read.hpp"

int main() {
  return mem0::run_hook("on_file_read", mem0::parse_tool_input, mem0::on_file_read::handle);
}
