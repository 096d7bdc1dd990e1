#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "runtime/runner.hpp"

int main(int argc, char **argv) {
  return mem0::run_hook(argc, argv, "on_user_prompt", &mem0::Agent::prompt,
                        mem0::on_user_prompt::handle);
}
