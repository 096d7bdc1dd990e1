#pragma once
// Shared helpers for the unit tests: private temporary directories, small file helpers, a fake
// HttpClient that records requests and answers with canned responses, and a hook fixture whose
// HOME, state dir and environment are isolated from the machine running the tests.
#include "mem0/api.hpp"
#include "mem0/config.hpp"
#include "mem0/dialect.hpp"
#include "mem0/http.hpp"
#include "runtime/agents/claude_code.hpp"
#include "runtime/io.hpp"
#include "runtime/recall.hpp"
#include "runtime/remember.hpp"
#include "runtime/runner.hpp"
#include "runtime/sender.hpp"
#include "store/outbox.hpp"
#include "store/state.hpp"
#include "tests/unit/store/memory_disk.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/git.hpp"
#include "util/log.hpp"
#include "util/platform.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mem0::testing {
namespace fs = std::filesystem;

// The checkout's root, for fixtures and the files the repository ships (tests/unit/source_dir.cpp:
// one file knows it, so a checkout elsewhere compiles every other test from ccache's cache).
extern const char *const k_source_dir;

// A fresh private directory under the system temp dir, removed with its content.
class TempDir {
public:
  TempDir() {
    static std::mt19937_64 random{std::random_device{}()};
    for (int tries = 0; tries < 100 && m_path.empty(); ++tries) {
      const fs::path dir =
          fs::temp_directory_path() / ("mem0-unit-" + std::to_string(platform::process_id()) + "-" +
                                       std::to_string(random() % 1000000000));
      std::error_code ec;
      if (fs::create_directory(dir, ec)) {
        fs::permissions(dir, fs::perms::owner_all, ec);
        m_path = fs::canonical(dir);
      }
    }
    if (m_path.empty()) throw std::runtime_error("cannot make a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(m_path, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const fs::path &path() const { return m_path; }
  fs::path operator/(const fs::path &relative) const { return m_path / relative; }

private:
  fs::path m_path;
};

// Tests about "no repository" need a temp dir that is not itself inside a git checkout.
#define REQUIRE_NOT_IN_GIT_REPO(dir)                                                               \
  do {                                                                                             \
    INFO("the temp dir " << (dir).string() << " lies inside a git repository; set TMPDIR");        \
    REQUIRE_FALSE(::mem0::find_repo(dir).has_value());                                             \
  } while (false)

// The kind of the error `r` holds; nullopt when it holds a value (so a check against a kind fails
// on success too).
template <class T> std::optional<ErrorKind> error_kind(const Result<T> &r) {
  if (r) return std::nullopt;
  return r.error().kind;
}

// The JSON text re-serialised compactly, member order kept: equal for equal structures.
inline std::string canonical(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  REQUIRE_FALSE(doc.HasParseError());
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  doc.Accept(w);
  return {buffer.GetString(), buffer.GetSize()};
}

// Write `content` to `path`, creating missing parent directories.
inline void write_file(const fs::path &path, std::string_view content) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

inline std::string read_file(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::string out;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    out.append(buf, static_cast<std::size_t>(in.gcount()));
  return out;
}

// The permission bits of `path` (e.g. 0600), or -1 when it cannot be stat'ed.
inline int mode_of(const fs::path &path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) return -1;
  return static_cast<int>(status.permissions() & fs::perms::mask);
}

// --- What differs between systems: tests/unit/test_support_posix.cpp and
// test_support_windows.cpp (docs/contributing.md#platforms) ---

// The permission bits mode_of reads back for a file, or a directory, made with `mode`. POSIX keeps
// them as given. Windows keeps no POSIX modes, only a read-only flag: its C runtime reports 0666
// (0444 read-only) for any file and 0777 for any directory.
int file_mode_as_kept(int mode);
int dir_mode_as_kept(int mode);
// True when this process cannot read a file of mode 000: POSIX but for root; never on Windows,
// where a mode is only a read-only flag.
bool mode_denies_reading();

// Both ends of an anonymous pipe as file descriptors (the C runtime's on Windows, as
// platform::read_some takes them), each closed at the latest when the pipe is destroyed.
class Pipe {
public:
  Pipe();
  ~Pipe();
  Pipe(const Pipe &) = delete;
  Pipe &operator=(const Pipe &) = delete;
  void close_read();
  void close_write();
  int read_fd = -1;
  int write_fd = -1;
};

// Write all of `data` to `fd`: the count of bytes written, short when the reader went away (POSIX
// ignores SIGPIPE for this, so a broken reader fails the test instead of killing the run).
std::size_t write_all(int fd, std::string_view data);

// True when `work` returns true within `limit`: a test of something that must be quick fails at
// the limit instead of hanging the run. POSIX runs it in a child process, killed at the limit;
// Windows, which cannot fork, in a thread left behind at the limit until the process exits.
bool finishes_within(std::function<bool()> work, std::chrono::milliseconds limit);

// The mem0-hooks next to the running executable (the unit tests sit in the hooks' bin/), as the
// text for the model names it for Claude Code (docs/windows.md#how-each-agent-runs-a-hook): its
// absolute path, `<dir>/mem0-hooks` on POSIX and `<dir>/mem0-hooks.exe` with `/` separators on
// Windows (Git Bash's form).
std::string mem0_hooks_path();
// That path as sh and Git Bash read it: single-quoted when it holds anything they read specially.
inline std::string mem0_hooks_as_named() {
  const std::string path = mem0_hooks_path();
  const bool plain = path.find_first_of(" '\"$`\\!*?[]{}()<>|&;#~=\t") == std::string::npos;
  return plain ? path : "'" + path + "'";
}

// Split `text` at real newlines.
inline std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (true) {
    const auto nl = text.find('\n', start);
    lines.emplace_back(text.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}

// The Platform's add body of a queued item (empty when there is none): the tests read what a
// capture holds from the body it is sent as.
inline std::string platform_body(const std::optional<OutboxItem> &item) {
  return item ? platform_dialect().add_body(item->add) : std::string();
}

// `text` as the content of a JSON or TOML basic string, for the texts tests write (no quotes or
// control characters): a Windows path's backslashes escaped.
inline std::string backslashes_escaped(std::string_view text) {
  std::string out;
  for (const char c : text)
    out += c == '\\' ? std::string("\\\\") : std::string(1, c);
  return out;
}

inline bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// The memory lines (`- [...`) of an additionalContext text, in order.
inline std::vector<std::string> memory_lines(std::string_view text) {
  std::vector<std::string> out;
  for (auto &line : lines_of(text))
    if (line.starts_with("- [")) out.push_back(std::move(line));
  return out;
}

// True when `text` has `line` as one of its lines.
inline bool has_line(std::string_view text, std::string_view line) {
  const auto lines = lines_of(text);
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// The `[type]` of each memory line of `text`, in order.
inline std::vector<std::string> types_shown(std::string_view text) {
  std::vector<std::string> out;
  for (const auto &line : memory_lines(text))
    out.push_back(line.substr(3, line.find(']') - 3));
  return out;
}

// A uuid-shaped id whose first 8 characters are `n` in hex, so [mem0:id8] names `n`.
inline std::string id_of(unsigned n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08x-aaaa-4bbb-8ccc-dddddddddddd", n);
  return buf;
}
inline std::string id8_of(unsigned n) { return id_of(n).substr(0, 8); }

// A target for tests; the base URL must be one that ApiTarget::make accepts.
inline ApiTarget target(std::string base, std::string key = "m0-test-key", bool rerank = true,
                        double threshold = 0.3) {
  auto t = ApiTarget::make(std::move(base), std::move(key), rerank, threshold);
  if (!t) throw std::runtime_error("test target refused: " + t.error().message);
  return *t;
}

// The back-off key of the server and key `config` talks to.
inline std::string server_of(const Config &config) {
  return api_target(config).value().server_key();
}

inline Memory memory(unsigned n, std::string type, std::string text, std::string created_at = "") {
  Memory m;
  m.id = id_of(n);
  m.type = std::move(type);
  m.text = std::move(text);
  m.created_at = std::move(created_at);
  return m;
}

// Memories n = from..to of `type`, whose texts name their numbers.
inline std::vector<Memory> numbered(unsigned from, unsigned to, const std::string &type = "fact") {
  std::vector<Memory> out;
  for (unsigned n = from; n <= to; ++n)
    out.push_back(memory(n, type, "memory number " + std::to_string(n)));
  return out;
}

// The ids of `memories`, in order; and the ids of the numbers, as id_of makes them.
inline std::vector<std::string> ids_of(const std::vector<Memory> &memories) {
  std::vector<std::string> out;
  for (const auto &m : memories)
    out.push_back(m.id);
  return out;
}
inline std::vector<std::string> ids(std::initializer_list<unsigned> numbers) {
  std::vector<std::string> out;
  for (const unsigned n : numbers)
    out.push_back(id_of(n));
  return out;
}

// A search response body in the API's shape: {"results":[{id, memory, metadata:{type}, ...}]}.
inline std::string results_json(const std::vector<Memory> &memories) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("results");
  w.StartArray();
  for (const auto &m : memories) {
    w.StartObject();
    w.Key("id");
    w.String(m.id.c_str());
    w.Key("memory");
    w.String(m.text.c_str());
    w.Key("metadata");
    if (m.type.empty()) {
      w.Null();
    } else {
      w.StartObject();
      w.Key("type");
      w.String(m.type.c_str());
      w.EndObject();
    }
    if (!m.created_at.empty()) {
      w.Key("created_at");
      w.String(m.created_at.c_str());
    }
    w.Key("score");
    w.Double(0.9);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

// A list response in the Platform's shape: {"count": N, "results": [...]}.
inline std::string list_json(long count, const std::vector<Memory> &memories) {
  return "{\"count\":" + std::to_string(count) + "," + results_json(memories).substr(1);
}

inline Result<HttpResponse> http_status(long status, std::string body,
                                        std::optional<std::chrono::seconds> retry_after = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.retry_after = retry_after;
  r.latency = std::chrono::milliseconds(3);
  return r;
}

inline Result<HttpResponse> found(const std::vector<Memory> &memories) {
  return http_status(200, results_json(memories));
}

inline Result<HttpResponse> transport_failure(ErrorKind kind) {
  return unexpected(make_error(kind, "simulated " + std::string(to_string(kind))));
}

// What one recorded search request asked for, read back from its JSON body.
struct SentSearch {
  bool parsed = false;
  std::string query;
  int top_k = -1;
  std::optional<std::string> type;
  std::optional<std::string> user_id;
  std::optional<std::string> app_id;
  std::optional<std::string> run_id;
  std::optional<bool> rerank; // nullopt when the key is absent
  std::optional<double> threshold;
  std::size_t filter_count = 0;
  std::vector<std::string> shared_agents; // the agent ids of an OR filter's other branches
};

inline SentSearch parse_sent(const HttpRequest &request) {
  SentSearch s;
  rapidjson::Document doc;
  doc.Parse(request.body.data(), request.body.size());
  if (doc.HasParseError() || !doc.IsObject()) return s;
  s.parsed = true;
  if (auto it = doc.FindMember("query"); it != doc.MemberEnd() && it->value.IsString())
    s.query = it->value.GetString();
  if (auto it = doc.FindMember("top_k"); it != doc.MemberEnd() && it->value.IsInt())
    s.top_k = it->value.GetInt();
  if (auto it = doc.FindMember("rerank"); it != doc.MemberEnd() && it->value.IsBool())
    s.rerank = it->value.GetBool();
  if (auto it = doc.FindMember("threshold"); it != doc.MemberEnd() && it->value.IsNumber())
    s.threshold = it->value.GetDouble();
  auto leaf = [](const rapidjson::Value &v, const char *key) -> std::optional<std::string> {
    if (!v.IsObject()) return std::nullopt;
    const auto it = v.FindMember(key);
    if (it == v.MemberEnd() || !it->value.IsString()) return std::nullopt;
    return std::string(it->value.GetString());
  };
  // `AND[…]` is read as it is; of `OR[AND[user…], AND[agent…], …]` the first branch, and the agent
  // ids of the others.
  const rapidjson::Value *filters = nullptr;
  if (auto f = doc.FindMember("filters"); f != doc.MemberEnd() && f->value.IsObject())
    filters = &f->value;
  if (filters)
    if (auto any = filters->FindMember("OR"); any != filters->MemberEnd() && any->value.IsArray())
      for (rapidjson::SizeType i = 0; i < any->value.Size(); ++i) {
        const auto &branch = any->value[i];
        if (i == 0) filters = &branch;
        if (auto all = branch.FindMember("AND"); i > 0 && all != branch.MemberEnd())
          if (all->value.IsArray() && !all->value.Empty())
            if (auto agent = leaf(all->value[0], "agent_id")) s.shared_agents.push_back(*agent);
      }
  if (filters && filters->IsObject())
    if (auto all = filters->FindMember("AND"); all != filters->MemberEnd() && all->value.IsArray())
      for (const auto &item : all->value.GetArray()) {
        ++s.filter_count;
        if (auto v = leaf(item, "user_id")) s.user_id = v;
        if (auto v = leaf(item, "app_id")) s.app_id = v;
        if (auto v = leaf(item, "run_id")) s.run_id = v;
        if (item.IsObject())
          if (auto meta = item.FindMember("metadata"); meta != item.MemberEnd())
            s.type = leaf(meta->value, "type");
      }
  return s;
}

// The `filters` member of a request's JSON body, re-serialised compactly (member order kept);
// "" when the body has none.
inline std::string filters_of(const HttpRequest &request) {
  rapidjson::Document doc;
  doc.Parse(request.body.data(), request.body.size());
  if (doc.HasParseError() || !doc.IsObject()) return "";
  const auto it = doc.FindMember("filters");
  if (it == doc.MemberEnd()) return "";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  it->value.Accept(w);
  return {buffer.GetString(), buffer.GetSize()};
}

// True when `request` carries exactly the header line `header`.
inline bool carries_header(const HttpRequest &request, std::string_view header) {
  return std::find(request.headers.begin(), request.headers.end(), header) != request.headers.end();
}

// True when `request` carries a header named `name` (case-sensitive), whatever its value.
inline bool carries_header_named(const HttpRequest &request, std::string_view name) {
  return std::any_of(request.headers.begin(), request.headers.end(), [&](const std::string &h) {
    return h.size() > name.size() && h.compare(0, name.size(), name) == 0 && h[name.size()] == ':';
  });
}

// Records every request and answers each with `responder` (by default: no memories).
class FakeHttpClient final : public HttpClient {
public:
  using Responder = std::function<Result<HttpResponse>(const HttpRequest &)>;

  std::vector<Result<HttpResponse>> run(const std::vector<HttpRequest> &batch, Deadline) override {
    ++batches;
    std::vector<Result<HttpResponse>> out;
    for (const auto &request : batch) {
      requests.push_back(request);
      out.push_back(responder(request));
    }
    return out;
  }

  // Answer every search with `memories`.
  void answer(std::vector<Memory> memories) {
    responder = [memories = std::move(memories)](const HttpRequest &) { return found(memories); };
  }
  // Answer each search by its metadata.type filter ("" for an untyped search).
  void answer_by_type(std::function<Result<HttpResponse>(const std::string &type)> by_type) {
    responder = [by_type = std::move(by_type)](const HttpRequest &r) {
      return by_type(parse_sent(r).type.value_or(""));
    };
  }
  std::vector<SentSearch> sent() const {
    std::vector<SentSearch> out;
    for (const auto &r : requests)
      out.push_back(parse_sent(r));
    return out;
  }

  std::vector<HttpRequest> requests;
  std::size_t batches = 0;
  Responder responder = [](const HttpRequest &) { return found({}); };
};

// A recall of one untyped search for `session`, at most 6 memories (runtime/recall.hpp).
inline RecallRequest one_search(std::string session) {
  RecallRequest r;
  r.plan = {SearchSpec{"how are invoices rounded", std::nullopt}};
  r.identity = {"alice", "proj", std::move(session)};
  r.cap = 6;
  return r;
}

// 2025-03-10 12:00:00 UTC: the fixed "now" of the hook tests.
inline std::chrono::system_clock::time_point fixed_now() {
  using namespace std::chrono;
  return sys_days{year{2025} / March / 10} + hours{12};
}

// Where a HookFixture keeps its state: in memory (the default), or on the real disk under its
// temp HOME, for a test of what only a disk does (file modes, a FIFO, a lock another holder
// keeps, atomic replacement, a full disk, torn files).
enum class StateOn { memory, disk };

// An isolated hook environment: HOME and MEM0_STATE_DIR in a fresh temp dir (the state itself in
// memory unless asked for on disk), an API key, a fixed user and project id, a fake HTTP client
// and a fixed clock. A test reads and writes state files through `disk()`.
struct HookFixture {
  TempDir home;
  fs::path project;
  Environment env;
  Config config;
  FakeHttpClient http;
  Log log{"unit-test"};
  std::chrono::system_clock::time_point now = fixed_now();
  MemoryDisk memory;
  StateDisk *state_disk;
  std::optional<StateStore> state;

  explicit HookFixture(StateOn on = StateOn::memory)
      : project(home / "project"),
        state_disk(on == StateOn::memory ? &memory : &real_state_disk()) {
    fs::create_directories(project);
    env.vars = {{"HOME", home.path().string()},
                {"MEM0_STATE_DIR", (home / "state").string()},
                {"MEM0_API_KEY", "m0-test-key-1234"},
                {"MEM0_USER_ID", "alice"},
                {"MEM0_PROJECT_ID", "proj"}};
    reload();
  }

  void set_env(const std::string &name, const std::string &value) {
    env.vars[name] = value;
    reload();
  }
  void unset_env(const std::string &name) {
    env.vars.erase(name);
    reload();
  }
  void reload() {
    config = load_config(env);
    state.emplace(config.state_dir, *state_disk);
  }

  // The dependencies of a run, with the fixture's clock.
  RunDeps deps() {
    return RunDeps{env, config, http, log, *state, [this] { return now; }};
  }
  // A fresh run's context: its own facts, a 5 s budget.
  HookContext context() {
    return make_context(deps(), SteadyClock::now() + std::chrono::seconds(5));
  }
  // A fresh run's context whose facts are bound to `input`, as the runner binds them.
  HookContext context(const HookInput &input, const Agent &agent = claude_code()) {
    HookContext ctx = make_context(deps(), SteadyClock::now() + std::chrono::seconds(5), agent);
    ctx.facts->bind(input);
    return ctx;
  }
  StateStore store() const { return StateStore(config.state_dir, *state_disk); }
  StateDisk &disk() const { return *state_disk; }
  // A state file (`relative` to the state dir) as it is now, "" when missing; and one written as
  // an earlier run or version left it, its directories made.
  std::string read_state(const fs::path &relative) const {
    return state_disk->read(config.state_dir / relative, 16 << 20).value_or("");
  }
  void write_state(const fs::path &relative, const std::string &content) const {
    const fs::path path = config.state_dir / relative;
    REQUIRE(state_disk->make_dir(path.parent_path()));
    REQUIRE(state_disk->write(path, content, Durability::saves_work));
  }
  // The lock of the state file `relative` (its `.lock`), held through the state's disk as a stuck
  // hook would hold it, until destroyed.
  std::unique_ptr<StateDisk::Lock> hold(const fs::path &relative) const {
    const fs::path lock = config.state_dir / (relative.string() + ".lock");
    REQUIRE(state_disk->make_dir(lock.parent_path()));
    auto held = state_disk->try_lock(lock);
    REQUIRE(held->held());
    return held;
  }
  std::string today() const { return utc_day(now); }
};

// An exclusive lock of `<file>.lock`, as a stuck hook would hold it, until destroyed.
class HeldLock {
public:
  explicit HeldLock(const fs::path &file) {
    fs::create_directories(file.parent_path());
    m_lock.emplace(file.string() + ".lock");
    if (!m_lock->held()) throw std::runtime_error("cannot lock");
  }
  void release() { m_lock.reset(); }

private:
  std::optional<TryLock> m_lock;
};

// A temporary stream that reads back what was written to it (a file in a directory of its own:
// std::tmpfile writes to the drive's root on Windows).
struct Sink {
  TempDir dir;
  std::FILE *file = std::fopen((dir / "sink").string().c_str(), "w+b");
  Sink() { REQUIRE(file != nullptr); }
  ~Sink() { std::fclose(file); }
  Sink(const Sink &) = delete;
  Sink &operator=(const Sink &) = delete;
  std::string text() const {
    std::fflush(file);
    std::rewind(file);
    std::string out;
    char buf[4096];
    while (const std::size_t n = std::fread(buf, 1, sizeof buf, file))
      out.append(buf, n);
    return out;
  }
};

// What one run printed, and what it returned.
struct Ran {
  RunResult result;
  std::string out, err;
};

// Run `handler` as `executable` of `agent` on `stdin_text` over the fixture's fakes, as the
// hook's process would (run_hook_io), without starting what it declares detached.
inline Ran run_hook_in(HookFixture &f, std::string_view executable, const RawHandler &handler,
                       std::string_view stdin_text = "{}", const Agent &agent = claude_code()) {
  Sink in, out, err; // stdin from a file: read to its end, as a closed pipe is
  REQUIRE(std::fwrite(stdin_text.data(), 1, stdin_text.size(), in.file) == stdin_text.size());
  std::fflush(in.file);
  std::rewind(in.file);
  Ran ran;
  ran.result = run_hook_io(executable, agent, handler, f.deps(),
                           SteadyClock::now() + std::chrono::seconds(5), fileno(in.file), out.file,
                           err.file);
  ran.out = out.text();
  ran.err = err.text();
  return ran;
}

// `handle` run on `input` as the runner runs a handler: a fresh run's context, its facts bound to
// the input.
template <class Input>
HookOutput handled(HookOutput (*handle)(const Input &, const HookContext &),
                   const std::type_identity_t<Input> &input, HookFixture &f) {
  return handle(input, f.context(input));
}

// A Stop of session-1 in the fixture's project whose reply is `message`.
inline StopInput stop_input(const HookFixture &f, std::string message) {
  StopInput in;
  in.session_id = "session-1";
  in.cwd = f.project.string();
  in.hook_event_name = "Stop";
  in.last_assistant_message = std::move(message);
  return in;
}

// Queue `capture` as a run of `input` would (remember over the run's facts, bound to `input`).
inline Result<std::string> remember_in(HookFixture &f, const HookInput &input, Capture capture) {
  HookContext ctx = f.context(input);
  return remember(ctx, *ctx.facts, std::move(capture));
}
// The same over the run `ctx`, its facts bound to `input` first.
inline Result<std::string> remember(const HookContext &ctx, const HookInput &input,
                                    Capture capture) {
  ctx.facts->bind(input);
  return remember(ctx, *ctx.facts, std::move(capture));
}

// What a fresh run of the fixture that queued nothing declares for the sender (sender_work).
inline DetachedWork sender_work_in(HookFixture &f) {
  HookContext ctx = f.context();
  return sender_work(ctx, *ctx.facts);
}

// Queue one capture, as an earlier run would have left it.
inline void queue_leftover(HookFixture &f) {
  Capture c;
  c.messages = {{"assistant", "A capture an earlier run left queued while Mem0 was away."}};
  c.type = "session_summary";
  HookInput in;
  in.cwd = f.project.string();
  REQUIRE(remember_in(f, in, c));
}

// `unit` repeated until the text holds at least `size` bytes: the inputs of the linearity tests.
inline std::string repeated(std::string_view unit, std::size_t size) {
  std::string text;
  text.reserve(size + unit.size());
  while (text.size() < size)
    text += unit;
  return text;
}

// The items pending in the fixture's outbox.
inline std::size_t pending(const HookFixture &f) { return f.state->outbox.pending().size(); }

} // namespace mem0::testing
