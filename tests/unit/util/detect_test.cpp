// Prompt detectors (docs/hooks.md#prompt-detectors).
#include "tests/unit/catch.hpp"
#include "util/detect.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace mem0;
using Paths = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------
// detect_error

TEST_CASE("detect_error finds Traceback and panic anywhere") {
  CHECK(detect_error("Traceback (most recent call last):\n  File \"x.py\", line 1"));
  CHECK(detect_error("I got this: Traceback (most recent call last)"));
  CHECK(detect_error("goroutine 1 [running]:\npanic: runtime error: index out of range"));
  CHECK(detect_error("the thread said panic: oh no"));
}

TEST_CASE("detect_error finds a line starting with fatal") {
  CHECK(detect_error("fatal: not a git repository"));
  CHECK(detect_error("   fatal: bad object HEAD"));
  CHECK(detect_error("git push failed\nfatal: Authentication failed"));
  CHECK(detect_error("first line\n    fatal: refusing to merge unrelated histories\nlast"));
}

TEST_CASE("detect_error ignores fatal in the middle of a line or without the space") {
  CHECK_FALSE(detect_error("the log said fatal: something"));
  CHECK_FALSE(detect_error("fatal:nospace"));
  CHECK_FALSE(detect_error("a fatal error occurred"));
}

TEST_CASE("detect_error needs two lines with Error Exception or FAIL") {
  SECTION("two lines") {
    CHECK(detect_error("TypeError: x is undefined\nValueError: bad value"));
    CHECK(detect_error("java.lang.Exception: boom\nCaused by Exception: inner"));
    CHECK(detect_error("FAIL: test_one\nFAIL: test_two"));
    CHECK(detect_error("Error: one\nsome context\nException: two"));
    CHECK(detect_error("ok\nFAIL: a\nok\nError: b\n"));
  }
  SECTION("only one line") {
    CHECK_FALSE(detect_error("Error: just one"));
    CHECK_FALSE(detect_error("Error: a Exception: b FAIL: c")); // all on one line
    CHECK_FALSE(detect_error("FAIL: test_one\nall other tests passed"));
  }
  SECTION("lower-case words do not count") {
    CHECK_FALSE(detect_error("error: one\nerror: two"));
    CHECK_FALSE(detect_error("fail: one\nexception: two"));
  }
}

TEST_CASE("detect_error is false for ordinary prompts") {
  CHECK_FALSE(detect_error(""));
  CHECK_FALSE(detect_error("Please refactor the search module to use the new client."));
  CHECK_FALSE(detect_error("How should errors be handled in the API layer?"));
}

// ---------------------------------------------------------------------------------------------
// detect_paths: `[A-Za-z0-9_./-]+\.(py|ts|...|hpp)\b`, up to 5, distinct, in order

TEST_CASE("detect_paths matches the documented pattern") {
  struct Case {
    std::string text;
    Paths expected;
  };
  const std::vector<Case> cases = {
      {"look at src/app.py please", {"src/app.py"}},
      {"a/b.test.ts fails", {"a/b.test.ts"}},
      {"edit config.yaml, then restart", {"config.yaml"}},
      {"see foo.json", {"foo.json"}},    // not cut to foo.js
      {"open index.tsx", {"index.tsx"}}, // not cut to index.ts
      {"see foo.jsx.", {"foo.jsx"}},
      {"the file.pyc is stale", {}},
      {"(src/main.rs).", {"src/main.rs"}},
      {"run ./scripts/build.sh.", {"./scripts/build.sh"}},
      {"headers lib/x.hpp and lib/x.h", {"lib/x.hpp", "lib/x.h"}},
      {"compile a.c and b.cc and c.cpp", {"a.c", "b.cc", "c.cpp"}},
      {"README.md: update it", {"README.md"}},
      {"db/schema.sql;styles/app.css!", {"db/schema.sql", "styles/app.css"}},
      {"page.html?", {"page.html"}},
      {"pkg/server_test.go:42", {"pkg/server_test.go"}},
      {"Cargo.toml and pyproject.toml", {"Cargo.toml", "pyproject.toml"}},
      {"ci.yml vs ci.yaml", {"ci.yml", "ci.yaml"}},
      {"lib/a.rb app/Main.java", {"lib/a.rb", "app/Main.java"}},
      {"https://example.org/a.js", {"//example.org/a.js"}},
      {"my-dir/some_file-v2.ts", {"my-dir/some_file-v2.ts"}},
      {"backup foo.py.bak", {"foo.py"}},
      {"a.b.c.d.json", {"a.b.c.d.json"}},
      {"version 1.2.3 of node", {}},
      {"no paths here", {}},
      {"file.pyx and file.tsv and file.mdx", {}},
      {".py alone", {}},
      {"", {}},
  };
  for (const auto &c : cases) {
    INFO("text: " << c.text);
    CHECK(detect_paths(c.text) == c.expected);
  }
}

TEST_CASE("detect_paths keeps at most five in order of appearance") {
  CHECK(detect_paths("a.py b.py c.py d.py e.py f.py g.py") ==
        Paths{"a.py", "b.py", "c.py", "d.py", "e.py"});
  CHECK(detect_paths("z.py y.py x.py") == Paths{"z.py", "y.py", "x.py"});
}

TEST_CASE("detect_paths lists duplicates once") {
  CHECK(detect_paths("a.py b.py a.py c.py b.py") == Paths{"a.py", "b.py", "c.py"});
  CHECK(detect_paths("src/x.ts and src/x.ts again") == Paths{"src/x.ts"});
}

TEST_CASE("detect_paths honours a smaller max") {
  CHECK(detect_paths("a.py b.py c.py", 2) == Paths{"a.py", "b.py"});
  CHECK(detect_paths("a.py b.py c.py", 0).empty());
}

// ---------------------------------------------------------------------------------------------
// detect_resume

TEST_CASE("detect_resume matches every resume pattern") {
  const std::vector<std::string> positives = {
      // where (did )?(we|I) (leave|left) off
      "Where did we leave off?",
      "where did I leave off yesterday",
      "remind me where we left off",
      "where I left off",
      "WHERE DID WE LEFT OFF",
      // continue (from )?(where|last)
      "continue from where we stopped",
      "continue from last session",
      "let's continue where we were",
      "Continue last task",
      // what were we (working|doing)
      "What were we working on?",
      "what were we doing before lunch",
      // pick up where
      "pick up where we stopped",
      "Pick Up Where you left it",
      // resume (from |where)
      "resume from the last checkpoint",
      "resume where we were",
      // what.s the (current|latest) (state|status)
      "what's the current state of the refactor",
      "What\xE2\x80\x99s the latest status?", // curly apostrophe
      "what`s the latest state",
      // catch me up
      "Catch me up on the migration",
      // where are we
      "so where are we with the release?",
  };
  for (const auto &text : positives) {
    INFO(text);
    CHECK(detect_resume(text));
  }
}

TEST_CASE("detect_resume rejects unrelated prompts") {
  const std::vector<std::string> negatives = {
      "",
      "where are you from",
      "where did you put the config",
      "we left the office",
      "let's continue",
      "continue with the tests",
      "I resume my work tomorrow",
      "resumed the job",
      "pick up the groceries",
      "what is the current state", // "what.s" needs exactly one character between
      "whats the current status",
      "what's the state",
      "catch me if you can",
      "what were you doing",
  };
  for (const auto &text : negatives) {
    INFO(text);
    CHECK_FALSE(detect_resume(text));
  }
}

// ---------------------------------------------------------------------------------------------
// detect_remember

TEST_CASE("detect_remember matches every remember pattern") {
  const std::vector<std::string> positives = {
      // remember (this|that)
      "remember this: we use tabs",
      "Please REMEMBER THAT the API is v3",
      // save (this|that) (fact|info|memory|note)
      "save this fact",
      "save that info for later",
      "Save this memory",
      "save that note",
      // store (this|that)
      "store this in mem0",
      "Store that",
      // don.t forget (this|that)
      "don't forget this",
      "Don\xE2\x80\x99t forget that we deploy on Fridays", // curly apostrophe
      "DON'T FORGET THIS",
      // keep (this|that) in (mind|memory)
      "keep this in mind",
      "Keep that in memory please",
  };
  for (const auto &text : positives) {
    INFO(text);
    CHECK(detect_remember(text));
  }
}

TEST_CASE("detect_remember rejects unrelated prompts") {
  const std::vector<std::string> negatives = {
      "",
      "do you remember",
      "remember when we met",
      "save the file",
      "save this", // needs fact|info|memory|note
      "save this file",
      "store it somewhere",
      "dont forget this", // "don.t" needs exactly one character between
      "I forget things",
      "keep this simple",
      "keep that in the drawer",
  };
  for (const auto &text : negatives) {
    INFO(text);
    CHECK_FALSE(detect_remember(text));
  }
}

// ---------------------------------------------------------------------------------------------
// expand_pattern

namespace {
std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}
} // namespace

TEST_CASE("expand_pattern expands alternatives and optional groups") {
  CHECK(expand_pattern("plain words") == std::vector<std::string>{"plain words"});
  CHECK(sorted(expand_pattern("a (b|c) d")) == sorted({"a b d", "a c d"}));
  CHECK(sorted(expand_pattern("(x )?y")) == sorted({"x y", "y"}));
  CHECK(sorted(expand_pattern("resume (from |where)")) == sorted({"resume from ", "resume where"}));
  CHECK(sorted(expand_pattern("(a|b)(c|d)")) == sorted({"ac", "ad", "bc", "bd"}));
}

TEST_CASE("expand_pattern produces every combination of a resume pattern") {
  const auto variants = sorted(expand_pattern("where (did )?(we|i) (leave|left) off"));
  CHECK(variants == sorted({"where did we leave off", "where did we left off",
                            "where did i leave off", "where did i left off", "where we leave off",
                            "where we left off", "where i leave off", "where i left off"}));
}

// ---------------------------------------------------------------------------------------------
// detect_output_error and telling_error_line (command output)

TEST_CASE("detect_output_error adds Rust error codes and FATAL to detect_error", "[bash]") {
  CHECK(detect_output_error("error[E0308]: mismatched types"));
  CHECK(detect_output_error("   Compiling x\nerror[E0425]: cannot find value `y`"));
  CHECK(detect_output_error("psql: error: connection failed: FATAL:  role \"me\" does not exist"));
  CHECK(detect_output_error("FATAL: could not open config"));
  // everything detect_error finds
  CHECK(detect_output_error("Traceback (most recent call last):"));
  CHECK(detect_output_error("panic: boom"));
  CHECK(detect_output_error("fatal: not a git repository"));
  CHECK(detect_output_error("TypeError: a\nValueError: b"));
}

TEST_CASE("detect_output_error needs the whole Rust code and the exact case", "[bash]") {
  CHECK_FALSE(detect_output_error("error[E]: no digits"));
  CHECK_FALSE(detect_output_error("error[Exx]: letters"));
  CHECK_FALSE(detect_output_error("error[E0308 unclosed"));
  CHECK_FALSE(detect_output_error("error: could not compile `shop`"));
  CHECK_FALSE(detect_output_error("Fatal: mixed case\nfatal:nospace"));
  CHECK_FALSE(detect_output_error("warning[E0308]: not an error"));
  CHECK_FALSE(detect_output_error("README.md\nsrc\ntests\n"));
  CHECK_FALSE(detect_output_error(""));
}

TEST_CASE("telling_error_line prefers the exception after the last Traceback", "[bash]") {
  CHECK(telling_error_line("Traceback (most recent call last):\n"
                           "  File \"a.py\", line 1, in <module>\n"
                           "    main()\n"
                           "ValueError: bad value\n"
                           "FAIL: test_a\n") == "ValueError: bad value");
  // chained: the last traceback's exception
  CHECK(telling_error_line("Traceback (most recent call last):\n"
                           "  File \"a.py\", line 3, in load\n"
                           "KeyError: 'id'\n"
                           "\n"
                           "During handling of the above exception, another exception occurred:\n"
                           "\n"
                           "Traceback (most recent call last):\n"
                           "  File \"a.py\", line 5, in load\n"
                           "app.errors.LoadError: record 7 has no id\n") ==
        "app.errors.LoadError: record 7 has no id");
  // an exception without a message, and CRLF line ends
  CHECK(telling_error_line("Traceback (most recent call last):\r\n  File \"a.py\", line 9\r\n"
                           "KeyboardInterrupt\r\n") == "KeyboardInterrupt");
  // pytest's `Traceback:` frames are not indented; its `E` marker is dropped
  CHECK(telling_error_line("Traceback:\n"
                           "/usr/lib/python3.11/importlib/__init__.py:126: in import_module\n"
                           "    return _bootstrap._gcd_import(name[level:], package, level)\n"
                           "conftest.py:1: in <module>\n"
                           "tests/test_app.py:1: in <module>\n"
                           "    from app import parse\n"
                           "E   ModuleNotFoundError: No module named 'app'\n"
                           "ERROR tests/test_app.py\n") ==
        "ModuleNotFoundError: No module named 'app'");
}

TEST_CASE("telling_error_line falls back when a traceback has no exception line", "[bash]") {
  CHECK(telling_error_line("Traceback (most recent call last):\n"
                           "  File \"a.py\", line 1, in <module>\n") ==
        "File \"a.py\", line 1, in <module>");
  CHECK(telling_error_line("Traceback (most recent call last):\n"
                           "  File \"a.py\", line 1\n"
                           "FATAL: out of memory\n") == "FATAL: out of memory");
}

TEST_CASE("telling_error_line takes the first compiler error, panic or fatal line", "[bash]") {
  CHECK(telling_error_line("   Compiling shop v0.1.0\n"
                           "error[E0308]: mismatched types\n"
                           " --> src/main.rs:4:18\n"
                           "error[E0425]: cannot find value `x` in this scope\n"
                           "error: could not compile `shop` due to 2 previous errors") ==
        "error[E0308]: mismatched types");
  CHECK(telling_error_line("--- FAIL: TestParse (0.00s)\n"
                           "panic: runtime error: index out of range [5] with length 3 "
                           "[recovered]\n"
                           "\tpanic: runtime error: index out of range [5] with length 3\n") ==
        "panic: runtime error: index out of range [5] with length 3 [recovered]");
  CHECK(telling_error_line("To github.com:acme/shop.git\n"
                           "  fatal: the remote end hung up unexpectedly\n"
                           "Error: one\nError: two") ==
        "fatal: the remote end hung up unexpectedly");
  CHECK(telling_error_line("LOG: starting\nFATAL:  database \"shop\" does not exist") ==
        "FATAL:  database \"shop\" does not exist");
}

TEST_CASE("telling_error_line otherwise takes the last Error, Exception or FAIL line", "[bash]") {
  CHECK(telling_error_line("Exception in thread \"main\" java.lang.IllegalStateException: boom\n"
                           "\tat app.Main.run(Main.java:12)\n"
                           "Caused by: java.io.IOException: disk full\n"
                           "\tat app.Store.save(Store.java:40)\n"
                           "\t... 3 more\n") == "Caused by: java.io.IOException: disk full");
  CHECK(telling_error_line("--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 3\n"
                           "--- FAIL: TestFormat (0.00s)\nFAIL\n") ==
        "--- FAIL: TestFormat (0.00s)");
  CHECK(telling_error_line("no marker here\n\nlast words  \n\n") == "last words");
  CHECK(telling_error_line("\n \n").empty());
  CHECK(telling_error_line("").empty());
}
