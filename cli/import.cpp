// `mem0-hooks import FILE` (docs/cli.md#export-and-import).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "runtime/remember.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <set>

namespace mem0::cli {
namespace {

// The largest file import reads, and the most memories it looks through for those already there.
constexpr std::size_t k_import_max_bytes = 64u << 20;
constexpr std::size_t k_import_listing = 10000;
// Items queued before a sender round delivers them: the outbox stays far from full.
constexpr std::size_t k_import_batch = 50;

// Metadata keys the write pipeline sets for this import (runtime/remember.hpp), not taken from a
// line.
const std::set<std::string, std::less<>> k_own_keys{"type", "source", "agent", "session_id",
                                                    "branch"};

// One line of an export as a memory to add; a client error saying what is wrong with it.
Result<NewMemory> parse_line(std::string_view line) {
  const auto bad = [](std::string why) {
    return unexpected(make_error(ErrorKind::client, std::move(why)));
  };
  rapidjson::Document doc;
  parse_json(doc, line);
  if (doc.HasParseError()) return bad("not JSON");
  if (!doc.IsObject()) return bad("not a JSON object");
  auto text = string_member(doc, "text");
  if (!text) text = string_member(doc, "memory"); // Mem0's own field name
  if (!text || trim(*text).empty()) return bad("no \"text\"");
  NewMemory memory{std::string(*text), std::string(memory_type::decision), "import"};
  if (const auto type = doc.FindMember("type"); type != doc.MemberEnd()) {
    if (!type->value.IsString()) return bad("\"type\" is not a string");
    if (type->value.GetStringLength() > 0) memory.type = type->value.GetString();
  }
  if (const auto meta = doc.FindMember("metadata"); meta != doc.MemberEnd()) {
    if (meta->value.IsNull()) return memory;
    if (!meta->value.IsObject()) return bad("\"metadata\" is not an object");
    for (const auto &m : meta->value.GetObject()) {
      const std::string_view key(m.name.GetString(), m.name.GetStringLength());
      if (!m.value.IsString()) continue; // the pipeline writes string values only
      const std::string value(m.value.GetString(), m.value.GetStringLength());
      if (key == "source" && !value.empty())
        memory.source = value;
      else if (!k_own_keys.count(key))
        memory.metadata.emplace_back(std::string(key), value);
    }
  }
  return memory;
}

// What became of the lines.
struct Tally {
  std::size_t added = 0, queued = 0, present = 0, failed = 0;
};

} // namespace

int import_memories(const Args &args, const CliContext &ctx) {
  const std::string &file = args.words[0];
  const auto text = read_small_file(ctx.cwd / file, k_import_max_bytes);
  if (!text) {
    ctx.err << "mem0-hooks import: cannot read " << file << " (a file of at most "
            << (k_import_max_bytes >> 20) << " MB)\n";
    return k_failure;
  }
  const auto api = target_or_explain(ctx);
  if (!api) return k_failure;
  const MemoryService memories = service(ctx);
  const Identity identity = identity_for(ctx, session_in_env(ctx.env));
  // Idempotent by text: what the project holds already is not added again. A back-off pause
  // answers at once, sending nothing.
  const auto present = memories.list_all(*api, identity, Scope::project, k_import_listing);
  if (!present) {
    ctx.err << "mem0-hooks import: cannot list the memories already there: "
            << failure_line(present.error()) << "\n";
    return k_failure;
  }
  std::set<std::string, std::less<>> texts;
  for (const auto &m : *present)
    texts.insert(m.text);

  Tally tally;
  std::vector<std::string> batch;
  const auto deliver = [&] {
    for (const auto &stored : memories.deliver(batch))
      ++(stored.delivered ? tally.added : tally.queued);
    batch.clear();
  };
  std::size_t number = 0;
  for (std::size_t at = 0; at < text->size();) {
    const std::size_t end = std::min(text->find('\n', at), text->size());
    const std::string_view line = std::string_view(*text).substr(at, end - at);
    at = end + 1;
    ++number;
    if (trim(line).empty()) continue;
    auto memory = parse_line(line);
    if (!memory) {
      ctx.err << "mem0-hooks import: line " << number << ": " << memory.error().message << "\n";
      ++tally.failed;
      continue;
    }
    // Compared as it would be stored: wrappers stripped, secrets redacted.
    const std::string safe = prepare_capture_text(memory->text, ctx.config.redact);
    if (!texts.insert(safe).second) {
      ++tally.present;
      continue;
    }
    const auto queued = memories.queue(*memory);
    if (!queued && queued.error().kind == ErrorKind::duplicate) {
      ++tally.present;
      continue;
    }
    if (!queued) {
      ctx.err << "mem0-hooks import: line " << number << ": " << failure_line(queued.error())
              << "\n";
      ++tally.failed;
      continue;
    }
    batch.push_back(*queued);
    if (batch.size() >= k_import_batch) deliver();
  }
  deliver();
  ctx.out << "mem0: imported " << file << " into project " << identity.project_id << ": "
          << tally.added << " added, " << tally.queued << " queued, " << tally.present
          << " already there, " << tally.failed << " failed\n";
  if (tally.queued > 0)
    ctx.out << "queued memories wait in the outbox for the sender (mem0-hooks doctor)\n";
  return tally.failed > 0 ? k_failure : k_ok;
}

} // namespace mem0::cli
