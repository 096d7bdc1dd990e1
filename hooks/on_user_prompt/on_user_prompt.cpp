#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "common/detect.hpp"
#include "common/format.hpp"
#include "common/redact.hpp"

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

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n\f\v") - first + 1);
}

std::string join(const std::vector<std::string> &parts, std::string_view sep) {
  std::string out;
  for (const auto &p : parts)
    out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
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
  const std::string text = redact ? redact_secrets(prompt) : std::string(prompt);
  a.query = std::string(utf8_prefix(clean_text(text), k_max_query_bytes));
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

  std::vector<Memory> candidates;
  PlanOutcome outcome;
  std::size_t searches = 0;
  bool limit_reached = false;
  if (config.auto_search) {
    const auto plan = build_plan(analysis, config);
    if (!plan.empty()) {
      const Identity identity{
          config.user_id, resolve_project_id(config, ctx.env, cwd_of(input, ctx.env), ctx.log).id,
          session};
      AutoSearch run = run_automatic(ctx, store, identity, plan);
      limit_reached = run.limit_reached;
      outcome = std::move(run.outcome);
      searches = plan.size();
      candidates = merge_results(outcome.results,
                                 [&](std::string_view id) { return seen.was_injected(id); });
      if (config.plan == SearchPlan::lean && analysis.error && !analysis.resume)
        put_types_first(candidates, {"anti_pattern", "task_learning"});
    }
  } else {
    ctx.log.debug("auto_search is off; no search");
  }

  // Claim the memories under the session lock so concurrent hooks never inject one twice.
  std::vector<Memory> shown;
  bool show_rubric = !seen.rubric_shown;
  bool show_limit = limit_reached && !seen.limit_notice_shown;
  if (session.empty()) {
    shown.assign(candidates.begin(),
                 candidates.begin() + std::min(candidates.size(), k_max_memories));
  } else {
    auto stored = store.update(session, [&](SessionState &s) {
      shown = claim_new(s, candidates, k_max_memories);
      show_rubric = !s.rubric_shown;
      show_limit = limit_reached && !s.limit_notice_shown;
      s.rubric_shown = true;
      s.limit_notice_shown = s.limit_notice_shown || limit_reached;
      ++s.prompts;
    });
    if (!stored) {
      ctx.log.warn("session state not saved: " + stored.error().message);
      shown.assign(candidates.begin(),
                   candidates.begin() + std::min(candidates.size(), k_max_memories));
    }
  }

  std::vector<std::string> head, lines, tail;
  if (!shown.empty()) {
    head = {analysis.resume ? "### Session context recovered from mem0"
                            : "### Relevant memories (auto-retrieved for this request)",
            ""};
    for (const auto &m : shown)
      lines.push_back(context_line(m));
    if (analysis.resume) tail.emplace_back("These memories provide context for resuming work.");
  }
  for (auto &line : recall_problem_lines(outcome, searches))
    tail.push_back(std::move(line));
  if (show_limit) tail.push_back(daily_limit_line(config.daily_limit));
  if (analysis.remember) tail.emplace_back(k_remember);
  if (show_rubric) tail.emplace_back(k_rubric);
  if (analysis.error) tail.emplace_back(k_error);
  if (!analysis.paths.empty()) tail.push_back("File paths detected: " + join(analysis.paths, ", "));
  if (head.empty() && tail.empty()) return {};
  return fit_budget(head, lines, tail);
}

} // namespace mem0::on_user_prompt
