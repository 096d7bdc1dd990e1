// The identity of a project's searches and writes: the normalised origin, the shared-memory agent
// id of Mem0's newer plugin, and project_identity (docs/api.md#shared-memory).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "mem0/config.hpp"
#include "mem0/identity.hpp"
#include "util/sha256.hpp"

#include <map>
#include <string>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

// Computed with Python: hashlib.sha256(b"https://github.com/mem0ai/mem0").hexdigest()[:10]
constexpr std::string_view k_mem0_hash = "cddc9a2d07";
// hashlib.sha256(b"https://github.com/Mem0ai/Mem0").hexdigest()[:10]: the path keeps its case.
constexpr std::string_view k_mem0_mixed_case_hash = "6f06438abd";

std::string origin_config(std::string_view url) {
  return "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = " + std::string(url) +
         "\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
}

// A git repository made of plain files: <dir>/.git/{HEAD,config}.
void make_repo(const fs::path &dir, std::string_view config) {
  write_file(dir / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(dir / ".git/config", config);
}

// `local-<app>-<sha256(path)[:10]>`
std::string local_id(std::string_view app, const fs::path &real_path) {
  return "local-" + std::string(app) + "-" + sha256_hex(real_path.string()).substr(0, 10);
}

Environment env_in(const TempDir &home, std::map<std::string, std::string> extra = {}) {
  Environment env;
  env.vars = {{"HOME", home.path().string()},
              {"MEM0_STATE_DIR", (home / "state").string()},
              {"MEM0_API_KEY", "m0-test-key-1234"},
              {"MEM0_USER_ID", "alice"}};
  for (auto &[k, v] : extra)
    env.vars[k] = v;
  return env;
}

} // namespace

TEST_CASE("normalize_origin: every remote syntax", "[identity]") {
  struct Case {
    std::string url;
    std::string normalised;
  };
  // Each expected value is what Mem0's 0.3 plugin (_normalize_remote) gives, run in Python.
  const std::vector<Case> cases{
      // only git@host:path becomes https; the path's case kept
      {"git@github.com:Mem0ai/Mem0.git", "https://github.com/Mem0ai/Mem0"},
      {"git@github.com:mem0ai/mem0", "https://github.com/mem0ai/mem0"},
      {"github.com:o/r.git", "github.com:o/r"},
      {"deploy@Host.example:team/app.git", "deploy@Host.example:team/app"},
      // URLs: user info dropped, scheme and host lowercased, the port kept as a number
      {"https://github.com/mem0ai/mem0.git", "https://github.com/mem0ai/mem0"},
      {"https://github.com/mem0ai/mem0", "https://github.com/mem0ai/mem0"},
      {"https://user:token@GitHub.COM/mem0ai/mem0.git/", "https://github.com/mem0ai/mem0.git"},
      {"http://host:8080/o/r/", "http://host:8080/o/r"},
      {"ssh://git@GitHub.com:22/o/r.git", "ssh://github.com:22/o/r"},
      {"git://host.example/o/r.git", "git://host.example/o/r"},
      {"file:///srv/git/r.git", "file:///srv/git/r"},
      {"HTTPS://GitHub.COM/A/B", "https://github.com/A/B"},
      {"https://h:08443/x", "https://h:8443/x"},
      {"https://h:0/x", "https://h/x"},
      {"https://[::1]:8080/x", "https://::1:8080/x"},
      // a plain path: only the suffixes go, `.git` before `/` only
      {"/srv/git/r.git", "/srv/git/r"},
      {"/srv/git/r.git/", "/srv/git/r.git"},
      // surrounding white space
      {"  https://github.com/mem0ai/mem0.git \n", "https://github.com/mem0ai/mem0"},
      {"\tgit@github.com:mem0ai/mem0.git\r\n", "https://github.com/mem0ai/mem0"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.url);
    CHECK(normalize_origin(c.url) == c.normalised);
  }
}

TEST_CASE("normalize_origin: a URL that is only a scheme, or strips down to one, is no crash",
          "[shared]") {
  // Fuzzing found `http://`: the slashes went with the trailing `/`, past where the host started;
  // and `http://@`, whose user info, once dropped, left a trailing `/`.
  CHECK(normalize_origin("http://") == "http:");
  CHECK(normalize_origin("http://@") == "http:");
  CHECK(normalize_origin("ssh:///") == "ssh:");
  CHECK(normalize_origin("https://.git") == "https:");
  CHECK(normalize_origin("https://.git/") == "https://.git");
  CHECK(normalize_origin("git@:") == "https:");
  CHECK(normalize_origin("") == "");
  // The authority ends at `/`, `?` or `#`, as for Python's urlsplit; a port that is no number
  // (where Mem0's plugins fail) is kept, lower-cased.
  CHECK(normalize_origin("https://a?b@c/x") == "https://a?b@c/x");
  CHECK(normalize_origin("https://u@H#frag") == "https://h#frag");
  CHECK(normalize_origin("https://H:ABC/x") == "https://h:abc/x");
  CHECK(normalize_origin("https://[::1/x") == "https://[::1/x");
}

TEST_CASE("normalize_origin: the path's case is kept, only the host is lowercased", "[identity]") {
  CHECK(normalize_origin("https://GitHub.com/Mem0ai/Mem0") == "https://github.com/Mem0ai/Mem0");
  CHECK(normalize_origin("git@GitHub.com:Mem0ai/Mem0.git") == "https://github.com/Mem0ai/Mem0");
  // An @ in the path is not user info.
  CHECK(normalize_origin("https://Host/o/r@v2.git") == "https://host/o/r@v2");
}

TEST_CASE("shared_agent_id: the app id and the hash of the normalised origin", "[identity]") {
  TempDir tmp;
  const fs::path repo = tmp / "checkout";
  fs::create_directories(repo / "src/deep");

  SECTION("every syntax of the same remote gives the same id") {
    for (const std::string url :
         {"git@github.com:mem0ai/mem0.git", "git@github.com:mem0ai/mem0",
          "https://github.com/mem0ai/mem0.git", "https://github.com/mem0ai/mem0",
          "https://user:token@GitHub.COM/mem0ai/mem0.git", "HTTPS://github.com/mem0ai/mem0/"}) {
      CAPTURE(url);
      make_repo(repo, origin_config(url));
      CHECK(shared_agent_id("mem0ai-mem0", repo) == "mem0ai-mem0-" + std::string(k_mem0_hash));
      CHECK(shared_agent_id("mem0ai-mem0", repo / "src/deep") ==
            "mem0ai-mem0-" + std::string(k_mem0_hash));
    }
  }
  SECTION("as 0.3: a `.git/` keeps its `.git`, and only git@ is an scp-like form made https") {
    for (const std::string url : {"https://github.com/mem0ai/mem0.git/",
                                  "github.com:mem0ai/mem0.git", "me@github.com:mem0ai/mem0"}) {
      CAPTURE(url);
      make_repo(repo, origin_config(url));
      CHECK(shared_agent_id("mem0ai-mem0", repo) != "mem0ai-mem0-" + std::string(k_mem0_hash));
      CHECK(shared_agent_id("p", repo) == "p-" + sha256_hex(normalize_origin(url)).substr(0, 10));
    }
  }
  SECTION("the path's case counts") {
    make_repo(repo, origin_config("git@github.com:Mem0ai/Mem0.git"));
    CHECK(shared_agent_id("proj", repo) == "proj-" + std::string(k_mem0_mixed_case_hash));
  }
  SECTION("the app id is used as given") {
    make_repo(repo, origin_config("https://github.com/mem0ai/mem0.git"));
    CHECK(shared_agent_id("my-app", repo) == "my-app-" + std::string(k_mem0_hash));
    CHECK(shared_agent_id("proj", repo) ==
          "proj-" + sha256_hex("https://github.com/mem0ai/mem0").substr(0, 10));
  }
  SECTION("another remote gives another id") {
    make_repo(repo, origin_config("git@gitlab.com:team/service.git"));
    CHECK(shared_agent_id("proj", repo) ==
          "proj-" + sha256_hex("https://gitlab.com/team/service").substr(0, 10));
    CHECK(shared_agent_id("proj", repo) != "proj-" + std::string(k_mem0_hash));
  }
}

TEST_CASE("shared_agent_id: a worktree shares its main checkout's origin and id", "[identity]") {
  TempDir tmp;
  const fs::path main_repo = tmp / "main";
  make_repo(main_repo, origin_config("https://github.com/mem0ai/mem0.git"));
  const fs::path wt_git = main_repo / ".git/worktrees/wt";
  write_file(wt_git / "HEAD", "ref: refs/heads/feature\n");
  write_file(wt_git / "commondir", "../..\n");
  write_file(wt_git / "gitdir", (tmp / "wt/.git").string() + "\n");
  const fs::path worktree = tmp / "wt";
  write_file(worktree / ".git", "gitdir: " + wt_git.string() + "\n");
  fs::create_directories(worktree / "src");

  const std::string expected = "proj-" + std::string(k_mem0_hash);
  CHECK(shared_agent_id("proj", main_repo) == expected);
  CHECK(shared_agent_id("proj", worktree) == expected);
  CHECK(shared_agent_id("proj", worktree / "src") == expected);
}

// [no-wine]: mingw's std::filesystem cannot make a symbolic link, and wine 8's CreateSymbolicLinkW
// makes none (docs/windows.md#testing-under-wine).
TEST_CASE("shared_agent_id: without an origin, local- and the real path of the repository root",
          "[identity][no-wine]") {
  TempDir tmp;
  REQUIRE_NOT_IN_GIT_REPO(tmp.path());
  const fs::path repo = tmp / "real/repo";
  make_repo(repo, "[remote \"upstream\"]\n\turl = git@github.com:a/b.git\n");
  fs::create_directories(repo / "src/deep");
  const std::string expected = local_id("proj", repo); // TempDir's path is already real

  CHECK(shared_agent_id("proj", repo) == expected);
  CHECK(shared_agent_id("proj", repo / "src/deep") == expected);

  SECTION("through a symlink to the repository: the same id") {
    fs::create_symlink(repo, tmp / "link");
    CHECK(shared_agent_id("proj", tmp / "link") == expected);
    CHECK(shared_agent_id("proj", tmp / "link/src/deep") == expected);
  }
  SECTION("through a symlinked parent directory: the same id") {
    fs::create_directory_symlink(tmp / "real", tmp / "alias");
    CHECK(shared_agent_id("proj", tmp / "alias/repo/src") == expected);
  }
  SECTION("another app id, another id") {
    CHECK(shared_agent_id("other", repo) == local_id("other", repo));
    CHECK(shared_agent_id("other", repo) != expected);
  }
}

// [no-wine]: mingw's std::filesystem cannot make a symbolic link, and wine 8's CreateSymbolicLinkW
// makes none (docs/windows.md#testing-under-wine).
TEST_CASE("shared_agent_id: outside any repository, local- and the real path of the cwd",
          "[identity][no-wine]") {
  TempDir tmp;
  REQUIRE_NOT_IN_GIT_REPO(tmp.path());
  const fs::path plain = tmp / "work/service";
  fs::create_directories(plain / "sub");
  CHECK(shared_agent_id("service", plain) == local_id("service", plain));
  // The cwd itself, not a parent: another directory is another id.
  CHECK(shared_agent_id("service", plain / "sub") == local_id("service", plain / "sub"));
  CHECK(local_id("service", plain / "sub") != local_id("service", plain));

  fs::create_directory_symlink(plain, tmp / "shortcut");
  CHECK(shared_agent_id("service", tmp / "shortcut") == local_id("service", plain));
}

TEST_CASE("project_identity: the shared id is on by default on the platform", "[identity]") {
  TempDir home;
  const fs::path repo = home / "code/mem0";
  make_repo(repo, origin_config("git@github.com:mem0ai/mem0.git"));
  const Log log("unit-test");

  const auto identity_with = [&](std::map<std::string, std::string> extra) {
    const Environment env = env_in(home, std::move(extra));
    return project_identity(load_config(env), env, repo, "sess-1", log);
  };

  const Identity on = identity_with({});
  CHECK(on.user_id == "alice");
  CHECK(on.project_id == "mem0ai-mem0");
  CHECK(on.session_id == "sess-1");
  CHECK(on.shared_agent_id == "mem0ai-mem0-" + std::string(k_mem0_hash));

  // MEM0_PROJECT_ID names the app the shared id is made of.
  CHECK(identity_with({{"MEM0_PROJECT_ID", "proj"}}).shared_agent_id ==
        "proj-" + std::string(k_mem0_hash));

  SECTION("MEM0_SHARED_MEMORY=off turns it off") {
    for (const char *off : {"off", "0", "false", "NO"}) {
      CAPTURE(off);
      const Identity id = identity_with({{"MEM0_SHARED_MEMORY", off}});
      CHECK(id.shared_agent_id.empty());
      CHECK(id.user_id == "alice");
      CHECK(id.project_id == "mem0ai-mem0");
      CHECK(id.session_id == "sess-1");
    }
    // A value that is no boolean leaves the default.
    CHECK(identity_with({{"MEM0_SHARED_MEMORY", "maybe"}}).shared_agent_id == on.shared_agent_id);
  }
  SECTION("settings.json shared_memory false turns it off; the environment beats it") {
    write_file(home / ".mem0/settings.json", R"({"shared_memory": false})");
    CHECK(identity_with({}).shared_agent_id.empty());
    CHECK(identity_with({{"MEM0_SHARED_MEMORY", "on"}}).shared_agent_id == on.shared_agent_id);
  }
  SECTION("a self-hosted server has no shared memory") {
    CHECK(identity_with({{"MEM0_BACKEND", "selfhosted"}}).shared_agent_id.empty());
    CHECK(identity_with({{"MEM0_BACKEND", "selfhosted"}, {"MEM0_SHARED_MEMORY", "on"}})
              .shared_agent_id.empty());
    write_file(home / ".mem0/settings.json", R"({"backend": "self-hosted"})");
    CHECK(identity_with({}).shared_agent_id.empty());
    CHECK(identity_with({}).project_id == "mem0ai-mem0");
  }
}

TEST_CASE("project_identity: without a repository the shared id is the local form of the cwd",
          "[identity]") {
  TempDir home;
  REQUIRE_NOT_IN_GIT_REPO(home.path());
  const fs::path plain = home / "work" / "my-service"; // spelled as its real path
  fs::create_directories(plain);
  const Environment env = env_in(home);
  const Identity id = project_identity(load_config(env), env, plain, "", Log("unit-test"));
  CHECK(id.project_id == "my-service");
  CHECK(id.session_id.empty());
  CHECK(id.shared_agent_id == local_id("my-service", plain));
}
