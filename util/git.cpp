#include "util/git.hpp"
#include "util/files.hpp"
#include "util/strings.hpp"

#include <sstream>
#include <system_error>
#include <vector>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

// A git config value: strip an unquoted trailing comment and surrounding quotes.
std::string config_value(std::string_view raw) {
  std::string out;
  bool quoted = false;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && (c == '#' || c == ';')) {
      break;
    } else if (c == '\\' && i + 1 < raw.size()) {
      const char n = raw[++i];
      out += n == 't' ? '\t' : n == 'n' ? '\n' : n;
    } else {
      out += c;
    }
  }
  return std::string(trim(out));
}

fs::path resolve(const fs::path &base, std::string_view relative) {
  fs::path p(relative);
  return (p.is_absolute() ? p : base / p).lexically_normal();
}

} // namespace

std::optional<GitRepo> find_repo(const fs::path &start) {
  std::error_code ec;
  fs::path dir = start.is_absolute() ? start : fs::absolute(start, ec);
  for (dir = dir.lexically_normal();; dir = dir.parent_path()) {
    const fs::path dot_git = dir / ".git";
    const auto status = fs::status(dot_git, ec);
    if (fs::is_directory(status)) return GitRepo{dir, dot_git, dot_git};
    if (fs::is_regular_file(status)) {
      const auto text = read_small_file(dot_git, 4096);
      if (text && trim(*text).starts_with("gitdir:")) {
        const fs::path git_dir = resolve(dir, trim(trim(*text).substr(7)));
        fs::path common = git_dir;
        if (const auto c = read_small_file(git_dir / "commondir", 4096))
          common = resolve(git_dir, trim(*c));
        return GitRepo{dir, git_dir, common};
      }
    }
    if (!dir.has_relative_path()) return std::nullopt; // reached the root
  }
}

std::optional<std::string> parse_remote_url(std::string_view text, std::string_view remote) {
  bool in_section = false;
  std::optional<std::string> url; // the last one, as `git config --get` gives it
  std::istringstream lines{std::string(text)};
  for (std::string raw; std::getline(lines, raw);) {
    const std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    if (line.front() == '[') {
      // [remote "origin"]: the section name is case-insensitive, the subsection is not.
      const auto close = line.find(']');
      const std::string_view header = trim(
          line.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
      const auto quote = header.find('"');
      in_section = quote != std::string_view::npos &&
                   ascii_lower(trim(header.substr(0, quote))) == "remote" &&
                   header.substr(quote) == "\"" + std::string(remote) + "\"";
      continue;
    }
    if (!in_section) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    if (ascii_lower(trim(line.substr(0, eq))) == "url") url = config_value(line.substr(eq + 1));
  }
  return url;
}

std::optional<std::string> origin_url_as_written(const GitRepo &repo) {
  const auto text = read_small_file(repo.common_dir / "config");
  return text ? parse_remote_url(*text) : std::nullopt;
}

std::optional<std::string> origin_url(const GitRepo &repo) {
  const auto url = origin_url_as_written(repo);
  return url ? std::optional(without_user_info(*url)) : std::nullopt;
}

std::string without_user_info(std::string_view url) {
  std::string s(url);
  // The authority runs from `://` to the next `/`, `?` or `#`; its user-info to the last `@`.
  const auto scheme = s.find("://");
  if (scheme == std::string::npos) return s; // scp-like `git@host:path`: an ssh user, no secret
  const std::size_t start = scheme + 3;
  const std::size_t end = std::min(s.find_first_of("/?#", start), s.size());
  const auto at = s.rfind('@', end - 1);
  if (at == std::string::npos || at < start) return s;
  // Over http(s) the user name itself may be a token (`https://<token>@host/…`); elsewhere
  // (`ssh://git@host/…`) only a password is one.
  const std::string name = ascii_lower(std::string_view(s).substr(0, scheme));
  const bool http = name == "http" || name == "https";
  if (http || s.substr(start, at - start).find(':') != std::string::npos)
    s.erase(start, at + 1 - start);
  return s;
}

namespace {

// The text of `repo`'s HEAD, trimmed: `ref: <ref>`, or a detached HEAD's object name.
std::optional<std::string> head_of(const GitRepo &repo) {
  const auto text = read_small_file(repo.git_dir / "HEAD", 4096);
  if (!text) return std::nullopt;
  return std::string(trim(*text));
}

// `text` when it is an object name: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
std::optional<std::string> object_name(std::string_view text) {
  const bool hex = text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  if (!hex || (text.size() != 40 && text.size() != 64)) return std::nullopt;
  return std::string(text);
}

} // namespace

std::optional<std::string> current_branch(const GitRepo &repo) {
  const auto text = head_of(repo);
  if (!text) return std::nullopt;
  const std::string_view head = *text;
  constexpr std::string_view ref = "ref: refs/heads/";
  if (head.starts_with(ref)) return std::string(head.substr(ref.size()));
  if (head.starts_with("ref: ")) return std::string(head.substr(5));
  if (head.size() >= 7) return std::string(head.substr(0, 7));
  return std::nullopt;
}

std::optional<std::string> head_commit(const GitRepo &repo) {
  const auto text = head_of(repo);
  if (!text) return std::nullopt;
  const std::string_view head = *text;
  if (!head.starts_with("ref: ")) return object_name(head);
  const std::string ref(trim(head.substr(5)));
  if (ref.find("..") != std::string::npos) return std::nullopt; // a ref never leaves the git dir
  for (const fs::path &dir : {repo.git_dir, repo.common_dir})
    if (const auto loose = read_small_file(dir / ref, 4096)) return object_name(trim(*loose));
  // packed-refs: `<name> <ref>` lines, after an optional `# pack-refs` header; `^<name>` peels.
  const auto packed = read_small_file(repo.common_dir / "packed-refs", 16 * 1024 * 1024);
  if (!packed) return std::nullopt;
  std::istringstream lines(*packed);
  for (std::string line; std::getline(lines, line);) {
    const std::string_view l = trim(line);
    const auto space = l.find(' ');
    if (space != std::string_view::npos && l.substr(space + 1) == ref)
      return object_name(l.substr(0, space));
  }
  return std::nullopt;
}

std::string remote_slug(std::string_view url) {
  std::string s = without_user_info(trim(url));
  if (s.ends_with(".git")) s.resize(s.size() - 4); // before any `/`: `repo.git/` keeps it
  bool scheme = false;
  for (std::string_view prefix : {"https://", "http://", "ssh://", "git://"})
    if (s.starts_with(prefix)) {
      s.erase(0, prefix.size());
      scheme = true;
      break;
    }
  if (!scheme && s.starts_with("git@")) s.erase(0, 4);
  if (const auto colon = s.find(':'); colon != std::string::npos) s[colon] = '/';
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= s.size();) {
    const auto slash = std::min(s.find('/', start), s.size());
    if (slash > start) parts.push_back(s.substr(start, slash - start));
    start = slash + 1;
  }
  std::string slug;
  if (parts.size() >= 2)
    slug = parts[parts.size() - 2] + "-" + parts.back();
  else if (!parts.empty())
    slug = parts.back();
  for (char &c : slug)
    if (c == '/' || c == ':') c = '-';
  return slug;
}

} // namespace mem0
