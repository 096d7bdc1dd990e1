// The libcurl client's settings (mem0/http_curl.cpp); not built for Windows, whose client is
// WinHTTP. The behaviour both clients share is tested in http_test.cpp.
#include "mem0/http_curl.hpp"
#include "tests/unit/catch.hpp"

#define CURL_DISABLE_DEPRECATION // CURLOPT_PROTOCOLS, the fallback under test
#include <curl/curl.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace mem0;

TEST_CASE("curl settings: the protocol list falls back to CURLOPT_PROTOCOLS, a refusal is an error",
          "[http]") {
  std::map<int, long> numbers;
  std::map<int, std::string> texts;
  std::set<int> refuse;
  const CurlOptions set{[&](int option, long value) {
                          if (refuse.count(option)) return int(CURLE_UNKNOWN_OPTION);
                          numbers[option] = value;
                          return int(CURLE_OK);
                        },
                        [&](int option, const char *text) {
                          if (refuse.count(option)) return int(CURLE_UNKNOWN_OPTION);
                          texts[option] = text;
                          return int(CURLE_OK);
                        }};
  SECTION("a current libcurl takes the list as text") {
    CHECK_FALSE(set_safety_options(set).has_value());
    CHECK(texts[CURLOPT_PROTOCOLS_STR] == "http,https");
    CHECK_FALSE(numbers.count(CURLOPT_PROTOCOLS));
    CHECK(numbers.at(CURLOPT_FOLLOWLOCATION) == 0);
    CHECK(numbers.at(CURLOPT_SSL_VERIFYPEER) == 1);
    CHECK(numbers.at(CURLOPT_SSL_VERIFYHOST) == 2);
  }
  SECTION("libcurl before 7.85 refuses the text: the bit mask applies instead") {
    refuse = {CURLOPT_PROTOCOLS_STR};
    CHECK_FALSE(set_safety_options(set).has_value());
    CHECK(numbers.at(CURLOPT_PROTOCOLS) == (CURLPROTO_HTTP | CURLPROTO_HTTPS));
  }
  SECTION("a safety setting refused either way is an error naming it") {
    for (const auto &[option, name] : std::vector<std::pair<std::set<int>, std::string>>{
             {{CURLOPT_PROTOCOLS_STR, CURLOPT_PROTOCOLS}, "CURLOPT_PROTOCOLS"},
             {{CURLOPT_FOLLOWLOCATION}, "CURLOPT_FOLLOWLOCATION"},
             {{CURLOPT_SSL_VERIFYPEER}, "CURLOPT_SSL_VERIFYPEER"},
             {{CURLOPT_SSL_VERIFYHOST}, "CURLOPT_SSL_VERIFYHOST"}}) {
      refuse = option;
      const auto error = set_safety_options(set);
      REQUIRE(error.has_value());
      CHECK(error->kind == ErrorKind::transport);
      CHECK(error->message.find(name) != std::string::npos);
    }
  }
}
