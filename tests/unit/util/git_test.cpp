#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"

#include "util/files.hpp"
#include "util/git.hpp"

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

namespace {

std::string origin_section(std::string_view url) {
  return "[remote \"origin\"]\n\turl = " + std::string(url) + "\n";
}

} // namespace

TEST_CASE("git: find_repo walks up from a nested subdirectory to the .git directory") {
  TempDir tmp;
  const fs::path repo = tmp / "repo";
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(repo / ".git/config", origin_section("git@github.com:mem0ai/mem0.git"));
  fs::create_directories(repo / "a/b/c");

  const auto found = find_repo(repo / "a/b/c");
  REQUIRE(found.has_value());
  CHECK(found->top.string() == repo.string());
  CHECK(found->git_dir.string() == (repo / ".git").string());
  CHECK(found->common_dir.string() == (repo / ".git").string());
  CHECK(origin_url(*found) == std::optional<std::string>("git@github.com:mem0ai/mem0.git"));
}

TEST_CASE("git: find_repo finds nothing outside any repository") {
  TempDir tmp;
  REQUIRE_NOT_IN_GIT_REPO(tmp.path());
  fs::create_directories(tmp / "plain/dir");
  CHECK_FALSE(find_repo(tmp / "plain/dir").has_value());
}

TEST_CASE("git: the nearest enclosing repository wins for nested repositories") {
  TempDir tmp;
  write_file(tmp / "outer/.git/config", origin_section("git@github.com:org/outer.git"));
  write_file(tmp / "outer/vendor/inner/.git/config",
             origin_section("git@github.com:org/inner.git"));
  fs::create_directories(tmp / "outer/vendor/inner/src");

  const auto found = find_repo(tmp / "outer/vendor/inner/src");
  REQUIRE(found.has_value());
  CHECK(found->top.string() == (tmp / "outer" / "vendor" / "inner").string());
  CHECK(origin_url(*found) == std::optional<std::string>("git@github.com:org/inner.git"));
}

TEST_CASE("git: a worktree reads its HEAD from its own git dir and the config of the main repo") {
  TempDir tmp;
  const fs::path main_repo = tmp / "main";
  write_file(main_repo / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(main_repo / ".git/config", origin_section("https://github.com/mem0ai/mem0.git"));
  const fs::path wt_git = main_repo / ".git" / "worktrees" / "wt";
  write_file(wt_git / "HEAD", "ref: refs/heads/feature/worktree\n");
  write_file(wt_git / "commondir", "../..\n");
  write_file(wt_git / "gitdir", (tmp / "wt/.git").string() + "\n");
  const fs::path worktree = tmp / "wt";
  write_file(worktree / ".git", "gitdir: " + wt_git.string() + "\n");
  fs::create_directories(worktree / "src");

  const auto found = find_repo(worktree / "src");
  REQUIRE(found.has_value());
  CHECK(found->top.string() == worktree.string());
  CHECK(found->git_dir.string() == wt_git.string());
  CHECK(fs::canonical(found->common_dir) == fs::canonical(main_repo / ".git"));
  CHECK(origin_url(*found) == std::optional<std::string>("https://github.com/mem0ai/mem0.git"));
  CHECK(current_branch(*found) == std::optional<std::string>("feature/worktree"));
}

TEST_CASE("git: a submodule's relative gitdir is resolved against its own directory") {
  TempDir tmp;
  const fs::path super = tmp / "super";
  write_file(super / ".git/config", origin_section("git@github.com:org/super.git"));
  write_file(super / ".git/modules/libs/sub/config", origin_section("git@gitlab.com:team/sub.git"));
  write_file(super / ".git/modules/libs/sub/HEAD", "ref: refs/heads/stable\n");
  write_file(super / "libs/sub/.git", "gitdir: ../../.git/modules/libs/sub\n");
  fs::create_directories(super / "libs/sub/include");

  const auto found = find_repo(super / "libs/sub/include");
  REQUIRE(found.has_value());
  CHECK(found->top.string() == (super / "libs" / "sub").string());
  CHECK(found->git_dir.string() == (super / ".git" / "modules" / "libs" / "sub").string());
  CHECK(origin_url(*found) == std::optional<std::string>("git@gitlab.com:team/sub.git"));
  CHECK(current_branch(*found) == std::optional<std::string>("stable"));
}

TEST_CASE("git: parse_remote_url picks the requested remote among several") {
  const std::string config = "[core]\n"
                             "\trepositoryformatversion = 0\n"
                             "[remote \"upstream\"]\n"
                             "\turl = git@github.com:upstream/project.git\n"
                             "\tfetch = +refs/heads/*:refs/remotes/upstream/*\n"
                             "[remote \"origin\"]\n"
                             "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
                             "\turl = git@github.com:me/project.git\n"
                             "[branch \"main\"]\n"
                             "\tremote = origin\n";
  CHECK(parse_remote_url(config) == std::optional<std::string>("git@github.com:me/project.git"));
  CHECK(parse_remote_url(config, "upstream") ==
        std::optional<std::string>("git@github.com:upstream/project.git"));
  CHECK_FALSE(parse_remote_url(config, "fork").has_value());
}

TEST_CASE("git: parse_remote_url strips quotes and trailing comments") {
  CHECK(parse_remote_url("[remote \"origin\"]\n\turl = \"https://example.com/team/repo.git\"\n") ==
        std::optional<std::string>("https://example.com/team/repo.git"));
  CHECK(parse_remote_url("[remote \"origin\"]\n\turl = git@host:team/repo.git # main remote\n") ==
        std::optional<std::string>("git@host:team/repo.git"));
  CHECK(parse_remote_url("[remote \"origin\"]\n\turl = git@host:team/repo.git ; old style\n") ==
        std::optional<std::string>("git@host:team/repo.git"));
}

TEST_CASE("git: parse_remote_url skips comment lines and tolerates CRLF and spacing") {
  const std::string config = "# url = wrong-before-section\n"
                             "[remote \"origin\"]\r\n"
                             "\t# url = commented-out\r\n"
                             "\t; url = also-commented\r\n"
                             "    url=git@host:team/repo.git\r\n";
  CHECK(parse_remote_url(config) == std::optional<std::string>("git@host:team/repo.git"));
}

TEST_CASE("git: section names are case-insensitive, remote names are not") {
  CHECK(parse_remote_url("[Remote \"origin\"]\n\turl = a:b/c.git\n") ==
        std::optional<std::string>("a:b/c.git"));
  CHECK(parse_remote_url("[REMOTE \"origin\"]\n\tURL = a:b/c.git\n") ==
        std::optional<std::string>("a:b/c.git"));
  CHECK_FALSE(parse_remote_url("[remote \"Origin\"]\n\turl = a:b/c.git\n").has_value());
}

TEST_CASE("git: parse_remote_url does not read past the end of the origin section") {
  CHECK_FALSE(parse_remote_url("[remote \"origin\"]\n\tfetch = x\n[other]\n\turl = not-origin\n")
                  .has_value());
  CHECK_FALSE(parse_remote_url("[core]\n\tbare = false\n").has_value());
  CHECK_FALSE(parse_remote_url("").has_value());
}

TEST_CASE("git: current_branch reads HEAD, or the short commit when detached") {
  TempDir tmp;
  const fs::path repo = tmp / "repo";
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  auto found = find_repo(repo);
  REQUIRE(found.has_value());
  CHECK(current_branch(*found) == std::optional<std::string>("main"));

  write_file(repo / ".git/HEAD", "ref: refs/heads/feature/login-form\n");
  CHECK(current_branch(*found) == std::optional<std::string>("feature/login-form"));

  write_file(repo / ".git/HEAD", "3f5e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f\n");
  CHECK(current_branch(*found) == std::optional<std::string>("3f5e2a1"));

  fs::remove(repo / ".git/HEAD");
  CHECK_FALSE(current_branch(*found).has_value());
}

TEST_CASE("git: head_commit is the full commit of HEAD, from a loose ref or packed-refs") {
  TempDir tmp;
  const fs::path repo = tmp / "repo";
  const std::string sha1 = "3f5e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f";
  const std::string sha2 = "0123456789abcdef0123456789abcdef01234567";
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  const auto found = find_repo(repo);
  REQUIRE(found.has_value());
  CHECK_FALSE(head_commit(*found)); // no commit on the branch yet
  write_file(repo / ".git/packed-refs", "# pack-refs with: peeled fully-peeled sorted\n" + sha2 +
                                            " refs/heads/main\n^" + sha1 + "\n" + sha1 +
                                            " refs/heads/other\n");
  CHECK(head_commit(*found) == sha2);
  write_file(repo / ".git/refs/heads/main", sha1 + "\n"); // a loose ref wins over the packed one
  CHECK(head_commit(*found) == sha1);
  write_file(repo / ".git/HEAD", sha2 + "\n"); // detached
  CHECK(head_commit(*found) == sha2);
  for (const std::string bad : {"3f5e2a1", "not a commit", "ref: refs/heads/../../../etc"}) {
    write_file(repo / ".git/HEAD", bad + "\n");
    CHECK_FALSE(head_commit(*found));
  }
  write_file(repo / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(repo / ".git/refs/heads/main", "garbage\n");
  CHECK_FALSE(head_commit(*found));

  // A worktree's branch lives in the main repository's refs.
  const fs::path wt_git = repo / ".git" / "worktrees" / "wt";
  write_file(wt_git / "HEAD", "ref: refs/heads/other\n");
  write_file(wt_git / "commondir", "../..\n");
  write_file(tmp / "wt/.git", "gitdir: " + wt_git.string() + "\n");
  const auto worktree = find_repo(tmp / "wt");
  REQUIRE(worktree.has_value());
  CHECK(head_commit(*worktree) == sha1);
}

TEST_CASE("git: remote_slug turns remote urls into owner-repo") {
  struct Case {
    const char *url;
    const char *slug;
  };
  const Case cases[] = {
      {"git@github.com:mem0ai/mem0.git", "mem0ai-mem0"},
      {"git@github.com:mem0ai/mem0", "mem0ai-mem0"},
      {"https://github.com/mem0ai/mem0.git", "mem0ai-mem0"},
      {"https://github.com/mem0ai/mem0", "mem0ai-mem0"},
      {"https://github.com/mem0ai/mem0/", "mem0ai-mem0"},
      {"http://gitea.local/team/tool.git", "team-tool"},
      {"ssh://git@github.com:22/mem0ai/mem0.git", "mem0ai-mem0"},
      {"ssh://git@example.com/team/tool.git", "team-tool"},
      {"git://example.com/team/tool.git", "team-tool"},
      {"https://user@bitbucket.org/team/tool.git", "team-tool"},
      {"git@gitlab.com:group/subgroup/tool.git", "subgroup-tool"},
      {"tool", "tool"},
      // as Mem0's 0.3 plugin derives them (run in Python): `.git` goes before `/` only, `git@`
      // only without a scheme
      {"https://github.com/mem0ai/mem0.git/", "mem0ai-mem0.git"},
      {"ssh://git@example.com/tool", "git@example.com-tool"},
      {"deploy@host:team/app.git", "team-app"},
      {"/srv/git/project.git", "git-project"},
      {"git@host:repo.git", "host-repo"},
      {"https://h:8443/a/b:c.git", "a-b-c"},
  };
  for (const auto &c : cases) {
    CAPTURE(c.url);
    CHECK(remote_slug(c.url) == c.slug);
  }
}

TEST_CASE("git: a credential in a remote url is in no slug and no origin url") {
  const std::pair<const char *, const char *> cases[] = {
      {"https://deploy:tok_9f8e7d6c@git.example.com/acme-billing.git",
       "https://git.example.com/acme-billing.git"},
      {"https://tok_9f8e7d6c@git.example.com/acme-billing.git",
       "https://git.example.com/acme-billing.git"},
      {"https://x:p@ss:w0rd@github.com/acme/billing", "https://github.com/acme/billing"},
      {"ssh://deploy:tok_9f8e7d6c@example.com:22/acme/billing.git",
       "ssh://example.com:22/acme/billing.git"},
      {"HTTP://tok_9f8e7d6c@git.example.com/acme/billing", "HTTP://git.example.com/acme/billing"},
  };
  for (const auto &[with, clean] : cases) {
    CAPTURE(with);
    CHECK(without_user_info(with) == clean);
    CHECK(remote_slug(with) == remote_slug(clean));
    CHECK(remote_slug(with).find("tok_") == std::string::npos);
  }
  CHECK(remote_slug("https://deploy:tok_x@host/acme-billing.git") == "host-acme-billing");
  // An ssh user is no secret: kept, so that keys hashed from these urls stay as they were.
  for (const char *plain :
       {"https://host/users/@me/x.git", "/srv/git/repo.git", "repo",
        "git@github.com:mem0ai/mem0.git", "ssh://git@example.com/team/tool.git"})
    CHECK(without_user_info(plain) == plain);

  TempDir tmp;
  write_file(tmp / ".git/HEAD", "ref: refs/heads/main\n");
  write_file(tmp / ".git/config",
             origin_section("https://deploy:tok_9f8e7d6c@git.example.com/acme-billing.git"));
  const auto repo = find_repo(tmp.path());
  REQUIRE(repo);
  CHECK(origin_url(*repo) ==
        std::optional<std::string>("https://git.example.com/acme-billing.git"));
}

TEST_CASE("git: read_small_file refuses files over the size limit") {
  TempDir tmp;
  write_file(tmp / "f", std::string(100, 'x'));
  CHECK(read_small_file(tmp / "f", 100) == std::optional<std::string>(std::string(100, 'x')));
  CHECK_FALSE(read_small_file(tmp / "f", 99).has_value());
  CHECK_FALSE(read_small_file(tmp / "missing").has_value());
}
