#include "runtime/runtime.hpp"
#include "util/files.hpp"

namespace mem0 {

Runtime::Runtime(std::string component)
    : env(Environment::from_process()), config(load_config(env)), log(std::move(component)),
      http(config.ca_bundle), state_refused(unsafe_dir_problem(config.state_dir)),
      state(config.state_dir, state_refused ? refused_state_disk() : real_state_disk()) {
  if (state_refused)
    *state_refused +=
        ": refused, nothing is read from it or kept there (docs/state.md#state-directory)";
  if (config.api_key) log.hide(*config.api_key);
  if (config.debug && ensure_private_dir(config.mem0_dir))
    log.enable_file(config.mem0_dir / "hooks.log");
  if (!config.api_key_problem.empty()) log.warn(config.api_key_problem); // names, never the value
}

} // namespace mem0
