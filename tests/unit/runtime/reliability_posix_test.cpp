// Files that are not what they should be: a FIFO (or other special file) where a state file,
// settings, a profile, the debug log, an outbox item or the CA bundle is expected must never
// block a hook (docs/failures.md). POSIX only: Windows has no FIFO in a directory.
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/remember.hpp"
#include "runtime/sender.hpp"
#include "store/outbox.hpp"
#include "util/detach.hpp"
#include "util/files.hpp"

#include <arpa/inet.h>
#include <atomic>
#include <condition_variable>
#include <fcntl.h>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

// Make a FIFO at `path` (parents created).
void make_fifo(const fs::path &path) {
  fs::create_directories(path.parent_path());
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
}

// After `grace`, keeps opening the other end of each FIFO, so that code blocked on one wakes up
// (a reader sees end of file, a writer finds a reader): a test of code that would block then
// fails on its time check instead of hanging the suite.
class FifoUnjammer {
public:
  explicit FifoUnjammer(std::vector<fs::path> fifos, std::chrono::milliseconds grace = 1500ms)
      : m_fifos(std::move(fifos)), m_thread([this, grace] { loop(grace); }) {}
  ~FifoUnjammer() {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    for (int fd : m_readers)
      ::close(fd);
  }
  FifoUnjammer(const FifoUnjammer &) = delete;
  FifoUnjammer &operator=(const FifoUnjammer &) = delete;

private:
  void loop(std::chrono::milliseconds grace) {
    std::unique_lock lock(m_mutex);
    if (m_wake.wait_for(lock, grace, [this] { return m_stop; })) return;
    for (const auto &fifo : m_fifos) // a reader that stays: a blocked writer's line fits the pipe
      m_readers.push_back(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    while (!m_wake.wait_for(lock, 20ms, [this] { return m_stop; }))
      for (const auto &fifo : m_fifos) // a writer that goes at once: a blocked reader sees EOF
        if (const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC); fd >= 0)
          ::close(fd);
  }

  std::vector<fs::path> m_fifos;
  std::vector<int> m_readers;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

} // namespace

TEST_CASE("reliability: read_small_file refuses a FIFO and a directory at once",
          "[reliability][no-qemu]") {
  TempDir tmp;
  make_fifo(tmp / "fifo");
  fs::create_directories(tmp / "dir");
  write_file(tmp / "file", "content");
  const FifoUnjammer unjam({tmp / "fifo"});
  const auto start = SteadyClock::now();
  CHECK_FALSE(read_small_file(tmp / "fifo").has_value());
  CHECK_FALSE(read_small_file(tmp / "dir").has_value());
  CHECK(seconds_since(start) < 1.0);
  CHECK(read_small_file(tmp / "file") == std::optional<std::string>("content"));
  fs::create_symlink(tmp / "file", tmp / "link"); // a link to a regular file is still read
  CHECK(read_small_file(tmp / "link") == std::optional<std::string>("content"));
}

TEST_CASE("reliability: FIFOs as settings.json and the shell profiles give the defaults at once",
          "[reliability][no-qemu]") {
  TempDir home;
  std::vector<fs::path> fifos{home / ".mem0/settings.json"};
  for (const char *profile : {".zshrc", ".bashrc", ".zprofile", ".bash_profile", ".profile"})
    fifos.push_back(home / profile);
  for (const auto &fifo : fifos)
    make_fifo(fifo);
  const FifoUnjammer unjam(fifos);
  Environment env;
  env.vars = {{"HOME", home.path().string()}};

  const auto start = SteadyClock::now();
  const Config c = load_config(env);
  CHECK(seconds_since(start) < 1.0);
  CHECK(c.settings_status == "not found");
  CHECK_FALSE(c.api_key.has_value());
  CHECK(c.base_url == "https://api.mem0.ai");
}

TEST_CASE("reliability: FIFOs as state files read as empty state at once",
          "[reliability][no-qemu]") {
  TempDir tmp;
  const fs::path state_dir = tmp / "state";
  const std::vector<fs::path> fifos{state_dir / "sessions/fifo-session.json",
                                    state_dir / "usage.json", state_dir / "backoff.json"};
  for (const auto &fifo : fifos)
    make_fifo(fifo);
  const FifoUnjammer unjam(fifos);
  const StateStore store(state_dir);

  const auto start = SteadyClock::now();
  CHECK(store.sessions.load("fifo-session").prompts == 0);
  CHECK(store.usage.on("2025-03-10").searches == 0);
  CHECK_FALSE(store.backoff.active_pause(fixed_now(), "any").has_value());
  CHECK(seconds_since(start) < 1.0);
}

TEST_CASE("reliability: a FIFO as the debug log is skipped at once", "[reliability][no-qemu]") {
  TempDir tmp;
  make_fifo(tmp / "hooks.log");
  const FifoUnjammer unjam({tmp / "hooks.log"});
  Log log("unit-test");
  log.enable_file(tmp / "hooks.log");
  const auto start = SteadyClock::now();
  log.debug("one line");
  log.debug("another line");
  CHECK(seconds_since(start) < 1.0);
}

TEST_CASE("reliability: the sender sets aside an outbox item that is a FIFO, without waiting",
          "[reliability][no-qemu]") {
  HookFixture f(StateOn::disk); // a FIFO
  Outbox outbox(f.disk(), f.config.state_dir);
  OutboxItem item;
  item.add.messages = {{"user", "a real item"}};
  item.add.user_id = "u";
  REQUIRE(outbox.put(item, "", f.now));
  const fs::path fifo = outbox.dir() / "000000000099.json";
  make_fifo(fifo);
  const FifoUnjammer unjam({fifo});
  f.http.responder = [](const HttpRequest &) { return http_status(200, R"({"results":[]})"); };

  const auto start = SteadyClock::now();
  const SendReport report = send_round(f.context());
  CHECK(seconds_since(start) < 1.0);
  CHECK(report.delivered == 1);
  CHECK(report.rejected == 1);
  CHECK(outbox.pending().empty());
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("reliability: a CA bundle that is a FIFO fails the request as transport, at once",
          "[reliability][no-qemu]") {
  TempDir tmp;
  make_fifo(tmp / "ca.pem");
  const FifoUnjammer unjam({tmp / "ca.pem"});
  // A listening socket that never accepts: the kernel completes the TCP handshake, so libcurl
  // gets as far as loading the CA bundle.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0); // SOCK_CLOEXEC is Linux only
  REQUIRE(listener >= 0);
  REQUIRE(::fcntl(listener, F_SETFD, FD_CLOEXEC) == 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(listener, 4) == 0);
  REQUIRE(::getsockname(listener, reinterpret_cast<sockaddr *>(&addr), &len) == 0);
  const std::string url = "https://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/";

  SystemHttpClient http((tmp / "ca.pem").string());
  const auto start = SteadyClock::now();
  const auto results = http.run({HttpRequest{"GET", url, {}, {}}}, SteadyClock::now() + 1000ms);
  const double elapsed = seconds_since(start);
  ::close(listener);
  CHECK(elapsed < 0.9);
  REQUIRE(results.size() == 1);
  REQUIRE_FALSE(results[0].has_value());
  CHECK(results[0].error().kind == ErrorKind::transport);
  CHECK(contains(results[0].error().message, "not a regular file or a directory"));
  CHECK(contains(results[0].error().message, (tmp / "ca.pem").string()));
}
