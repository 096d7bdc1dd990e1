#include "cli/command.hpp"
#include "hook/runtime.hpp"
#include "util/detach.hpp"
#include "util/platform.hpp"

#include <iostream>

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  mem0::Runtime rt{"mem0-hooks"};
  std::error_code ec;
  const auto exe = mem0::platform::executable_path();
  const fs::path exe_dir = exe ? exe->parent_path() : fs::absolute(argv[0], ec).parent_path();
  const mem0::cli::CliContext ctx{{rt.env, rt.config, rt.http, rt.log, rt.state},
                                  std::cout,
                                  std::cerr,
                                  fs::current_path(ec),
                                  exe_dir,
                                  mem0::SteadyClock::now() + rt.config.timeout,
                                  mem0::run_detached};
  return mem0::cli::run(std::vector<std::string>(argv + 1, argv + argc), ctx);
}
