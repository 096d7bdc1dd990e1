// The system's HTTP client on Windows: WinHTTP (docs/contributing.md#platforms).
//
// Design: WinHTTP's asynchronous mode. The calling thread opens and sends every request, then
// waits until all are answered or the deadline passes; WinHTTP's own threads drive each transfer
// through a callback (sent, headers, each read, an error). At the deadline the caller marks the
// unfinished transfers `timeout` and closes every handle, which cancels what is pending, and
// returns at once: it never waits for a cancellation to finish. One synchronous thread per
// request would be simpler, but the caller could not return until each blocked call gave up
// (wine, for one, does not cancel a synchronous receive when its handle is closed).
// Safety: a transfer's state lives until WinHTTP reports its handle closed, and every call on a
// request handle, from the caller or a callback, is made under the run's lock after checking
// that the caller has not closed it, so no handle is used after it is closed.
//
// WinHTTP is loaded on first use, as libcurl is elsewhere: runs that send nothing never map it.
#include "mem0/http.hpp"

#include <windows.h>
#include <winhttp.h>

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>

namespace mem0 {
namespace {

struct WinHttp {
  decltype(&WinHttpOpen) open;
  decltype(&WinHttpConnect) connect;
  decltype(&WinHttpOpenRequest) open_request;
  decltype(&WinHttpSetOption) set_option;
  decltype(&WinHttpSetTimeouts) set_timeouts;
  decltype(&WinHttpSetStatusCallback) set_status_callback;
  decltype(&WinHttpSendRequest) send_request;
  decltype(&WinHttpReceiveResponse) receive_response;
  decltype(&WinHttpQueryHeaders) query_headers;
  decltype(&WinHttpReadData) read_data;
  decltype(&WinHttpCloseHandle) close_handle;
  decltype(&WinHttpCrackUrl) crack_url;
  HMODULE module;
};

template <class F> bool bind(HMODULE module, const char *name, F &fn) {
  fn = reinterpret_cast<F>(reinterpret_cast<void *>(GetProcAddress(module, name)));
  return fn != nullptr;
}

// The loaded WinHTTP, from the system directory only, or nullptr when it cannot be had.
const WinHttp *load_winhttp() {
  static const WinHttp *api = []() -> const WinHttp * {
    HMODULE module = LoadLibraryExW(L"winhttp.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (!module) return nullptr;
    static WinHttp w{};
    w.module = module;
    const bool ok = bind(module, "WinHttpOpen", w.open) &&
                    bind(module, "WinHttpConnect", w.connect) &&
                    bind(module, "WinHttpOpenRequest", w.open_request) &&
                    bind(module, "WinHttpSetOption", w.set_option) &&
                    bind(module, "WinHttpSetTimeouts", w.set_timeouts) &&
                    bind(module, "WinHttpSetStatusCallback", w.set_status_callback) &&
                    bind(module, "WinHttpSendRequest", w.send_request) &&
                    bind(module, "WinHttpReceiveResponse", w.receive_response) &&
                    bind(module, "WinHttpQueryHeaders", w.query_headers) &&
                    bind(module, "WinHttpReadData", w.read_data) &&
                    bind(module, "WinHttpCloseHandle", w.close_handle) &&
                    bind(module, "WinHttpCrackUrl", w.crack_url);
    return ok ? &w : nullptr;
  }();
  return api;
}

std::wstring widen(std::string_view text) {
  if (text.empty()) return {};
  const int n =
      MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), nullptr, 0);
  std::wstring wide(static_cast<std::size_t>(std::max(n, 0)), L'\0');
  if (n > 0)
    MultiByteToWideChar(CP_UTF8, 0, text.data(), static_cast<int>(text.size()), wide.data(), n);
  return wide;
}

// WinHTTP's reason for `code`, with the number, as the log should show it.
std::string describe(const WinHttp &api, DWORD code) {
  char text[256] = {};
  const DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_IGNORE_INSERTS,
                                 api.module, code, 0, text, sizeof text, nullptr);
  std::string reason(text, n);
  while (!reason.empty() &&
         (reason.back() == '\n' || reason.back() == '\r' || reason.back() == '.'))
    reason.pop_back();
  const std::string number = "WinHTTP error " + std::to_string(code);
  return reason.empty() ? number : reason + " (" + number + ")";
}

// What a TLS failure's flags (WINHTTP_CALLBACK_STATUS_SECURE_FAILURE) say was wrong.
std::string tls_problem(DWORD flags) {
  if (flags & WINHTTP_CALLBACK_STATUS_FLAG_INVALID_CA) return "certificate not trusted";
  if (flags & WINHTTP_CALLBACK_STATUS_FLAG_CERT_CN_INVALID) return "certificate for another host";
  if (flags & WINHTTP_CALLBACK_STATUS_FLAG_CERT_DATE_INVALID) return "certificate expired";
  if (flags & WINHTTP_CALLBACK_STATUS_FLAG_CERT_REVOKED) return "certificate revoked";
  if (flags & WINHTTP_CALLBACK_STATUS_FLAG_CERT_REV_FAILED) return "revocation check failed";
  return "TLS failure";
}

Error call_error(const WinHttp &api, DWORD code) {
  if (code == ERROR_WINHTTP_TIMEOUT) return make_error(ErrorKind::timeout, "deadline reached");
  return make_error(ErrorKind::transport, describe(api, code));
}

// What a run's transfers share with the caller: the lock every call on a request handle is made
// under (recursive, since WinHTTP may call back from inside a call), and the count of transfers
// still going, which the caller waits on.
struct Run {
  std::recursive_mutex mutex;
  std::condition_variable_any changed;
  std::size_t going = 0;
  SteadyClock::time_point started;
};

// One request in flight. It outlives the caller's run() when WinHTTP still holds it: WinHTTP's
// context value for the request handle is a heap `std::shared_ptr<Transfer>`, deleted when the
// handle is reported closed.
struct Transfer {
  const WinHttp *api = nullptr;
  std::shared_ptr<Run> run;
  HINTERNET connection = nullptr;
  HINTERNET request = nullptr; // cleared (under the lock) when the caller closes it
  std::wstring headers;
  std::string body;         // must stay put until the send completes
  std::vector<char> buffer; // each read lands here
  DWORD tls_flags = 0;      // from a TLS failure, to name it
  HttpResponse response;
  std::optional<Result<HttpResponse>> result;
};

// Record `t`'s outcome, once; under the lock.
void finish(Transfer &t, Result<HttpResponse> outcome) {
  if (t.result) return;
  t.result = std::move(outcome);
  --t.run->going;
  t.run->changed.notify_all();
}

void fail(Transfer &t, DWORD code) {
  if (code == ERROR_WINHTTP_SECURE_FAILURE && t.tls_flags)
    finish(t, unexpected(make_error(ErrorKind::transport, tls_problem(t.tls_flags) + " (" +
                                                              describe(*t.api, code) + ")")));
  else
    finish(t, unexpected(call_error(*t.api, code)));
}

// Ask for the next piece of the body; under the lock.
void read_next(Transfer &t) {
  if (!t.api->read_data(t.request, t.buffer.data(), static_cast<DWORD>(t.buffer.size()), nullptr))
    fail(t, GetLastError());
}

// The headers are in: the status and Retry-After, then the body.
void on_headers(Transfer &t) {
  DWORD status = 0;
  DWORD size = sizeof status;
  if (!t.api->query_headers(t.request, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
                            WINHTTP_HEADER_NAME_BY_INDEX, &status, &size, WINHTTP_NO_HEADER_INDEX))
    return fail(t, GetLastError());
  t.response.status = static_cast<long>(status);
  wchar_t retry[32] = {};
  size = sizeof retry;
  if (t.api->query_headers(t.request, WINHTTP_QUERY_RETRY_AFTER, WINHTTP_HEADER_NAME_BY_INDEX,
                           retry, &size, WINHTTP_NO_HEADER_INDEX)) {
    std::string ascii;
    for (std::size_t i = 0; i < size / sizeof(wchar_t); ++i)
      ascii.push_back(retry[i] < 128 ? static_cast<char>(retry[i]) : '?');
    t.response.retry_after = parse_retry_after(ascii);
  }
  read_next(t);
}

void on_read(Transfer &t, DWORD got) {
  if (got == 0) {
    t.response.latency =
        std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - t.run->started);
    return finish(t, std::move(t.response));
  }
  if (t.response.body.size() + got > k_max_response_bytes)
    return finish(t, unexpected(response_too_large()));
  t.response.body.append(t.buffer.data(), got);
  read_next(t);
}

void CALLBACK on_status(HINTERNET, DWORD_PTR context, DWORD status, void *info, DWORD length) {
  if (!context) return; // the session's and connections' own notices
  auto *owner = reinterpret_cast<std::shared_ptr<Transfer> *>(context);
  if (status == WINHTTP_CALLBACK_STATUS_HANDLE_CLOSING) {
    delete owner; // WinHTTP's last word on this handle
    return;
  }
  Transfer &t = **owner;
  const std::lock_guard lock(t.run->mutex);
  if (t.result || !t.request) return; // over, or closed by the caller
  switch (status) {
  case WINHTTP_CALLBACK_STATUS_SECURE_FAILURE:
    if (info && length >= sizeof(DWORD)) t.tls_flags = *static_cast<DWORD *>(info);
    break;
  case WINHTTP_CALLBACK_STATUS_SENDREQUEST_COMPLETE:
    if (!t.api->receive_response(t.request, nullptr)) fail(t, GetLastError());
    break;
  case WINHTTP_CALLBACK_STATUS_HEADERS_AVAILABLE: on_headers(t); break;
  case WINHTTP_CALLBACK_STATUS_READ_COMPLETE: on_read(t, length); break;
  case WINHTTP_CALLBACK_STATUS_REQUEST_ERROR:
    fail(t, static_cast<WINHTTP_ASYNC_RESULT *>(info)->dwError);
    break;
  default: break;
  }
}

// Open `t`'s handles for `r` with every setting a request must not go without, and send it; an
// error when a setting is refused or the send fails at once (then nothing is pending).
std::optional<Error> start(const WinHttp &api, HINTERNET session, const HttpRequest &r,
                           const std::shared_ptr<Transfer> &owned, int budget_ms) {
  Transfer &t = *owned;
  const std::wstring url = widen(r.url);
  URL_COMPONENTS parts{};
  parts.dwStructSize = sizeof parts;
  parts.dwSchemeLength = static_cast<DWORD>(-1);
  parts.dwHostNameLength = static_cast<DWORD>(-1);
  parts.dwUrlPathLength = static_cast<DWORD>(-1);
  parts.dwExtraInfoLength = static_cast<DWORD>(-1);
  if (url.empty() || !api.crack_url(url.c_str(), static_cast<DWORD>(url.size()), 0, &parts) ||
      (parts.nScheme != INTERNET_SCHEME_HTTP && parts.nScheme != INTERNET_SCHEME_HTTPS))
    return make_error(ErrorKind::transport, "not an http:// or https:// URL");
  const std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
  std::wstring target(parts.lpszUrlPath, parts.dwUrlPathLength);
  target.append(parts.lpszExtraInfo, parts.dwExtraInfoLength);
  if (target.empty()) target = L"/";

  t.connection = api.connect(session, host.c_str(), parts.nPort, 0);
  if (!t.connection) return call_error(api, GetLastError());
  // No flag that ignores a certificate problem is ever set: WinHTTP checks the chain against the
  // Windows certificate store, and the host name.
  t.request = api.open_request(t.connection, widen(r.method).c_str(), target.c_str(), nullptr,
                               WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES,
                               parts.nScheme == INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0);
  if (!t.request) return call_error(api, GetLastError());
  auto *context = new std::shared_ptr<Transfer>(owned);
  DWORD_PTR context_value = reinterpret_cast<DWORD_PTR>(context);
  if (!api.set_option(t.request, WINHTTP_OPTION_CONTEXT_VALUE, &context_value,
                      sizeof context_value)) {
    delete context;
    return call_error(api, GetLastError());
  }
  // From here the handle's closing frees `context`.

  // No redirects: the token must not travel to another host; a 3xx comes back as it is.
  DWORD never = WINHTTP_OPTION_REDIRECT_POLICY_NEVER;
  if (!api.set_option(t.request, WINHTTP_OPTION_REDIRECT_POLICY, &never, sizeof never))
    return make_error(ErrorKind::transport, "WinHTTP refused WINHTTP_OPTION_REDIRECT_POLICY");
  DWORD disabled = WINHTTP_DISABLE_REDIRECTS | WINHTTP_DISABLE_COOKIES;
  if (!api.set_option(t.request, WINHTTP_OPTION_DISABLE_FEATURE, &disabled, sizeof disabled))
    return make_error(ErrorKind::transport, "WinHTTP refused WINHTTP_DISABLE_REDIRECTS");
  // The deadline is the caller's: what is unfinished then is a `timeout`. WinHTTP's own time
  // limits, a second past it, only end in the background a transfer that closing its handle did
  // not cancel; were they the budget itself, one could end a hair before the deadline as another
  // error (wine reports its socket's WSAETIMEDOUT, 10060). The wait for the response's headers
  // has a limit of its own.
  const int limit =
      budget_ms > std::numeric_limits<int>::max() - 1000 ? budget_ms : budget_ms + 1000;
  DWORD limit_value = static_cast<DWORD>(limit);
  if (!api.set_timeouts(t.request, limit, limit, limit, limit) ||
      !api.set_option(t.request, WINHTTP_OPTION_RECEIVE_RESPONSE_TIMEOUT, &limit_value,
                      sizeof limit_value))
    return make_error(ErrorKind::transport, "WinHTTP refused the deadline (WinHttpSetTimeouts)");
  // Where this Windows has them (8.1, 10): compressed answers, HTTP/2 over TLS.
  DWORD decompress = WINHTTP_DECOMPRESSION_FLAG_ALL;
  (void)api.set_option(t.request, WINHTTP_OPTION_DECOMPRESSION, &decompress, sizeof decompress);
  DWORD http2 = WINHTTP_PROTOCOL_FLAG_HTTP2;
  (void)api.set_option(t.request, WINHTTP_OPTION_ENABLE_HTTP_PROTOCOL, &http2, sizeof http2);

  for (const auto &h : r.headers)
    t.headers += widen(h) + L"\r\n";
  t.body = r.body;
  t.buffer.resize(64 * 1024);
  // A POST always carries its body, even an empty one; other methods carry one when given.
  const bool with_body = r.method == "POST" || !r.body.empty();
  const DWORD length = with_body ? static_cast<DWORD>(t.body.size()) : 0;
  ++t.run->going; // the caller holds the lock: a callback cannot finish it before this
  if (!api.send_request(
          t.request, t.headers.empty() ? WINHTTP_NO_ADDITIONAL_HEADERS : t.headers.c_str(),
          t.headers.empty() ? 0 : static_cast<DWORD>(-1),
          with_body ? t.body.data() : WINHTTP_NO_REQUEST_DATA, length, length, context_value))
    fail(t, GetLastError());
  return std::nullopt;
}

} // namespace

SystemHttpClient::SystemHttpClient(std::optional<std::string> ca_bundle)
    : m_ca_bundle(std::move(ca_bundle)) {}

std::vector<Result<HttpResponse>> SystemHttpClient::run(const std::vector<HttpRequest> &requests,
                                                        Deadline deadline) {
  std::vector<Result<HttpResponse>> results;
  if (requests.empty()) return results;
  const WinHttp *api = load_winhttp();
  if (!api) {
    results.assign(requests.size(),
                   unexpected(make_error(ErrorKind::transport, "cannot load winhttp.dll")));
    return results;
  }
  auto run = std::make_shared<Run>();
  run->started = SteadyClock::now();
  // The system's proxy: the user's settings and proxy auto-discovery (Windows 8.1 and later),
  // else the machine's WinHTTP proxy (`netsh winhttp`).
  HINTERNET session = api->open(L"mem0-hooks", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY,
                                WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, WINHTTP_FLAG_ASYNC);
  if (!session)
    session = api->open(L"mem0-hooks", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                        WINHTTP_NO_PROXY_BYPASS, WINHTTP_FLAG_ASYNC);
  if (!session || api->set_status_callback(session, on_status,
                                           WINHTTP_CALLBACK_FLAG_ALL_COMPLETIONS |
                                               WINHTTP_CALLBACK_FLAG_SECURE_FAILURE |
                                               WINHTTP_CALLBACK_FLAG_HANDLES,
                                           0) == WINHTTP_INVALID_STATUS_CALLBACK) {
    const DWORD code = GetLastError();
    if (session) api->close_handle(session);
    results.assign(requests.size(), unexpected(call_error(*api, code)));
    return results;
  }

  std::vector<std::shared_ptr<Transfer>> transfers;
  std::vector<HINTERNET> to_close;
  const int budget = static_cast<int>(
      std::clamp<long long>(time_left(deadline).count(), 1, std::numeric_limits<int>::max()));
  {
    std::unique_lock lock(run->mutex);
    for (const auto &r : requests) {
      auto t = std::make_shared<Transfer>();
      t->api = api;
      t->run = run;
      transfers.push_back(t);
      if (auto error = start(*api, session, r, t, budget))
        t->result = unexpected(std::move(*error));
    }
    run->changed.wait_until(lock, deadline, [&] { return run->going == 0; });
    // Over, or the deadline passed: what is unfinished timed out. Clearing the handles tells the
    // callbacks still to come to leave them alone; they are closed once the lock is released.
    for (auto &t : transfers) {
      if (!t->result) t->result = unexpected(make_error(ErrorKind::timeout, "deadline reached"));
      if (t->request) to_close.push_back(std::exchange(t->request, nullptr));
      if (t->connection) to_close.push_back(std::exchange(t->connection, nullptr));
      results.push_back(std::move(*t->result));
    }
  }
  for (HINTERNET handle : to_close)
    api->close_handle(handle);
  api->close_handle(session);
  return results;
}

} // namespace mem0
