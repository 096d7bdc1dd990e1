#include "runtime/sender.hpp"
#include "mem0/api.hpp"
#include "mem0/dialect.hpp"
#include "runtime/project_files.hpp"
#include "store/outbox.hpp"
#include "util/files.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

// `<outbox>/.sender.lock`, held while alive; not held when another sender has it.
std::unique_ptr<StateDisk::Lock> sender_lock(StateDisk &disk, const fs::path &dir) {
  if (!disk.make_dir(dir)) return nullptr;
  return disk.try_lock(dir / ".sender.lock");
}

bool retryable(const Error &e) {
  return e.kind == ErrorKind::rate_limited || e.kind == ErrorKind::server ||
         e.kind == ErrorKind::timeout || e.kind == ErrorKind::transport ||
         e.kind == ErrorKind::no_libcurl || // this machine's, not the item's
         e.kind == ErrorKind::unauthorized; // the key, not the item: keep it for a fixed key
}

// Up to k_send_batch pending items, loaded, with their requests.
struct Batch {
  std::vector<std::string> names;
  std::vector<OutboxItem> items;
  std::vector<HttpRequest> requests;
};

// One round's state: the outbox, the target and what the round did so far.
struct Round {
  const RunDeps &deps;
  Outbox &outbox;
  const ApiTarget &api;
  Deadline end;
  SendReport &report;
  const std::string &only; // send this item alone; empty: every pending one

  // False at a pause of this server and key, or once today's adds reached the cap.
  bool may_send(WallTime now) const {
    if (const auto pause = deps.state.backoff.active_pause(now, api.server_key())) {
      deps.log.debug([&] { return "sender: paused (" + pause->reason + ")"; });
      return false;
    }
    const long cap = deps.config.daily_add_limit;
    if (cap > 0 && deps.state.usage.on(utc_day(now)).adds >= cap) {
      deps.log.warn("daily add limit (" + std::to_string(cap) + ") reached; captures wait");
      return false;
    }
    return true;
  }

  // The oldest pending items as requests (an unreadable one is set aside at once); nullopt when
  // nothing is pending. While automatic capture is off, only what the user asked for leaves.
  std::optional<Batch> next_batch() {
    const bool asked_only = !deps.config.auto_save;
    Batch batch;
    bool any = false;
    for (const auto &name : outbox.pending()) {
      if (batch.names.size() == k_send_batch) break;
      if (!only.empty() && name != only) continue;
      auto item = outbox.load(name);
      if (!item) {
        outbox.reject(name, 0, "unreadable outbox item");
        ++report.rejected;
        report.refused[name] = "unreadable outbox item";
        any = true;
        continue;
      }
      if (asked_only && !item->asked) continue; // held back until capture is on again
      any = true;
      if (looked_for_first(*item)) {
        const auto found = stored_before(*item);
        if (!found) { // the server did not answer the search: the item waits, the round ends
          report.stopped = found.error();
          record(deps.now(), {found.error()}, 0, 1);
          break;
        }
        if (*found) { // stored by the try that got no answer
          deps.log.debug([&] { return "sender: " + name + " was stored already"; });
          outbox.remove(name);
          ++report.delivered;
          report.added[name] = {**found};
          record(deps.now(), {}, 1, 1);
          continue;
        }
      }
      batch.requests.push_back(item->kind == OutboxItem::Kind::add
                                   ? add_request(api, item->add)
                                   : delete_request(api, item->memory_id));
      batch.names.push_back(name);
      batch.items.push_back(std::move(*item));
    }
    if (!any) return std::nullopt;
    return batch;
  }

  // An add sent before whose answer never came, which a search can tell is stored: one message,
  // infer off (stored as sent).
  static bool looked_for_first(const OutboxItem &item) {
    return item.kind == OutboxItem::Kind::add && item.unanswered && !item.add.infer &&
           item.add.messages.size() == 1;
  }

  // The id of a memory of `item`'s user and project whose text is the add's, found with one
  // search; nullopt when there is none; the error when the search failed.
  Result<std::optional<std::string>> stored_before(const OutboxItem &item) const {
    const std::string &text = item.add.messages[0].content;
    const SearchSpec spec{text, std::nullopt, 10, Scope::project};
    const Identity owner{item.add.user_id, item.add.project_id, ""};
    auto responses = deps.http.run({search_request(api, spec, owner)}, batch_deadline());
    if (!responses[0]) return unexpected(responses[0].error());
    const auto found = parse_search_response(*responses[0], api.dialect());
    if (!found) return unexpected(found.error());
    for (const auto &m : *found)
      if (m.text == text && !m.id.empty()) return std::optional<std::string>(m.id);
    return std::optional<std::string>();
  }

  // What the server's answer to `item` means; an add's new ids are recorded for its import.
  Result<void> outcome(const std::string &name, const OutboxItem &item,
                       const Result<HttpResponse> &response) const {
    if (!response) return unexpected(response.error());
    if (item.kind == OutboxItem::Kind::remove)
      return response->status == 404 ? Result<void>{} // already gone is as good as deleted
                                     : check_status(*response);
    const auto added = parse_add_response(*response, api.dialect());
    if (!added) return unexpected(added.error());
    record_import_ids(deps.state, item, added->ids);
    report.added[name] = added->ids;
    return {};
  }

  // Delete the delivered items, keep the retryable failures (ending the round) and set the
  // other refusals aside; then count the adds and feed the back-off.
  void settle(const Batch &batch, const std::vector<Result<HttpResponse>> &responses,
              WallTime now) {
    std::vector<Error> failures;
    long adds = 0;
    for (std::size_t i = 0; i < responses.size(); ++i) {
      const std::string &name = batch.names[i];
      const auto done = outcome(name, batch.items[i], responses[i]);
      if (done) {
        outbox.remove(name);
        ++report.delivered;
        if (batch.items[i].kind == OutboxItem::Kind::add) ++adds;
      } else if (retryable(done.error())) {
        failures.push_back(done.error());
        report.stopped = done.error();
        deps.log.warn("sender: " + name + " kept: " + done.error().message);
        // Sent, but no answer: the server may have stored it.
        const ErrorKind kind = done.error().kind;
        if (batch.items[i].kind == OutboxItem::Kind::add &&
            (kind == ErrorKind::timeout || kind == ErrorKind::transport))
          outbox.mark_unanswered(name);
      } else {
        deps.log.warn("sender: " + name + " rejected: " + done.error().message);
        outbox.reject(name, done.error().status, done.error().message);
        ++report.rejected;
        report.refused[name] = done.error().message;
      }
    }
    record(now, failures, adds, batch.requests.size());
  }

  void record(WallTime now, const std::vector<Error> &failures, long adds, std::size_t sent) {
    if (adds > 0) {
      if (auto counted = deps.state.usage.add(utc_day(now), {0, adds}); !counted)
        deps.log.warn("add count not saved: " + counted.error().message);
      outbox.delivered(deps.now());
    }
    // A rejected key fails every capture alike: pause it until it changes
    // (docs/failures.md#back-off).
    const bool key_rejected = std::ranges::any_of(
        failures, [](const Error &e) { return e.kind == ErrorKind::unauthorized; });
    if (auto noted = key_rejected
                         ? deps.state.backoff.record_outcome(now, api.server_key(),
                                                             BackoffStore::Outcome::key_rejected)
                         : deps.state.backoff.record_run(now, api.server_key(), failures, sent);
        !noted)
      deps.log.warn("back-off state not saved: " + noted.error().message);
  }

  // A backend that adds synchronously (a self-hosted server's model extracts the facts before it
  // answers) gets the rest of the round; otherwise 30 s.
  Deadline batch_deadline() const {
    if (api.dialect().traits().synchronous_adds) return end;
    return std::min(end, SteadyClock::now() + std::chrono::seconds(30));
  }
};

} // namespace

DetachedWork sender_work(const RunDeps &deps, RunFacts &facts,
                         const std::function<void()> &before) {
  if (!has_access(deps.config)) return {};
  // Capture off: the handlers declare no capture as `before` (auto dream is not one), and of the
  // queue only what the user asked for leaves.
  const std::function<void()> &first = before;
  const bool pending =
      deps.config.auto_save ? facts.outbox_has_pending() : deps.state.outbox.has_asked();
  if (!first && !pending) return {};
  if (facts.user_pause()) {
    // Nothing leaves while the user pauses: the queue waits, and `before`'s capture is dropped.
    facts.note_paused_work();
    facts.note_skip("paused", "the sender waits: paused by you");
    return {};
  }
  // The pause is read again: this run's own searches may have started one.
  const auto paused = [&] {
    return deps.state.backoff.active_pause(deps.now(), facts.api()->server_key()).has_value();
  };
  if (!first && (!facts.api() || paused())) return {};
  deps.log.debug("starting the sender");
  // The sender works in the state directory, not the project's (util/detach.hpp); a relative one
  // would read differently from there.
  const fs::path &state = deps.config.state_dir;
  return DetachedWork{first,
                      [deps] { send_round(deps); },
                      {"--send", "--agent", std::string(facts.agent().name)},
                      state.is_absolute() ? state : fs::path()};
}

SendReport send_round(const RunDeps &deps, std::optional<Deadline> end, const std::string &only) {
  SendReport report;
  Outbox &outbox = deps.state.outbox;
  const auto lock = sender_lock(*deps.state.disk, outbox.dir());
  if (!lock || !lock->held()) {
    deps.log.debug("sender: another sender is running");
    report.busy = true;
    return report;
  }
  const auto api = api_target(deps.config);
  if (!api) {
    deps.log.warn("sender: " + api.error().message);
    report.stopped = api.error();
    return report;
  }
  Round round{deps, outbox, *api, end.value_or(SteadyClock::now() + k_send_round), report, only};
  while (SteadyClock::now() < round.end && !report.stopped) {
    const auto now = deps.now();
    if (!round.may_send(now)) break;
    outbox.admit_parked(now); // a look at an empty directory when nothing is parked
    const auto batch = round.next_batch();
    if (!batch) break;
    if (batch->requests.empty()) continue; // each was unreadable, and is set aside
    round.settle(*batch, deps.http.run(batch->requests, round.batch_deadline()), now);
  }
  deps.log.debug([&] {
    return "sender: " + std::to_string(report.delivered) + " delivered, " +
           std::to_string(report.rejected) + " rejected";
  });
  return report;
}

} // namespace mem0
