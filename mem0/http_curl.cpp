#include "mem0/http_curl.hpp"
#include "mem0/http.hpp"
#include "util/platform.hpp"

#define CURL_DISABLE_DEPRECATION // CURLOPT_PROTOCOLS: the allow-list of libcurl before 7.85
#include <curl/curl.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace mem0 {
namespace {

// libcurl is loaded on first use rather than linked: mapping it and its ~35 dependencies costs
// about 5 ms and 9 MB at start-up, which invocations that never reach the network must not pay.
struct Curl {
  decltype(&curl_global_init) global_init;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_multi_setopt) multi_setopt;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_perform) multi_perform;
  decltype(&curl_multi_poll) multi_poll;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

template <class F> bool bind(void *lib, const char *name, F &fn) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  return fn != nullptr;
}

// The loaded and initialised libcurl, or nullptr (with `why`) when it cannot be had.
const Curl *load_curl(std::string &why) {
  static std::string error;
  static const Curl *curl = [&]() -> const Curl * {
    void *lib = nullptr;
    for (const char *name : platform::k_libcurl_names)
      if ((lib = dlopen(name, RTLD_LAZY | RTLD_LOCAL))) break;
    if (!lib) {
      error = std::string("cannot load libcurl: install ") + platform::k_libcurl_package + " (" +
              dlerror() + ")";
      return nullptr;
    }
    static Curl c{};
    const bool ok = bind(lib, "curl_global_init", c.global_init) &&
                    bind(lib, "curl_multi_init", c.multi_init) &&
                    bind(lib, "curl_multi_cleanup", c.multi_cleanup) &&
                    bind(lib, "curl_multi_setopt", c.multi_setopt) &&
                    bind(lib, "curl_multi_add_handle", c.multi_add_handle) &&
                    bind(lib, "curl_multi_remove_handle", c.multi_remove_handle) &&
                    bind(lib, "curl_multi_perform", c.multi_perform) &&
                    bind(lib, "curl_multi_poll", c.multi_poll) &&
                    bind(lib, "curl_multi_info_read", c.multi_info_read) &&
                    bind(lib, "curl_easy_init", c.easy_init) &&
                    bind(lib, "curl_easy_setopt", c.easy_setopt) &&
                    bind(lib, "curl_easy_getinfo", c.easy_getinfo) &&
                    bind(lib, "curl_easy_cleanup", c.easy_cleanup) &&
                    bind(lib, "curl_easy_strerror", c.easy_strerror) &&
                    bind(lib, "curl_slist_append", c.slist_append) &&
                    bind(lib, "curl_slist_free_all", c.slist_free_all);
    if (!ok) {
      error = "libcurl is too old (curl_multi_poll needs 7.66)";
      return nullptr;
    }
    if (c.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      error = "curl_global_init failed";
      return nullptr;
    }
    return &c;
  }();
  why = error;
  return curl;
}

struct Transfer {
  std::string body;
  std::optional<std::chrono::seconds> retry_after;
  bool too_large = false;
  curl_slist *headers = nullptr;
  CURL *easy = nullptr;
  char error[CURL_ERROR_SIZE] = {}; // libcurl's detailed reason ("certificate has expired")
  std::optional<Result<HttpResponse>> result;
};

std::size_t on_body(char *data, std::size_t size, std::size_t count, void *user) {
  auto *t = static_cast<Transfer *>(user);
  const std::size_t n = size * count;
  if (t->body.size() + n > k_max_response_bytes) {
    t->too_large = true;
    return 0; // aborts the transfer with CURLE_WRITE_ERROR
  }
  t->body.append(data, n);
  return n;
}

std::size_t on_header(char *data, std::size_t size, std::size_t count, void *user) {
  auto *t = static_cast<Transfer *>(user);
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

long remaining_ms(Deadline deadline) { return static_cast<long>(time_left(deadline).count()); }

Error transport_error(const Curl &curl, CURLcode code, const Transfer &t) {
  if (t.too_large) return response_too_large();
  if (code == CURLE_OPERATION_TIMEDOUT) return make_error(ErrorKind::timeout, "deadline reached");
  return make_error(ErrorKind::transport, t.error[0] ? t.error : curl.easy_strerror(code));
}

// True when `dir` holds OpenSSL hash links (`1a2b3c4d.0`), so certificates can be looked up one
// by one instead of parsing a whole bundle.
bool is_hashed_cert_dir(const char *dir) {
  std::error_code ec;
  for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() == 10 && name.compare(8, 2, ".0") == 0 &&
        name.find_first_not_of("0123456789abcdef") == 8)
      return true;
  }
  return false;
}

// Why the CA bundle cannot serve `url`: a path that exists but is neither a regular file nor a
// directory (a FIFO would block the TLS set-up until the process is killed). Failing the request
// is safer than falling back to the system store, which would trust what the user did not mean.
std::optional<Error> refuse_ca_bundle(const std::optional<std::string> &ca_bundle,
                                      const std::string &url) {
  struct stat st {};
  if (!ca_bundle || !url.starts_with("https://") || ::stat(ca_bundle->c_str(), &st) != 0)
    return std::nullopt; // a missing one is libcurl's to report
  if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) return std::nullopt;
  return make_error(ErrorKind::transport,
                    "CA bundle " + *ca_bundle + " is not a regular file or a directory");
}

Error refused(std::string_view setting) {
  return make_error(ErrorKind::transport, "libcurl refused " + std::string(setting));
}

// Configure one easy handle for `r`; the handle reports into `t`. An error when libcurl refuses
// a setting the transfer must not go without (then it is not sent).
std::optional<Error> configure(const Curl &curl, const HttpRequest &r, Transfer &t, long budget_ms,
                               const std::optional<std::string> &ca_bundle) {
  CURL *e = t.easy;
  const CurlOptions options{
      [&](int option, long value) {
        return static_cast<int>(curl.easy_setopt(e, static_cast<CURLoption>(option), value));
      },
      [&](int option, const char *text) {
        return static_cast<int>(curl.easy_setopt(e, static_cast<CURLoption>(option), text));
      }};
  if (auto error = set_safety_options(options)) return error;
  for (const auto &h : r.headers)
    t.headers = curl.slist_append(t.headers, h.c_str());
  curl.easy_setopt(e, CURLOPT_URL, r.url.c_str());
  curl.easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
  if (r.method == "POST" || !r.body.empty()) { // a PUT sends its body the same way
    curl.easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
    curl.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  }
  if (r.method != "POST" && r.method != "GET")
    curl.easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  // Certificates: a hashed directory is searched per certificate, while a bundle file is parsed
  // whole on every run (about 26 ms of CPU for the ~145 system certificates). So prefer
  // libcurl's default directory to its default bundle when the directory is hashed.
  std::error_code ec;
  if (ca_bundle) {
    const bool dir = std::filesystem::is_directory(*ca_bundle, ec);
    if (curl.easy_setopt(e, CURLOPT_CAINFO, dir ? nullptr : ca_bundle->c_str()) != CURLE_OK ||
        curl.easy_setopt(e, CURLOPT_CAPATH, dir ? ca_bundle->c_str() : nullptr) != CURLE_OK)
      return refused("the CA bundle (CURLOPT_CAINFO, CURLOPT_CAPATH)");
  } else if (r.url.starts_with("https://")) {
    static const bool default_dir_hashed = [&] {
      char *capath = nullptr;
      return curl.easy_getinfo(e, CURLINFO_CAPATH, &capath) == CURLE_OK && capath &&
             is_hashed_cert_dir(capath);
    }();
    if (default_dir_hashed) curl.easy_setopt(e, CURLOPT_CAINFO, nullptr);
  }
  curl.easy_setopt(e, CURLOPT_ERRORBUFFER, t.error);
  curl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl.easy_setopt(e, CURLOPT_QUICK_EXIT, 1L); // never wait for a hung DNS lookup at cleanup
  if (curl.easy_setopt(e, CURLOPT_TIMEOUT_MS, budget_ms) != CURLE_OK ||
      curl.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, budget_ms) != CURLE_OK)
    return refused("the deadline (CURLOPT_TIMEOUT_MS)");
  // Over TLS, wait for the first connection to learn whether it multiplexes (HTTP/2) so parallel
  // searches share one handshake; plain HTTP/1.1 would only serialise them.
  if (r.url.starts_with("https://")) curl.easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl.easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  curl.easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  curl.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl.easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl.easy_setopt(e, CURLOPT_HEADERDATA, &t);
  curl.easy_setopt(e, CURLOPT_PRIVATE, &t);
  return std::nullopt;
}

} // namespace

std::optional<Error> set_safety_options(const CurlOptions &set) {
  if (set.text(CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK &&
      set.number(CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS) != CURLE_OK)
    return refused("the protocol list (CURLOPT_PROTOCOLS_STR, CURLOPT_PROTOCOLS)");
  // No redirects: the token must not travel to another host.
  if (set.number(CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK) return refused("CURLOPT_FOLLOWLOCATION");
  if (set.number(CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK) return refused("CURLOPT_SSL_VERIFYPEER");
  if (set.number(CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK) return refused("CURLOPT_SSL_VERIFYHOST");
  return std::nullopt;
}

SystemHttpClient::SystemHttpClient(std::optional<std::string> ca_bundle)
    : m_ca_bundle(std::move(ca_bundle)) {}

std::vector<Result<HttpResponse>> SystemHttpClient::run(const std::vector<HttpRequest> &requests,
                                                        Deadline deadline) {
  std::vector<Result<HttpResponse>> results;
  if (requests.empty()) return results;
  std::string why;
  const Curl *curl = load_curl(why);
  if (!curl) {
    results.assign(requests.size(), unexpected(make_error(ErrorKind::no_libcurl, why)));
    return results;
  }
  const auto started = SteadyClock::now();
  CURLM *multi = curl->multi_init();
  if (!multi) {
    results.assign(requests.size(),
                   unexpected(make_error(ErrorKind::transport, "curl_multi_init failed")));
    return results;
  }
  curl->multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  std::vector<Transfer> transfers(requests.size());
  const long budget = std::max<long>(1, remaining_ms(deadline));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    Transfer &t = transfers[i];
    if (auto refused = refuse_ca_bundle(m_ca_bundle, requests[i].url)) {
      t.result = unexpected(std::move(*refused));
      continue;
    }
    t.easy = curl->easy_init();
    if (!t.easy) {
      t.result = unexpected(make_error(ErrorKind::transport, "curl_easy_init failed"));
      continue;
    }
    if (auto error = configure(*curl, requests[i], t, budget, m_ca_bundle)) {
      t.result = unexpected(std::move(*error));
      continue;
    }
    curl->multi_add_handle(multi, t.easy);
  }

  // Drive the transfers until all are done or the deadline passes; unfinished ones time out.
  for (int running = 1;;) {
    if (curl->multi_perform(multi, &running) != CURLM_OK) break;
    int queued = 0;
    while (CURLMsg *msg = curl->multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer *t = nullptr;
      curl->easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      if (msg->data.result != CURLE_OK) {
        t->result = unexpected(transport_error(*curl, msg->data.result, *t));
        continue;
      }
      HttpResponse response;
      curl->easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &response.status);
      response.body = std::move(t->body);
      response.retry_after = t->retry_after;
      response.latency =
          std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - started);
      t->result = std::move(response);
    }
    const long left = remaining_ms(deadline);
    if (running == 0 || left <= 0) break;
    curl->multi_poll(multi, nullptr, 0, static_cast<int>(std::min<long>(left, 1000)), nullptr);
  }

  for (auto &t : transfers) {
    if (!t.result) t.result = unexpected(make_error(ErrorKind::timeout, "deadline reached"));
    if (t.easy) {
      curl->multi_remove_handle(multi, t.easy);
      curl->easy_cleanup(t.easy);
    }
    curl->slist_free_all(t.headers);
    results.push_back(std::move(*t.result));
  }
  curl->multi_cleanup(multi);
  return results;
}

} // namespace mem0
