#include "hooks/on_compact/on_compact.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_compact", &mem0::Agent::compact, mem0::on_compact::handle);
}
