// Text cleaning, truncation and line formats (docs/hooks.md#line-formats) and budget trimming
// (#context-budget), with their invariants checked on every input.
#include "mem0/api.hpp"
#include "mem0/format.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <fuzzer/FuzzedDataProvider.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

void check_clean(std::string_view raw, const std::string &cleaned) {
  fuzz::check(fuzz::valid_utf8(cleaned), "clean_text: valid UTF-8", cleaned);
  fuzz::check(!fuzz::has_control(cleaned), "clean_text: no control characters", cleaned);
  fuzz::check(!fuzz::has_reminder_tag(cleaned), "clean_text: system-reminder defused", cleaned);
  fuzz::check(cleaned.find("  ") == std::string::npos, "clean_text: whitespace runs collapse",
              cleaned);
  fuzz::check(mem0::clean_text(cleaned) == cleaned, "clean_text: idempotent", cleaned);
  if (fuzz::valid_utf8(raw) && !fuzz::has_control(raw) && !fuzz::has_reminder_tag(raw) &&
      raw.find_first_of(" \xC2\xE2") == std::string_view::npos)
    fuzz::check(cleaned == raw, "clean_text: plain text unchanged", cleaned);
}

void check_truncate(const std::string &text, std::size_t n) {
  const std::string cut = mem0::truncate_code_points(text, n);
  const auto cps = fuzz::code_points(cut);
  fuzz::check(cps.has_value(), "truncate_code_points: valid UTF-8", cut);
  fuzz::check(*cps <= n + 1, "truncate_code_points: at most N+1 code points", cut);
  if (*fuzz::code_points(text) <= n) {
    fuzz::check(cut == text, "truncate_code_points: short text unchanged", cut);
  } else {
    constexpr std::string_view ellipsis = "\xE2\x80\xA6";
    fuzz::check(cut.ends_with(ellipsis) && *cps == n + 1, "truncate_code_points: N + ellipsis",
                cut);
    fuzz::check(text.starts_with(std::string_view(cut).substr(0, cut.size() - ellipsis.size())),
                "truncate_code_points: a prefix", cut);
  }
}

void check_prefix(std::string_view text, std::size_t max_bytes) {
  const std::string_view p = mem0::utf8_prefix(text, max_bytes);
  fuzz::check(p.size() <= max_bytes, "utf8_prefix: at most max_bytes");
  fuzz::check(text.starts_with(p), "utf8_prefix: a prefix");
  // A boundary: the next byte starts a sequence (an empty prefix is always one).
  fuzz::check(p.empty() || p.size() == text.size() || !is_continuation(text[p.size()]),
              "utf8_prefix: ends on a boundary");
  if (text.size() <= max_bytes) fuzz::check(p.size() == text.size(), "utf8_prefix: fits whole");
  if (fuzz::valid_utf8(text)) {
    fuzz::check(fuzz::valid_utf8(p), "utf8_prefix: valid in, valid out");
    if (text.size() > max_bytes)
      fuzz::check(max_bytes - p.size() < 4, "utf8_prefix: the longest such prefix");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(0, 300);
  const std::size_t max_bytes = in.ConsumeIntegralInRange<std::size_t>(0, 1024);
  const std::size_t budget = in.ConsumeIntegralInRange<std::size_t>(0, 12000);
  const std::size_t number = in.ConsumeIntegral<std::uint8_t>();

  mem0::Memory m;
  // Ids reach the formatter only through parse_item, which keeps [A-Za-z0-9_-]{1,128}.
  for (char c : in.ConsumeRandomLengthString(64))
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_')
      m.id += c;
  m.type = in.ConsumeRandomLengthString(80);
  m.created_at = in.ConsumeRandomLengthString(40);
  m.text = in.ConsumeRemainingBytesAsString();

  const std::string cleaned = mem0::clean_text(m.text);
  check_clean(m.text, cleaned);
  check_truncate(cleaned, n);
  (void)mem0::truncate_code_points(m.text, n); // raw bytes: must not crash
  check_prefix(m.text, max_bytes);
  check_prefix(cleaned, max_bytes);

  const auto now =
      std::chrono::sys_days(std::chrono::year(2026) / 11 / 29) + std::chrono::hours(12);
  const std::string context = mem0::context_line(m);
  const std::string file = mem0::file_line(m, now);
  const std::string peek = mem0::peek_line(number, m);
  fuzz::check_display_line(context, "context_line");
  fuzz::check_display_line(file, "file_line");
  fuzz::check_display_line(peek, "peek_line");
  fuzz::check(context.ends_with("[mem0:" + mem0::id8(m.id) + "]"), "context_line: citation",
              context);
  // type ≤ 41 code points, text ≤ 201, plus the fixed parts.
  fuzz::check(*fuzz::code_points(context) <= 3 + 41 + 2 + 201 + 16, "context_line: bounded",
              context);
  if (const auto created = mem0::parse_iso8601(m.created_at))
    fuzz::check(file.find(" ago) ") != std::string::npos, "file_line: age shown", file);

  // Budget: memory lines as the hooks make them, a head and a tail of fixed lines.
  std::vector<std::string> memory_lines;
  for (std::size_t i = 0; i < 1 + n % 60; ++i)
    memory_lines.push_back(i % 2 ? context : file);
  const std::vector<std::string> head{"mem0 memories for this prompt:", peek};
  const std::vector<std::string> tail{"(cite as [mem0:id8])"};
  const std::string fitted = mem0::fit_budget(head, memory_lines, tail, budget);
  fuzz::check(fitted.size() <= budget, "fit_budget: within budget", fitted);
  fuzz::check(fuzz::valid_utf8(fitted), "fit_budget: valid UTF-8", fitted);
  return 0;
}
