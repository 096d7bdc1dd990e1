#include "hygiene/dream.hpp"
#include "hygiene/words.hpp"
#include "mem0/format.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace mem0::hygiene {
namespace {

bool is_word_byte(char c) { return is_ascii_alnum(c) || static_cast<unsigned char>(c) >= 0x80; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// A memory as dream compares it.
struct Item {
  const Memory *memory = nullptr;
  bool pinned = false;
  long long updated = 0;                        // for the keep rule: updated_at, else created_at
  std::vector<std::uint64_t> words;             // its word set, sorted
  std::vector<std::uint64_t> values;            // its numbers and names, sorted
  std::map<std::uint64_t, std::string> spelled; // the value words as written, for `why`
  std::size_t group = 0;                        // its exact group
};

// Read `text`'s word set and its value words: those with a digit, and names (an upper-case
// letter past the first, or a capital that does not start a sentence).
void read_words(std::string_view text, Item &item) {
  bool sentence_start = true;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_word_byte(text[i])) {
      if (text[i] == '.' || text[i] == '!' || text[i] == '?' || text[i] == '\n')
        sentence_start = true;
      ++i;
    }
    const std::size_t start = i;
    while (i < text.size() && is_word_byte(text[i]))
      ++i;
    if (i == start) break;
    const std::string_view word = text.substr(start, i - start);
    const std::uint64_t h = word_hash(ascii_lower(word));
    item.words.push_back(h);
    const bool name = std::any_of(word.begin() + 1, word.end(), is_upper) ||
                      (is_upper(word.front()) && !sentence_start);
    if (has_digit(word) || name) {
      item.values.push_back(h);
      item.spelled.emplace(h, std::string(word));
    }
    sentence_start = false;
  }
  for (auto *v : {&item.words, &item.values}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

long long updated_of(const Memory &m) {
  if (auto t = parse_time(m.updated_at)) return *t;
  return parse_time(m.created_at).value_or(0);
}

// What two word sets share and what each has alone.
struct Overlap {
  std::size_t common = 0;
  std::vector<std::uint64_t> only_a, only_b;
};
Overlap overlap(const std::vector<std::uint64_t> &a, const std::vector<std::uint64_t> &b) {
  Overlap o;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i] < b[j]))
      o.only_a.push_back(a[i++]);
    else if (i == a.size() || b[j] < a[i])
      o.only_b.push_back(b[j++]);
    else
      ++o.common, ++i, ++j;
  }
  return o;
}

double jaccard(const Overlap &o) {
  const std::size_t all = o.common + o.only_a.size() + o.only_b.size();
  return all == 0 ? 1.0 : static_cast<double>(o.common) / static_cast<double>(all);
}

bool any_value(const std::vector<std::uint64_t> &words, const Item &item) {
  return std::any_of(words.begin(), words.end(), [&](std::uint64_t h) {
    return std::binary_search(item.values.begin(), item.values.end(), h);
  });
}

// "`15` vs `14`": the value words each side has alone.
std::string why_of(const std::vector<std::uint64_t> &a, const Item &ia,
                   const std::vector<std::uint64_t> &b, const Item &ib) {
  const auto side = [](const std::vector<std::uint64_t> &words, const Item &item) {
    std::vector<std::string> spelled;
    for (const auto h : words)
      if (const auto it = item.spelled.find(h); it != item.spelled.end())
        spelled.push_back("`" + it->second + "`");
    return join(spelled, " ");
  };
  return side(a, ia) + " vs " + side(b, ib);
}

bool conflicting(const Overlap &o, const Item &a, const Item &b) {
  const auto apart = [&](std::size_t n) { return n >= 1 && n <= 2 && n < o.common; };
  return o.common >= 2 && apart(o.only_a.size()) && apart(o.only_b.size()) &&
         any_value(o.only_a, a) && any_value(o.only_b, b);
}

} // namespace

bool is_pinned(const Memory &m) {
  if (m.metadata.empty() || m.metadata.find("pinned") == std::string::npos) return false;
  rapidjson::Document doc;
  parse_json(doc, m.metadata);
  if (doc.HasParseError() || !doc.IsObject()) return false;
  const auto it = doc.FindMember("pinned");
  if (it == doc.MemberEnd()) return false;
  return (it->value.IsBool() && it->value.GetBool()) ||
         (it->value.IsString() && std::string_view(it->value.GetString()) == "true");
}

double similarity(std::string_view a, std::string_view b) {
  Item ia, ib;
  read_words(a, ia);
  read_words(b, ib);
  return jaccard(overlap(ia.words, ib.words));
}

std::vector<std::string> DreamPlan::deletions() const {
  std::vector<std::string> ids;
  for (const auto &g : duplicates)
    ids.insert(ids.end(), g.drop.begin(), g.drop.end());
  for (const auto &e : expired)
    ids.push_back(e.id);
  return ids;
}

DreamPlan plan_dream(const DreamInput &input) {
  DreamPlan plan;
  plan.complete = input.complete;
  plan.problems = input.problems;
  plan.problems.insert(plan.problems.end(), input.retention.problems.begin(),
                       input.retention.problems.end());
  std::set<std::string, std::less<>> seen, pinned_counted;
  const auto count_pinned = [&](const std::string &id) {
    if (pinned_counted.insert(id).second) ++plan.pinned_skipped;
  };

  // Read each memory once; the expired and the uncomparable go no further.
  std::vector<Item> items;
  std::size_t untyped = 0, undated = 0;
  for (const auto &m : input.memories) {
    if (m.id.empty() || !seen.insert(m.id).second) continue;
    ++plan.memories;
    const bool pinned = is_pinned(m);
    if (m.type.empty()) ++untyped;
    const Retention keep = retention_of(input.retention, m.type);
    const auto created = parse_time(m.created_at);
    if (!created) ++undated;
    if (keep.days && created) {
      const long age = static_cast<long>((input.now - *created) / 86400);
      if (input.now - *created > *keep.days * 86400LL) {
        if (pinned) {
          count_pinned(m.id);
        } else {
          plan.expired.push_back({m.id, m.type, age, keep.rule});
          continue;
        }
      }
    }
    if (m.text.size() > k_max_compared_bytes) {
      plan.problems.push_back("memory " + m.id + ": " + std::to_string(m.text.size()) +
                              " bytes of text, too long to compare for duplicates");
      continue;
    }
    Item item;
    item.memory = &m;
    item.pinned = pinned;
    item.updated = updated_of(m);
    read_words(m.text, item);
    items.push_back(std::move(item));
  }
  if (untyped > 0)
    plan.problems.push_back(count_of(untyped, "memory has", "memories have") +
                            " no type: compared with each other only; no retention by type");
  if (undated > 0)
    plan.problems.push_back(count_of(undated, "memory has", "memories have") +
                            " no readable created_at: never expired");

  // The keep order: pinned first, then the most recently updated.
  std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
    if (a.pinned != b.pinned) return a.pinned;
    if (a.updated != b.updated) return a.updated > b.updated;
    return a.memory->id < b.memory->id;
  });

  // Exact groups: the same type and normalised words; the first (best) member stands for it.
  std::vector<std::vector<std::size_t>> groups;
  {
    std::unordered_map<std::string, std::size_t> by_key;
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::string key = items[i].memory->type + '\n' + normalised(items[i].memory->text);
      const auto [it, fresh] = by_key.emplace(std::move(key), groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(i);
      items[i].group = it->second;
    }
  }

  // Near duplicates and conflicts between groups of one type, by prefix filtering: each group's
  // rarest words (within its type) as many as a pair at the threshold, or 1 or 2 words apart,
  // must share with the other's.
  std::vector<std::vector<std::pair<std::size_t, double>>> near(groups.size());
  std::vector<std::pair<std::size_t, std::size_t>> conflicts;
  std::map<std::string_view, std::vector<std::size_t>> by_type;
  for (std::size_t g = 0; g < groups.size(); ++g)
    by_type[items[groups[g].front()].memory->type].push_back(g);
  for (const auto &[type, members] : by_type) {
    std::unordered_map<std::uint64_t, std::uint32_t> df;
    for (const auto g : members)
      for (const auto h : items[groups[g].front()].words)
        ++df[h];
    std::unordered_map<std::uint64_t, std::vector<std::size_t>> postings;
    std::vector<std::size_t> stamp(groups.size(), SIZE_MAX);
    for (const auto g : members) {
      const Item &a = items[groups[g].front()];
      std::vector<std::uint64_t> rare = a.words;
      std::sort(rare.begin(), rare.end(), [&](std::uint64_t x, std::uint64_t y) {
        const auto dx = df[x], dy = df[y];
        return dx != dy ? dx < dy : x < y;
      });
      const std::size_t n = rare.size();
      const auto at_threshold = n - ceil_of(input.near * static_cast<double>(n) - 1e-9) + 1;
      const std::size_t prefix = std::min(n, std::max<std::size_t>(at_threshold, 3));
      for (std::size_t k = 0; k < prefix; ++k) {
        auto &list = postings[rare[k]];
        for (const auto other : list) {
          if (stamp[other] == g) continue;
          stamp[other] = g;
          const Item &b = items[groups[other].front()];
          const Overlap o = overlap(a.words, b.words);
          if (conflicting(o, a, b))
            conflicts.emplace_back(other, g);
          else if (const double j = jaccard(o); j >= input.near) {
            near[g].emplace_back(other, j);
            near[other].emplace_back(g, j);
          }
        }
        list.push_back(g);
      }
    }
  }

  // Keep the best of each cluster; drop what is directly similar to it.
  std::vector<bool> assigned(items.size(), false);
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (assigned[i]) continue;
    assigned[i] = true;
    DuplicateGroup exact{items[i].memory->id, {}, "exact", 1.0};
    DuplicateGroup close{items[i].memory->id, {}, "near", 1.0};
    const auto take = [&](std::size_t j, DuplicateGroup &into, double sim) {
      if (assigned[j]) return;
      if (items[j].pinned) return count_pinned(items[j].memory->id);
      assigned[j] = true;
      into.drop.push_back(items[j].memory->id);
      into.similarity = std::min(into.similarity, sim);
    };
    for (const auto j : groups[items[i].group])
      take(j, exact, 1.0);
    auto neighbours = near[items[i].group];
    std::sort(neighbours.begin(), neighbours.end());
    for (const auto &[g, sim] : neighbours)
      for (const auto j : groups[g])
        take(j, close, sim);
    if (!exact.drop.empty()) plan.duplicates.push_back(std::move(exact));
    if (!close.drop.empty()) plan.duplicates.push_back(std::move(close));
  }

  for (const auto &[ga, gb] : conflicts) {
    const Item &a = items[groups[ga].front()], &b = items[groups[gb].front()];
    const Overlap o = overlap(a.words, b.words);
    std::vector<std::string> ids{a.memory->id, b.memory->id};
    std::sort(ids.begin(), ids.end());
    plan.conflicts.push_back({std::move(ids), why_of(o.only_a, a, o.only_b, b)});
  }
  std::sort(plan.conflicts.begin(), plan.conflicts.end(),
            [](const ConflictPair &x, const ConflictPair &y) { return x.ids < y.ids; });

  for (const auto &id : seen)
    if (const auto it = input.uses.find(id); it != input.uses.end())
      if (const UseCount &c = it->second;
          !c.used && c.injected >= k_unused_injections && c.sessions.size() >= k_unused_sessions)
        plan.unused.push_back({id, c.injected, c.sessions.size()});
  std::sort(plan.unused.begin(), plan.unused.end(),
            [](const UnusedMemory &a, const UnusedMemory &b) {
              return a.injected != b.injected ? a.injected > b.injected : a.id < b.id;
            });
  return plan;
}

void write_dream_json(JsonWriter &w, const DreamPlan &plan) {
  const auto ids = [&](std::string_view key, const std::vector<std::string> &values) {
    w.key(key).begin_array();
    for (const auto &v : values)
      w.str(v);
    w.end_array();
  };
  w.begin_object().key("memories").int64(static_cast<long long>(plan.memories));
  w.key("duplicates").begin_array();
  for (const auto &g : plan.duplicates) {
    w.begin_object().member("keep", g.keep);
    ids("drop", g.drop);
    w.member("reason", g.reason).key("similarity").number(thousandths(g.similarity));
    w.end_object();
  }
  w.end_array().key("expired").begin_array();
  for (const auto &e : plan.expired)
    w.begin_object()
        .member("id", e.id)
        .member("type", e.type)
        .key("age_days")
        .int64(e.age_days)
        .member("rule", e.rule)
        .end_object();
  w.end_array().key("conflicts").begin_array();
  for (const auto &c : plan.conflicts) {
    w.begin_object();
    ids("ids", c.ids);
    w.member("why", c.why).end_object();
  }
  w.end_array().key("unused").begin_array();
  for (const auto &u : plan.unused)
    w.begin_object()
        .member("id", u.id)
        .key("injected")
        .int64(static_cast<long long>(u.injected))
        .key("sessions")
        .int64(static_cast<long long>(u.sessions))
        .end_object();
  w.end_array().key("pinned_skipped").int64(static_cast<long long>(plan.pinned_skipped));
  w.key("complete").boolean(plan.complete);
  ids("problems", plan.problems);
  w.end_object();
}

std::string dream_json(const DreamPlan &plan) {
  JsonWriter w;
  write_dream_json(w, plan);
  return w.text();
}

std::string dream_report(const DreamPlan &plan, const std::vector<Memory> &memories) {
  std::map<std::string_view, const Memory *> by_id;
  for (const auto &m : memories)
    by_id.emplace(m.id, &m);
  const auto quote = [&](const std::string &id) {
    const auto it = by_id.find(id);
    const std::string text = it == by_id.end() ? "" : clean_text(it->second->text);
    return id8(id) + "  " + truncate_code_points(text, 70);
  };
  std::string out = "read " + count_of(plan.memories, "memory", "memories") +
                    (plan.complete ? "" : " (not all of them: nothing will be applied)") + "\n";
  std::size_t dropped = 0;
  for (const auto &g : plan.duplicates)
    dropped += g.drop.size();
  out += "duplicates: " + count_of(dropped, "memory", "memories") + " to delete\n";
  for (const auto &g : plan.duplicates) {
    out += "  keep " + quote(g.keep) + "\n";
    for (const auto &id : g.drop)
      out += "    drop " + quote(id) + "  (" + g.reason +
             (g.reason == "near" ? ", " + std::to_string(static_cast<int>(g.similarity * 100)) + "%"
                                 : std::string()) +
             ")\n";
  }
  out += "expired: " + count_of(plan.expired.size(), "memory", "memories") + " to delete\n";
  for (const auto &e : plan.expired)
    out += "  drop " + quote(e.id) + "  (" + (e.type.empty() ? "no type" : e.type) + ", " +
           std::to_string(e.age_days) + " days old; " + e.rule + ")\n";
  out +=
      "conflicts (yours to settle, never applied): " + std::to_string(plan.conflicts.size()) + "\n";
  for (const auto &c : plan.conflicts) {
    for (const auto &id : c.ids)
      out += "  " + quote(id) + "\n";
    out += "    differ in " + c.why + "\n";
  }
  out += "unused (injected often, never used; listed only): " + std::to_string(plan.unused.size()) +
         "\n";
  for (const auto &u : plan.unused)
    out += "  " + quote(u.id) + "  (injected " + std::to_string(u.injected) + " times in " +
           std::to_string(u.sessions) + " sessions)\n";
  if (plan.pinned_skipped > 0)
    out += "pinned, left alone: " + std::to_string(plan.pinned_skipped) + "\n";
  for (const auto &p : plan.problems)
    out += "could not read: " + p + "\n";
  return out;
}

} // namespace mem0::hygiene
