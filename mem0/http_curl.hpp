#pragma once
// What of the libcurl client (mem0/http_curl.cpp) its unit tests reach; not built for Windows.
#include "util/error.hpp"

#include <functional>
#include <optional>

namespace mem0 {

// How a transfer's libcurl settings are applied: each returns libcurl's code (0: taken).
struct CurlOptions {
  std::function<int(int option, long value)> number;
  std::function<int(int option, const char *text)> text;
};

// The settings no transfer goes without: HTTP and HTTPS only, no redirects, the certificate and
// the host name checked. The protocol list falls back to CURLOPT_PROTOCOLS where libcurl (before
// 7.85) refuses CURLOPT_PROTOCOLS_STR; any other refusal is an error (`transport`) naming the
// setting, and the request is not sent.
std::optional<Error> set_safety_options(const CurlOptions &set);

} // namespace mem0
