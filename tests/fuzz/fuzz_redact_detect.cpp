// Redaction (docs/failures.md#secrets-and-redaction), the capture text's wrapper-tag stripping
// (docs/capture.md#before-anything-touches-the-disk) and the prompt detectors
// (docs/hooks.md#prompt-detectors) on any text. A secret planted after the input must never survive
// redaction, nor a `<private>` block its stripping, whatever precedes it.
#include "runtime/remember.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "util/detect.hpp"
#include "util/redact.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// A secret of a form in docs/failures.md#redacted-forms: `prefix` + `length` characters from
// `alphabet`.
struct SecretForm {
  std::string_view prefix;
  std::size_t length;
  std::string_view alphabet;
};

constexpr std::string_view k_token =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view k_upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

constexpr std::array<SecretForm, 15> k_forms{{
    {"sk-ant-", 32, k_token},
    {"sk-", 40, k_token},
    {"m0-", 40, k_token},
    {"ghp_", 36, k_token},
    {"gho_", 36, k_token},
    {"ghs_", 36, k_token},
    {"ghu_", 36, k_token},
    {"glpat-", 20, k_token},
    {"sk_live_", 24, k_token},
    {"rk_live_", 24, k_token},
    {"github_pat_", 40, k_token},
    {"xoxb-", 24, k_token},
    {"AKIA", 16, k_upper},
    {"AIza", 35, k_token},
    {"eyJ", 24, k_token}, // completed below as a JWT
}};

constexpr std::array<std::string_view, 5> k_separators{" ", "\n", "\t", "(", ", "};

// A secret derived from the input (FNV-1a), so the fuzzer cannot simply copy it into the input.
std::string make_secret(std::string_view input, std::string &body) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : input)
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  const SecretForm &form = k_forms[h % k_forms.size()];
  body.clear();
  for (std::size_t i = 0; i < form.length; ++i) {
    h = h * 6364136223846793005ULL + 1442695040888963407ULL;
    body += form.alphabet[(h >> 33) % form.alphabet.size()];
  }
  std::string secret = std::string(form.prefix) + body;
  if (form.prefix == "eyJ") secret += ".eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
  return secret;
}

bool is_path_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '/' || c == '-';
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);

  (void)mem0::redact_secrets(text);
  std::string body;
  const std::string secret = make_secret(text, body);
  const std::string_view sep = k_separators[size % k_separators.size()];
  const std::string planted = std::string(text) + std::string(sep) + secret;
  const std::string redacted = mem0::redact_secrets(planted);
  fuzz::check(redacted.find(body) == std::string::npos, "redact_secrets: planted secret survives",
              redacted);
  fuzz::check(redacted.ends_with("[REDACTED]"), "redact_secrets: trailing secret replaced",
              redacted);
  // The same secret in the middle of the text.
  const std::string middle = std::string(sep) + secret + " " + std::string(text);
  fuzz::check(mem0::redact_secrets(middle).find(body) == std::string::npos,
              "redact_secrets: leading secret survives", middle);

  // Stripping: a `<private>` block after the input goes, whatever precedes it; the result holds
  // no wrapper tag (stripping it again changes nothing); a cut text stays within its bound.
  constexpr std::size_t k_whole = std::size_t(1) << 30;
  const std::string stripped = mem0::prepare_capture_text(text, false, k_whole);
  fuzz::check(mem0::prepare_capture_text(stripped, false, k_whole) == stripped,
              "prepare_capture_text: a wrapper tag survives", stripped);
  const std::string hidden =
      std::string(text) + std::string(sep) + "<private>" + body + "</private>";
  fuzz::check(mem0::prepare_capture_text(hidden, false, k_whole).find(body) == std::string::npos,
              "prepare_capture_text: a private block survives", hidden);
  fuzz::check(mem0::prepare_capture_text(hidden, true, k_whole).find(body) == std::string::npos,
              "prepare_capture_text: a private block survives redaction", hidden);
  const std::size_t bound = size % 61;
  fuzz::check(mem0::code_points(mem0::prepare_capture_text(text, false, bound)) <= bound + 1,
              "prepare_capture_text: over its bound");

  (void)mem0::detect_error(text);
  (void)mem0::detect_resume(text);
  (void)mem0::detect_remember(text);
  const std::size_t max = size % 7;
  const auto paths = mem0::detect_paths(text, max);
  fuzz::check(paths.size() <= max, "detect_paths: at most max");
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string &p = paths[i];
    fuzz::check(!p.empty() && text.find(p) != std::string_view::npos, "detect_paths: from text", p);
    fuzz::check(std::all_of(p.begin(), p.end(), is_path_char), "detect_paths: path chars", p);
    fuzz::check(p.find('.') != std::string::npos, "detect_paths: has an extension", p);
    fuzz::check(std::find(paths.begin(), paths.begin() + static_cast<std::ptrdiff_t>(i), p) ==
                    paths.begin() + static_cast<std::ptrdiff_t>(i),
                "detect_paths: distinct", p);
  }
  const std::string keywords = mem0::error_keywords(text);
  fuzz::check(std::count(keywords.begin(), keywords.end(), ' ') <= 4,
              "error_keywords: at most five", keywords);
  return 0;
}
