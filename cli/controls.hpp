#pragma once
#include "cli/command.hpp"
#include "store/pause.hpp"

#include <optional>
#include <string>

// What the control commands (pause, log) know that doctor shows too.

namespace mem0::cli {

// `by you for project <id> until <local time> (local time): no automatic recall or capture
// (mem0-hooks resume)`: a user pause as doctor and resume show it.
std::string pause_row_text(const PauseStore::UserPause &pause);

// The last skip of the most recent session's run log (`<time> <hook>: <reason>: <detail>`), or
// nullopt when no session logged one.
std::optional<std::string> last_skip(const CliContext &ctx);

} // namespace mem0::cli
