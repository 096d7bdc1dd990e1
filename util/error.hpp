#pragma once
#include "util/expected.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// How something failed; every request failure is exactly one of the first seven
// (docs/failures.md#error-classes).
enum class ErrorKind {
  unauthorized, // 401, 403
  rate_limited, // 429
  server,       // 5xx
  client,       // other 4xx
  timeout,      // the invocation's deadline passed
  transport,    // connect, DNS, TLS, refused URL
  bad_response, // unparseable, wrong shape, too large, redirect
  io,           // a local file could not be read or written
};

struct Error {
  ErrorKind kind = ErrorKind::transport;
  std::string message;
  long status = 0; // HTTP status, 0 when none was received
  std::optional<std::chrono::seconds> retry_after;
};

template <class T> using Result = expected<T, Error>;

// Return the stable lower-case name of `kind` ("rate_limited", ...), used in logs and lines.
std::string_view to_string(ErrorKind kind);

// Build an Error of `kind` with `message`.
inline Error make_error(ErrorKind kind, std::string message, long status = 0) {
  return Error{kind, std::move(message), status, std::nullopt};
}

} // namespace mem0
