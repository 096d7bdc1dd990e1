#pragma once
// A program's command line as each shell an agent runs hook commands in reads it: written by
// install (docs/windows.md#how-each-agent-runs-a-hook), and shown to the model by the hooks.
#include <string>
#include <string_view>

namespace mem0 {

// The shell an agent runs a hook command in.
enum class CommandShell {
  posix,      // sh -c on Linux and macOS
  git_bash,   // Git Bash on Windows: POSIX quoting, `/` separators
  powershell, // PowerShell -Command on Windows: `& '<path>'`
  cmd,        // cmd.exe /C on Windows: `"<path>"`
};

// For people: `sh`, `Git Bash`, `PowerShell`, `cmd`.
std::string_view shell_name(CommandShell shell);

// The command line that runs `program` with `args` (words that need no quoting, "" for none) in
// `shell`: posix `'/a b/x' args` (plain when nothing needs quoting); git_bash the same with `\`
// written `/`; powershell `& 'C:\a b\x.exe' args` (a quote doubled, the typographic ones too,
// which PowerShell reads as quotes); cmd `"C:\a b\x.exe" args` (plain when nothing needs quoting).
std::string render_command(CommandShell shell, std::string_view program, std::string_view args);

// True when cmd.exe reads `word` as one word as it is: no space and nothing cmd treats specially.
bool cmd_plain(std::string_view word);

// `word` as one word of a command shown for the user to type in their own shell: in POSIX form
// (shell_quote); on Windows (`windows`), where that shell is PowerShell, as it is when PowerShell
// and cmd both read it as one word, else in PowerShell's single quotes (a quote doubled), in which
// nothing expands: its double quotes would run `$(…)`. Without `windows`, for this system.
std::string user_word(std::string_view word, bool windows);
std::string user_word(std::string_view word);

} // namespace mem0
