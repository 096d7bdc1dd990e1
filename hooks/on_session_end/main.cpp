#include "hook/runner.hpp"
#include "hooks/on_session_end/on_session_end.hpp"

int main() {
  return mem0::run_hook("on_session_end", mem0::parse_session_end_input,
                        mem0::on_session_end::handle);
}
