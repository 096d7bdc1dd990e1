#include "util/command_line.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"

#include <array>

namespace mem0 {

namespace {

// What PowerShell reads as a single quote: ', and U+2018, U+2019, U+201A and U+201B in UTF-8.
constexpr std::array<std::string_view, 5> k_ps_quotes{"'", "\xE2\x80\x98", "\xE2\x80\x99",
                                                      "\xE2\x80\x9A", "\xE2\x80\x9B"};

std::string with_args(std::string line, std::string_view args) {
  if (!args.empty()) line += " " + std::string(args);
  return line;
}

// `text` inside PowerShell's '…', where nothing is special but a quote, written twice.
std::string ps_single_quoted(std::string_view text) {
  std::string quoted = "'";
  for (std::size_t i = 0; i < text.size();) {
    std::string_view quote;
    for (const std::string_view q : k_ps_quotes)
      if (text.substr(i).starts_with(q)) quote = q;
    if (quote.empty()) {
      quoted += text[i++];
      continue;
    }
    quoted += std::string(quote) + std::string(quote);
    i += quote.size();
  }
  return quoted + "'";
}

} // namespace

std::string_view shell_name(CommandShell shell) {
  switch (shell) {
  case CommandShell::posix: return "sh";
  case CommandShell::git_bash: return "Git Bash";
  case CommandShell::powershell: return "PowerShell";
  case CommandShell::cmd: return "cmd";
  }
  return "sh";
}

bool cmd_plain(std::string_view word) {
  return !word.empty() && word.find_first_of(" \t&|<>()^%!\",;=") == std::string_view::npos;
}

std::string user_word(std::string_view word, bool windows) {
  if (!windows) return shell_quote(word);
  const bool plain =
      cmd_plain(word) && word.find_first_of("'`$@{}#<>\xE2") == std::string_view::npos;
  return plain ? std::string(word) : ps_single_quoted(word);
}

std::string user_word(std::string_view word) {
  return user_word(word, platform::windows_commands());
}

std::string render_command(CommandShell shell, std::string_view program, std::string_view args) {
  switch (shell) {
  case CommandShell::posix: return with_args(shell_quote(program), args);
  case CommandShell::git_bash: {
    std::string slashed(program);
    for (char &c : slashed)
      if (c == '\\') c = '/';
    return with_args(shell_quote(slashed), args);
  }
  case CommandShell::powershell: return with_args("& " + ps_single_quoted(program), args);
  case CommandShell::cmd:
    return with_args(cmd_plain(program) ? std::string(program) : "\"" + std::string(program) + "\"",
                     args);
  }
  return with_args(std::string(program), args);
}

} // namespace mem0
