#include "hooks/on_user_prompt/on_user_prompt.hpp"
#include "mem0/format.hpp"
#include "runtime/recall.hpp"
#include "runtime/remember.hpp"
#include "runtime/transcript.hpp"
#include "util/detect.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>

namespace mem0::on_user_prompt {
namespace {

constexpr std::size_t k_detector_window = 256 * 1024;

} // namespace

std::string rubric_line(const Agent &agent) {
  const std::string cli = mem0_hooks_command(agent);
  return "Mem0 holds this project's past decisions, conventions, errors and work. When the user "
         "references past work, asks about a decision, reports an error or starts a non-trivial "
         "task, search it with a noun-phrase query: run `" +
         cli +
         " peek '<query>'` in the project directory, the query always quoted as one shell "
         "word; `" +
         cli +
         " context '<task>'` loads what a task needs (decisions, conventions, prior errors); `" +
         cli +
         " peek <id8>` shows the memory whose line ends with that 8-character id. For multi-part "
         "or "
         "comparative questions, run several searches and combine the results before answering "
         "-- one search is rarely enough.";
}

std::string remember_line(bool auto_save) {
  if (!auto_save)
    return "Remember intent detected, but mem0 capture is off (auto_save): nothing of this "
           "session is stored; tell the user.";
  return "Remember intent detected. mem0 captures this conversation automatically; restate the "
         "fact to keep in one plain sentence in your reply so that it is stored as meant.";
}

std::string error_line(const Agent &agent) {
  return "Error detected in prompt. Prior fixes may be in mem0 as anti_pattern or task_learning "
         "memories: run `" +
         mem0_hooks_command(agent) +
         " peek '<the error message>'`, the message quoted as one "
         "shell word.";
}

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
  if (a.resume) return resume_plan(scope);
  if (!config.prefetch || a.query.empty()) return {};
  std::vector<SearchSpec> plan{{a.query, std::nullopt, 10, scope}};
  if (config.search_plan == SearchPlan::thorough) {
    plan.push_back({a.query, std::string(memory_type::decision), 5, scope});
    if (a.error) plan.push_back({a.query, std::string(memory_type::anti_pattern), 3, scope});
    if (!a.paths.empty())
      plan.push_back({join(a.paths, " "), std::string(memory_type::convention), 3, scope});
  }
  return plan;
}

HookOutput handle(const PromptInput &input, const HookContext &ctx) {
  const Config &config = ctx.config;
  if (is_gated(input.prompt)) {
    ctx.log.debug("prompt gated (short or slash command)");
    ctx.facts->note_skip("gated", "a prompt under 20 characters, or a slash command");
    return {};
  }
  RunFacts &facts = *ctx.facts;
  const std::string &session = facts.session();
  if (!has_access(config)) {
    ctx.log.debug("no API key; nothing to search");
    ctx.facts->note_skip("no_key", "no API key");
    return {.system_message = no_key_notice(ctx, session)};
  }
  const PromptAnalysis analysis = analyze(input.prompt, config.redact);

  RecallRequest request;
  request.cap = k_max_memories;
  if (config.auto_search) {
    request.plan = build_plan(analysis, config);
    if (!request.plan.empty()) request.identity = facts.search_identity();
    if (config.search_plan == SearchPlan::lean && analysis.error && !analysis.resume)
      request.types_first = {memory_type::anti_pattern, memory_type::task_learning};
  } else {
    ctx.log.debug("auto_search is off; no search");
    ctx.facts->note_skip("gated", "auto_search is off");
  }
  request.identity.session_id = session;
  // The rubric is about searching mem0: shown once per session, and not when recall is off.
  bool show_rubric = false;
  bool capture = false;
  request.also = [&](SessionState &s, bool) {
    show_rubric = config.auto_search && !s.rubric_shown;
    s.rubric_shown = s.rubric_shown || config.auto_search;
    capture = ++s.prompts % k_capture_every == 0;
    if (!capture && config.auto_save)
      ctx.facts->note_skip("gated", "auto-capture runs on every third prompt (this was prompt " +
                                        std::to_string(s.prompts) + ")");
  };
  const Recall found = recall(ctx, request);

  std::vector<std::string> head, lines, tail;
  if (!found.memories.empty()) {
    head = {std::string(analysis.resume
                            ? k_resume_heading
                            : "### Relevant memories (auto-retrieved for this request)"),
            ""};
    lines = found.lines;
    if (analysis.resume) tail.emplace_back(k_resume_footer);
  }
  if (analysis.remember) tail.push_back(remember_line(config.auto_save));
  if (show_rubric) tail.push_back(rubric_line(*ctx.agent));
  if (analysis.error) tail.push_back(error_line(*ctx.agent));
  if (!analysis.paths.empty()) tail.push_back("File paths detected: " + join(analysis.paths, ", "));
  HookOutput out = recall_output(found, head, lines, tail);
  // The context is copied: the runner returns before the detached process runs it.
  if (capture && config.auto_save && !input.transcript_path.empty())
    out.detached = [ctx, input] { capture_conversation(ctx, input); };
  return out;
}

std::string message_key(const TranscriptMessage &m) {
  return sha256_hex(m.role + "\n" + m.text).substr(0, 16);
}

void capture_conversation(const HookContext &ctx, const PromptInput &input) {
  const Transcript transcript = ctx.agent->transcript(input.transcript_path, k_transcript_window);
  std::vector<TranscriptMessage> messages;
  auto claim = [&](SessionState &s) {
    messages =
        messages_after(transcript, s.captured_until, k_capture_messages, k_capture_message_chars);
    if (s.capture_resync) {
      // Said while the user paused capture: passed over, never sent.
      s.capture_resync = false;
      if (!messages.empty()) s.captured_until = messages.back().uuid;
      for (const auto &m : messages)
        s.captured.push_back(message_key(m));
      messages.clear();
    }
    // Whatever the uuids say (a transcript written again, entries without one), a message sent
    // before is not sent again.
    std::erase_if(messages, [&](const TranscriptMessage &m) {
      return std::ranges::find(s.captured, message_key(m)) != s.captured.end();
    });
    std::size_t chars = 0;
    for (const auto &m : messages)
      chars += code_points(m.text);
    if (chars < k_capture_min_chars) {
      messages.clear();
    } else {
      s.captured_until = messages.back().uuid;
      for (const auto &m : messages)
        s.captured.push_back(message_key(m));
    }
    if (s.captured.size() > k_max_captured_keys)
      s.captured.erase(s.captured.begin(),
                       s.captured.end() - static_cast<std::ptrdiff_t>(k_max_captured_keys));
  };
  const std::string &session = ctx.facts->session();
  if (session.empty()) return; // without a session there is no telling what was captured
  if (auto claimed = ctx.state.sessions.update(session, claim); !claimed) {
    ctx.log.warn("auto-capture skipped: " + claimed.error().message);
    return;
  }
  if (messages.empty()) return;
  Capture c;
  for (auto &m : messages)
    c.messages.push_back({m.role, std::move(m.text)});
  c.type = memory_type::auto_capture;
  c.source = memory_source::auto_capture;
  // Best effort: remember logs why a capture was not queued, and the hook has nothing to add.
  (void)remember(ctx, *ctx.facts, std::move(c));
}

} // namespace mem0::on_user_prompt
