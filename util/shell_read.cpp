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

// The simple commands of `line`; nullopt when the line holds what cannot be read without running
// the shell (substitutions, heredocs, subshells) or an unclosed quote.
std::optional<std::vector<Simple>> split(std::string_view line) {
  std::vector<Simple> commands(1);
  Word word;
  bool in_word = false;
  bool skip_next = false; // the next word is a redirection target
  auto end_word = [&] {
    if (!in_word) return;
    if (skip_next)
      skip_next = false;
    else
      commands.back().push_back(std::move(word));
    word = Word{};
    in_word = false;
  };
  auto end_command = [&] {
    end_word();
    skip_next = false;
    if (!commands.back().empty()) commands.emplace_back();
  };
  auto redirect = [&] {
    // A word of digits just before `<` or `>` is the file descriptor (`2>`), not an operand.
    if (in_word && word.plain && is_digits(word.text)) {
      word = Word{};
      in_word = false;
    }
    end_word();
    skip_next = true;
  };

  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    const char next = i + 1 < line.size() ? line[i + 1] : '\0';
    switch (c) {
    case ' ':
    case '\t':
    case '\r': end_word(); break;
    case '\n':
    case ';': end_command(); break;
    case '|':
      end_command();
      if (next == '|' || next == '&') ++i;
      break;
    case '&':
      if (next == '>') { // `&>`, `&>>`: both outputs to a file
        redirect();
        i += line.substr(i + 2, 1) == ">" ? 2 : 1;
      } else {
        end_command();
        if (next == '&') ++i;
      }
      break;
    case '<':
    case '>':
      if (next == '(' || (c == '<' && next == '<')) return std::nullopt; // `<(`, heredoc
      redirect();
      if (next == '>' || next == '&' || next == '|' || (c == '<' && next == '>')) ++i;
      break;
    case '(':
    case ')':
    case '`': return std::nullopt;
    case '#':
      if (in_word) {
        word.text += c;
      } else {
        while (i + 1 < line.size() && line[i + 1] != '\n')
          ++i;
      }
      break;
    case '\\':
      if (next == '\n') {
        ++i; // a line continuation
      } else if (i + 1 < line.size()) {
        word.text += next;
        in_word = true;
        ++i;
      }
      break;
    case '\'': {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string_view::npos) return std::nullopt;
      word.text += line.substr(i + 1, close - i - 1);
      in_word = true;
      i = close;
      break;
    }
    case '"': {
      in_word = true;
      std::size_t j = i + 1;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '`') return std::nullopt;
        if (line[j] == '$') {
          if (j + 1 < line.size() && line[j + 1] == '(') return std::nullopt;
          word.plain = false;
        }
        if (line[j] == '\\' && j + 1 < line.size() &&
            std::string_view("$`\"\\\n").find(line[j + 1]) != std::string_view::npos)
          ++j;
        word.text += line[j];
      }
      if (j >= line.size()) return std::nullopt;
      i = j;
      break;
    }
    case '$':
      if (next == '(') return std::nullopt;
      word.plain = false;
      word.text += c;
      in_word = true;
      break;
    case '*':
    case '?':
    case '[':
      word.plain = false;
      word.text += c;
      in_word = true;
      break;
    case '~':
      if (!in_word) word.plain = false;
      word.text += c;
      in_word = true;
      break;
    default: word.text += c; in_word = true;
    }
  }
  end_command();
  commands.pop_back(); // the empty command end_command leaves last
  return commands;
}

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
