#pragma once
#include "runtime/facts.hpp"
#include "runtime/runtime.hpp"
#include "store/outbox.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

// The import of a project's instruction files (docs/capture.md#project-files): CLAUDE.md,
// AGENTS.md, .cursorrules, .windsurfrules and mem0.md in the project root (regular files only:
// a symbolic link is never read), one memory per `## ` section, stored as written (infer off). A
// file is imported again only when its content changed, and then the memories of its previous
// import are deleted. What was imported is kept in `<state dir>/imports.json`.

// The sections of a Markdown file: the text before the first `## ` heading, then each `## `
// section with its heading; only those of at least 50 characters, each cut to 10,000.
std::vector<std::string> markdown_sections(std::string_view text);

// Queue the import of the project files of the run's project (its `facts`) that changed since
// their last import, and the deletion of what that import stored. No network.
void import_project_files(const RunDeps &deps, RunFacts &facts);

// True when a project file of the run's project changed since its last import (read without the
// lock: a cheap check, so that a startup with nothing new starts no process for the import); false
// while the user pauses (noted in the facts: the import waits).
bool project_files_changed(const RunDeps &deps, RunFacts &facts);

// Record the ids a delivered import item got, so that the next import of its file can delete
// them; ids of an import that a newer one already replaced are queued for deletion at once.
// Items that are not part of an import are ignored.
void record_import_ids(StateStore &state, const OutboxItem &item,
                       const std::vector<std::string> &ids);

} // namespace mem0
