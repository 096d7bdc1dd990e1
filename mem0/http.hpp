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

// Parse a Retry-After value given in seconds; nullopt for dates and garbage.
std::optional<std::chrono::seconds> parse_retry_after(std::string_view value);

} // namespace mem0
