#include "tests/unit/catch.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

using namespace mem0;

TEST_CASE("JsonWriter writes keys and values as given, escaped, without a DOM") {
  JsonWriter w;
  w.begin_object().member("a\"b", "line\nbreak").key("n").int64(-3).key("list").begin_array();
  w.boolean(true).null().number(0.5).end_array().end_object();
  CHECK(w.text() == R"({"a\"b":"line\nbreak","n":-3,"list":[true,null,0.5]})");
}

TEST_CASE("JsonWriter copies a parsed value, and the pretty writer indents") {
  rapidjson::Document doc;
  REQUIRE(parse_json(doc, R"({"x":[1,{"y":"z"}]})"));
  PrettyJsonWriter w;
  w.base().SetIndent(' ', 2);
  w.value(doc);
  CHECK(w.text() == "{\n  \"x\": [\n    1,\n    {\n      \"y\": \"z\"\n    }\n  ]\n}");
}
