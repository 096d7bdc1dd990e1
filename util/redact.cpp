#include "util/redact.hpp"
#include "util/strings.hpp"

#include <array>

namespace mem0 {
namespace {

constexpr std::string_view k_redacted = "[REDACTED]";

bool is_upper_or_digit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
template <class Pred> std::size_t span(std::string_view text, std::size_t i, Pred pred) {
  std::size_t j = i;
  while (j < text.size() && pred(text[j]))
    ++j;
  return j - i;
}

// A token with a well-known prefix: the prefix, then at least `min_body` body characters.
struct Prefixed {
  std::string_view prefix;
  std::size_t min_body;
  bool (*body)(char);
  std::size_t exact_body = 0; // when set, the body has exactly this many characters
};

const std::array<Prefixed, 20> k_prefixed{{
    {"sk-ant-", 16, is_id_char},
    {"sk-", 16, is_id_char},
    {"sk_live_", 16, is_id_char},
    {"sk_test_", 16, is_id_char},
    {"rk_live_", 16, is_id_char},
    {"rk_test_", 16, is_id_char},
    {"m0-", 16, is_id_char},
    {"github_pat_", 20, is_id_char},
    {"ghp_", 20, is_id_char},
    {"gho_", 20, is_id_char},
    {"ghs_", 20, is_id_char},
    {"ghu_", 20, is_id_char},
    {"ghr_", 20, is_id_char},
    {"glpat-", 20, is_id_char},
    {"xoxa-", 10, is_id_char},
    {"xoxb-", 10, is_id_char},
    {"xoxp-", 10, is_id_char},
    {"AKIA", 16, is_upper_or_digit, 16},
    {"ASIA", 16, is_upper_or_digit, 16},
    {"AIza", 30, is_id_char},
}};

// Length of a prefixed token starting at `i`, or 0.
std::size_t match_prefixed(std::string_view text, std::size_t i) {
  for (const auto &p : k_prefixed) {
    if (text.substr(i, p.prefix.size()) != p.prefix) continue;
    const std::size_t body = span(text, i + p.prefix.size(), p.body);
    if (body < p.min_body) continue;
    if (p.exact_body && body != p.exact_body) continue;
    return p.prefix.size() + body;
  }
  return 0;
}

// Length of a JWT (`eyJ<b64>.<b64>.<b64>`) starting at `i`, or 0.
std::size_t match_jwt(std::string_view text, std::size_t i) {
  if (text.substr(i, 3) != "eyJ") return 0;
  std::size_t j = i;
  for (int part = 0; part < 3; ++part) {
    const std::size_t n = span(text, j, is_id_char);
    if (n == 0) return 0;
    j += n;
    if (part < 2) {
      if (j >= text.size() || text[j] != '.') return 0;
      ++j;
    }
  }
  return j - i;
}

// Length of a PEM private-key block starting at `i` (to the end of text if unterminated), or 0.
std::size_t match_pem(std::string_view text, std::size_t i) {
  constexpr std::string_view begin = "-----BEGIN ";
  constexpr std::string_view key = "PRIVATE KEY-----";
  if (text.substr(i, begin.size()) != begin) return 0;
  const std::size_t header_end = text.find("-----", i + begin.size());
  if (header_end == std::string_view::npos ||
      text.substr(i, header_end + 5 - i).find(key) == std::string_view::npos)
    return 0;
  const std::size_t end = text.find("-----END ", header_end + 5);
  if (end == std::string_view::npos) return text.size() - i;
  const std::size_t close = text.find(key, end);
  return (close == std::string_view::npos ? text.size() : close + key.size()) - i;
}

// Characters of a URL's user-info (RFC 3986: unreserved, percent-encoded, sub-delims).
bool is_userinfo_char(char c) {
  return is_id_char(c) || c == '.' || c == '~' || c == '%' || c == '!' || c == '$' || c == '&' ||
         c == '\'' || c == '(' || c == ')' || c == '*' || c == '+' || c == ',' || c == ';' ||
         c == '=';
}

// For `://` at `i`, a user-info with a password (`user:pass@`): the [start, end) of the
// password; {0, 0} otherwise. The scan stops at the first character no user-info holds, so
// scans from different `://` never overlap: linear.
std::pair<std::size_t, std::size_t> match_url_password(std::string_view text, std::size_t i) {
  if (text.substr(i, 3) != "://") return {0, 0};
  std::size_t j = i + 3;
  while (j < text.size() && is_userinfo_char(text[j]))
    ++j;
  if (j >= text.size() || text[j] != ':') return {0, 0};
  const std::size_t start = j + 1;
  std::size_t end = start;
  while (end < text.size() && (is_userinfo_char(text[end]) || text[end] == ':'))
    ++end;
  if (end == start || end >= text.size() || text[end] != '@') return {0, 0};
  return {start, end};
}

// A token after `Bearer ` (any case) at `i`, at a word boundary: the [start, end) of the value
// (RFC 6750's token68, at least 8 characters and a digit, so that prose such as "bearer of bad
// news" is left alone); {0, 0} otherwise.
std::pair<std::size_t, std::size_t> match_bearer(std::string_view text, std::size_t i) {
  constexpr std::string_view word = "bearer";
  if (text.size() - i < word.size() + 2) return {0, 0};
  for (std::size_t k = 0; k < word.size(); ++k)
    if (ascii_lower(text[i + k]) != word[k]) return {0, 0};
  std::size_t start = i + word.size();
  if (text[start] != ' ' && text[start] != '\t') return {0, 0};
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t'))
    ++start;
  std::size_t end = start;
  bool digit = false;
  while (end < text.size() && (is_id_char(text[end]) || text[end] == '.' || text[end] == '~' ||
                               text[end] == '+' || text[end] == '/' || text[end] == '=')) {
    digit = digit || (text[end] >= '0' && text[end] <= '9');
    ++end;
  }
  if (end - start < 8 || !digit) return {0, 0};
  return {start, end};
}

bool is_secret_name(std::string_view name) {
  static constexpr std::array<std::string_view, 10> suffixes{
      "password", "passwd",  "secret",     "token",       "api_key",
      "apikey",   "api-key", "access_key", "private_key", "credentials"};
  std::string lowered;
  for (char c : name)
    lowered += ascii_lower(c);
  for (auto s : suffixes)
    if (lowered.size() >= s.size() && lowered.compare(lowered.size() - s.size(), s.size(), s) == 0)
      return true;
  return false;
}

// For an assignment operator (`=` or `:`) at `i` whose left side names a secret, return the
// [start, end) of its value; {0, 0} otherwise.
std::pair<std::size_t, std::size_t> match_assignment(std::string_view text, std::size_t i) {
  std::size_t name_end = i;
  while (name_end > 0 &&
         (text[name_end - 1] == ' ' || text[name_end - 1] == '"' || text[name_end - 1] == '\''))
    --name_end;
  std::size_t name_start = name_end;
  while (name_start > 0 && is_id_char(text[name_start - 1]))
    --name_start;
  if (name_start == name_end || !is_secret_name(text.substr(name_start, name_end - name_start)))
    return {0, 0};
  std::size_t v = i + 1;
  while (v < text.size() && text[v] == ' ')
    ++v;
  // `token: Bearer <value>`: the value is what follows the scheme.
  if (const auto [start, end] = match_bearer(text, v); end) return {start, end};
  char quote = 0;
  if (v < text.size() && (text[v] == '"' || text[v] == '\'')) quote = text[v++];
  std::size_t e = v;
  while (e < text.size() && (quote ? text[e] != quote
                                   : !(text[e] == ' ' || text[e] == '\n' || text[e] == '\t' ||
                                       text[e] == '\r' || text[e] == ',' || text[e] == ';' ||
                                       text[e] == '&' || text[e] == '"' || text[e] == '\'')))
    ++e;
  if (e == v) return {0, 0};
  return {v, e};
}

} // namespace

std::string redact_secrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const bool boundary = i == 0 || !is_id_char(text[i - 1]);
    std::size_t n = 0;
    if (boundary) {
      n = match_prefixed(text, i);
      if (!n) n = match_jwt(text, i);
    }
    if (!n) n = match_pem(text, i);
    if (n) {
      out += k_redacted;
      i += n;
      continue;
    }
    // A value to mask after what is kept: `scheme://user:pass@` (the scheme and the user
    // kept), `Bearer <value>` (the word kept), `name=value` for a secret's name.
    using Span = std::pair<std::size_t, std::size_t>;
    Span value = text[i] == ':' ? match_url_password(text, i)
                 : boundary     ? match_bearer(text, i)
                                : Span{0, 0};
    if (!value.second && (text[i] == '=' || text[i] == ':')) value = match_assignment(text, i);
    if (const auto [start, end] = value; end) {
      out.append(text.substr(i, start - i));
      out += k_redacted;
      i = end;
      continue;
    }
    out += text[i++];
  }
  return out;
}

} // namespace mem0
