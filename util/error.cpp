#include "util/error.hpp"

namespace mem0 {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::unauthorized: return "unauthorized";
  case ErrorKind::rate_limited: return "rate_limited";
  case ErrorKind::server: return "server";
  case ErrorKind::client: return "client";
  case ErrorKind::timeout: return "timeout";
  case ErrorKind::transport: return "transport";
  case ErrorKind::bad_response: return "bad_response";
  case ErrorKind::no_libcurl: return "no_libcurl";
  case ErrorKind::io: return "io";
  case ErrorKind::disabled: return "disabled";
  case ErrorKind::no_key: return "no_key";
  case ErrorKind::empty: return "empty";
  case ErrorKind::duplicate: return "duplicate";
  case ErrorKind::full: return "full";
  }
  return "unknown";
}

} // namespace mem0
