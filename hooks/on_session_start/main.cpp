#include "hook/runner.hpp"
#include "hooks/on_session_start/on_session_start.hpp"

int main() {
  return mem0::run_hook("on_session_start", mem0::parse_session_start_input,
                        mem0::on_session_start::handle);
}
