#pragma once
#include "cli/command.hpp"
#include "mem0/search.hpp"
#include "runtime/memory_service.hpp"
#include "util/json_writer.hpp"

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

// What the commands share over the memory service (runtime/memory_service.hpp): the service of a
// command's call, who asks, the scope and search of peek, and the JSON of memories.

namespace mem0::cli {

// The memory service for a command: its context's dependencies, directory, deadline and
// detached sender, for a request (not an automatic caller).
MemoryService service(const CliContext &ctx);

// Who is asking: the configured user, the project of the working directory, `session`.
Identity identity_for(const CliContext &ctx, std::string session);

// The session key of --session (an agent's own id finds its `<agent>-<id>` key), else of the
// agent whose session variable is set (session_in_env), else "".
std::string session_for(const Args &args, const CliContext &ctx);

// The API target, or nullopt after saying on stderr why there is none.
std::optional<ApiTarget> target_or_explain(const CliContext &ctx);

// The scope `name` names ("project", "session" or "global"); without a name the configured
// default (global when global_search is on, else project); nullopt for any other name.
std::optional<Scope> scope_named(const std::optional<std::string> &name, const Config &config);

// The search of peek (docs/cli.md#peek): broad top `top_k` and decision-typed top 5; with `type`,
// one search of that type; `dir` (dir_named's) narrows the shared memory to a directory.
std::vector<SearchSpec> search_plan(const std::string &query, int top_k, Scope scope,
                                    const std::optional<std::string> &type = std::nullopt,
                                    const std::optional<std::string> &dir = std::nullopt);

// The directory of a `--dir` option or a `dir` argument as 0.3 writes `metadata.dirs`: relative
// to the repository root, `/`-separated, without `./` or a trailing `/` (docs/api.md#filters);
// nullopt for none or the root itself.
std::optional<std::string> dir_named(const std::optional<std::string> &given);

// Print memories as a JSON array of {id, type, memory, created_at, cite ("[mem0:id8]"), score}.
void write_json(std::ostream &out, const std::vector<Memory> &memories);
// Write that array to `w`.
void write_memories(JsonWriter &w, const std::vector<Memory> &memories);

// Report the failures of a plan on stderr; true when every search failed.
bool report_failures(const PlanOutcome &outcome, std::size_t searches, const CliContext &ctx);

} // namespace mem0::cli
