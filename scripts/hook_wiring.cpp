// One agent's wiring file as install's own code writes it from the hook table and the agent's
// hooks-file format, each command given as a template: what scripts/wiring.py writes the wiring
// files the repository ships from (docs/contributing.md#adding-a-hook).
//
//   hook_wiring <agent> <command>   # each {exe} in <command> stands for the executable
//   hook_wiring --rows              # the table's rows, as a JSON array (for the tests)
#include "cli/install.hpp"
#include "util/json_writer.hpp"

#include <iostream>

int main(int argc, char **argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--rows") {
    mem0::JsonWriter w;
    w.begin_array();
    for (const mem0::HookSpec &h : mem0::k_hooks)
      w.begin_object()
          .member("agent", h.agent)
          .member("executable", h.executable)
          .member("event", h.event)
          .member("matcher", h.matcher)
          .key("timeout")
          .int64(h.timeout_seconds)
          .member("status", h.status_message)
          .end_object();
    std::cout << w.end_array().text() << "\n";
    return 0;
  }
  const mem0::Agent *agent = argc == 3 ? mem0::find_agent(argv[1]) : nullptr;
  if (!agent) {
    std::cerr << "usage: hook_wiring <agent> <command, {exe} for the executable> | --rows\n";
    return 2;
  }
  const std::string_view form = argv[2];
  std::cout << mem0::cli::wiring_file(*agent, [&](std::string_view exe) {
    std::string command(form);
    for (auto at = command.find("{exe}"); at != std::string::npos; at = command.find("{exe}", at))
      command.replace(at, 5, exe);
    return command;
  }) << "\n";
  return 0;
}
