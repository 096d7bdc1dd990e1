#include "hooks/mem0_hooks/mem0_hooks.hpp"

#include <iostream>
#include <unistd.h>

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  const mem0::Environment env = mem0::Environment::from_process();
  const mem0::Config config = mem0::load_config(env);
  mem0::Log log{"mem0-hooks"};
  if (config.api_key) log.hide(*config.api_key);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  const fs::path exe_dir = ec ? fs::absolute(argv[0], ec).parent_path() : exe.parent_path();
  mem0::CurlHttpClient http(config.ca_bundle);
  const mem0::cli::CliContext ctx{env,
                                  config,
                                  http,
                                  log,
                                  std::cout,
                                  std::cerr,
                                  fs::current_path(ec),
                                  exe_dir,
                                  mem0::SteadyClock::now() + config.timeout};
  return mem0::cli::run(std::vector<std::string>(argv + 1, argv + argc), ctx);
}
