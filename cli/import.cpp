// `mem0-hooks import FILE` (docs/cli.md#export-and-import).
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "runtime/remember.hpp"
#include "util/files.hpp"
#include "util/json.hpp"
#include "util/redact.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

namespace mem0::cli {
namespace {

// The largest file import reads, and the most memories it looks through for those already there.
constexpr std::size_t k_import_max_bytes = 64u << 20;
constexpr std::size_t k_import_listing = 10000;
// Items queued before they are delivered: the import never holds more of the outbox than this.
constexpr std::size_t k_import_batch = 50;
// Deliveries in a row that deliver nothing of a batch (a pause, a server that does not answer,
// another sender holding the outbox) before the import stops, and the wait after each.
constexpr int k_stalled_rounds = 3;
constexpr std::chrono::milliseconds k_stall_wait{250};

// Metadata keys the write pipeline sets for this import (runtime/remember.hpp), and the identity
// keys, which name a user, agent, app or run of the export's server: not taken from a line.
const std::set<std::string, std::less<>> k_own_keys{"type", "source", "agent", "session_id",
                                                    "branch"};
const std::set<std::string, std::less<>> k_identity_keys{"user_id", "agent_id", "app_id", "run_id"};

// One line of an export as a memory to add, its metadata values redacted unless `redact` is off;
// a client error saying what is wrong with it.
Result<NewMemory> parse_line(std::string_view line, bool redact) {
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
      if (!m.value.IsString() || k_identity_keys.count(key)) continue; // strings only, as written
      std::string value(m.value.GetString(), m.value.GetStringLength());
      if (redact) value = redact_secrets(value);
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

// A queued line: its outbox item and its number in the file.
struct QueuedLine {
  std::string item;
  std::size_t number = 0;
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
  std::vector<QueuedLine> batch;
  std::optional<std::string> stop; // why the import stopped reading the file
  // Deliver the batch, each delivery under a deadline of its own (the configured timeout), until
  // every line of it is stored or rejected; false, with `stop` set, after k_stalled_rounds
  // deliveries in a row stored none of it (what is left stays queued).
  const auto deliver = [&] {
    for (int stalled = 0; !batch.empty();) {
      const MemoryService round(ctx, ctx.cwd, SteadyClock::now() + ctx.config.timeout);
      std::vector<std::string> items;
      for (const auto &line : batch)
        items.push_back(line.item);
      const auto stored = round.deliver(items);
      std::vector<QueuedLine> left;
      std::string why;
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (stored[i].delivered) {
          ++tally.added;
        } else if (stored[i].rejected) {
          ++tally.failed;
          ctx.err << "mem0-hooks import: line " << batch[i].number << ": " << stored_line(stored[i])
                  << "\n";
        } else {
          left.push_back(batch[i]);
          why = stored[i].reason;
        }
      }
      const bool progress = left.size() < batch.size();
      batch = std::move(left);
      if (batch.empty()) break;
      stalled = progress ? 0 : stalled + 1;
      if (stalled >= k_stalled_rounds) {
        stop = why.empty() ? std::string("Mem0 took none of the last memories") : why;
        return false;
      }
      if (!progress) std::this_thread::sleep_for(k_stall_wait);
    }
    return true;
  };
  std::size_t number = 0, stopped_at = 0, not_read = 0;
  for (std::size_t at = 0; at < text->size();) {
    const std::size_t end = std::min(text->find('\n', at), text->size());
    const std::string_view line = std::string_view(*text).substr(at, end - at);
    at = end + 1;
    ++number;
    if (trim(line).empty()) continue;
    if (stop) { // counted, not read
      stopped_at = stopped_at ? stopped_at : number;
      ++not_read;
      continue;
    }
    auto memory = parse_line(line, ctx.config.redact);
    if (!memory) {
      ctx.err << "mem0-hooks import: line " << number << ": " << memory.error().message << "\n";
      ++tally.failed;
      continue;
    }
    // Compared as it would be stored: wrappers stripped, secrets redacted.
    const std::string safe = prepare_capture_text(memory->text, ctx.config.redact);
    if (texts.count(safe)) {
      ++tally.present;
      continue;
    }
    auto queued = memories.queue(*memory);
    // A full outbox is never queued past: the batch's delivery makes room, else the import stops.
    if (!queued && queued.error().kind == ErrorKind::full && !batch.empty() && deliver())
      queued = memories.queue(*memory);
    if (!queued && queued.error().kind == ErrorKind::full) {
      if (!stop) stop = "the outbox is full (mem0-hooks doctor)";
      stopped_at = number;
      ++not_read;
      continue;
    }
    texts.insert(safe);
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
    batch.push_back({*queued, number});
    if (batch.size() >= k_import_batch) (void)deliver();
  }
  if (!stop) (void)deliver();
  if (not_read > 0) {
    ctx.err << "mem0-hooks import: stopped at line " << stopped_at << ": " << *stop << "; "
            << count_of(not_read, "line", "lines")
            << " from there not imported (import the file again later: what is stored already "
               "is skipped)\n";
    tally.failed += not_read;
  }
  tally.queued = batch.size();
  if (!batch.empty()) { // what is left waits in the outbox, for a sender of its own
    std::vector<std::string> items;
    for (const auto &line : batch)
      items.push_back(line.item);
    (void)MemoryService(ctx, ctx.cwd, SteadyClock::now(), ctx.detach).deliver(items);
  }
  ctx.out << "mem0: imported " << file << " into project " << identity.project_id << ": "
          << tally.added << " added, " << tally.queued << " queued, " << tally.present
          << " already there, " << tally.failed << " failed\n";
  if (tally.queued > 0)
    ctx.out << "queued memories wait in the outbox for the sender (mem0-hooks doctor)\n";
  return tally.failed > 0 ? k_failure : k_ok;
}

} // namespace mem0::cli
