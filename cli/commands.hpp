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

// Doctor's findings (docs/cli.md#doctor): its rows in order, each a name and a value (`sub`: a
// row under the one before, its value starting at `column` in the printed text), then the
// warnings and the fixes.
struct DoctorRow {
  std::string name, value;
  bool sub = false;
  std::size_t column = 12;
};
struct DoctorReport {
  std::vector<DoctorRow> rows;
  std::vector<std::string> warnings, fixes;
};
// Doctor's checks, run without printing: what the console's Health view shows.
DoctorReport doctor_report(const CliContext &ctx);
// `report` as JSON: {"rows":[{"name","value","sub"}…],"warnings":[…],"fixes":[…],"summary":…},
// the summary doctor's last line ("" when there are fixes).
std::string doctor_json(const DoctorReport &report);

} // namespace mem0::cli
