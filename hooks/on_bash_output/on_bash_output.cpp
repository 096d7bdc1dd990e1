#include "hooks/on_bash_output/on_bash_output.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "runtime/recall.hpp"
#include "util/detect.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <unordered_set>

namespace mem0::on_bash_output {
namespace {

// The last `max` bytes of `text`, starting on a character boundary.
std::string_view tail(std::string_view text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t start = text.size() - max;
  while (start < text.size() && is_continuation(text[start]))
    ++start;
  return text.substr(start);
}

// A failure's `error` without its first line, `Exit code N`.
std::string_view without_exit_code(std::string_view error) {
  if (!error.starts_with("Exit code ")) return error;
  const auto newline = error.find('\n');
  return newline == std::string_view::npos ? std::string_view{} : error.substr(newline + 1);
}

// The longest prefix of `text` (valid UTF-8) of at most `max` code points.
std::string_view prefix_code_points(std::string_view text, std::size_t max) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!is_continuation(text[i]) && count++ == max) return text.substr(0, i);
  return text;
}

// Call `f` with each line of `text` (split at `\n`).
template <class F> void for_each_line(std::string_view text, F f) {
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    f(text.substr(start, end - start));
    start = end + 1;
  }
}

bool is_byte_in(char c, unsigned char low, unsigned char high) {
  const auto u = static_cast<unsigned char>(c);
  return u >= low && u <= high;
}

} // namespace

bool skipped_command(std::string_view command) {
  std::vector<std::string_view> words;
  constexpr std::string_view k_separators = " \t\r\n;&|()`";
  for (std::size_t start = 0; start < command.size();) {
    start = command.find_first_not_of(k_separators, start);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(command.find_first_of(k_separators, start), command.size());
    words.push_back(command.substr(start, end - start));
    start = end;
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "git" && !words[i].ends_with("/git")) continue;
    std::size_t j = i + 1;
    while (j < words.size() && words[j].starts_with('-')) {
      const std::string_view option = words[j];
      const bool takes_value = option == "-C" || option == "-c" || option == "--git-dir" ||
                               option == "--work-tree" || option == "--namespace" ||
                               option == "--config-env" || option == "--super-prefix";
      j += takes_value ? 2 : 1; // `--git-dir=<path>` is one word
    }
    if (j < words.size() && (words[j] == "commit" || words[j] == "merge" || words[j] == "rebase"))
      return true;
  }
  return false;
}

std::string strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '\x1b') {
      out += text[i++];
      continue;
    }
    if (++i >= text.size()) break;
    if (text[i] == '[') { // CSI: parameter and intermediate bytes, then one final byte
      ++i;
      while (i < text.size() && is_byte_in(text[i], 0x20, 0x3F))
        ++i;
      if (i < text.size() && is_byte_in(text[i], 0x40, 0x7E)) ++i;
    } else if (text[i] == ']') { // OSC: up to BEL or ESC backslash
      ++i;
      while (i < text.size() && text[i] != '\x07' && text[i] != '\x1b')
        ++i;
      if (i < text.size() && text[i] == '\x07')
        ++i;
      else if (i + 1 < text.size() && text[i + 1] == '\\')
        i += 2;
    } else { // ESC, intermediate bytes, one final byte (`ESC ( B`, `ESC =`)
      while (i < text.size() && is_byte_in(text[i], 0x20, 0x2F))
        ++i;
      if (i < text.size() && is_byte_in(text[i], 0x30, 0x7E)) ++i;
    }
  }
  return out;
}

std::string output_text(const ToolInput &input) {
  std::string text;
  auto add = [&](std::string_view part) {
    if (part.empty()) return;
    if (!text.empty()) text += '\n';
    text += tail(part, k_output_window);
  };
  add(without_exit_code(input.error));
  const std::string_view out = tail(input.stdout_text, k_output_window);
  add(out);
  // Claude Code merges stderr into stdout: a line of stderr that stdout holds already would be
  // counted twice by the detector, so only the others are read.
  std::unordered_set<std::string_view> seen;
  for_each_line(out, [&](std::string_view line) { seen.insert(line); });
  std::string err;
  for_each_line(tail(input.stderr_text, k_output_window), [&](std::string_view line) {
    if (seen.contains(line)) return;
    if (!err.empty()) err += '\n';
    err += line;
  });
  add(err);
  return strip_ansi(text);
}

ErrorLookup analyze(const ToolInput &input, bool redact) {
  const std::string text = output_text(input);
  if (!detect_output_error(text)) return {};
  const std::string cleaned = make_query(telling_error_line(text), redact);
  ErrorLookup lookup;
  lookup.query = std::string(trim(prefix_code_points(cleaned, k_max_query_code_points)));
  if (!lookup.query.empty()) lookup.key = sha256_hex(lookup.query).substr(0, 16);
  return lookup;
}

std::vector<SearchSpec> build_plan(const std::string &query, const Config &config) {
  const Scope scope = config.global_search ? Scope::global : Scope::project;
  std::vector<SearchSpec> plan{{query, std::nullopt, 10, scope}};
  if (config.search_plan == SearchPlan::thorough) {
    plan.push_back({query, std::string(memory_type::anti_pattern), 5, scope});
    plan.push_back({query, std::string(memory_type::bug_fix), 3, scope});
  }
  return plan;
}

HookOutput handle(const ToolInput &input, const HookContext &ctx) {
  const Config &config = ctx.config;
  // `reason`: the run-log reason; none for runs with nothing to look up (most commands).
  auto gated = [&](std::string_view why, std::string_view reason = {}) {
    ctx.log.debug([&] { return "bash output gated: " + std::string(why); });
    if (!reason.empty()) ctx.facts->note_skip(std::string(reason), std::string(why));
    return HookOutput{};
  };
  if (input.tool != ToolKind::shell) return gated("not a shell command");
  if (!has_access(config)) {
    ctx.log.debug("bash output gated: no API key");
    ctx.facts->note_skip("no_key", "no API key");
    return {.system_message = no_key_notice(ctx, ctx.facts->session())};
  }
  if (!config.auto_search) return gated("auto_search is off", "gated");
  if (skipped_command(input.command)) return gated("git commit, merge or rebase", "gated");
  const ErrorLookup lookup = analyze(input, config.redact);
  if (lookup.query.empty()) return gated("no error in the output");

  RunFacts &facts = *ctx.facts;
  const std::string &session = facts.session();
  auto looked_up = [&](const SessionState &s) {
    return std::find(s.errors.begin(), s.errors.end(), lookup.key) != s.errors.end();
  };
  if (!session.empty() && looked_up(ctx.state.sessions.load(session)))
    return gated("error line already looked up in this session", "deduped");

  RecallRequest request;
  request.plan = build_plan(lookup.query, config);
  request.identity = facts.search_identity();
  request.cap = k_max_memories;
  request.types_first = {memory_type::anti_pattern, memory_type::bug_fix,
                         memory_type::task_learning};
  // Claim the error line under the session lock: a concurrent run of the same session that
  // claimed it first has shown (or will show) the answer. Only a lookup that got an answer is
  // recorded, so a failed one is tried again on the next occurrence.
  bool claimed_elsewhere = false;
  request.also = [&](SessionState &s, bool answered) {
    if (looked_up(s)) {
      claimed_elsewhere = true;
      return;
    }
    if (!answered) return;
    s.errors.push_back(lookup.key);
    if (s.errors.size() > k_max_errors_remembered)
      s.errors.erase(s.errors.begin(),
                     s.errors.begin() +
                         static_cast<std::ptrdiff_t>(s.errors.size() - k_max_errors_remembered));
  };
  const Recall found = recall(ctx, request);
  if (claimed_elsewhere) {
    ctx.log.debug("bash output: error line looked up by a concurrent run");
    return recall_output(found, {}, {}); // the notices this run claimed are still shown
  }
  if (found.memories.empty()) return recall_output(found, {}, {});
  return recall_output(found, {std::string(k_heading), ""}, found.lines);
}

} // namespace mem0::on_bash_output
