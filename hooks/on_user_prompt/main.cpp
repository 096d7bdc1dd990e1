#include "hook/runner.hpp"
#include "hooks/on_user_prompt/on_user_prompt.hpp"

int main() {
  return mem0::run_hook("on_user_prompt", mem0::parse_prompt_input, mem0::on_user_prompt::handle);
}
