#include "hooks/on_file_read/on_file_read.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_file_read", &mem0::Agent::tool, mem0::on_file_read::handle);
}
