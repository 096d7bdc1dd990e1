#pragma once
#include "util/clock.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {

inline constexpr std::size_t k_max_response_bytes = 4 * 1024 * 1024;

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::string> headers; // "Name: value"
  std::string body;
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::optional<std::chrono::seconds> retry_after;
  std::chrono::milliseconds latency{0};
};

// Runs HTTP requests; the seam that lets handlers be tested without a network.
class HttpClient {
public:
  virtual ~HttpClient() = default;
  // Run all `requests` in parallel; never blocks past `deadline`. Result i belongs to request i;
  // an error here is a transport failure, a timeout or an oversized body, never an HTTP status.
  virtual std::vector<Result<HttpResponse>> run(const std::vector<HttpRequest> &requests,
                                                Deadline deadline) = 0;
};

// The system's HTTP client, one per platform (docs/contributing.md#platforms): libcurl multi,
// loaded on first use, elsewhere (mem0/http_curl.cpp); WinHTTP on Windows (mem0/http_winhttp.cpp).
// Both: no redirects (a 3xx is returned as it came), TLS always verified, bodies over
// k_max_response_bytes refused (`bad_response`), the deadline a `timeout`. `ca_bundle` (a PEM
// file or a hashed directory) replaces the trusted certificates for libcurl only: WinHTTP
// trusts the Windows certificate store and has no such setting, so it is not used there.
class SystemHttpClient final : public HttpClient {
public:
  explicit SystemHttpClient(std::optional<std::string> ca_bundle = std::nullopt);
  std::vector<Result<HttpResponse>> run(const std::vector<HttpRequest> &requests,
                                        Deadline deadline) override;

private:
  std::optional<std::string> m_ca_bundle;
};

// Return the error for a body over k_max_response_bytes, the same from every client.
Error response_too_large();

// Parse a Retry-After value given in seconds; nullopt for dates and garbage.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

} // namespace mem0
