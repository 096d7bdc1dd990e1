// Secret redaction of text that leaves the machine (docs/failures.md#secrets-and-redaction).
#include "tests/unit/catch.hpp"
#include "tests/unit/test_support.hpp"
#include "util/redact.hpp"

#include <chrono>
#include <string>
#include <vector>

using namespace mem0;

namespace {

struct Secret {
  const char *kind;
  std::string value;
};

// One realistic-looking value for every token form of docs/failures.md#redacted-forms.
const std::vector<Secret> &token_secrets() {
  static const std::vector<Secret> secrets = {
      {"mem0 key", "m0-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"},
      {"openai key", "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"},
      {"openai legacy key", "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"},
      {"anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789_ABCDEF-xyz"},
      {"github personal token", "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"github oauth token", "gho_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"github app token", "ghs_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"github user-to-server token", "ghu_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"},
      {"gitlab personal token", "glpat-Ab12Cd34Ef56Gh78Ij90"},
      {"stripe secret key", "sk_live_51H8abcdEFGH1234ijklMNOP5678"},
      {"stripe restricted key", "rk_live_51H8abcdEFGH1234ijklMNOP5678"},
      {"github fine-grained token",
       "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW"},
      {"slack bot token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"},
      {"slack app token", "xoxa-2-123456789012-1234567890123-abcdef0123456789"},
      {"slack user token", "xoxp-123456789012-123456789012-1234567890123-abcdef0123456789abcdef"},
      {"aws access key id", "AKIAIOSFODNN7EXAMPLE"},
      {"aws temporary key id", "ASIAY34FZKBOKMUTVV7A"},
      {"google api key", "AIzaSyA-abcdefghijklmnopqrstuvwxyz12345"},
      {"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
              "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
  };
  return secrets;
}

// True when redact_secrets(text) finished within `limit`: a quadratic implementation fails here
// quickly instead of hanging the test run.
bool redacts_within(const std::string &text, std::chrono::milliseconds limit) {
  return testing::finishes_within(
      [text] {
        const std::string out = redact_secrets(text);
        return !out.empty() || text.empty();
      },
      limit);
}

} // namespace

TEST_CASE("redact_secrets replaces every token form with [REDACTED]") {
  for (const auto &s : token_secrets()) {
    INFO(s.kind << ": " << s.value);
    CHECK(redact_secrets(s.value) == "[REDACTED]");
    CHECK(redact_secrets("use " + s.value + " now") == "use [REDACTED] now");
    CHECK(redact_secrets("key=(" + s.value + ")") == "key=([REDACTED])");
    CHECK(redact_secrets("\"" + s.value + "\",") == "\"[REDACTED]\",");
    CHECK(redact_secrets("line one\n" + s.value + "\nline three") ==
          "line one\n[REDACTED]\nline three");
  }
}

TEST_CASE("redact_secrets replaces several secrets in one text") {
  const auto &all = token_secrets();
  std::string text = "Keys:";
  std::string expected = "Keys:";
  for (const auto &s : all) {
    text += " " + s.value + ";";
    expected += " [REDACTED];";
  }
  CHECK(redact_secrets(text) == expected);
}

TEST_CASE("redact_secrets replaces PEM private key blocks") {
  const std::vector<std::string> kinds = {"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY",
                                          "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"};
  for (const auto &kind : kinds) {
    INFO(kind);
    const std::string block = "-----BEGIN " + kind +
                              "-----\n"
                              "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
                              "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
                              "-----END " +
                              kind + "-----";
    const std::string out = redact_secrets("my key:\n" + block + "\nthanks");
    CHECK(out == "my key:\n[REDACTED]\nthanks");
  }
  SECTION("an unterminated block is redacted to the end") {
    const std::string out =
        redact_secrets("here -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nmore");
    CHECK(out.find("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC") == std::string::npos);
    CHECK(out.find("more") == std::string::npos);
    CHECK(out.rfind("here ", 0) == 0);
    CHECK(out.find("[REDACTED]") != std::string::npos);
  }
}

TEST_CASE("redact_secrets replaces the value of secret assignments and keeps the key") {
  struct Case {
    std::string input;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"password=hunter2", "password=[REDACTED]"},
      {"secret=abc123", "secret=[REDACTED]"},
      {"token=xyz789", "token=[REDACTED]"},
      {"api_key=abcdef", "api_key=[REDACTED]"},
      {"API_KEY=abcdef", "API_KEY=[REDACTED]"},
      {"Password=hunter2", "Password=[REDACTED]"},
      {"login with password=hunter2 please", "login with password=[REDACTED] please"},
      {"password: hunter2 and more", "password: [REDACTED] and more"},
      {"export GITHUB_TOKEN=abc123", "export GITHUB_TOKEN=[REDACTED]"},
      {"https://x.test/cb?token=abc123&page=2", "https://x.test/cb?token=[REDACTED]&page=2"},
      {"a=1 secret=s3cr3t b=2", "a=1 secret=[REDACTED] b=2"},
      {"password = hunter2", "password = [REDACTED]"},
      {"token:abc123", "token:[REDACTED]"},
  };
  for (const auto &c : cases) {
    INFO(c.input);
    CHECK(redact_secrets(c.input) == c.expected);
  }
}

TEST_CASE("redact_secrets masks a URL's password and keeps its scheme, user and host") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"postgres://billing:CorrectHorse42@db.internal:5432/billing",
       "postgres://billing:[REDACTED]@db.internal:5432/billing"},
      {"git clone https://deploy:tok_9f8e7d6c@git.example.com/acme.git now",
       "git clone https://deploy:[REDACTED]@git.example.com/acme.git now"},
      {"redis://:s3cr3t@cache:6379", "redis://:[REDACTED]@cache:6379"},
      {"amqp://u:p%40ss:w0rd@mq/vhost", "amqp://u:[REDACTED]@mq/vhost"},
  };
  for (const auto &[input, expected] : cases) {
    INFO(input);
    CHECK(redact_secrets(input) == expected);
  }
  // A user without a password, a port, a path with `@`: nothing to mask.
  for (const std::string text :
       {"https://deploy@git.example.com/acme.git", "http://localhost:8080/api",
        "https://host/users/@me:x", "scheme:// a:b@c"}) {
    INFO(text);
    CHECK(redact_secrets(text) == text);
  }
}

TEST_CASE("redact_secrets masks a Bearer value and keeps the word") {
  CHECK(redact_secrets("Authorization: Bearer 9f8e7d6c5b4a3210fedcba98") ==
        "Authorization: Bearer [REDACTED]");
  CHECK(redact_secrets("curl -H 'authorization: bearer eyJhbGciOi.x-9_Z+/=' x") ==
        "curl -H 'authorization: bearer [REDACTED]' x");
  CHECK(redact_secrets("token: Bearer 9f8e7d6c5b4a3210") == "token: Bearer [REDACTED]");
  for (const std::string text : {"the bearer of bad news", "Bearer authentication-scheme",
                                 "Bearer abc1", "unbearer 12345678901"}) {
    INFO(text);
    CHECK(redact_secrets(text) == text);
  }
}

TEST_CASE("redact_secrets handles quoted YAML and JSON style assignments") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"DB_PASSWORD: \"s3cr3t-value\"", "DB_PASSWORD"},
      {"db_password: 's3cr3t-value'", "db_password"},
      {"{\"api_key\": \"s3cr3t-value\"}", "\"api_key\""},
      {"client_secret = \"s3cr3t-value\"", "client_secret"},
      {"password=\"s3cr3t value with spaces\"", "password="},
  };
  for (const auto &[input, key] : cases) {
    INFO(input);
    const std::string out = redact_secrets(input);
    CHECK(out.find("s3cr3t") == std::string::npos);
    CHECK(out.find("[REDACTED]") != std::string::npos);
    CHECK(out.find(key) != std::string::npos); // the key name stays
  }
}

TEST_CASE("redact_secrets leaves ordinary text and short look-alikes untouched") {
  const std::vector<std::string> untouched = {
      "",
      "Refactor the search module so it handles timeouts.",
      "The task-force will ask about sk-1 and m0-x today.",
      "desk-organizer-and-everything-else-in-the-office",
      "ask-questions-about-everything-here-please-now",
      "sk-learn is a typo for scikit-learn",
      "ghp_short gho_tiny github_pat_x xoxb-1",
      "AKIA is a prefix; AKIA1234 is too short",
      "AIza alone",
      "eyJ alone, eyJhbGciOiJIUzI1NiJ9 without dots",
      "Use the token bucket algorithm for the rate limiter.",
      "A password is required; the secret sauce is tests.",
      "Error: timeout at line 3",
      "ratio 3:4 and https://example.com/path?q=1&page=2",
      "-----BEGIN CERTIFICATE-----",
      "tokenizer=bpe monkey_patch=true",
      "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC",
  };
  for (const auto &text : untouched) {
    INFO(text);
    CHECK(redact_secrets(text) == text);
  }
}

TEST_CASE("redact_secrets is linear on a 1 MB input", "[no-qemu]") {
  struct Unit {
    const char *name;
    std::string text;
    bool unchanged; // nothing in it looks like a secret
  };
  const std::vector<Unit> units = {
      {"mixed prose", "Some words password=x sk- eyJ a.b.c AKIA -----BEGIN  token: ", false},
      {"jwt-like", "eyJ.", false},
      {"colons", ":", true},
      {"equals", "=", true},
      {"spaces then equals", "    =", true},
      {"quotes", "\"'", true},
      {"pem-like", "-----BEGIN ", true},
      {"short prefixes", "sk-ab ", true},
      {"uppercase run", "AKIAAKIA", true},
      {"dashes", "-", true},
      {"url user-info", "x://a:b", true},
      {"url schemes", "://", true},
      {"bearer words", "Bearer ", true},
      {"bearer tokens", "bearer abcdefgh ", true},
  };
  constexpr std::size_t size = 1024 * 1024;
  for (const auto &unit : units) {
    INFO(unit.name);
    const std::string text = testing::repeated(unit.text, size);
    REQUIRE(redacts_within(text, std::chrono::seconds(5)));
    const std::string out = redact_secrets(text);
    if (unit.unchanged) {
      CHECK(out == text);
    } else {
      CHECK(out.find("[REDACTED]") != std::string::npos);
    }
  }
}

TEST_CASE("redact_secrets handles a 1 MB key name before an assignment", "[no-qemu]") {
  std::string text(1024 * 1024, 'a');
  text += "_password=hunter2";
  REQUIRE(redacts_within(text, std::chrono::seconds(5)));
  const std::string out = redact_secrets(text);
  CHECK(out.find("hunter2") == std::string::npos);
  CHECK(out.size() == text.size() - 7 + 10);
}
