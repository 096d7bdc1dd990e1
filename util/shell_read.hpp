#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// The files a shell command line reads, for agents without a Read tool whose model reads files
// with shell commands (docs/agents.md#codex-cli). Pure: nothing is run, expanded or looked up.
//
// Read commands: `cat`, `nl`, `less`, `more`, `bat`/`batcat`, `head`, `tail` (every operand),
// `sed -n` (without `-i`: the operands after the script), `grep`/`egrep`/`fgrep` and `rg` (the
// operands after the pattern; `rg --files` reads none). Options and their values are skipped,
// as are `-` (stdin) and redirection targets. A command line is split at `|`, `||`, `&&`, `;`,
// `&` and newlines, and each simple command is read on its own; a `cd <dir>` before a command
// puts `<dir>/` before its relative operands.
//
// Conservative by design: an operand with an expansion, a glob or a leading `~` is left out;
// a line with command or process substitution, a heredoc, a subshell or an unclosed quote reads
// nothing; a `cd` that cannot be followed ends the reading. Operands are given as written
// (relative ones are relative to the command's working directory) and may name directories
// (`grep -r`, `rg`): the caller keeps the regular files. Distinct, in order, at most
// `max_files`.
std::vector<std::string> files_read_by(std::string_view command, std::size_t max_files = 8);

} // namespace mem0
