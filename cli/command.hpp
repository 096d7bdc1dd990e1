#pragma once
#include "runtime/runtime.hpp"
#include "util/clock.hpp"
#include "util/detach.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The CLI's commands as a table (docs/contributing.md#adding-a-command): each row names a
// command, its words and options, its help, and the handler that runs it.

namespace mem0::cli {

inline constexpr int k_ok = 0;
inline constexpr int k_failure = 1;
inline constexpr int k_usage = 2;

// Everything a command may touch, passed in so tests can substitute fakes.
struct CliContext : RunDeps {
  std::ostream &out;
  std::ostream &err;
  std::filesystem::path cwd;
  std::filesystem::path exe_dir; // where the hook executables are installed
  Deadline deadline;
  // Starts a sender for what a call left queued (util/detach.hpp's run_detached); none when
  // empty, as in tests.
  std::function<Result<void>(const DetachedWork &)> detach;
};

// The command line after the command name: positional words and `--name [value]` options.
struct Args {
  std::vector<std::string> words;
  std::vector<std::pair<std::string, std::string>> options; // value "" for flags

  bool has(std::string_view name) const;
  std::optional<std::string> value(std::string_view name) const;
  std::string joined_words() const;
};

// A command's handler: the parsed arguments and the context in, the exit status out.
using Handler = int (*)(const Args &args, const CliContext &ctx);

// How many words a command takes after its name, options aside.
struct Arity {
  std::size_t min = 0;
  std::size_t max = 0;
};
inline constexpr std::size_t k_any_words = std::numeric_limits<std::size_t>::max();

// One row of the table: the command's name, usage (after `mem0-hooks <name>`), one-line summary,
// options (those that take a value, then flags), the options part of its help, its arity and its
// handler.
struct Command {
  std::string_view name;
  std::string_view usage;
  std::string_view summary;
  std::set<std::string_view> value_options;
  std::set<std::string_view> flags;
  std::string options;
  Arity words;
  Handler run = nullptr;
};

// Every command, in the order `mem0-hooks --help` lists them.
const std::vector<Command> &commands();

// The row of `name`; nullptr for a command there is none of.
const Command *find_command(std::string_view name);

// Run `mem0-hooks <argv...>` (without the program name); returns the exit status.
int run(const std::vector<std::string> &argv, const CliContext &ctx);

} // namespace mem0::cli
