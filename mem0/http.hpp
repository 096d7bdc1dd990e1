#pragma once
#include "util/clock.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
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

// libcurl multi; initialises libcurl on first use only, so gated invocations never pay for it.
// HTTP/2 multiplexing on one connection where the server offers it; no redirects; TLS verified.
class CurlHttpClient final : public HttpClient {
public:
  explicit CurlHttpClient(std::optional<std::string> ca_bundle = std::nullopt);
  std::vector<Result<HttpResponse>> run(const std::vector<HttpRequest> &requests,
                                        Deadline deadline) override;

private:
  std::optional<std::string> m_ca_bundle;
};

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

// Parse a Retry-After value given in seconds; nullopt for dates and garbage.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

} // namespace mem0
