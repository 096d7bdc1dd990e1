// The files a shell command reads (util/shell_read.hpp), for Codex's before-read recall.
#include "tests/unit/catch.hpp"
#include "util/shell_read.hpp"

#include <string>
#include <vector>

using namespace mem0;
using Files = std::vector<std::string>;

TEST_CASE("files_read_by: the plain read commands read every operand") {
  CHECK(files_read_by("cat notes.txt") == Files{"notes.txt"});
  CHECK(files_read_by("cat -n a.py b.py") == Files{"a.py", "b.py"});
  CHECK(files_read_by("/bin/cat src/app.py") == Files{"src/app.py"});
  CHECK(files_read_by("more README.md") == Files{"README.md"});
  CHECK(files_read_by("less -N +G src/x.c") == Files{"src/x.c"});
  CHECK(files_read_by("bat --style=plain -l rust src/lib.rs") == Files{"src/lib.rs"});
  CHECK(files_read_by("batcat -r 10:20 main.go") == Files{"main.go"});
  CHECK(files_read_by("cat -- -odd-name") == Files{"-odd-name"});
}

TEST_CASE("files_read_by: head and tail skip their counts in every spelling") {
  CHECK(files_read_by("head -n 50 src/a.py") == Files{"src/a.py"});
  CHECK(files_read_by("head -n50 src/a.py") == Files{"src/a.py"});
  CHECK(files_read_by("head -20 src/a.py") == Files{"src/a.py"});
  CHECK(files_read_by("head --lines 5 a b") == Files{"a", "b"});
  CHECK(files_read_by("head --lines=5 a") == Files{"a"});
  CHECK(files_read_by("tail -c 100 log.txt") == Files{"log.txt"});
  CHECK(files_read_by("tail -fn 10 app.log") == Files{"app.log"});
}

TEST_CASE("files_read_by: nl skips its option values") {
  CHECK(files_read_by("nl -ba src/main.rs") == Files{"src/main.rs"});
  CHECK(files_read_by("nl -b a -w 4 src/main.rs") == Files{"src/main.rs"});
}

TEST_CASE("files_read_by: sed reads only with -n and never in place") {
  CHECK(files_read_by("sed -n '1,200p' src/billing/invoice.py") == Files{"src/billing/invoice.py"});
  CHECK(files_read_by("sed -n -e 1,5p -e 10p a.txt b.txt") == Files{"a.txt", "b.txt"});
  CHECK(files_read_by("sed -ne '/x/p' a.txt") == Files{"a.txt"});
  CHECK(files_read_by("sed --quiet 5p a.txt") == Files{"a.txt"});
  CHECK(files_read_by("sed 's/a/b/' a.txt").empty());    // prints the whole file, edited
  CHECK(files_read_by("sed -i 's/a/b/' a.txt").empty()); // writes the file
  CHECK(files_read_by("sed -ni 5p a.txt").empty());
  CHECK(files_read_by("sed -n --in-place=.bak 5p a.txt").empty());
  CHECK(files_read_by("sed -n").empty());
}

TEST_CASE("files_read_by: grep and rg read the operands after the pattern") {
  CHECK(files_read_by("grep -n TODO src/a.py src/b.py") == Files{"src/a.py", "src/b.py"});
  CHECK(files_read_by("grep -A 3 -e foo -e bar x.txt") == Files{"x.txt"});
  CHECK(files_read_by("grep -A3 foo x.txt") == Files{"x.txt"});
  CHECK(files_read_by("grep --regexp=foo x.txt y.txt") == Files{"x.txt", "y.txt"});
  CHECK(files_read_by("egrep 'a|b' x.txt") == Files{"x.txt"});
  CHECK(files_read_by("rg -n \"fn main\" src/main.rs") == Files{"src/main.rs"});
  CHECK(files_read_by("rg -g '*.py' -t py pattern lib") == Files{"lib"}); // the caller drops dirs
  CHECK(files_read_by("rg --files src").empty());
  CHECK(files_read_by("grep foo").empty()); // stdin
  CHECK(files_read_by("rg pattern").empty());
}

TEST_CASE("files_read_by: other commands read nothing") {
  CHECK(files_read_by("ls -la").empty());
  CHECK(files_read_by("python3 script.py data.txt").empty());
  CHECK(files_read_by("git show HEAD:src/a.py").empty());
  CHECK(files_read_by("echo cat a.txt").empty());
  CHECK(files_read_by("").empty());
  CHECK(files_read_by("   ").empty());
}

TEST_CASE("files_read_by: pipes and lists are read command by command") {
  CHECK(files_read_by("nl -ba src/a.py | sed -n '1,80p'") == Files{"src/a.py"});
  CHECK(files_read_by("cat a.txt | grep x | head -5") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt && cat b.txt; head c.txt || tail d.txt") ==
        Files{"a.txt", "b.txt", "c.txt", "d.txt"});
  CHECK(files_read_by("cat a.txt\nhead b.txt") == Files{"a.txt", "b.txt"});
  CHECK(files_read_by("cat a.txt & cat b.txt") == Files{"a.txt", "b.txt"});
  CHECK(files_read_by("LC_ALL=C grep -n x a.txt") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt a.txt && head a.txt") == Files{"a.txt"});
}

TEST_CASE("files_read_by: redirection targets are not read files") {
  CHECK(files_read_by("cat a.txt > out.txt") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt>out.txt 2>&1") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt 2>/dev/null") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt &> log") == Files{"a.txt"});
  CHECK(files_read_by("cat a.txt >> log") == Files{"a.txt"});
  CHECK(files_read_by("head -n 3 < in.txt").empty());
  CHECK(files_read_by("cat a.txt 2> err.txt b.txt") == Files{"a.txt", "b.txt"});
}

TEST_CASE("files_read_by: quotes and escapes are removed") {
  CHECK(files_read_by("cat 'my file.txt'") == Files{"my file.txt"});
  CHECK(files_read_by("cat \"my file.txt\"") == Files{"my file.txt"});
  CHECK(files_read_by("cat my\\ file.txt") == Files{"my file.txt"});
  CHECK(files_read_by("cat \"a\\\"b\"") == Files{"a\"b"});
  CHECK(files_read_by("cat a.txt # and b.txt") == Files{"a.txt"});
  CHECK(files_read_by("cat a#b.txt") == Files{"a#b.txt"});
  CHECK(files_read_by("cat 'a*b'") == Files{"a*b"}); // quoted: no glob
}

TEST_CASE("files_read_by: what the shell would expand is left out") {
  CHECK(files_read_by("cat *.py").empty());
  CHECK(files_read_by("cat src/a?.py b.py") == Files{"b.py"});
  CHECK(files_read_by("cat $FILE a.txt") == Files{"a.txt"});
  CHECK(files_read_by("cat \"$HOME/x\"").empty());
  CHECK(files_read_by("cat ~/notes.txt").empty());
  CHECK(files_read_by("cat a~b") == Files{"a~b"});
  CHECK(files_read_by("$PAGER a.txt").empty());
}

TEST_CASE("files_read_by: substitutions, heredocs and subshells read nothing") {
  CHECK(files_read_by("cat $(ls) a.txt").empty());
  CHECK(files_read_by("cat `ls` a.txt").empty());
  CHECK(files_read_by("cat \"$(pwd)/a.txt\"").empty());
  CHECK(files_read_by("cat <(echo x) a.txt").empty());
  CHECK(files_read_by("cat <<EOF\nx\nEOF").empty());
  CHECK(files_read_by("(cd src && cat a.py)").empty());
  CHECK(files_read_by("cat 'unclosed").empty());
  CHECK(files_read_by("cat \"unclosed").empty());
}

TEST_CASE("files_read_by: a cd puts its directory before what follows") {
  CHECK(files_read_by("cd src && cat a.py") == Files{"src/a.py"});
  CHECK(files_read_by("cd src; cd billing && sed -n 1,9p invoice.py /etc/hosts") ==
        Files{"src/billing/invoice.py", "/etc/hosts"});
  CHECK(files_read_by("cd /srv/app && head x.txt") == Files{"/srv/app/x.txt"});
  CHECK(files_read_by("cat a.txt; cd $DIR && cat b.txt") == Files{"a.txt"});
  CHECK(files_read_by("cd - && cat b.txt").empty());
  CHECK(files_read_by("cd && cat b.txt").empty());
  CHECK(files_read_by("pushd src && cat b.txt").empty());
}

TEST_CASE("files_read_by: at most max_files") {
  CHECK(files_read_by("cat a b c d", 2) == Files{"a", "b"});
  CHECK(files_read_by("cat a b c d e f g h i j").size() == 8);
}
