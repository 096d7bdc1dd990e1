#include "hygiene/apply.hpp"
#include "mem0/format.hpp"
#include "util/files.hpp"
#include "util/sha256.hpp"
#include "util/strings.hpp"

#include <map>

namespace mem0::hygiene {

std::filesystem::path undo_path(const Config &config, WallTime now) {
  return config.mem0_dir / "undo" /
         ("dream-" + utc_time(unix_seconds(now), "%Y%m%dT%H%M%SZ") + ".jsonl");
}

Result<Applied> apply_dream(const RunDeps &deps, const MemoryService &service, const Dream &dream) {
  if (!dream.plan.complete)
    return unexpected(
        make_error(ErrorKind::client, "not every memory could be read, so nothing is applied"));
  Applied applied;
  const std::vector<std::string> ids = dream.plan.deletions();
  if (ids.empty()) return applied;
  (void)deps.state.disk->make_dir(deps.state.dir); // a lock file needs its directory
  const auto lock = deps.state.disk->try_lock(deps.state.dir / "dream.lock");
  if (!lock || !lock->held())
    return unexpected(make_error(ErrorKind::client, "another dream --apply is running"));

  std::map<std::string_view, const Memory *> by_id;
  for (const auto &m : dream.memories)
    by_id.emplace(m.id, &m);
  std::string undo;
  for (const auto &id : ids) {
    const auto it = by_id.find(id);
    if (it == by_id.end())
      return unexpected(make_error(ErrorKind::client, "memory " + id + " was not read"));
    undo += export_line(*it->second);
  }
  const WallTime now = deps.now();
  applied.undo = undo_path(deps.config, now);
  for (int n = 2; std::filesystem::exists(applied.undo); ++n) // two applies in one second
    applied.undo.replace_filename("dream-" + utc_time(unix_seconds(now), "%Y%m%dT%H%M%SZ") + "-" +
                                  std::to_string(n) + ".jsonl");
  if (auto dir = ensure_private_dir(applied.undo.parent_path()); !dir)
    return unexpected(make_error(ErrorKind::io,
                                 "undo file not written, nothing deleted: " + dir.error().message));
  if (auto written = write_file_atomic(applied.undo, undo, Durability::durable); !written)
    return unexpected(make_error(ErrorKind::io, "undo file not written, nothing deleted: " +
                                                    written.error().message));

  std::vector<std::string> items;
  for (const auto &id : ids) {
    OutboxItem item;
    item.kind = OutboxItem::Kind::remove;
    item.memory_id = id;
    item.asked = true; // the user asked: sent even while capture is off
    const auto put = deps.state.outbox.put(item, "", now);
    if (!put) {
      deps.log.warn("dream: delete of " + id + " not queued: " + put.error().message);
      break;
    }
    items.push_back(*put);
  }
  (void)service.deliver(items); // what a remove became is read back from the outbox below
  for (std::size_t i = 0; i < items.size(); ++i)
    (deps.state.outbox.load(items[i]) ? applied.queued : applied.deleted).push_back(ids[i]);
  if (items.size() < ids.size())
    return unexpected(make_error(ErrorKind::io, "the outbox took " + std::to_string(items.size()) +
                                                    " of " + std::to_string(ids.size()) +
                                                    " deletes; the undo file " +
                                                    applied.undo.string() + " holds them all"));
  return applied;
}

bool auto_due(const StateStore &state, std::string_view project, WallTime now, bool claim) {
  const auto marker = state.dir / "dream" / (sha256_hex(project).substr(0, 16) + ".day");
  const std::string today = utc_day(now);
  if (const auto last = state.disk->read(marker, 64); last && trim(*last) == today) return false;
  if (claim && state.disk->make_dir(marker.parent_path()))
    (void)state.disk->write(marker, today, Durability::saves_work); // best effort: at worst twice
  return true;
}

Result<std::optional<Applied>> auto_dream(const RunDeps &deps, const MemoryService &service,
                                          const Dream &dream, std::string_view project,
                                          std::string &skipped) {
  if (!dream.plan.complete) {
    skipped = "not every memory could be read";
    return std::nullopt;
  }
  if (dream.plan.memories < k_auto_min_memories) {
    skipped = "fewer than " + std::to_string(k_auto_min_memories) + " memories";
    return std::nullopt;
  }
  if (!auto_due(deps.state, project, deps.now(), true)) {
    skipped = "already dreamt today";
    return std::nullopt;
  }
  if (dream.plan.deletions().empty()) {
    skipped = "nothing to delete";
    return std::nullopt;
  }
  auto applied = apply_dream(deps, service, dream);
  if (!applied) return unexpected(applied.error());
  return std::optional<Applied>(std::move(*applied));
}

} // namespace mem0::hygiene
