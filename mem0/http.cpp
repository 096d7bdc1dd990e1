#include "mem0/http.hpp"

namespace mem0 {

Error response_too_large() {
  return make_error(ErrorKind::bad_response, "response larger than 4 MiB");
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  if (value.empty() || value.size() > 9) return std::nullopt;
  long long s = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    s = s * 10 + (c - '0');
  }
  return std::chrono::seconds(s);
}

} // namespace mem0
