// The one UTF-8 validator and decoder (util/utf8.hpp), on the RFC 3629 edge cases.
#include "tests/unit/catch.hpp"
#include "util/utf8.hpp"

#include <string>

using namespace mem0;

TEST_CASE("utf8: valid sequences of every length decode to their code points") {
  struct Case {
    std::string bytes;
    char32_t cp;
  };
  for (const Case &c : {Case{"A", U'A'}, Case{"\xC2\x80", 0x80}, Case{"\xDF\xBF", 0x7FF},
                        Case{"\xE0\xA0\x80", 0x800}, Case{"\xEF\xBF\xBD", 0xFFFD},
                        Case{"\xF0\x90\x80\x80", 0x10000}, Case{"\xF4\x8F\xBF\xBF", 0x10FFFF}}) {
    CAPTURE(c.bytes);
    char32_t cp = 0;
    CHECK(decode_utf8(c.bytes, 0, cp) == c.bytes.size());
    CHECK(cp == c.cp);
    CHECK(is_valid_utf8(c.bytes));
  }
}

TEST_CASE("utf8: overlong forms, surrogates, values past U+10FFFF and cut sequences are invalid") {
  for (const std::string bad :
       {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xF0\x80\x80\x80", "\xED\xA0\x80", "\xED\xBF\xBF",
        "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\x80", "\xE2\x82", "\xF0\x9F\x98",
        "ok\xE2\x82"}) {
    CAPTURE(bad);
    CHECK_FALSE(is_valid_utf8(bad));
  }
  CHECK(is_valid_utf8(""));
}

TEST_CASE("utf8: code points and prefixes never split a sequence") {
  const std::string text = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"; // a é € 😀
  CHECK(code_points(text) == 4);
  CHECK(utf8_prefix(text, 100) == text);
  CHECK(utf8_prefix(text, 2) == "a");
  CHECK(utf8_prefix(text, 3) == "a\xC3\xA9");
  CHECK(utf8_prefix(text, 9) == "a\xC3\xA9\xE2\x82\xAC");
  CHECK(utf8_prefix(text, 0).empty());
  CHECK(is_continuation('\x80'));
  CHECK_FALSE(is_continuation('a'));
}
