#include "hooks/on_stop/on_stop.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_stop", &mem0::Agent::stop, mem0::on_stop::handle);
}
