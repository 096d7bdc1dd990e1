#include "util/shell_read.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace mem0 {
namespace {

// A word of the command line after quote removal; `plain` when no part of it is expanded by the
// shell (no unquoted glob character or leading `~`, no `$` outside single quotes).
struct Word {
  std::string text;
  bool plain = true;
};

// One simple command: its words, without redirections and their targets.
using Simple = std::vector<Word>;

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Reads a command line left to right into its simple commands (split's state): the character
// at m_i, the word it builds, and whether that word is a redirection's target.
class Splitter {
public:
  explicit Splitter(std::string_view line) : m_line(line) {}

  std::optional<std::vector<Simple>> run() {
    for (; m_i < m_line.size(); ++m_i)
      if (!step()) return std::nullopt;
    end_command();
    m_commands.pop_back(); // the empty command end_command leaves last
    return std::move(m_commands);
  }

private:
  char next() const { return m_i + 1 < m_line.size() ? m_line[m_i + 1] : '\0'; }

  // Each reader below reads what starts at m_i and leaves m_i on its last character; false when
  // it is something that cannot be read without running the shell.
  bool step() {
    const char c = m_line[m_i];
    switch (c) {
    case ' ':
    case '\t':
    case '\r': end_word(); return true;
    case '\n':
    case ';':
    case '|':
    case '&':
    case '<':
    case '>': return read_operator(c);
    case '(':
    case ')':
    case '`': return false;
    case '#': read_hash(); return true;
    case '\\': read_escape(); return true;
    case '\'': return read_single_quoted();
    case '"': return read_double_quoted();
    case '$':
      if (next() == '(') return false;
      append(c, false);
      return true;
    case '*':
    case '?':
    case '[': append(c, false); return true;
    case '~': append(c, m_in_word); return true;
    default: append(c, true); return true;
    }
  }

  // Add `c` to the word; `plain` false when the shell expands it.
  void append(char c, bool plain) {
    if (!plain) m_word.plain = false;
    m_word.text += c;
    m_in_word = true;
  }

  bool read_operator(char c) {
    const char n = next();
    switch (c) {
    case '|':
      end_command();
      if (n == '|' || n == '&') ++m_i;
      return true;
    case '&':
      if (n == '>') { // `&>`, `&>>`: both outputs to a file
        redirect();
        m_i += m_line.substr(m_i + 2, 1) == ">" ? 2 : 1;
      } else {
        end_command();
        if (n == '&') ++m_i;
      }
      return true;
    case '<':
    case '>':
      if (n == '(' || (c == '<' && n == '<')) return false; // `<(`, heredoc
      redirect();
      if (n == '>' || n == '&' || n == '|' || (c == '<' && n == '>')) ++m_i;
      return true;
    default: end_command(); return true; // a newline or `;`
    }
  }

  // Inside a word a `#` is a character; at a word's start it opens a comment to the line's end.
  void read_hash() {
    if (m_in_word) {
      m_word.text += '#';
      return;
    }
    while (m_i + 1 < m_line.size() && m_line[m_i + 1] != '\n')
      ++m_i;
  }

  void read_escape() {
    if (next() == '\n') {
      ++m_i; // a line continuation
    } else if (m_i + 1 < m_line.size()) {
      m_word.text += next();
      m_in_word = true;
      ++m_i;
    }
  }

  bool read_single_quoted() {
    const std::size_t close = m_line.find('\'', m_i + 1);
    if (close == std::string_view::npos) return false;
    m_word.text += m_line.substr(m_i + 1, close - m_i - 1);
    m_in_word = true;
    m_i = close;
    return true;
  }

  bool read_double_quoted() {
    m_in_word = true;
    std::size_t j = m_i + 1;
    for (; j < m_line.size() && m_line[j] != '"'; ++j) {
      if (m_line[j] == '`') return false;
      if (m_line[j] == '$') {
        if (j + 1 < m_line.size() && m_line[j + 1] == '(') return false;
        m_word.plain = false;
      }
      if (m_line[j] == '\\' && j + 1 < m_line.size() &&
          std::string_view("$`\"\\\n").find(m_line[j + 1]) != std::string_view::npos)
        ++j;
      m_word.text += m_line[j];
    }
    if (j >= m_line.size()) return false;
    m_i = j;
    return true;
  }

  void end_word() {
    if (!m_in_word) return;
    if (m_skip_next)
      m_skip_next = false;
    else
      m_commands.back().push_back(std::move(m_word));
    m_word = Word{};
    m_in_word = false;
  }

  void end_command() {
    end_word();
    m_skip_next = false;
    if (!m_commands.back().empty()) m_commands.emplace_back();
  }

  void redirect() {
    // A word of digits just before `<` or `>` is the file descriptor (`2>`), not an operand.
    if (m_in_word && m_word.plain && is_digits(m_word.text)) {
      m_word = Word{};
      m_in_word = false;
    }
    end_word();
    m_skip_next = true; // the next word is a redirection target
  }

  std::string_view m_line;
  std::size_t m_i = 0;
  std::vector<Simple> m_commands = std::vector<Simple>(1);
  Word m_word;
  bool m_in_word = false;
  bool m_skip_next = false;
};

// The simple commands of `line`; nullopt when the line holds what cannot be read without running
// the shell (substitutions, heredocs, subshells) or an unclosed quote.
std::optional<std::vector<Simple>> split(std::string_view line) { return Splitter(line).run(); }

// How a command's options are written: the short options and the long ones that take a value
// (as the next word, or attached: `-n5`, `--lines=5`).
struct Options {
  std::string_view short_with_value;
  std::initializer_list<std::string_view> long_with_value;
};

// The words of `args` that are operands (not options or option values), and the options seen.
struct Parsed {
  std::vector<const Word *> operands;
  std::vector<std::string_view> options; // as written, values left out
};

// The words of `args` after the command name at `name_at`.
Parsed parse_words(const Simple &args, std::size_t name_at, const Options &spec) {
  Parsed out;
  bool options_done = false;
  for (std::size_t i = name_at + 1; i < args.size(); ++i) {
    const std::string_view w = args[i].text;
    if (options_done || w.size() < 2 || w[0] != '-') {
      out.operands.push_back(&args[i]);
      continue;
    }
    if (w == "--") {
      options_done = true;
      continue;
    }
    out.options.push_back(w);
    if (w.starts_with("--")) {
      const bool attached = w.find('=') != std::string_view::npos;
      if (!attached && std::find(spec.long_with_value.begin(), spec.long_with_value.end(),
                                 w.substr(2)) != spec.long_with_value.end())
        ++i;
      continue;
    }
    for (std::size_t k = 1; k < w.size(); ++k) {
      if (spec.short_with_value.find(w[k]) == std::string_view::npos) continue;
      if (k + 1 == w.size()) ++i; // the value is the next word
      break;
    }
  }
  return out;
}

// Whether the short option `c` is among the options, in a cluster (`-ne`) too; a letter of
// `stops_at` takes a value, so what follows it in its cluster is that value, not options.
bool has_short(const Parsed &p, char c, std::string_view stops_at) {
  for (const auto o : p.options) {
    if (o.starts_with("--")) continue;
    for (std::size_t k = 1; k < o.size(); ++k) {
      if (o[k] == c) return true;
      if (stops_at.find(o[k]) != std::string_view::npos) break; // the rest is a value
    }
  }
  return false;
}

// Whether one of the long options `names` is among the options, with `=value` or without.
bool has_long(const Parsed &p, std::initializer_list<std::string_view> names) {
  for (const auto o : p.options)
    for (const auto n : names)
      if (o == n || (o.starts_with(n) && o.size() > n.size() && o[n.size()] == '=')) return true;
  return false;
}

const Options k_head_tail{"nc", {"lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"}};
const Options k_nl{"bdfhilnsvw",
                   {"body-numbering", "section-delimiter", "footer-numbering", "header-numbering",
                    "line-increment", "join-blank-lines", "number-format", "number-separator",
                    "starting-line-number", "number-width"}};
const Options k_bat{"lrHm", {"language",     "line-range",     "highlight-line",
                             "map-syntax",   "style",          "theme",
                             "tabs",         "wrap",           "terminal-width",
                             "color",        "paging",         "decorations",
                             "italic-text",  "pager",          "file-name",
                             "diff-context", "ignored-suffix", "nonprintable-notation",
                             "binary",       "strip-ansi"}};
const Options k_less{"bhjkopPtTxyz#", {"log-file", "tag", "shift", "tabs", "max-back-scroll"}};
const Options k_plain{"", {}};
const Options k_sed{"efl", {"expression", "file", "line-length"}};
const Options k_grep{"efmABCdD",
                     {"regexp", "file", "max-count", "after-context", "before-context", "context",
                      "directories", "devices", "label", "group-separator"}};
const Options k_rg{"efgtTmABCMjdrE",
                   {"regexp",
                    "file",
                    "glob",
                    "iglob",
                    "type",
                    "type-not",
                    "type-add",
                    "type-clear",
                    "max-count",
                    "after-context",
                    "before-context",
                    "context",
                    "max-columns",
                    "threads",
                    "max-depth",
                    "replace",
                    "encoding",
                    "sort",
                    "sortr",
                    "color",
                    "colors",
                    "context-separator",
                    "field-match-separator",
                    "field-context-separator",
                    "path-separator",
                    "max-filesize",
                    "pre",
                    "pre-glob",
                    "engine",
                    "dfa-size-limit",
                    "regex-size-limit",
                    "ignore-file",
                    "hostname-bin",
                    "hyperlink-format",
                    "generate"}};

// The operands of one simple command that are files it reads (before any `cd` prefix).
std::vector<const Word *> reads(const Simple &cmd) {
  std::size_t first = 0; // skip `NAME=value` assignments before the command
  while (first < cmd.size() && cmd[first].text.find('=') != std::string::npos &&
         cmd[first].text.front() != '=' && cmd[first].text.front() != '-')
    ++first;
  if (first == cmd.size() || !cmd[first].plain) return {};
  auto parse = [&](const Options &spec) { return parse_words(cmd, first, spec); };
  std::string_view name = cmd[first].text;
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos)
    name.remove_prefix(slash + 1);

  if (name == "cat" || name == "more") return parse(k_plain).operands;
  if (name == "head" || name == "tail") return parse(k_head_tail).operands;
  if (name == "nl") return parse(k_nl).operands;
  if (name == "bat" || name == "batcat") return parse(k_bat).operands;
  if (name == "less") {
    auto operands = parse(k_less).operands;
    std::erase_if(operands, [](const Word *w) { return w->text.starts_with('+'); }); // `+G`
    return operands;
  }
  if (name == "sed") {
    Parsed p = parse(k_sed);
    const bool in_place = has_short(p, 'i', "efl") || has_long(p, {"--in-place"});
    const bool quiet = has_short(p, 'n', "efl") || has_long(p, {"--quiet", "--silent"});
    if (in_place || !quiet) return {};
    const bool script_given = has_short(p, 'e', "efl") || has_short(p, 'f', "efl") ||
                              has_long(p, {"--expression", "--file"});
    if (!script_given && !p.operands.empty()) p.operands.erase(p.operands.begin());
    return p.operands;
  }
  const bool rg = name == "rg";
  if (rg || name == "grep" || name == "egrep" || name == "fgrep") {
    Parsed p = parse(rg ? k_rg : k_grep);
    if (rg && has_long(p, {"--files", "--type-list"})) return {};
    const std::string_view values = (rg ? k_rg : k_grep).short_with_value;
    const bool pattern_given = has_short(p, 'e', values) || has_short(p, 'f', values) ||
                               has_long(p, {"--regexp", "--file"});
    if (!pattern_given && !p.operands.empty()) p.operands.erase(p.operands.begin());
    return p.operands;
  }
  return {};
}

std::string joined(const std::string &dir, const std::string &path) {
  if (dir.empty() || path.starts_with('/')) return path;
  if (dir.ends_with('/')) return dir + path;
  return dir + "/" + path;
}

} // namespace

std::vector<std::string> files_read_by(std::string_view command, std::size_t max_files) {
  std::vector<std::string> files;
  const auto commands = split(command);
  if (!commands) return files;
  std::string dir; // from `cd`, "" = the working directory
  for (const Simple &cmd : *commands) {
    if (cmd.front().text == "cd" || cmd.front().text == "pushd" || cmd.front().text == "popd") {
      if (cmd.front().text != "cd" || cmd.size() != 2 || !cmd[1].plain || cmd[1].text == "-" ||
          cmd[1].text.empty())
        break; // a directory we cannot follow: what comes next is read elsewhere
      dir = joined(dir, cmd[1].text);
      continue;
    }
    for (const Word *w : reads(cmd)) {
      if (!w->plain || w->text.empty() || w->text == "-") continue;
      std::string path = joined(dir, w->text);
      if (std::find(files.begin(), files.end(), path) != files.end()) continue;
      if (files.size() == max_files) return files;
      files.push_back(std::move(path));
    }
  }
  return files;
}

} // namespace mem0
