#pragma once
#include "cli/command.hpp"

namespace mem0::cli {

// The handlers of the table's rows (cli/cli.cpp; docs/cli.md), one file each.
int peek(const Args &args, const CliContext &ctx);
int context(const Args &args, const CliContext &ctx);
int doctor(const Args &args, const CliContext &ctx);
int install(const Args &args, const CliContext &ctx);
int uninstall(const Args &args, const CliContext &ctx);
int mcp(const Args &args, const CliContext &ctx);
int remember(const Args &args, const CliContext &ctx);
int forget(const Args &args, const CliContext &ctx);
int pause(const Args &args, const CliContext &ctx);
int resume(const Args &args, const CliContext &ctx);
int log(const Args &args, const CliContext &ctx);
int tour(const Args &args, const CliContext &ctx);
int export_memories(const Args &args, const CliContext &ctx);
int import_memories(const Args &args, const CliContext &ctx);
int stats(const Args &args, const CliContext &ctx);
int pin(const Args &args, const CliContext &ctx);
int unpin(const Args &args, const CliContext &ctx);
int dream(const Args &args, const CliContext &ctx);
int ui(const Args &args, const CliContext &ctx);

// Doctor's printed checks as the console's Health view takes them (cli/ui.cpp): {"rows":
// [{"name", "value", "sub"}], "warnings", "fixes", "summary"}.
std::string doctor_json(std::string_view text);

} // namespace mem0::cli
