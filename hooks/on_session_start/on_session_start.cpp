#include "hooks/on_session_start/on_session_start.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "runtime/project_files.hpp"
#include "runtime/recall.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

namespace mem0::on_session_start {
namespace fs = std::filesystem;
namespace {

constexpr std::array<std::string_view, 4> k_recent_types{
    memory_type::decision, memory_type::session_state, memory_type::task_learning,
    memory_type::convention};

constexpr std::size_t k_max_name_code_points = 100;

enum class Source { startup, clear, resume, compact, other };

Source source_of(std::string_view source) {
  if (source == "startup") return Source::startup;
  if (source == "clear") return Source::clear;
  if (source == "resume") return Source::resume;
  if (source == "compact") return Source::compact;
  return Source::other;
}

std::string shown_name(std::string_view name) {
  return truncate_code_points(clean_text(name), k_max_name_code_points);
}

// startup, clear: the project's count and its most recent memories of the recent types, from one
// listing that the memory service gates, counts and feeds back like a search.
HookOutput recent(const HookContext &ctx, const Identity &identity) {
  RecallRequest request;
  request.identity = identity;
  request.cap = k_max_recent;
  request.line = [now = ctx.now()](const Memory &m) { return file_line(m, now); };
  request.recent = k_list_page_size;
  request.keep = [](const Memory &m) { return is_recent_type(m.type); };
  const Recall found = recall(ctx, request);

  std::vector<std::string> head, lines;
  if (found.page) {
    head.push_back(header_line(found.page->count, identity.project_id, identity.user_id,
                               ctx.facts->branch(), found.page->at_least));
    if (!found.memories.empty()) head.emplace_back();
    lines = found.lines;
  }
  return recall_output(found, head, lines);
}

// resume, compact: the resume plan through the recall pipeline.
HookOutput resumed(const HookContext &ctx, const Identity &identity) {
  RecallRequest request;
  request.plan = resume_plan(ctx.config.global_search ? Scope::global : Scope::project);
  request.identity = identity;
  request.cap = k_max_resume;
  const Recall found = recall(ctx, request);

  if (found.memories.empty()) return recall_output(found, {}, {});
  return recall_output(found, {std::string(k_resume_heading), ""}, found.lines,
                       {std::string(k_resume_footer)});
}

} // namespace

bool is_recent_type(std::string_view type) {
  return std::find(k_recent_types.begin(), k_recent_types.end(), type) != k_recent_types.end();
}

std::string header_line(long count, std::string_view project, std::string_view user,
                        const std::optional<std::string> &branch, bool at_least) {
  std::string line = "### mem0: " + std::to_string(count) + (at_least ? "+" : "") +
                     " memories for " + shown_name(project) + " (user " + shown_name(user);
  if (branch && !branch->empty()) line += ", branch " + shown_name(*branch);
  return line + ")";
}

HookOutput handle(const SessionStartInput &input, const HookContext &ctx) {
  const Config &config = ctx.config;
  const Source source = source_of(input.source);
  if (source == Source::other) {
    ctx.log.debug(
        [&] { return "session start gated: source \"" + input.source + "\" is not handled"; });
    return {};
  }
  RunFacts &facts = *ctx.facts;
  const std::string &session = facts.session();
  if (!has_access(config)) {
    ctx.log.debug("no API key; recall and capture are off");
    ctx.facts->note_skip("no_key", "no API key");
    return {.system_message = no_key_notice(ctx, session)};
  }
  const bool fresh = source == Source::startup || source == Source::clear;
  HookOutput output;
  if (!config.auto_search) {
    ctx.log.debug("auto_search is off; no recall at session start");
    // No search, but what the user must know about capture (a full outbox, rejected items).
    RecallRequest request;
    request.identity.session_id = session;
    output.system_message = join(recall(ctx, request).user_notices, "\n");
  } else {
    const Identity &identity = facts.search_identity();
    output = fresh ? recent(ctx, identity) : resumed(ctx, identity);
  }
  // The import is queued in the sender's process, after the output is printed, when a file
  // changed: a startup with nothing new and nothing pending starts no process. The context is
  // copied (its references are to the runner's runtime, which outlives the call; its facts are
  // shared).
  if (fresh && config.auto_save && project_files_changed(ctx, facts))
    output.detached = [ctx] { import_project_files(ctx, *ctx.facts); };
  return output;
}

} // namespace mem0::on_session_start
