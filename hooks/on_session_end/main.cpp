#include "hooks/on_session_end/on_session_end.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_session_end", &mem0::Agent::session_end,
                        mem0::on_session_end::handle);
}
