#include "hooks/on_session_start/on_session_start.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_session_start", &mem0::Agent::session_start,
                        mem0::on_session_start::handle);
}
