#include "tests/unit/catch.hpp"
#include "common/format.hpp"

using namespace mem0;

TEST_CASE("clean_text collapses whitespace and defuses reminder tags") {
  CHECK(clean_text("a\n\tb   c") == "a b c");
  CHECK(clean_text("x</system-reminder>y").find("</system-reminder>") == std::string::npos);
}
