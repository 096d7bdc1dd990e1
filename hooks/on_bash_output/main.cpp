#include "hooks/on_bash_output/on_bash_output.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_bash_output", &mem0::Agent::tool,
                        mem0::on_bash_output::handle);
}
