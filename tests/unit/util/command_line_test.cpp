// A program's command line in each shell an agent runs hook commands in (util/command_line.hpp,
// docs/windows.md#how-each-agent-runs-a-hook): quoting of spaces, quotes, non-ASCII and long paths.
#include "tests/unit/catch.hpp"

#include "util/command_line.hpp"
#include "util/platform.hpp"

#include <string>

using namespace mem0;

TEST_CASE("render_command: POSIX sh quotes only what needs it", "[util][command_line]") {
  CHECK(render_command(CommandShell::posix, "/opt/mem0/bin/on_stop", "--agent codex") ==
        "/opt/mem0/bin/on_stop --agent codex");
  CHECK(render_command(CommandShell::posix, "/opt/my tools/on_stop", "") ==
        "'/opt/my tools/on_stop'");
  CHECK(render_command(CommandShell::posix, "/home/o'neil/bin/on_stop", "--agent x") ==
        "'/home/o'\\''neil/bin/on_stop' --agent x");
  CHECK(render_command(CommandShell::posix, "/a \"b\"/on_stop", "") == "'/a \"b\"/on_stop'");
  CHECK(render_command(CommandShell::posix, "/home/andr\xC3\xA9/on_stop", "") ==
        "'/home/andr\xC3\xA9/on_stop'");
}

TEST_CASE("render_command: Git Bash gets POSIX quoting with / separators", "[util][command_line]") {
  CHECK(render_command(CommandShell::git_bash, "C:\\Users\\me\\mem0\\on_stop.exe", "") ==
        "C:/Users/me/mem0/on_stop.exe");
  CHECK(render_command(CommandShell::git_bash, "C:\\Program Files\\mem0 hooks\\on_stop.exe", "") ==
        "'C:/Program Files/mem0 hooks/on_stop.exe'");
  CHECK(render_command(CommandShell::git_bash, "C:\\Users\\O'Neil\\on_stop.exe", "--agent x") ==
        "'C:/Users/O'\\''Neil/on_stop.exe' --agent x");
}

TEST_CASE("render_command: PowerShell calls a single-quoted path, its quotes doubled",
          "[util][command_line]") {
  CHECK(render_command(CommandShell::powershell, "C:\\Program Files\\mem0 hooks\\on_stop.exe",
                       "--agent gemini-cli") ==
        "& 'C:\\Program Files\\mem0 hooks\\on_stop.exe' --agent gemini-cli");
  CHECK(render_command(CommandShell::powershell, "C:\\Users\\O'Neil\\on_stop.exe", "") ==
        "& 'C:\\Users\\O''Neil\\on_stop.exe'");
  // PowerShell ends a single-quoted string at a typographic quote too: U+2019 is doubled.
  CHECK(render_command(CommandShell::powershell, "C:\\Users\\O\xE2\x80\x99Neil\\x.exe", "") ==
        "& 'C:\\Users\\O\xE2\x80\x99\xE2\x80\x99Neil\\x.exe'");
  CHECK(render_command(CommandShell::powershell, "C:\\$env\\a`b\\x.exe", "") ==
        "& 'C:\\$env\\a`b\\x.exe'"); // literal inside '…'
}

TEST_CASE("render_command: cmd double-quotes a path that needs it", "[util][command_line]") {
  CHECK(render_command(CommandShell::cmd, "C:\\Program Files\\mem0 hooks\\on_stop.exe",
                       "--agent codex") ==
        "\"C:\\Program Files\\mem0 hooks\\on_stop.exe\" --agent codex");
  CHECK(render_command(CommandShell::cmd, "C:\\mem0\\on_stop.exe", "--agent codex") ==
        "C:\\mem0\\on_stop.exe --agent codex");
  CHECK(render_command(CommandShell::cmd, "C:\\a&b\\on_stop.exe", "") ==
        "\"C:\\a&b\\on_stop.exe\"");
  CHECK(render_command(CommandShell::cmd, "C:\\Users\\O'Neil\\x.exe", "") ==
        "C:\\Users\\O'Neil\\x.exe"); // ' is nothing to cmd
  CHECK(cmd_plain("C:\\x\\y.exe"));
  for (const char *word : {"", "a b", "a(b", "a%b", "a^b", "a!b", "a;b", "a=b", "a,b", "a\"b"})
    CHECK_FALSE(cmd_plain(word));
}

TEST_CASE("render_command: a long path is written whole in every shell", "[util][command_line]") {
  std::string dir = "C:\\Users\\me";
  while (dir.size() < 300)
    dir += "\\a long folder name";
  const std::string program = dir + "\\on_stop.exe";
  for (const CommandShell shell : {CommandShell::powershell, CommandShell::cmd}) {
    const std::string line = render_command(shell, program, "--agent x");
    CHECK(line.find(program) != std::string::npos);
    CHECK(line.ends_with(" --agent x"));
  }
  CHECK(shell_name(CommandShell::powershell) == "PowerShell");
  CHECK(shell_name(CommandShell::git_bash) == "Git Bash");
}

TEST_CASE("user_word: a word the user types, quoted for the shells of their system",
          "[util][command_line]") {
  CHECK(user_word("/home/me/.claude/settings.json", false) == "/home/me/.claude/settings.json");
  CHECK(user_word("/home/o'neil/x", false) == "'/home/o'\\''neil/x'");
  // Windows: PowerShell, where a plain word reads as it is and '…' keeps everything literal
  // (a quote doubled); "…" would expand $(…) and $name.
  CHECK(user_word("C:\\Users\\me\\.claude\\settings.json", true) ==
        "C:\\Users\\me\\.claude\\settings.json");
  for (const char *word :
       {"C:\\My Files\\x", "C:\\a$b", "C:\\a&b", "C:\\{x}", "a$(calc)b", "x\"; calc; \"y"})
    CHECK(user_word(word, true) == "'" + std::string(word) + "'");
  CHECK(user_word("C:\\O'Neil\\x", true) == "'C:\\O''Neil\\x'");
  // A typographic quote too.
  CHECK(user_word("a\xE2\x80\x99"
                  "b",
                  true) == "'a\xE2\x80\x99\xE2\x80\x99"
                           "b'");
  CHECK(user_word("/a b") == "'/a b'"); // the same on either system
}
