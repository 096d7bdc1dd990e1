#pragma once
#include "tests/unit/test_support.hpp"

#include "cli/command.hpp"

#include <chrono>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace mem0::testing {

// A scratch home for the CLI's commands, with a bin directory of the executables; `run` gives
// each command a 5 s budget and no detached sender.
struct CliHome {
  HookFixture f;
  std::ostringstream out, err;
  std::filesystem::path exe_dir = f.home / "bin";

  int run(const std::vector<std::string> &argv) {
    out.str("");
    err.str("");
    return cli::run(argv, cli::CliContext{f.deps(),
                                          out,
                                          err,
                                          f.project,
                                          exe_dir,
                                          SteadyClock::now() + std::chrono::seconds(5),
                                          {}});
  }
};

} // namespace mem0::testing
