#include "runtime/remember.hpp"
#include "mem0/dialect.hpp"
#include "util/files.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

#include <array>

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

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ascii_lower(a) == ascii_lower(b);
}

// The length of `<tag ...>` or `</tag>` at `text[i]` naming one of the wrapper tags, with
// `closing` set; 0 when none starts there.
std::size_t wrapper_tag_at(std::string_view text, std::size_t i, bool &closing,
                           std::string_view &tag) {
  if (text[i] != '<') return 0;
  std::size_t j = i + 1;
  closing = j < text.size() && text[j] == '/';
  if (closing) ++j;
  std::size_t end = j;
  while (end < text.size() && (is_id_char(text[end])))
    ++end;
  const std::string_view name = text.substr(j, end - j);
  for (auto t : k_wrapper_tags)
    if (iequals(name, t)) {
      const auto close = text.find('>', end);
      if (close == std::string_view::npos) return 0;
      tag = t;
      return close + 1 - i;
    }
  return 0;
}

// `text` without wrapper-tag blocks; an unclosed block runs to the end.
std::string strip_wrappers(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool closing = false;
    std::string_view tag;
    if (const std::size_t len = wrapper_tag_at(text, i, closing, tag); len > 0) {
      i += len;
      if (closing) continue; // a stray closing tag: drop it
      // Skip to the matching closing tag.
      std::size_t depth = 1;
      while (i < text.size() && depth > 0) {
        bool c = false;
        std::string_view t;
        if (const std::size_t l = wrapper_tag_at(text, i, c, t); l > 0 && t == tag) {
          depth += c ? -1 : 1;
          i += l;
        } else {
          ++i;
        }
      }
      continue;
    }
    out += text[i++];
  }
  return out;
}

// The `## Instructions` section of mem0.md in the project root, as the Python plugin sends it.
std::string custom_instructions(const fs::path &root) {
  const auto text = read_small_file(root / "mem0.md", 100 * 1024);
  if (!text) return {};
  const auto start = text->find("## Instructions");
  if (start == std::string::npos) return {};
  const auto body = text->find('\n', start);
  if (body == std::string::npos) return {};
  const auto next = text->find("\n## ", body);
  return std::string(trim(std::string_view(*text).substr(body, next - body)));
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

std::string prepare_capture_text(std::string_view text, bool redact) {
  // Until nothing changes: removing a block can join the pieces of another tag around it.
  std::string stripped = strip_wrappers(text);
  for (std::string again = strip_wrappers(stripped); again != stripped;
       again = strip_wrappers(stripped))
    stripped = std::move(again);
  if (redact) stripped = redact_secrets(stripped);
  return std::string(trim(stripped));
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

  // Writes keep the user's own layout (docs/api.md#shared-memory): no shared agent id.
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
