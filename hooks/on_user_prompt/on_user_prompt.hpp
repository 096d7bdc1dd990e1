#pragma once
#include "common/config.hpp"
#include "common/hook_io.hpp"
#include "common/hook_runner.hpp"
#include "common/mem0_api.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mem0::on_user_prompt {

inline constexpr std::size_t k_max_memories = 6;

// What the detectors of docs/hooks.md#prompt-detectors found in a prompt, and the query to send for
// it.
struct PromptAnalysis {
  std::string query; // redacted, whitespace collapsed, cut to 2,000 bytes
  bool error = false;
  bool resume = false;
  bool remember = false;
  std::vector<std::string> paths;
};

// True when the prompt is too short (< 20 code points after trimming) or a slash command.
bool is_gated(std::string_view prompt);

// Run the detectors and build the query; no network.
PromptAnalysis analyze(std::string_view prompt, bool redact);

// The searches for a prompt (docs/hooks.md#prompt-plans): the resume plan, else lean or thorough;
// empty when prefetch is off and there is no resume intent.
std::vector<SearchSpec> build_plan(const PromptAnalysis &analysis, const Config &config);

// Handle one UserPromptSubmit event: gate, analyse, plan, recall, format.
HookOutput handle(const PromptInput &input, const HookContext &ctx);

} // namespace mem0::on_user_prompt
