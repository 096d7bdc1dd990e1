#include "cli/command.hpp"
#include "runtime/runner.hpp"
#include "runtime/runtime.hpp"
#include "util/detach.hpp"
#include "util/platform.hpp"

#include <iostream>

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  mem0::platform::binary_stdio();
  mem0::Runtime rt{"mem0-hooks"};
  const std::vector<std::string> args = mem0::platform::arguments(argc, argv);
  // Commands still run, with a state store that holds nothing (docs/state.md#state-directory).
  if (rt.state_refused) rt.log.warn(*rt.state_refused);
  // The detached sender started anew (util/detach.hpp), for a call that left an add queued.
  if (args.size() > 1 && args[1] == "--send")
    return mem0::run_sender({args.begin() + 2, args.end()},
                            {rt.env, rt.config, rt.http, rt.log, rt.state});
  std::error_code ec;
  const auto exe = mem0::platform::executable_path();
  const fs::path exe_dir = exe ? exe->parent_path() : fs::absolute(args.at(0), ec).parent_path();
  const mem0::cli::CliContext ctx{{rt.env, rt.config, rt.http, rt.log, rt.state},
                                  std::cout,
                                  std::cerr,
                                  fs::current_path(ec),
                                  exe_dir,
                                  mem0::SteadyClock::now() + rt.config.timeout,
                                  mem0::run_detached};
  return mem0::cli::run(std::vector<std::string>(args.begin() + 1, args.end()), ctx);
}
