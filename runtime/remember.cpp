#include "runtime/remember.hpp"
#include "mem0/dialect.hpp"
#include "mem0/identity.hpp"
#include "util/files.hpp"
#include "util/git.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"
#include "util/utf8.hpp"

#include <array>
#include <vector>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

// Wrappers Claude Code and users put around text that is not theirs to keep.
// (`analysis` is the scratchpad a model writes before a compact summary.)
constexpr std::array<std::string_view, 9> k_wrapper_tags{"system-reminder",
                                                         "private",
                                                         "command-name",
                                                         "command-message",
                                                         "command-args",
                                                         "local-command-stdout",
                                                         "local-command-stderr",
                                                         "user-prompt-submit-hook",
                                                         "analysis"};

// The longest wrapper tag name: a longer run of name characters is never one.
constexpr std::size_t k_max_tag_name = 23;

// The wrapper tag `name` names (ASCII case-insensitive), or empty.
std::string_view wrapper_named(std::string_view name) {
  if (name.empty() || name.size() > k_max_tag_name) return {};
  for (auto t : k_wrapper_tags) {
    if (t.size() != name.size()) continue;
    std::size_t i = 0;
    while (i < t.size() && ascii_lower(name[i]) == t[i])
      ++i;
    if (i == t.size()) return t;
  }
  return {};
}

// The name after `<` or `</` at `text[i]` (a run of name characters), and where it ends.
std::string_view tag_name_at(std::string_view text, std::size_t i, bool &closing,
                             std::size_t &end) {
  std::size_t j = i + 1;
  closing = j < text.size() && text[j] == '/';
  if (closing) ++j;
  end = j;
  // Only as far as a wrapper name could go: a longer run names none.
  while (end < text.size() && end - j <= k_max_tag_name && is_id_char(text[end]))
    ++end;
  if (end < text.size() && is_id_char(text[end])) return {};
  return text.substr(j, end - j);
}

// `text` without wrapper-tag blocks (`<tag ...>` to the matching `</tag>`, nested ones of the
// same tag counted; an unclosed block runs to the end; a stray closing tag is dropped; a closing
// tag holds no `<`, so that it never swallows an opening one), in one
// pass, linear in the size of `text` (docs/capture.md#before-anything-touches-the-disk). A tag is
// found in what is kept, not in the input: a block whose removal joins the pieces of another tag
// around it removes that one too, so the result holds no wrapper tag at all.
std::string strip_wrappers(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // In `out`, every `<` before `scan` that follows the last `>` was looked at: none opens a
  // wrapper tag. An opening tag ends at the first `>` after its name, so one can only end at a
  // `>` being added; a closing tag holds no `<`, so it can only start at the last `<`.
  std::size_t scan = 0;
  std::vector<std::size_t> opened; // the positions of the `<` after the last `>`
  // The first `>` in `text` at or after a position (searches only move forward, so the whole
  // input is searched once).
  std::size_t next_close = 0;
  auto close_after = [&](std::size_t from) {
    if (next_close != std::string_view::npos && next_close < from)
      next_close = text.find('>', from);
    return next_close;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != '>') {
      if (c == '<') opened.push_back(out.size());
      out += c;
      continue;
    }
    // A `>`: does it end a wrapper tag that starts in `out`? The first opening one, else a
    // closing one at the last `<`.
    std::size_t start = std::string::npos;
    bool closing = false;
    std::string_view tag;
    std::size_t end = 0;
    for (std::size_t at = out.find('<', scan); at != std::string::npos; at = out.find('<', at + 1))
      if (const auto name = wrapper_named(tag_name_at(out, at, closing, end));
          !name.empty() && !closing) {
        start = at;
        tag = name;
        break;
      }
    if (start == std::string::npos && !opened.empty())
      if (const auto name = wrapper_named(tag_name_at(out, opened.back(), closing, end));
          !name.empty() && closing) {
        start = opened.back();
        tag = name;
      }
    if (start == std::string::npos) {
      out += '>';
      scan = out.size();
      opened.clear();
      continue;
    }
    out.resize(start);
    while (!opened.empty() && opened.back() >= start)
      opened.pop_back();
    // What is kept before the tag was looked at, but for a name it ends with, which what comes
    // next may lengthen into a wrapper's.
    // (An opening tag was looked for from `scan`, so one starts there or later.)
    const std::size_t back = start > k_max_tag_name + 2 ? start - k_max_tag_name - 2 : 0;
    scan = start >= scan ? std::max(scan, back) : back;
    if (closing) continue; // a stray closing tag: dropped
    // Skip the block, in the input, to its matching closing tag.
    std::size_t depth = 1;
    std::size_t j = i + 1;
    while (j < text.size() && depth > 0) {
      if (text[j] != '<') {
        ++j;
        continue;
      }
      bool c_closing = false;
      const std::string_view name = wrapper_named(tag_name_at(text, j, c_closing, end));
      std::size_t close = name == tag ? close_after(end) : std::string_view::npos;
      if (close != std::string_view::npos && c_closing &&
          text.substr(end, close - end).find('<') != std::string_view::npos)
        close = std::string_view::npos;
      if (close == std::string_view::npos) {
        ++j;
        continue;
      }
      depth += c_closing ? -1 : 1;
      j = close + 1;
    }
    i = j - 1; // the loop's ++i moves past the block
  }
  return out;
}

// At most `max_chars` code points of `text`; when it is cut inside a word (a run without white
// space), without that word, so that a secret cut in two is never half kept. "" and true in
// `cut` when it was cut.
std::string_view capture_window(std::string_view text, std::size_t max_chars, bool &cut) {
  std::size_t count = 0, i = 0;
  for (; i < text.size(); ++i) {
    if (is_continuation(text[i])) continue;
    if (count == max_chars) break;
    ++count;
  }
  cut = i < text.size();
  if (!cut) return text;
  auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  // A word longer than this is cut where it is: no secret form is that long.
  constexpr std::size_t k_longest_word = 4096;
  std::size_t back = i;
  while (back > 0 && i - back < k_longest_word && !space(text[back - 1]) && !space(text[back]))
    --back;
  return text.substr(0, i - back < k_longest_word ? back : i);
}

// The `## Instructions` section of mem0.md in the project root, as the Python plugin sends it;
// never through a symbolic link (docs/capture.md#project-files).
std::string custom_instructions(const fs::path &root) {
  const auto text = read_small_file(root / "mem0.md", 100 * 1024, Links::refuse);
  if (!text) return {};
  const auto start = text->find("## Instructions");
  if (start == std::string::npos) return {};
  const auto body = text->find('\n', start);
  if (body == std::string::npos) return {};
  const auto next = text->find("\n## ", body);
  return std::string(trim(std::string_view(*text).substr(body, next - body)));
}

// The directories from the repository root down to `cwd`, as 0.3 writes `metadata.dirs`:
// `a/b` is ["a", "a/b"]; none at the root or outside it.
std::vector<std::string> directory_chain(const fs::path &cwd, const fs::path &root) {
  std::error_code ec;
  const fs::path rel =
      fs::weakly_canonical(cwd, ec).lexically_relative(fs::weakly_canonical(root, ec));
  std::vector<std::string> chain;
  if (ec || rel.empty() || *rel.begin() == "..") return chain;
  std::string dir;
  for (const auto &part : rel) {
    if (part.empty() || part == ".") continue;
    dir += (dir.empty() ? "" : "/") + part.generic_string();
    chain.push_back(dir);
  }
  return chain;
}

// The team lane of a capture (docs/capture.md#team-memory): `--team` the project's shared lane
// only, `--personal` none; unset, 0.3's layout when team_memory is on and the backend has shared
// memory (a self-hosted server does not sort memories into lanes: there only `--team` does).
TeamLane team_lane(const Config &config, RunFacts &facts, const Identity &identity,
                   std::optional<bool> team) {
  const bool shared = config.dialect->traits().shared_memory;
  if (team == false || (!team && !(config.team_memory && shared))) return {};
  TeamLane lane;
  lane.agent_id =
      shared ? shared_agent_id(identity.project_id, facts.cwd(), facts.repo(), facts.origin())
             : identity.project_id;
  lane.shared_only = team.value_or(false);
  lane.run_id = identity.session_id;
  lane.dirs = directory_chain(facts.cwd(), facts.project_root());
  return lane;
}

// The outbox refused an item (full, or not writable): say so, and why.
Error outbox_refusal(const Log &log, ErrorKind kind) {
  if (kind == ErrorKind::full) {
    log.warn("outbox full (" + std::to_string(Outbox::k_max_items) +
             " items or 20 MB): capture refused; see mem0-hooks doctor");
    return make_error(ErrorKind::full, "the outbox is full");
  }
  log.warn("outbox not writable: capture lost");
  return make_error(ErrorKind::io, "the outbox cannot be written");
}

} // namespace

std::string prepare_capture_text(std::string_view text, bool redact, std::size_t max_chars) {
  // Cut first: what follows is linear, but need not look at text that is not kept.
  bool cut = false;
  std::string stripped = strip_wrappers(capture_window(text, max_chars, cut));
  if (redact) stripped = redact_secrets(stripped);
  std::string out(trim(stripped));
  if (cut && !out.empty()) out += "\xE2\x80\xA6"; // …
  return out;
}

Result<std::string> remember(const RunDeps &deps, RunFacts &facts, Capture capture) {
  const Config &config = deps.config;
  bool paused = false;
  auto refuse = [&](ErrorKind why, std::string message) {
    deps.log.debug([&] { return "capture (" + capture.type + ") not queued: " + message; });
    facts.note_skip(why == ErrorKind::duplicate ? "deduped"
                    : why == ErrorKind::no_key  ? "no_key"
                    : paused                    ? "paused"
                                                : "gated",
                    "capture (" + capture.type + "): " + message);
    return unexpected(make_error(why, std::move(message)));
  };
  if (!config.auto_save && !capture.asked)
    return refuse(ErrorKind::disabled, "capture is off (auto_save)");
  if (!has_access(config)) return refuse(ErrorKind::no_key, "no API key");
  if (!capture.asked && facts.user_pause()) {
    facts.note_paused_work();
    paused = true;
    return refuse(ErrorKind::disabled, "paused by you (mem0-hooks resume)");
  }

  std::string all_text;
  std::vector<AddSpec::Message> messages;
  for (auto &m : capture.messages) {
    std::string content =
        capture.prepared ? std::move(m.content) : prepare_capture_text(m.content, config.redact);
    if (content.empty()) continue;
    all_text += content + "\n";
    messages.push_back({m.role, std::move(content)});
  }
  if (messages.empty()) return refuse(ErrorKind::empty, "nothing left to capture");

  // The user's own identity; team memory adds the shared lane (team_lane).
  const Identity identity = facts.identity();
  AddSpec spec;
  spec.messages = std::move(messages);
  spec.metadata = {{"type", capture.type},
                   {"source", capture.source},
                   {"agent", std::string(facts.agent().name)}};
  if (!identity.session_id.empty()) spec.metadata.emplace_back("session_id", identity.session_id);
  if (const auto &branch = facts.branch()) spec.metadata.emplace_back("branch", *branch);
  for (auto &kv : capture.metadata)
    spec.metadata.push_back(std::move(kv));
  spec.infer = capture.infer;
  spec.expiration_date = capture.expiration_date;
  spec.custom_instructions = custom_instructions(facts.project_root());
  spec.team = team_lane(config, facts, identity, capture.team);
  // The team's layout names the commit the capture was made at, as 0.3 does.
  if (!spec.team.agent_id.empty() && facts.repo())
    if (auto sha = head_commit(*facts.repo()))
      spec.metadata.emplace_back("git_sha", std::move(*sha));

  OutboxItem item;
  item.add = queued_add(spec, identity);
  item.import_file = capture.import_file;
  item.import_claim = capture.import_claim;
  item.asked = capture.asked;
  // An import is deduplicated by its file's hash instead (project_files.cpp): an unchanged
  // section must come back when its file changed and the old import is deleted.
  const std::string target = std::string(config.dialect->traits().name) + " " + config.base_url;
  const std::string dedupe =
      capture.import_file.empty()
          ? capture_identity(all_text, capture.type, identity.project_id, target)
          : std::string();
  const auto queued = deps.state.outbox.put(item, dedupe, deps.now());
  if (!queued) {
    if (queued.error().kind == ErrorKind::duplicate)
      return refuse(ErrorKind::duplicate, "already captured");
    Error refused = outbox_refusal(deps.log, queued.error().kind);
    facts.note_skip("failed", "capture (" + capture.type + "): " + refused.message);
    return unexpected(std::move(refused));
  }
  facts.note_queued();
  deps.log.debug([&] { return "capture (" + capture.type + ") queued as " + *queued; });
  return *queued;
}

} // namespace mem0
