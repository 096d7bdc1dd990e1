// Git config parsing and the project slug (docs/configuration.md#git-remote), the origin as the
// shared-memory agent id normalises it (docs/api.md#shared-memory), and the base-URL guard
// (#base-url): an accepted http:// URL must name a loopback host as a URL parser (RFC 3986,
// libcurl) reads it.
#include "mem0/api.hpp"
#include "mem0/identity.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "util/git.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

// The host of an http:// URL per RFC 3986: the authority ends at the first `/`, `?` or `#`; the
// user info ends at its last `@`; a port follows the last `:` outside brackets.
std::string rfc3986_host(std::string_view url) {
  std::string_view authority = url.substr(7);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos)
    authority.remove_prefix(at + 1);
  if (authority.starts_with("[")) return std::string(authority.substr(0, authority.find(']') + 1));
  return std::string(authority.substr(0, authority.find(':')));
}

bool is_loopback(std::string host) {
  for (char &c : host)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (host == "localhost" || host == "[::1]") return true;
  return host.starts_with("127.") && host.find_first_not_of("0123456789.") == std::string::npos;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);

  const auto url = mem0::parse_remote_url(text);
  (void)mem0::parse_remote_url(text, "upstream");

  for (const std::string_view candidate : {text, url ? std::string_view(*url) : text}) {
    const std::string slug = mem0::remote_slug(candidate);
    fuzz::check(slug.find_first_of("/:") == std::string::npos, "remote_slug: no / or :", slug);
    fuzz::check(slug.size() <= candidate.size() + 1, "remote_slug: bounded", slug);

    const std::string origin = mem0::normalize_origin(candidate);
    fuzz::check(!origin.ends_with('/'), "normalize_origin: no trailing /", origin);
    fuzz::check(origin.size() <= candidate.size() + 8, "normalize_origin: bounded", origin);
    if (const auto scheme = origin.find("://"); scheme != std::string::npos) {
      const std::string_view rest = std::string_view(origin).substr(scheme + 3);
      const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
      fuzz::check(authority.find('@') == std::string_view::npos, "normalize_origin: no user info",
                  origin);
      fuzz::check(authority.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string_view::npos,
                  "normalize_origin: lowercase host", origin);
    }

    const auto refused = mem0::refuse_base_url(candidate);
    if (!refused && !candidate.starts_with("https://")) {
      fuzz::check(candidate.starts_with("http://"), "refuse_base_url: scheme", candidate);
      fuzz::check(is_loopback(rfc3986_host(candidate)),
                  "refuse_base_url: accepted http:// to a non-loopback host", candidate);
    }
  }
  return 0;
}
