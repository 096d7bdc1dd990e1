#pragma once
#include "common/config.hpp"
#include "common/log.hpp"

#include <filesystem>
#include <string>

namespace mem0 {

struct ProjectId {
  std::string id;
  std::string source; // where it came from, for `doctor`
};

// Resolve the project id for `cwd` (docs/configuration.md#project-id): MEM0_PROJECT_ID,
// project_map.json[cwd], project_map.json[remote hash] (then add the cwd key to the map, keeping
// every other entry), the origin remote's slug, the directory name.
ProjectId resolve_project_id(const Config &config, const Environment &env,
                             const std::filesystem::path &cwd, const Log &log);

} // namespace mem0
