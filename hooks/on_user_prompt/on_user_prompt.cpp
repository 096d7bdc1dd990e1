#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "common/detect.hpp"
#include "common/format.hpp"
#include "common/strings.hpp"

#include <algorithm>

namespace mem0::on_user_prompt {
namespace {

constexpr std::size_t k_detector_window = 256 * 1024;

constexpr std::string_view k_rubric =
    "Mem0 searches apply when user references past work, decision questions, errors, or "
    "non-trivial tasks. Queries use noun-phrases, 2-4 parallel calls with different "
    "metadata.type filters, and include user_id + app_id. For multi-part or comparative "
    "questions, run follow-up searches and combine results before answering -- one search is "
    "rarely enough.";
constexpr std::string_view k_remember =
    "Remember intent detected. The /mem0:remember skill auto-classifies, sets confidence=1.0, "
    "and stores verbatim.";
constexpr std::string_view k_error =
    "Error detected in prompt. Prior occurrences are available in mem0 via anti_pattern and "
    "task_learning type filters.";

std::size_t code_points(std::string_view s) {
  return static_cast<std::size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

} // namespace

bool is_gated(std::string_view prompt) {
  const std::string_view t = trim(prompt);
  return code_points(t) < 20 || t.starts_with('/');
}

PromptAnalysis analyze(std::string_view prompt, bool redact) {
  PromptAnalysis a;
  const std::string_view window = utf8_prefix(prompt, k_detector_window);
  a.error = detect_error(window);
  a.resume = detect_resume(window);
  a.remember = detect_remember(window);
  a.paths = detect_paths(window);
  for (auto &p : a.paths)
    p = std::string(utf8_prefix(p, 200));
  a.query = make_query(prompt, redact);
  return a;
}

std::vector<SearchSpec> build_plan(const PromptAnalysis &a, const Config &config) {
  const Scope scope = config.global_search ? Scope::global : Scope::project;
  if (a.resume)
    return {{"session state current task", "session_state", 3, scope},
            {"recent decisions and learnings", "decision", 3, scope}};
  if (!config.prefetch || a.query.empty()) return {};
  std::vector<SearchSpec> plan{{a.query, std::nullopt, 10, scope}};
  if (config.plan == SearchPlan::thorough) {
    plan.push_back({a.query, "decision", 5, scope});
    if (a.error) plan.push_back({a.query, "anti_pattern", 3, scope});
    if (!a.paths.empty()) plan.push_back({join(a.paths, " "), "convention", 3, scope});
  }
  return plan;
}

std::string handle(const HookInput &input, const HookContext &ctx) {
  const Config &config = ctx.config;
  if (is_gated(input.prompt)) {
    ctx.log.debug("prompt gated (short or slash command)");
    return {};
  }
  if (!config.api_key) {
    ctx.log.debug("no API key; nothing to do");
    return {};
  }
  const PromptAnalysis analysis = analyze(input.prompt, config.redact);
  const std::string session = session_of(input, ctx.env);
  StateStore store(config.state_dir);
  const SessionState seen = session.empty() ? SessionState{} : store.load(session);

  AutoSearch run;
  std::vector<Memory> candidates;
  if (config.auto_search) {
    const auto plan = build_plan(analysis, config);
    if (!plan.empty()) {
      const Identity identity{
          config.user_id, resolve_project_id(config, ctx.env, cwd_of(input, ctx.env), ctx.log).id,
          session};
      run = run_automatic(ctx, store, identity, plan);
      candidates = merge_results(run.outcome.results,
                                 [&](std::string_view id) { return seen.was_injected(id); });
      if (config.plan == SearchPlan::lean && analysis.error && !analysis.resume)
        put_types_first(candidates, {"anti_pattern", "task_learning"});
    }
  } else {
    ctx.log.debug("auto_search is off; no search");
  }

  // The rubric is about searching mem0: shown once per session, and not when recall is off.
  bool show_rubric = false;
  const Recall recall =
      finish_recall(ctx, store, session, run, candidates, k_max_memories, [&](SessionState &s) {
        show_rubric = config.auto_search && !s.rubric_shown;
        s.rubric_shown = s.rubric_shown || config.auto_search;
        ++s.prompts;
      });

  std::vector<std::string> head, lines, tail;
  if (!recall.memories.empty()) {
    head = {analysis.resume ? "### Session context recovered from mem0"
                            : "### Relevant memories (auto-retrieved for this request)",
            ""};
    for (const auto &m : recall.memories)
      lines.push_back(context_line(m));
    if (analysis.resume) tail.emplace_back("These memories provide context for resuming work.");
  }
  tail.insert(tail.end(), recall.notices.begin(), recall.notices.end());
  if (analysis.remember) tail.emplace_back(k_remember);
  if (show_rubric) tail.emplace_back(k_rubric);
  if (analysis.error) tail.emplace_back(k_error);
  if (!analysis.paths.empty()) tail.push_back("File paths detected: " + join(analysis.paths, ", "));
  if (head.empty() && tail.empty()) return {};
  return fit_budget(head, lines, tail);
}

} // namespace mem0::on_user_prompt
