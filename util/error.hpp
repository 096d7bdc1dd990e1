#pragma once
#include "util/expected.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace mem0 {

// How something failed; every request failure is exactly one of the first eight
// (docs/failures.md#error-classes).
enum class ErrorKind {
  unauthorized, // 401, 403
  rate_limited, // 429
  server,       // 5xx
  client,       // other 4xx
  timeout,      // the invocation's deadline passed
  transport,    // connect, DNS, TLS, refused URL
  bad_response, // unparseable, wrong shape, too large, redirect
  no_libcurl,   // libcurl missing or too old here: nothing was sent
  io,           // a local file could not be read or written
  // Refusals: nothing broke, the work was declined by rule (docs/capture.md#the-outbox).
  disabled,  // turned off by the configuration (auto_save)
  no_key,    // no API key to act with
  empty,     // nothing left to do
  duplicate, // done already (within the dedupe window)
  full,      // a bounded store is at its limit
};

struct Error {
  ErrorKind kind = ErrorKind::transport;
  std::string message;
  long status = 0; // HTTP status, 0 when none was received
  std::optional<std::chrono::seconds> retry_after;
};

// `expected<T, Error>` that must not be ignored: a dropped Result is a warning (an error under
// MEM0_WERROR), so a call that drops one on purpose says so with `(void)` and a reason. A class
// rather than an alias, because neither std::expected nor every tl::expected is [[nodiscard]].
template <class T> class [[nodiscard]] Result : public expected<T, Error> {
public:
  using Base = expected<T, Error>;
  using Base::Base;
  using Base::operator=;
  Result() = default;
  Result(const Base &other) : Base(other) {}
  Result(Base &&other) : Base(std::move(other)) {}
};

// Return the stable lower-case name of `kind` ("rate_limited", ...), used in logs and lines.
std::string_view to_string(ErrorKind kind);

// Build an Error of `kind` with `message`.
inline Error make_error(ErrorKind kind, std::string message, long status = 0) {
  return Error{kind, std::move(message), status, std::nullopt};
}

} // namespace mem0
