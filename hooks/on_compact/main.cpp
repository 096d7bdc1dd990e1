#include "hook/runner.hpp"
#include "hooks/on_compact/on_compact.hpp"

int main() {
  return mem0::run_hook("on_compact", mem0::parse_compact_input, mem0::on_compact::handle);
}
