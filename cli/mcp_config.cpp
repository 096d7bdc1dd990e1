// The memory tools' server entry that `install --agent` writes (docs/cli.md#memory-tools):
// in each agent's McpFormat: `mcpServers.mem0` in a JSON file (Gemini CLI, Cursor, Copilot CLI),
// `mcp.mem0` in OpenCode's opencode.json, `[mcp_servers.mem0]` in Codex's config.toml. Everything
// else in the file stays as it is; an entry named mem0 that does not run mem0-hooks (Mem0's hosted
// server, say) is the user's and is never changed.
#include "cli/install.hpp"

#include "util/files.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include <rapidjson/document.h>

#include <algorithm>
#include <cstdio>

namespace mem0::cli {
namespace fs = std::filesystem;
namespace {

using rapidjson::Document;
using rapidjson::Value;

Result<std::string> refused(std::string message, ErrorKind kind = ErrorKind::io) {
  return unexpected(make_error(kind, std::move(message)));
}

// True when `command`, a program's path (no command line), runs this project's mem0-hooks,
// wherever it is installed: `mem0-hooks`, or `mem0-hooks.exe` on Windows.
bool runs_mem0_hooks(std::string_view command) {
  const auto slash = command.find_last_of("/\\");
  const std::string_view name =
      slash == std::string_view::npos ? command : command.substr(slash + 1);
  return name == "mem0-hooks" || ascii_lower(name) == "mem0-hooks.exe";
}

// --- JSON -------------------------------------------------------------------------------------

// OpenCode keeps its servers in `mcp`, each {"type":"local","command":[program, args…]}; the
// others in `mcpServers`, each {"command":program,"args":[…]}.
const char *servers_key(bool opencode) { return opencode ? "mcp" : "mcpServers"; }

// The program a server entry runs, in either shape.
std::optional<std::string_view> server_program(const Value &entry) {
  if (!entry.IsObject()) return std::nullopt;
  const auto command = entry.FindMember("command");
  if (command == entry.MemberEnd()) return std::nullopt;
  if (command->value.IsString()) return std::string_view(command->value.GetString());
  if (command->value.IsArray() && !command->value.Empty() && command->value[0].IsString())
    return std::string_view(command->value[0].GetString());
  return std::nullopt;
}

Value server_entry(const std::string &program, bool opencode, Document::AllocatorType &a) {
  Value server(rapidjson::kObjectType);
  Value args(rapidjson::kArrayType);
  if (opencode) {
    server.AddMember("type", "local", a);
    args.PushBack(Value(program.c_str(), a), a);
    args.PushBack("mcp", a);
    server.AddMember("command", args, a);
    server.AddMember("enabled", true, a);
    return server;
  }
  server.AddMember("command", Value(program.c_str(), a), a);
  args.PushBack("mcp", a);
  server.AddMember("args", args, a);
  return server;
}

Result<std::string> merge_json(std::string_view current, const std::string &program, bool remove,
                               bool opencode) {
  const char *key = servers_key(opencode);
  Document doc;
  if (current.find_first_not_of(" \t\r\n") == std::string_view::npos)
    doc.SetObject();
  else
    parse_json(doc, current);
  if (doc.HasParseError()) return refused("not valid JSON");
  if (!doc.IsObject()) return refused("not a JSON object");
  auto &a = doc.GetAllocator();
  auto servers = doc.FindMember(key);
  if (servers != doc.MemberEnd() && !servers->value.IsObject())
    return refused("\"" + std::string(key) + "\" is not an object");
  const bool has_servers = servers != doc.MemberEnd();
  const auto entry = has_servers ? servers->value.FindMember("mem0") : Value::MemberIterator();
  const bool exists = has_servers && entry != servers->value.MemberEnd();
  const auto command = exists ? server_program(entry->value) : std::nullopt;
  const bool ours = exists && command && runs_mem0_hooks(*command);
  if (exists && !ours) {
    if (remove) return std::string(current);
    return refused("already registers another server named mem0", ErrorKind::duplicate);
  }
  if (remove) {
    if (!ours) return std::string(current);
    servers->value.RemoveMember("mem0");
    if (servers->value.ObjectEmpty()) doc.RemoveMember(key);
  } else {
    Value server = server_entry(program, opencode, a);
    if (ours && entry->value == server) return std::string(current); // already so
    if (!has_servers) {
      doc.AddMember(Value(key, a), Value(rapidjson::kObjectType), a);
      servers = doc.FindMember(key);
    }
    if (ours)
      servers->value["mem0"] = server;
    else
      servers->value.AddMember("mem0", server, a);
  }
  PrettyJsonWriter w;
  w.base().SetIndent(' ', 2);
  w.value(doc);
  return w.text() + "\n";
}

// --- TOML -------------------------------------------------------------------------------------

// One statement of a TOML document: a table header, or a key/value pair (which may span lines).
struct TomlStatement {
  std::size_t begin = 0, end = 0; // the lines it covers: [begin, end) of the text
  bool header = false;
  std::string table; // the table it is in (a header: the table it opens), spaces and quotes gone
  std::string key;   // a pair's key, spaces and quotes gone
};

// A key or table name as written, with the blanks around its dots and its quotes dropped:
// `mcp_servers . "mem0"` → `mcp_servers.mem0` (a quoted dot is rare enough to be misread).
std::string plain_name(std::string_view text) {
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '"' && c != '\'') out += c;
  return out;
}

// Past the end of the line that holds `from` (its '\n'), or the end of `text`.
std::size_t line_end(std::string_view text, std::size_t from) {
  const auto e = text.find('\n', from);
  return e == std::string_view::npos ? text.size() : e + 1;
}

// The table header at `i` ([name] or [[name]], then only a comment on its line): the table's
// name and the end of its line; nullopt when it is not one.
std::optional<std::pair<std::string, std::size_t>> scan_header(std::string_view text,
                                                               std::size_t i) {
  const std::size_t n = text.size();
  const bool array = i + 1 < n && text[i + 1] == '[';
  std::size_t j = i + (array ? 2 : 1);
  char quote = 0;
  for (; j < n && text[j] != '\n' && (quote || text[j] != ']'); ++j)
    if (quote ? text[j] == quote : (text[j] == '"' || text[j] == '\'')) quote = quote ? 0 : text[j];
  if (j >= n || text[j] != ']' || (array && (j + 1 >= n || text[j + 1] != ']')))
    return std::nullopt;
  std::string table = plain_name(text.substr(i + (array ? 2 : 1), j - i - (array ? 2 : 1)));
  if (table.empty()) return std::nullopt;
  std::size_t k = j + (array ? 2 : 1);
  while (k < n && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r'))
    ++k;
  if (k < n && text[k] != '\n' && text[k] != '#') return std::nullopt;
  return std::pair{std::move(table), line_end(text, k)};
}

// The value whose `=` is at `j`: where it ends (the newline after it at depth 0, the end of its
// comment's line, or the text's end); nullopt when a string is unclosed or brackets unbalanced.
std::optional<std::size_t> scan_value(std::string_view text, std::size_t j) {
  const std::size_t n = text.size();
  int depth = 0;
  for (++j; j < n; ++j) {
    const char c = text[j];
    if (text.substr(j, 3) == "\"\"\"" || text.substr(j, 3) == "'''") { // multi-line string
      const std::string_view delim = text.substr(j, 3);
      std::size_t k = j + 3;
      for (;; ++k) {
        k = text.find(delim, k);
        if (k == std::string_view::npos) return std::nullopt;
        if (delim[0] == '\'' || k == j + 3 || text[k - 1] != '\\') break;
      }
      while (k + 3 < n && text[k + 3] == delim[0]) // up to two quotes end the content
        ++k;
      j = k + 2;
    } else if (c == '"' || c == '\'') {
      std::size_t k = j + 1;
      for (; k < n && text[k] != c && text[k] != '\n'; ++k)
        if (c == '"' && text[k] == '\\') ++k;
      if (k >= n || text[k] != c) return std::nullopt;
      j = k;
    } else if (c == '#') {
      j = line_end(text, j) - 1;
      if (depth == 0) break;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) return std::nullopt;
    } else if (c == '\n' && depth == 0) {
      break;
    }
  }
  if (depth != 0) return std::nullopt;
  return j;
}

// The statements of `text`, or nullopt when it is not TOML as far as a light scan can tell:
// every line outside a multi-line value is blank, a comment, a table header or `key = value`;
// strings are closed, brackets balanced.
std::optional<std::vector<TomlStatement>> scan_toml(std::string_view text) {
  std::vector<TomlStatement> out;
  std::string table;
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const std::size_t begin = i;
    while (i < n && (text[i] == ' ' || text[i] == '\t'))
      ++i;
    if (i == n) break;
    if (text[i] == '\n' || text[i] == '\r' || text[i] == '#') {
      i = line_end(text, i);
      continue;
    }
    if (text[i] == '[') {
      auto header = scan_header(text, i);
      if (!header) return std::nullopt;
      table = std::move(header->first);
      i = header->second;
      out.push_back({begin, i, true, table, ""});
      continue;
    }
    // key = value: the key up to `=` (quotes allowed), then the value to its end.
    std::size_t j = i;
    char quote = 0;
    for (; j < n && text[j] != '\n' && (quote || text[j] != '='); ++j)
      if (quote ? text[j] == quote : (text[j] == '"' || text[j] == '\''))
        quote = quote ? 0 : text[j];
    if (j >= n || text[j] != '=') return std::nullopt;
    const std::string key = plain_name(text.substr(i, j - i));
    if (key.empty()) return std::nullopt;
    const auto end = scan_value(text, j);
    if (!end) return std::nullopt;
    i = std::min(n, line_end(text, std::min(*end, n - 1)));
    out.push_back({begin, i, false, table, key});
  }
  return out;
}

// A TOML basic string holding `s`.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", static_cast<unsigned>(c) & 0xFF);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The text of a simple string value (`"…"` or `'…'`, basic escapes \" and \\ only).
std::optional<std::string> toml_value_string(std::string_view value) {
  value = trim(value.substr(0, value.find('\n')));
  if (value.size() < 2 || (value.front() != '"' && value.front() != '\'')) return std::nullopt;
  std::string out;
  for (std::size_t k = 1; k < value.size(); ++k) {
    if (value[k] == value.front()) return out;
    if (value.front() == '"' && value[k] == '\\' && k + 1 < value.size()) ++k;
    out += value[k];
  }
  return std::nullopt;
}

constexpr std::string_view k_table = "mcp_servers.mem0";

Result<std::string> merge_toml(std::string_view current, const std::string &program, bool remove) {
  const auto statements = scan_toml(current);
  if (!statements) return refused("not TOML this command can read");
  // Our table and its sub-tables: one block of lines from its header to its last statement
  // (comments and blank lines after it belong to what follows).
  std::size_t block_begin = std::string_view::npos, block_end = std::string_view::npos;
  std::optional<std::string> command;
  bool in_block = false;
  for (const auto &s : *statements) {
    const bool ours = s.table == k_table || s.table.starts_with(std::string(k_table) + ".");
    if (s.header) {
      if (ours && block_begin != std::string_view::npos && !in_block)
        return refused("defines [mcp_servers.mem0] in two places; left for you to tidy");
      if (ours && !in_block) block_begin = s.begin;
      if (ours) block_end = s.end;
      in_block = ours;
      continue;
    }
    const std::string full = s.table.empty() ? s.key : s.table + "." + s.key;
    const std::string_view statement = current.substr(s.begin, s.end - s.begin);
    if (!in_block && (full == k_table || full.starts_with(std::string(k_table) + ".") ||
                      (full == "mcp_servers" && statement.find("mem0") != std::string_view::npos)))
      return refused("defines mcp_servers.mem0 in a form this command does not edit");
    if (in_block) block_end = s.end;
    if (in_block && s.table == k_table && s.key == "command")
      command = toml_value_string(statement.substr(statement.find('=') + 1));
  }
  const bool exists = block_begin != std::string_view::npos;
  const bool ours = exists && command && runs_mem0_hooks(*command);
  if (exists && !ours) {
    if (remove) return std::string(current);
    return refused("already registers another server named mem0", ErrorKind::duplicate);
  }
  std::string block =
      remove ? ""
             : "[mcp_servers.mem0]\ncommand = " + toml_string(program) + "\nargs = [\"mcp\"]\n";
  std::string text(current);
  if (exists && remove) {
    while (block_end < text.size() && // with the blank lines after it
           std::string_view(" \t\r\n").find(text[block_end]) != std::string_view::npos)
      ++block_end;
    text.erase(block_begin, block_end - block_begin);
    while (text.ends_with("\n\n")) // no blank lines left at the end
      text.pop_back();
    return text == "\n" ? "" : text;
  }
  if (exists) { // in place, keeping what follows its last statement
    text.replace(block_begin, block_end - block_begin, block);
    return text;
  }
  if (remove) return text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  if (!text.empty()) text += '\n';
  return text + block;
}

} // namespace

bool registers_memory_tools(const fs::path &file, McpFormat format) {
  const auto text = read_small_file(file);
  if (!text) return false;
  if (format == McpFormat::toml) {
    for (std::size_t start = 0, end; start < text->size(); start = end + 1) {
      end = std::min(text->find('\n', start), text->size());
      if (trim(std::string_view(*text).substr(start, end - start)) == "[mcp_servers.mem0]")
        return true;
    }
    return false;
  }
  rapidjson::Document doc;
  if (!parse_json(doc, *text) || !doc.IsObject()) return false;
  const auto servers = doc.FindMember(servers_key(format == McpFormat::opencode));
  return servers != doc.MemberEnd() && servers->value.IsObject() &&
         servers->value.HasMember("mem0");
}

Result<std::string> merge_memory_tools(std::string_view current, McpFormat format,
                                       const fs::path &exe_dir, bool remove) {
  return merge_memory_tools(current, format, exe_dir, remove, platform::windows_commands());
}

Result<std::string> merge_memory_tools(std::string_view current, McpFormat format,
                                       const fs::path &exe_dir, bool remove, bool windows) {
  const std::string program = program_path(exe_dir, "mem0-hooks", windows);
  return format == McpFormat::toml
             ? merge_toml(current, program, remove)
             : merge_json(current, program, remove, format == McpFormat::opencode);
}

} // namespace mem0::cli
