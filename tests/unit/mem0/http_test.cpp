// The system's HTTP client (mem0/http.hpp) against a loopback server the test owns: the same
// cases for libcurl and for WinHTTP (under wine), since both must keep the same rules.
// Tagged [no-qemu]: not run under qemu-user (docs/install.md#linux-arm64).
#include "mem0/http.hpp"
#include "tests/unit/catch.hpp"
#include "tests/unit/mem0/loopback_socket.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace mem0;
using namespace mem0::testing;
using namespace std::chrono_literals;

namespace {

// What the server saw of one request.
struct Seen {
  std::string method;
  std::string path;
  std::string head; // the request line and headers, lower-cased
  std::string body;
};

// An HTTP/1.1 server on 127.0.0.1 answering by path, one thread per connection, each answer
// closing its connection:
//   /ok            200 "hello"
//   /echo          200 "<method> <body>"
//   /slow/<ms>     200 "slow" after <ms> milliseconds
//   /silent        never answers (until the server stops)
//   /trickle       200 promising 1000 bytes, then one byte each 100 ms
//   /size/<bytes>  200 with a body of that many bytes
//   /busy          429 with Retry-After: 7
//   /moved         301 to /ok
class LoopbackServer {
public:
  LoopbackServer() : m_listener(listen_loopback(m_port)) {
    if (m_listener != k_no_socket) m_acceptor = std::thread([this] { accept_loop(); });
  }
  ~LoopbackServer() {
    {
      const std::lock_guard lock(m_mutex);
      m_stopping = true;
    }
    m_stop.notify_all();
    close_socket(connect_loopback(m_port)); // wakes the blocked accept
    if (m_acceptor.joinable()) m_acceptor.join();
    for (auto &t : m_handlers)
      t.join();
    close_socket(m_listener);
  }
  LoopbackServer(const LoopbackServer &) = delete;
  LoopbackServer &operator=(const LoopbackServer &) = delete;

  bool listening() const { return m_listener != k_no_socket; }
  std::string url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + std::string(path);
  }
  std::vector<Seen> seen() const {
    const std::lock_guard lock(m_mutex);
    return m_seen;
  }

private:
  void accept_loop() {
    for (;;) {
      const Socket client = accept_client(m_listener);
      const std::lock_guard lock(m_mutex);
      if (m_stopping || client == k_no_socket) {
        close_socket(client);
        return;
      }
      m_handlers.emplace_back([this, client] {
        serve(client);
        close_socket(client);
      });
    }
  }

  // Read one request: the head up to the blank line, then Content-Length bytes of body.
  static bool read_request(Socket client, Seen &seen) {
    std::string data;
    char buffer[8192];
    std::size_t end = std::string::npos;
    while ((end = data.find("\r\n\r\n")) == std::string::npos) {
      const long n = receive_some(client, buffer, sizeof buffer);
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
    }
    seen.head = data.substr(0, end);
    std::transform(seen.head.begin(), seen.head.end(), seen.head.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string line = data.substr(0, data.find("\r\n"));
    seen.method = line.substr(0, line.find(' '));
    seen.path = line.substr(line.find(' ') + 1);
    seen.path = seen.path.substr(0, seen.path.find(' '));
    std::size_t length = 0;
    if (const auto at = seen.head.find("\r\ncontent-length:"); at != std::string::npos)
      length = std::stoul(seen.head.substr(at + 17));
    seen.body = data.substr(end + 4);
    while (seen.body.size() < length) {
      const long n = receive_some(client, buffer, sizeof buffer);
      if (n <= 0) return false;
      seen.body.append(buffer, static_cast<std::size_t>(n));
    }
    return true;
  }

  static std::string answer(int status, std::string_view reason, std::string_view body,
                            std::string_view extra = "") {
    return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n" +
           std::string(extra) + "\r\n" + std::string(body);
  }

  void serve(Socket client) {
    Seen seen;
    if (!read_request(client, seen)) return;
    {
      const std::lock_guard lock(m_mutex);
      m_seen.push_back(seen);
    }
    const std::string &path = seen.path;
    if (path == "/ok") {
      send_all(client, answer(200, "OK", "hello"));
    } else if (path == "/echo") {
      send_all(client, answer(200, "OK", seen.method + " " + seen.body));
    } else if (path.starts_with("/slow/")) {
      std::unique_lock lock(m_mutex);
      if (!m_stop.wait_for(lock, std::chrono::milliseconds(std::stoi(path.substr(6))),
                           [&] { return m_stopping; })) {
        lock.unlock();
        send_all(client, answer(200, "OK", "slow"));
      }
    } else if (path == "/silent") {
      std::unique_lock lock(m_mutex);
      m_stop.wait(lock, [&] { return m_stopping; });
    } else if (path == "/trickle") {
      if (!send_all(client, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")) return;
      std::unique_lock lock(m_mutex);
      while (!m_stop.wait_for(lock, 100ms, [&] { return m_stopping; })) {
        lock.unlock();
        if (!send_all(client, "x")) return;
        lock.lock();
      }
    } else if (path.starts_with("/size/")) {
      send_all(client, answer(200, "OK", std::string(std::stoul(path.substr(6)), 'x')));
    } else if (path == "/busy") {
      send_all(client, answer(429, "Too Many Requests", "slow down", "Retry-After: 7\r\n"));
    } else if (path == "/moved") {
      send_all(client,
               answer(301, "Moved Permanently", "moved", "Location: " + url("/ok") + "\r\n"));
    } else {
      send_all(client, answer(404, "Not Found", ""));
    }
  }

  int m_port = 0;
  Socket m_listener;
  mutable std::mutex m_mutex;
  std::condition_variable m_stop;
  bool m_stopping = false;
  std::vector<Seen> m_seen;
  std::thread m_acceptor;
  std::vector<std::thread> m_handlers;
};

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

HttpRequest get(std::string url) { return HttpRequest{"GET", std::move(url), {}, {}}; }

} // namespace

TEST_CASE("http: a 200 comes back with its body, status and latency", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto start = SteadyClock::now();
  HttpRequest request = get(server.url("/ok"));
  request.headers = {"X-Probe: yes", "Content-Type: application/json"};
  const auto results = http.run({request}, SteadyClock::now() + 5s);
  const double elapsed = seconds_since(start);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].has_value());
  CHECK(results[0]->status == 200);
  CHECK(results[0]->body == "hello");
  CHECK_FALSE(results[0]->retry_after.has_value());
  CHECK(results[0]->latency.count() >= 0);
  CHECK(results[0]->latency.count() <= static_cast<long>(elapsed * 1000) + 1);
  const auto seen = server.seen();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].method == "GET");
  CHECK(seen[0].head.find("\r\nx-probe: yes") != std::string::npos);
}

TEST_CASE("http: no requests, no results", "[http][no-qemu]") {
  SystemHttpClient http;
  CHECK(http.run({}, SteadyClock::now() + 1s).empty());
}

TEST_CASE("http: requests run in parallel under one deadline", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  // Six answers of 500 ms each: one after the other they would take 3 s.
  const std::vector<HttpRequest> requests(6, get(server.url("/slow/500")));
  const auto start = SteadyClock::now();
  const auto results = http.run(requests, SteadyClock::now() + 5s);
  const double elapsed = seconds_since(start);
  REQUIRE(results.size() == 6);
  for (const auto &r : results) {
    REQUIRE(r.has_value());
    CHECK(r->status == 200);
    CHECK(r->body == "slow");
    CHECK(r->latency >= 450ms);
  }
  CHECK(elapsed >= 0.45);
  CHECK(elapsed < 2.0);
}

TEST_CASE("http: a server that never answers times out at the deadline, the others still come "
          "back",
          "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto start = SteadyClock::now();
  const auto results =
      http.run({get(server.url("/silent")), get(server.url("/ok"))}, SteadyClock::now() + 700ms);
  const double elapsed = seconds_since(start);
  REQUIRE(results.size() == 2);
  REQUIRE_FALSE(results[0].has_value());
  INFO(results[0].error().message);
  CHECK(results[0].error().kind == ErrorKind::timeout);
  REQUIRE(results[1].has_value());
  CHECK(results[1]->body == "hello");
  CHECK(elapsed >= 0.6);
  CHECK(elapsed < 1.5);
}

TEST_CASE("http: a body that keeps trickling in times out at the deadline", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto start = SteadyClock::now();
  const auto results = http.run({get(server.url("/trickle"))}, SteadyClock::now() + 700ms);
  const double elapsed = seconds_since(start);
  REQUIRE(results.size() == 1);
  REQUIRE_FALSE(results[0].has_value());
  CHECK(results[0].error().kind == ErrorKind::timeout);
  CHECK(elapsed >= 0.6);
  CHECK(elapsed < 1.5);
}

TEST_CASE("http: a deadline already passed sends nothing that could hang", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto start = SteadyClock::now();
  const auto results = http.run({get(server.url("/silent"))}, SteadyClock::now());
  REQUIRE(results.size() == 1);
  REQUIRE_FALSE(results[0].has_value());
  CHECK(results[0].error().kind == ErrorKind::timeout);
  CHECK(seconds_since(start) < 1.0);
}

TEST_CASE("http: a body over the cap is refused, one at the cap is taken", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto results =
      http.run({get(server.url("/size/" + std::to_string(k_max_response_bytes + 1))),
                get(server.url("/size/" + std::to_string(k_max_response_bytes)))},
               SteadyClock::now() + 10s);
  REQUIRE(results.size() == 2);
  REQUIRE_FALSE(results[0].has_value());
  CHECK(results[0].error().kind == ErrorKind::bad_response);
  CHECK(results[0].error().message == response_too_large().message);
  REQUIRE(results[1].has_value());
  CHECK(results[1]->status == 200);
  CHECK(results[1]->body.size() == k_max_response_bytes);
}

TEST_CASE("http: a 429 is a response, with its Retry-After", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto results = http.run({get(server.url("/busy"))}, SteadyClock::now() + 5s);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].has_value());
  CHECK(results[0]->status == 429);
  CHECK(results[0]->body == "slow down");
  CHECK(results[0]->retry_after == std::optional<std::chrono::seconds>(7s));
}

TEST_CASE("http: a redirect is not followed", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const auto results = http.run({get(server.url("/moved"))}, SteadyClock::now() + 5s);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].has_value());
  CHECK(results[0]->status == 301);
  CHECK(results[0]->body == "moved");
  const auto seen = server.seen();
  REQUIRE(seen.size() == 1); // nothing asked for /ok
  CHECK(seen[0].path == "/moved");
}

TEST_CASE("http: a refused connection is a transport error, at once", "[http][no-qemu]") {
  int port = 0;
  const Socket probe = listen_loopback(port);
  REQUIRE(probe != k_no_socket);
  close_socket(probe); // nothing listens on `port` now
  SystemHttpClient http;
  const auto start = SteadyClock::now();
  const auto results =
      http.run({get("http://127.0.0.1:" + std::to_string(port) + "/")}, SteadyClock::now() + 5s);
  REQUIRE(results.size() == 1);
  REQUIRE_FALSE(results[0].has_value());
  CHECK(results[0].error().kind == ErrorKind::transport);
  CHECK_FALSE(results[0].error().message.empty());
  CHECK(seconds_since(start) < 4.0);
}

TEST_CASE("http: only http and https URLs are sent", "[http][no-qemu]") {
  SystemHttpClient http;
  const auto results =
      http.run({get("ftp://127.0.0.1/"), get("file:///etc/hostname")}, SteadyClock::now() + 2s);
  REQUIRE(results.size() == 2);
  for (const auto &r : results) {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ErrorKind::transport);
  }
}

TEST_CASE("http: every method carries its body", "[http][no-qemu]") {
  LoopbackServer server;
  REQUIRE(server.listening());
  SystemHttpClient http;
  const std::string json = R"({"text":"a memory"})";
  const std::vector<HttpRequest> requests{
      {"POST", server.url("/echo"), {"Content-Type: application/json"}, json},
      {"PUT", server.url("/echo"), {"Content-Type: application/json"}, json},
      {"DELETE", server.url("/echo"), {"Content-Type: application/json"}, json},
      {"GET", server.url("/echo"), {}, {}},
      {"POST", server.url("/echo"), {}, {}}};
  const auto results = http.run(requests, SteadyClock::now() + 5s);
  REQUIRE(results.size() == 5);
  const std::vector<std::string> expected{"POST " + json, "PUT " + json, "DELETE " + json, "GET ",
                                          "POST "};
  for (std::size_t i = 0; i < results.size(); ++i) {
    INFO("request " << i);
    REQUIRE(results[i].has_value());
    CHECK(results[i]->status == 200);
    CHECK(results[i]->body == expected[i]);
  }
  std::map<std::string, std::string> length_of; // each method's Content-Length, as sent
  for (const auto &s : server.seen()) {
    if (s.body.empty()) continue;
    const auto at = s.head.find("\r\ncontent-length:");
    REQUIRE(at != std::string::npos);
    length_of[s.method] = std::to_string(std::stoul(s.head.substr(at + 17)));
  }
  for (const char *method : {"POST", "PUT", "DELETE"})
    CHECK(length_of[method] == std::to_string(json.size()));
}
