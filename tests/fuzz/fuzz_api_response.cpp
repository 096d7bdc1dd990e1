// Mem0 API responses (docs/api.md): parse_search_response and parse_memory_response on any body,
// the status chosen by the first byte; every memory they return must make safe display lines
// (docs/hooks.md#line-formats).
#include "mem0/api.hpp"
#include "mem0/format.hpp"
#include "mem0/http.hpp"
#include "tests/fuzz/fuzz_support.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

constexpr std::array<long, 24> k_statuses{200, 200, 200, 200, 201, 204, 299, 0,
                                          100, 301, 302, 400, 401, 403, 404, 404,
                                          413, 422, 429, 499, 500, 502, 503, 599};

bool is_id_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

void check_memory(const mem0::Memory &m) {
  fuzz::check(!m.id.empty() && m.id.size() <= 128, "memory: id length", m.id);
  for (char c : m.id)
    fuzz::check(is_id_char(c), "memory: id characters", m.id);
  // Fixed "now" so runs reproduce; created_at may be any year.
  const auto now =
      std::chrono::sys_days(std::chrono::year(2026) / 11 / 29) + std::chrono::hours(12);
  const std::string context = mem0::context_line(m);
  fuzz::check_display_line(context, "context_line");
  fuzz::check(context.starts_with("- [") && context.ends_with("]"), "context_line: shape", context);
  fuzz::check_display_line(mem0::file_line(m, now), "file_line");
  fuzz::check_display_line(mem0::peek_line(1, m), "peek_line");
}

// The kind docs/failures.md#error-classes gives each status.
mem0::ErrorKind expected_kind(long s) {
  if (s == 401 || s == 403) return mem0::ErrorKind::unauthorized;
  if (s == 429) return mem0::ErrorKind::rate_limited;
  if (s >= 500) return mem0::ErrorKind::server;
  if (s >= 400) return mem0::ErrorKind::client;
  return mem0::ErrorKind::bad_response;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0) return 0;
  mem0::HttpResponse response;
  response.status = k_statuses[data[0] % k_statuses.size()];
  if (data[0] & 0x80) response.retry_after = std::chrono::seconds(data[0] & 0x3F);
  response.body.assign(reinterpret_cast<const char *>(data + 1), size - 1);
  const bool ok_status = response.status >= 200 && response.status < 300;

  const auto search = mem0::parse_search_response(response);
  if (search) {
    fuzz::check(ok_status, "parse_search_response: results only for 2xx");
    for (const auto &m : *search)
      check_memory(m);
  } else if (!ok_status) {
    fuzz::check(search.error().kind == expected_kind(response.status),
                "parse_search_response: error kind for the status");
    fuzz::check(search.error().status == response.status, "parse_search_response: status kept");
    fuzz::check(search.error().retry_after == response.retry_after,
                "parse_search_response: Retry-After kept");
  } else {
    fuzz::check(search.error().kind == mem0::ErrorKind::bad_response,
                "parse_search_response: a bad 2xx body is bad_response");
  }

  const auto one = mem0::parse_memory_response(response);
  if (response.status == 404) {
    fuzz::check(one.has_value() && !one->has_value(), "parse_memory_response: 404 is not found");
  } else if (one && !one->has_value()) { // a self-hosted server's `null`
    fuzz::check(ok_status, "parse_memory_response: not found only for 404 or a 2xx null");
  } else if (one) {
    fuzz::check(ok_status, "parse_memory_response: a memory only for 2xx");
    check_memory(**one);
  } else if (!ok_status) {
    fuzz::check(one.error().kind == expected_kind(response.status),
                "parse_memory_response: error kind for the status");
  }

  const mem0::Error e = mem0::classify_status(response);
  fuzz::check(e.kind == expected_kind(response.status), "classify_status: kind");
  fuzz::check(e.message.starts_with("HTTP "), "classify_status: message", e.message);
  (void)mem0::parse_retry_after(response.body);
  return 0;
}
