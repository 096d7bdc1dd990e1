#include "common/http.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace mem0 {
namespace {

struct Transfer {
  std::string body;
  std::optional<std::chrono::seconds> retry_after;
  bool too_large = false;
  curl_slist* headers = nullptr;
  CURL* easy = nullptr;
  std::optional<Result<HttpResponse>> result;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (t->body.size() + n > k_max_response_bytes) {
    t->too_large = true;
    return 0; // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->body.append(data, n);
  return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  constexpr std::string_view name = "retry-after:";
  if (line.size() > name.size()) {
    std::string lowered(line.substr(0, name.size()));
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lowered == name) t->retry_after = parse_retry_after(line.substr(name.size()));
  }
  return size * count;
}

bool ensure_global_init() {
  static const bool ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  return ok;
}

long remaining_ms(Deadline deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return std::max<long>(0, static_cast<long>(left.count()));
}

Error transport_error(CURLcode code, const Transfer& t) {
  if (t.too_large)
    return make_error(ErrorKind::bad_response, "response larger than 4 MiB");
  if (code == CURLE_OPERATION_TIMEDOUT) return make_error(ErrorKind::timeout, "deadline reached");
  return make_error(ErrorKind::transport, curl_easy_strerror(code));
}

} // namespace

std::optional<std::chrono::seconds> parse_retry_after(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
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

CurlHttpClient::CurlHttpClient(std::optional<std::string> ca_bundle)
    : m_ca_bundle(std::move(ca_bundle)) {}

std::vector<Result<HttpResponse>> CurlHttpClient::run(const std::vector<HttpRequest>& requests,
                                                      Deadline deadline) {
  std::vector<Result<HttpResponse>> results;
  if (requests.empty()) return results;
  if (!ensure_global_init()) {
    results.assign(requests.size(), unexpected(make_error(ErrorKind::transport, "curl init failed")));
    return results;
  }
  const auto started = SteadyClock::now();
  std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)> multi(curl_multi_init(),
                                                              curl_multi_cleanup);
  curl_multi_setopt(multi.get(), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  std::vector<Transfer> transfers(requests.size());

  const long budget = std::max<long>(1, remaining_ms(deadline));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const HttpRequest& r = requests[i];
    Transfer& t = transfers[i];
    t.easy = curl_easy_init();
    if (!t.easy) {
      t.result = unexpected(make_error(ErrorKind::transport, "curl_easy_init failed"));
      continue;
    }
    for (const auto& h : r.headers) t.headers = curl_slist_append(t.headers, h.c_str());
    curl_easy_setopt(t.easy, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(t.easy, CURLOPT_HTTPHEADER, t.headers);
    if (r.method == "POST") {
      curl_easy_setopt(t.easy, CURLOPT_POSTFIELDS, r.body.data());
      curl_easy_setopt(t.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
    } else if (r.method != "GET") {
      curl_easy_setopt(t.easy, CURLOPT_CUSTOMREQUEST, r.method.c_str());
    }
    curl_easy_setopt(t.easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(t.easy, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(t.easy, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(t.easy, CURLOPT_SSL_VERIFYHOST, 2L);
    if (m_ca_bundle) curl_easy_setopt(t.easy, CURLOPT_CAINFO, m_ca_bundle->c_str());
    curl_easy_setopt(t.easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t.easy, CURLOPT_TIMEOUT_MS, budget);
    curl_easy_setopt(t.easy, CURLOPT_CONNECTTIMEOUT_MS, budget);
    curl_easy_setopt(t.easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(t.easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(t.easy, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(t.easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(t.easy, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(t.easy, CURLOPT_PRIVATE, &t);
    curl_multi_add_handle(multi.get(), t.easy);
  }

  // Drive the transfers until all are done or the deadline passes; unfinished ones time out.
  for (int running = 1;;) {
    if (curl_multi_perform(multi.get(), &running) != CURLM_OK) break;
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi.get(), &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      if (msg->data.result != CURLE_OK) {
        t->result = unexpected(transport_error(msg->data.result, *t));
        continue;
      }
      HttpResponse response;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &response.status);
      response.body = std::move(t->body);
      response.retry_after = t->retry_after;
      response.latency = std::chrono::duration_cast<std::chrono::milliseconds>(
          SteadyClock::now() - started);
      t->result = std::move(response);
    }
    const long left = remaining_ms(deadline);
    if (running == 0 || left <= 0) break;
    curl_multi_poll(multi.get(), nullptr, 0, static_cast<int>(std::min<long>(left, 1000)), nullptr);
  }

  for (auto& t : transfers) {
    if (!t.result) t.result = unexpected(make_error(ErrorKind::timeout, "deadline reached"));
    if (t.easy) {
      curl_multi_remove_handle(multi.get(), t.easy);
      curl_easy_cleanup(t.easy);
    }
    curl_slist_free_all(t.headers);
    results.push_back(std::move(*t.result));
  }
  return results;
}

} // namespace mem0
