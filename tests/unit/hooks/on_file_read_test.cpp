#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "util/platform.hpp"

#include "hooks/on_file_read/on_file_read.hpp"
#include "hooks/on_user_prompt/on_user_prompt.hpp"

using namespace mem0;
using namespace mem0::testing;
namespace ofr = mem0::on_file_read;
namespace fs = std::filesystem;

namespace {

const std::string k_details = "Need details? Run `" + mem0_hooks_as_named() +
                              " peek <id8>` with the 8-character id a memory line ends with.";
const std::string k_no_key = "mem0: no API key, recall and capture are off (run mem0-hooks doctor)";

// A git repository at the fixture's project dir, made of plain files.
void make_project_repo(const HookFixture &f) {
  write_file(f.project / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(f.project / ".git/config",
             "[remote \"origin\"]\n\turl = git@github.com:acme/shop.git\n");
}

fs::path source_file(const fs::path &path, std::size_t size = 2000) {
  write_file(path, std::string(size, 'x'));
  return path;
}

ToolInput read_input(const HookFixture &f, const std::string &file_path,
                     std::string session = "session-1") {
  ToolInput in;
  in.session_id = std::move(session);
  in.cwd = f.project.string();
  in.hook_event_name = "PreToolUse";
  in.tool_name = "Read";
  in.tool = ToolKind::read;
  in.file_path = file_path;
  return in;
}

HookOutput respond(HookFixture &f, const fs::path &file, const std::string &session = "session-1") {
  return handled(ofr::handle, read_input(f, file.string(), session), f);
}

std::string read(HookFixture &f, const fs::path &file, const std::string &session = "session-1") {
  return respond(f, file, session).context;
}

} // namespace

// --- names and files ---------------------------------------------------------------------------

TEST_CASE("on_file_read: binary, generated and lock files are skipped by extension") {
  for (const char *ext : {"png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "pdf", "woff", "woff2",
                          "ttf", "eot", "zip", "gz", "tar", "jar", "lock", "sum", "map"}) {
    CAPTURE(ext);
    CHECK(ofr::skipped_by_name(std::string("/repo/assets/file.") + ext).has_value());
  }
  CHECK(ofr::skipped_by_name("/repo/static/app.min.js").has_value());
  CHECK(ofr::skipped_by_name("/repo/static/site.min.css").has_value());
  CHECK(ofr::skipped_by_name("/repo/yarn.lock").has_value());
  CHECK(ofr::skipped_by_name("/repo/go.sum").has_value());
  CHECK(ofr::skipped_by_name("/repo/dist.tar.gz").has_value());
}

TEST_CASE("on_file_read: files inside vendored or generated directories are skipped") {
  for (const char *path :
       {"/repo/node_modules/left-pad/index.js", "/repo/.git/config", "/repo/pkg/__pycache__/mod.py",
        "/repo/.venv/lib/site.py", "/repo/dist/bundle.js", "/repo/build/generated/out.cpp",
        "/repo/web/node_modules/x/y/z.ts"}) {
    CAPTURE(path);
    CHECK(ofr::skipped_by_name(path).has_value());
  }
}

TEST_CASE("on_file_read: ordinary source files are not skipped by name") {
  for (const char *path :
       {"/repo/src/main.py", "/repo/src/app.js", "/repo/styles/site.css", "/repo/docs/build.md",
        "/repo/distribution/setup.py", "/repo/src/lockfile.py", "/repo/src/sitemap.ts",
        "/repo/README.md", "/repo/Makefile", "/repo/package-lock.json"}) {
    CAPTURE(path);
    CHECK_FALSE(ofr::skipped_by_name(path).has_value());
  }
}

TEST_CASE("on_file_read: stat_file accepts regular files of at least 1500 bytes") {
  TempDir tmp;
  CHECK(ofr::stat_file(source_file(tmp / "big.py", 2000)).gated.empty());
  CHECK_FALSE(ofr::stat_file(tmp / "big.py").version.empty());
  CHECK(ofr::stat_file(source_file(tmp / "edge.py", 1500)).gated.empty());
  CHECK_FALSE(ofr::stat_file(source_file(tmp / "small.py", 1499)).gated.empty());
  CHECK(ofr::stat_file(source_file(tmp / "small.py", 1499)).version.empty());
}

// [no-wine]: mingw's std::filesystem cannot make a symbolic link, and wine 8's CreateSymbolicLinkW
// makes none (docs/windows.md#testing-under-wine).
TEST_CASE("on_file_read: stat_file follows a symlink to a regular file", "[no-wine]") {
  TempDir tmp;
  source_file(tmp / "real.py");
  fs::create_symlink(tmp / "real.py", tmp / "link.py");
  CHECK(ofr::stat_file(tmp / "link.py").gated.empty());
}

TEST_CASE("on_file_read: the file version changes with size and with mtime") {
  TempDir tmp;
  const fs::path file = source_file(tmp / "v.py", 2000);
  const std::string v1 = ofr::stat_file(file).version;
  CHECK(ofr::stat_file(file).version == v1);
  fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(5));
  const std::string v2 = ofr::stat_file(file).version;
  CHECK(v2 != v1);
  const auto mtime = fs::last_write_time(file);
  source_file(file, 2100);
  fs::last_write_time(file, mtime);
  CHECK(ofr::stat_file(file).version != v2);
}

// --- relative paths and plans ------------------------------------------------------------------

namespace {

// `file` relative to the project, with the repository around `cwd` found as a run's facts find it.
std::string project_relative(const fs::path &file, const fs::path &cwd) {
  return ofr::relative_to_project(file, cwd, find_repo(cwd));
}

} // namespace

TEST_CASE("on_file_read: paths are relative to the git top level, not the cwd") {
  TempDir tmp;
  const fs::path repo = tmp / "repo";
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  fs::create_directories(repo / "services/api");
  CHECK(project_relative(repo / "lib/util/strings.py", repo / "services/api") ==
        "lib/util/strings.py");
  CHECK(project_relative(repo / "services/api/app.py", repo / "services/api") ==
        "services/api/app.py");
}

TEST_CASE("on_file_read: the nearest repository of the cwd is the project root") {
  TempDir tmp;
  write_file(tmp / "outer/.git/HEAD", "ref: refs/heads/main\n");
  write_file(tmp / "outer/inner/.git/HEAD", "ref: refs/heads/main\n");
  fs::create_directories(tmp / "outer/inner/pkg");
  CHECK(project_relative(tmp / "outer/inner/pkg/mod.py", tmp / "outer/inner/pkg") == "pkg/mod.py");
  CHECK(project_relative(tmp / "outer/inner/pkg/mod.py", tmp / "outer") == "inner/pkg/mod.py");
}

TEST_CASE("on_file_read: a worktree's own directory is its project root") {
  TempDir tmp;
  write_file(tmp / "main/.git/worktrees/wt/HEAD", "ref: refs/heads/feature\n");
  write_file(tmp / "main/.git/worktrees/wt/commondir", "../..\n");
  write_file(tmp / "wt/.git", "gitdir: " + (tmp / "main/.git/worktrees/wt").string() + "\n");
  fs::create_directories(tmp / "wt/src");
  CHECK(project_relative(tmp / "wt/src/a.py", tmp / "wt/src") == "src/a.py");
}

TEST_CASE("on_file_read: outside a repository paths are relative to the cwd, else absolute") {
  TempDir tmp;
  REQUIRE_NOT_IN_GIT_REPO(tmp.path());
  fs::create_directories(tmp / "work/docs");
  CHECK(project_relative(tmp / "work/docs/guide.md", tmp / "work") == "docs/guide.md");
  CHECK(project_relative(tmp / "elsewhere/notes.md", tmp / "work") ==
        (tmp / "elsewhere/notes.md").string());

  write_file(tmp / "repo/.git/HEAD", "ref: refs/heads/main\n");
  CHECK(project_relative(tmp / "other/x.py", tmp / "repo") == (tmp / "other/x.py").string());
}

TEST_CASE("on_file_read: the query is rel and base, or just rel when they are equal") {
  HookFixture f;
  const auto nested = ofr::build_plan("src/app/models.py", f.config);
  REQUIRE(nested.size() == 1);
  CHECK(nested[0].query == "src/app/models.py models.py");
  CHECK(nested[0].top_k == 10);
  CHECK_FALSE(nested[0].type.has_value());
  CHECK(nested[0].scope == Scope::project);

  const auto top = ofr::build_plan("setup.py", f.config);
  REQUIRE(top.size() == 1);
  CHECK(top[0].query == "setup.py");
}

TEST_CASE("on_file_read: the thorough plan adds convention 5 and decision 3") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  const auto plan = ofr::build_plan("src/app.py", f.config);
  REQUIRE(plan.size() == 3);
  CHECK(plan[0].top_k == 10);
  CHECK_FALSE(plan[0].type.has_value());
  CHECK(plan[1].type == std::optional<std::string>("convention"));
  CHECK(plan[1].top_k == 5);
  CHECK(plan[2].type == std::optional<std::string>("decision"));
  CHECK(plan[2].top_k == 3);
  for (const auto &s : plan)
    CHECK(s.query == "src/app.py app.py");
}

TEST_CASE("on_file_read: global search uses the global scope") {
  HookFixture f;
  f.set_env("MEM0_GLOBAL_SEARCH", "1");
  CHECK(ofr::build_plan("src/app.py", f.config)[0].scope == Scope::global);
}

// --- gates -------------------------------------------------------------------------------------

TEST_CASE("on_file_read: no file_path, no key or auto_search off send nothing") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.answer({memory(1, "convention", "would be shown")});

  SECTION("no file_path") { CHECK(handled(ofr::handle, read_input(f, ""), f).context.empty()); }
  SECTION("no API key: the user is told once per session") {
    f.unset_env("MEM0_API_KEY");
    const HookOutput first = respond(f, file);
    CHECK(first.context.empty());
    CHECK(first.system_message == k_no_key);
    const HookOutput again = respond(f, source_file(f.project / "src/other.py"));
    CHECK(again.context.empty());
    CHECK(again.system_message.empty());
    CHECK(respond(f, file, "session-2").system_message == k_no_key);
  }
  SECTION("auto_search off in the environment") {
    f.set_env("MEM0_AUTO_SEARCH", "off");
    CHECK(read(f, file).empty());
  }
  SECTION("auto_search off in settings.json") {
    write_file(f.home / ".mem0/settings.json", R"({"auto_search": false})");
    f.reload();
    CHECK(read(f, file).empty());
  }
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_file_read: skipped names send nothing even when the file is large") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "would be shown")});
  for (const char *rel :
       {"assets/logo.png", "static/app.min.js", "static/site.min.css", "yarn.lock",
        "node_modules/lib/index.js", "dist/bundle.js", "build/out.js", ".venv/lib/site.py",
        "pkg/__pycache__/mod.py", ".git/packed-refs"}) {
    CAPTURE(rel);
    CHECK(read(f, source_file(f.project / rel)).empty());
  }
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_file_read: an unreadable file is looked up, it is only stat'ed, never opened") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/secret_config.py");
  fs::permissions(file, fs::perms::none);
  f.http.answer({memory(1, "convention", "Config values come from the environment")});
  const std::string out = read(f, file);
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(f.http.requests.size() == 1);
  CHECK(contains(out, "[mem0:" + id8_of(1) + "]"));
}

// --- requests and output -----------------------------------------------------------------------

TEST_CASE("on_file_read: a lean read sends one search and prints conventions, then decisions") {
  HookFixture f;
  make_project_repo(f);
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.answer(
      {memory(1, "fact", "app.py serves the public API", "2025-03-10T11:55:00Z"),
       memory(2, "decision", "Chose FastAPI over Flask", "2025-03-07T12:00:00Z"),
       memory(3, "convention", "Wrap handlers in try_request", "2025-03-10T11:30:00.123456+02:00"),
       memory(4, "convention", "Keep views thin")});
  const std::string out = read(f, file);

  REQUIRE(f.http.requests.size() == 1);
  const SentSearch s = parse_sent(f.http.requests[0]);
  CHECK(s.query == "src/app.py app.py");
  CHECK(s.top_k == 10);
  CHECK_FALSE(s.type.has_value());
  CHECK(s.app_id == std::optional<std::string>("proj"));
  CHECK(s.user_id == std::optional<std::string>("alice"));

  const std::string expected =
      "Prior work on `src/app.py` \xE2\x80\x94 4 memories found.\n" + std::string(k_details) +
      "\n\n" +
      "- [convention] (2h ago) Wrap handlers in try_request [mem0:00000003]\n"
      "- [convention] Keep views thin [mem0:00000004]\n"
      "- [decision] (3d ago) Chose FastAPI over Flask [mem0:00000002]\n"
      "- [fact] (5m ago) app.py serves the public API [mem0:00000001]";
  CHECK(out == expected);
}

TEST_CASE("on_file_read: the details line names mem0-hooks peek by its absolute path") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "Keep views thin")});
  const HookOutput out = respond(f, source_file(f.project / "src/app.py"));
  REQUIRE(lines_of(out.context).size() >= 2);
  CHECK(lines_of(out.context)[1] == k_details);
  CHECK(ofr::details_line() == k_details);
  CHECK(mem0_hooks_command() == mem0_hooks_as_named());
  CHECK(fs::path(mem0_hooks_path()).is_absolute());
  CHECK(fs::path(mem0_hooks_path()).stem() == "mem0-hooks");
  CHECK_FALSE(contains(out.context, "search_memories"));
  CHECK(out.system_message.empty()); // nothing wrong: nothing for the user
}

TEST_CASE("on_file_read: show_recall says how many memories the read recalled") {
  HookFixture f;
  f.set_env("MEM0_SHOW_RECALL", "on");
  f.http.answer({memory(1, "convention", "Keep views thin"), memory(2, "decision", "Use SQLite")});
  const HookOutput out = respond(f, source_file(f.project / "src/app.py"));
  CHECK(memory_lines(out.context).size() == 2);
  CHECK(out.system_message == "mem0: 2 memories recalled");
  // Nothing new for the next file: no summary, no output.
  const HookOutput next = respond(f, source_file(f.project / "src/b.py"));
  CHECK(next.context.empty());
  CHECK(next.system_message.empty());
}

TEST_CASE("on_file_read: at most 5 memories are shown") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  std::vector<Memory> results;
  for (unsigned n = 1; n <= 4; ++n)
    results.push_back(memory(n, "fact", "fact " + std::to_string(n)));
  for (unsigned n = 5; n <= 7; ++n)
    results.push_back(memory(n, "decision", "decision " + std::to_string(n)));
  for (unsigned n = 8; n <= 9; ++n)
    results.push_back(memory(n, "convention", "convention " + std::to_string(n)));
  f.http.answer(results);
  const std::string out = read(f, file);
  CHECK(types_shown(out) ==
        std::vector<std::string>{"convention", "convention", "decision", "decision", "decision"});
  CHECK(has_line(out, "Prior work on `src/app.py` \xE2\x80\x94 5 memories found."));
}

TEST_CASE("on_file_read: a thorough read sends broad, convention and decision searches") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.answer_by_type([](const std::string &type) {
    if (type == "convention") return found({memory(2, "convention", "Use snake_case")});
    if (type == "decision") return found({memory(3, "decision", "SQLite for tests")});
    return found({memory(1, "fact", "Entry point"), memory(2, "convention", "Use snake_case")});
  });
  const std::string out = read(f, file);
  const auto sent = f.http.sent();
  REQUIRE(sent.size() == 3);
  CHECK(f.http.batches == 1);
  CHECK(sent[0].top_k == 10);
  CHECK(sent[1].type == std::optional<std::string>("convention"));
  CHECK(sent[1].top_k == 5);
  CHECK(sent[2].type == std::optional<std::string>("decision"));
  CHECK(sent[2].top_k == 3);
  CHECK(types_shown(out) == std::vector<std::string>{"convention", "decision", "fact"});
}

TEST_CASE("on_file_read: nothing found prints nothing") {
  HookFixture f;
  CHECK(read(f, source_file(f.project / "src/app.py")).empty());
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("on_file_read: a relative file_path is resolved against the cwd") {
  HookFixture f;
  make_project_repo(f);
  source_file(f.project / "src/app.py");
  f.http.answer({memory(1, "convention", "Keep views thin")});
  const std::string out = handled(ofr::handle, read_input(f, "src/app.py"), f).context;
  REQUIRE(f.http.requests.size() == 1);
  CHECK(parse_sent(f.http.requests[0]).query == "src/app.py app.py");
  CHECK(has_line(out, "Prior work on `src/app.py` \xE2\x80\x94 1 memories found."));
}

TEST_CASE("on_file_read: the output never carries a permission decision") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "Keep views thin")});
  const std::string out = read(f, source_file(f.project / "src/app.py"));
  REQUIRE_FALSE(out.empty());
  CHECK_FALSE(contains(out, "permissionDecision"));
  const std::string json = claude_code_shape::render("PreToolUse", {.context = out});
  CHECK_FALSE(contains(json, "permissionDecision"));
  CHECK(contains(json, "\"additionalContext\""));
}

// --- session memory ----------------------------------------------------------------------------

TEST_CASE("on_file_read: the same version of a file is looked up once per session") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.answer({memory(1, "convention", "Keep views thin"), memory(2, "decision", "Use SQLite")});
  CHECK_FALSE(read(f, file).empty());
  CHECK(read(f, file).empty());
  CHECK(f.http.requests.size() == 1);
}

TEST_CASE("on_file_read: a changed file is looked up again") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  read(f, file);
  REQUIRE(f.http.requests.size() == 1);

  SECTION("new size") {
    const auto mtime = fs::last_write_time(file);
    source_file(file, 2500);
    fs::last_write_time(file, mtime);
    read(f, file);
    CHECK(f.http.requests.size() == 2);
  }
  SECTION("new mtime") {
    fs::last_write_time(file, fs::last_write_time(file) + std::chrono::seconds(30));
    read(f, file);
    CHECK(f.http.requests.size() == 2);
  }
}

TEST_CASE("on_file_read: another session looks the file up again") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.answer({memory(1, "convention", "Keep views thin")});
  read(f, file, "session-a");
  const std::string other = read(f, file, "session-b");
  CHECK(f.http.requests.size() == 2);
  CHECK(contains(other, "[mem0:" + id8_of(1) + "]"));
}

TEST_CASE("on_file_read: a failed lookup is not remembered, so the next read tries again") {
  HookFixture f;
  const fs::path file = source_file(f.project / "src/app.py");
  f.http.responder = [](const HttpRequest &) { return transport_failure(ErrorKind::timeout); };
  const HookOutput failed = respond(f, file);
  CHECK(failed.context.empty());
  CHECK(failed.system_message ==
        "mem0: recall incomplete \xE2\x80\x94 1 of 1 searches failed (timeout)");

  f.http.answer({memory(1, "convention", "Keep views thin")});
  CHECK(contains(read(f, file), "[mem0:" + id8_of(1) + "]"));
  CHECK(f.http.requests.size() == 2);

  CHECK(read(f, file).empty());
  CHECK(f.http.requests.size() == 2);
}

TEST_CASE("on_file_read: memories shown for a prompt are not repeated for a file") {
  HookFixture f;
  f.http.answer({memory(1, "convention", "Keep views thin"), memory(2, "decision", "Use SQLite")});
  PromptInput prompt;
  prompt.session_id = "session-1";
  prompt.cwd = f.project.string();
  prompt.prompt = "How should the views in the shop app be structured?";
  REQUIRE(contains(handled(on_user_prompt::handle, prompt, f).context, "[mem0:" + id8_of(1) + "]"));

  f.http.answer(
      {memory(1, "convention", "Keep views thin"), memory(3, "convention", "Views return DTOs")});
  const std::string out = read(f, source_file(f.project / "src/views.py"));
  CHECK(memory_lines(out).size() == 1);
  CHECK(contains(out, "[mem0:" + id8_of(3) + "]"));
  CHECK(has_line(out, "Prior work on `src/views.py` \xE2\x80\x94 1 memories found."));
}

// --- failures and quota ------------------------------------------------------------------------

TEST_CASE("on_file_read: a rejected key is reported") {
  HookFixture f;
  f.http.responder = [](const HttpRequest &) {
    return http_status(403, R"({"detail":"Forbidden"})");
  };
  const HookOutput out = respond(f, source_file(f.project / "src/app.py"));
  CHECK(out.context.empty()); // nothing for the model
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 API key rejected");
  // Not on every Read: once per session.
  const HookOutput next = respond(f, source_file(f.project / "src/b.py"));
  CHECK(next.context.empty());
  CHECK(next.system_message.empty());
  CHECK(f.http.requests.size() == 2);
}

TEST_CASE("on_file_read: the daily limit stops lookups and says so once per session") {
  HookFixture f;
  f.set_env("MEM0_DAILY_SEARCH_LIMIT", "2");
  auto store = f.store();
  REQUIRE(store.usage.add(f.today(), {2, 0}).has_value());
  const std::string limit_line =
      "mem0: daily search limit (2) reached \xE2\x80\x94 recall paused until tomorrow (UTC)";
  const HookOutput first = respond(f, source_file(f.project / "src/a.py"));
  CHECK(first.context.empty());
  CHECK(first.system_message == limit_line);
  const HookOutput next = respond(f, source_file(f.project / "src/b.py"));
  CHECK(next.context.empty());
  CHECK(next.system_message.empty());
  CHECK(f.http.requests.empty());
}

TEST_CASE("on_file_read: each lookup is counted for today") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  read(f, source_file(f.project / "src/app.py"));
  CHECK(f.store().usage.on(f.today()).searches == 3);
}

TEST_CASE("on_file_read: a partial failure keeps the found memories and tells the user") {
  HookFixture f;
  f.set_env("MEM0_SEARCH_PLAN", "thorough");
  f.http.answer_by_type([](const std::string &type) -> Result<HttpResponse> {
    if (type == "decision") return http_status(429, "slow down", std::chrono::seconds(30));
    return found({memory(1, "convention", "Keep views thin")});
  });
  const HookOutput out = respond(f, source_file(f.project / "src/app.py"));
  const std::vector<std::string> expected{
      "Prior work on `src/app.py` \xE2\x80\x94 1 memories found.", std::string(k_details), "",
      "- [convention] Keep views thin [mem0:00000001]"};
  CHECK(lines_of(out.context) == expected);
  CHECK(out.system_message == "mem0: recall skipped \xE2\x80\x94 rate limited (retry after 30 s)");
}
