// `mem0-hooks mcp`: a stdio MCP server over the memory operations (docs/cli.md#mcp).
#include "cli/mcp.hpp"
#include "cli/commands.hpp"
#include "cli/memories.hpp"
#include "mem0/format.hpp"
#include "mem0/search.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include "util/version.hpp"

#include <cctype>
#include <rapidjson/document.h>

#include <array>
#include <functional>
#include <map>
#include <variant>

namespace mem0::cli {
namespace {

using rapidjson::Value;

// Newest last: a client asking for another version gets the newest.
constexpr std::array<std::string_view, 4> k_protocol_versions{"2024-11-05", "2025-03-26",
                                                              "2025-06-18", "2025-11-25"};

constexpr std::string_view k_instructions =
    "Mem0 memories of this user and project. search_memories before deciding something the "
    "project may have settled; add_memory for a decision, convention or pitfall worth keeping "
    "(text stored as given, secrets redacted). Cite memories as [mem0:id8].";

// JSON-RPC error codes.
constexpr int k_parse_error = -32700;
constexpr int k_invalid_request = -32600;
constexpr int k_method_not_found = -32601;
constexpr int k_invalid_params = -32602;

// One argument of a tool, as its input schema shows it and as a call is checked against.
struct ToolArg {
  std::string_view name;
  bool integer = false; // else a string
  std::string_view description;
  bool required = false;
  std::vector<std::string> choices = {}; // a string's allowed values
  long min = 0, max = 0;                 // an integer's range
};

// A call's checked arguments.
struct CallArgs {
  std::map<std::string, std::string, std::less<>> strings;
  std::map<std::string, long, std::less<>> integers;

  std::optional<std::string> text(std::string_view name) const {
    const auto it = strings.find(name);
    return it == strings.end() ? std::nullopt : std::optional(it->second);
  }
  long integer(std::string_view name, long fallback) const {
    const auto it = integers.find(name);
    return it == integers.end() ? fallback : it->second;
  }
};

// What a tool answers: one text, an error flag, and structured memories when it has them.
struct ToolResult {
  std::string text;
  bool error = false;
  std::optional<std::vector<Memory>> memories = std::nullopt;
  long count = -1; // get_memories: how many there are in all
};

// What a tool call works with: the call's context, the target and who we are.
struct Call {
  const CliContext &ctx;
  const ApiTarget &api;
  const Identity &identity;
  const Agent &agent; // the client's
};

ToolResult failed(const Error &e) { return {failure_line(e), true}; }

// The lines of `memories`, or `empty` when there are none.
std::string listing(const std::vector<Memory> &memories, std::string_view empty) {
  if (memories.empty()) return std::string(empty);
  std::string text;
  for (const auto &m : memories)
    text += (text.empty() ? "" : "\n") + context_line(m);
  return text;
}

// The whole memory, for get_memory: its line with the whole text, then its fields.
std::string whole(const Memory &m) {
  return "[" + (m.type.empty() ? std::string("unknown") : clean_text(m.type)) + "] " +
         clean_text(m.text) + " [mem0:" + id8(m.id) + "]\nid: " + m.id +
         (m.created_at.empty() ? "" : "\ncreated_at: " + clean_text(m.created_at));
}

// The call's scope: checked against the tool's choices already.
Scope scope_arg(const Call &c, const CallArgs &args) {
  return *scope_named(args.text("scope"), c.ctx.config);
}

ToolResult search_tool(const Call &c, const CallArgs &args) {
  const std::string query = make_query(*args.text("query"), c.ctx.config.redact);
  if (query.empty()) return {"query is empty", true};
  const Scope scope = scope_arg(c, args);
  const auto plan = search_plan(query, static_cast<int>(args.integer("limit", 10)), scope,
                                args.text("type"), dir_named(args.text("dir")));
  const MemoryService memories = service(c.ctx);
  auto found = memories.search(c.api, c.identity, plan);
  if (!found) return failed(found.error());
  memories.show(memories.tool_session(), *found);
  return {listing(*found, "No memories match \"" + query + "\"."), false, std::move(*found)};
}

ToolResult get_tool(const Call &c, const CallArgs &args) {
  const MemoryService memories = service(c.ctx);
  auto memory = memories.own_memory(c.api, c.identity, *args.text("memory_id"));
  if (!memory) return failed(memory.error());
  memories.show(memories.tool_session(), {*memory});
  return {whole(*memory), false, std::vector<Memory>{*memory}};
}

ToolResult list_tool(const Call &c, const CallArgs &args) {
  const ListSpec spec{scope_arg(c, args), args.text("type"),
                      static_cast<int>(args.integer("page", 1)),
                      static_cast<int>(args.integer("page_size", 10))};
  const MemoryService memories = service(c.ctx);
  auto page = memories.list(c.api, c.identity, spec);
  if (!page) return failed(page.error());
  memories.show(memories.tool_session(), page->memories);
  const std::string head = "page " + std::to_string(spec.page) + " of " +
                           std::to_string(page->count) + (page->at_least ? "+" : "") +
                           (page->count == 1 ? " memory" : " memories") + ", newest first";
  ToolResult result{head + "\n" + listing(page->memories, "(no memories on this page)"), false,
                    std::move(page->memories)};
  result.count = page->count;
  return result;
}

ToolResult add_tool(const Call &c, const CallArgs &args) {
  NewMemory memory{*args.text("text"),
                   args.text("type").value_or(std::string(memory_type::decision)),
                   "mcp",
                   {},
                   &c.agent};
  // `scope`: team or personal, checked against the tool's choices already; else the setting.
  if (const auto scope = args.text("scope")) memory.team = *scope == "team";
  const auto stored = service(c.ctx).add(memory);
  if (!stored) return failed(stored.error());
  return {stored_line(*stored), stored->rejected};
}

ToolResult update_tool(const Call &c, const CallArgs &args) {
  const auto updated =
      service(c.ctx).update(c.api, c.identity, *args.text("memory_id"), *args.text("text"));
  if (!updated) return failed(updated.error());
  return {"updated " + updated->id + " [mem0:" + id8(updated->id) + "]"};
}

ToolResult delete_tool(const Call &c, const CallArgs &args) {
  const auto deleted = service(c.ctx).remove(c.api, c.identity, *args.text("memory_id"));
  if (!deleted) return failed(deleted.error());
  return {"deleted " + deleted->id + " [mem0:" + id8(deleted->id) + "]"};
}

struct Tool {
  std::string_view name;
  std::string_view title;
  std::string_view description;
  std::vector<ToolArg> args;
  bool read_only = false;
  bool destructive = false;
  bool structured = false; // answers memories as structuredContent (with an outputSchema)
  ToolResult (*run)(const Call &, const CallArgs &);
};

const ToolArg k_scope{"scope",
                      false,
                      "project (default), session (this session's), or global (every project)",
                      false,
                      {"project", "session", "global"}};
const ToolArg k_type{"type", false,
                     "a memory type: decision, convention, anti_pattern, task_learning, bug_fix, "
                     "session_state, ..."};
const ToolArg k_memory_id{"memory_id", false,
                          "the memory's id, its first 8 characters, or [mem0:id8]", true};

// The tools, named as Mem0's hosted MCP server names them.
const std::vector<Tool> &tools() {
  static const std::vector<Tool> table{
      {"search_memories",
       "Search memories",
       "Search this user's Mem0 memories of this project by meaning.",
       {{"query", false, "what to look for", true},
        k_scope,
        k_type,
        {"dir", false,
         "a directory relative to the repository root: the project's shared memory written "
         "there or below only"},
        {"limit", true, "at most this many (1 to 50, default 10)", false, {}, 1, 50}},
       true,
       false,
       true,
       search_tool},
      {"get_memory",
       "Get a memory",
       "Show one memory whole.",
       {k_memory_id},
       true,
       false,
       true,
       get_tool},
      {"get_memories",
       "List memories",
       "List this user's memories of this project, newest first, a page at a time.",
       {k_scope,
        k_type,
        {"page", true, "the page, from 1", false, {}, 1, 100000},
        {"page_size", true, "memories per page (1 to 100, default 10)", false, {}, 1, 100}},
       true,
       false,
       true,
       list_tool},
      {"add_memory",
       "Add a memory",
       "Store a memory verbatim (secrets redacted) for this user and project; answers its id, or "
       "that it is queued.",
       {{"text", false, "the memory, one self-contained statement", true},
        {"type", false,
         "its type (default decision): decision, convention, anti_pattern, "
         "task_learning, bug_fix, ..."},
        {"scope",
         false,
         "team (the project's shared memory, for the whole team) or personal (yours only); "
         "by default the team_memory setting lets Mem0 choose",
         false,
         {"team", "personal"}}},
       false,
       false,
       false,
       add_tool},
      {"update_memory",
       "Update a memory",
       "Replace the text of one of this user's memories (secrets redacted).",
       {k_memory_id, {"text", false, "the new text", true}},
       false,
       true,
       false,
       update_tool},
      {"delete_memory",
       "Delete a memory",
       "Delete one of this user's memories.",
       {k_memory_id},
       false,
       true,
       false,
       delete_tool},
  };
  return table;
}

const Tool *find_tool(std::string_view name) {
  for (const auto &t : tools())
    if (t.name == name) return &t;
  return nullptr;
}

// `arguments` checked against `tool`: unknown, missing, mistyped or out-of-range arguments are
// an error line (identity is never an argument).
Result<CallArgs> check_args(const Tool &tool, const Value *arguments) {
  const auto bad = [](std::string message) {
    return unexpected(make_error(ErrorKind::client, std::move(message)));
  };
  CallArgs out;
  if (arguments && !arguments->IsObject()) return bad("arguments must be an object");
  if (arguments)
    for (const auto &m : arguments->GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      const auto spec = std::find_if(tool.args.begin(), tool.args.end(),
                                     [&](const ToolArg &a) { return a.name == name; });
      if (spec == tool.args.end())
        return bad("unknown argument '" + clean_text(truncate_code_points(name, 40)) + "' for " +
                   std::string(tool.name) +
                   " (the user and project are always the configured ones)");
      if (m.value.IsNull()) continue; // as if left out
      if (spec->integer) {
        if (!m.value.IsInt64() || m.value.GetInt64() < spec->min || m.value.GetInt64() > spec->max)
          return bad("argument '" + std::string(name) + "' must be an integer from " +
                     std::to_string(spec->min) + " to " + std::to_string(spec->max));
        out.integers.emplace(name, static_cast<long>(m.value.GetInt64()));
        continue;
      }
      if (!m.value.IsString()) return bad("argument '" + std::string(name) + "' must be a string");
      std::string value(m.value.GetString(), m.value.GetStringLength());
      if (!spec->choices.empty() &&
          std::find(spec->choices.begin(), spec->choices.end(), value) == spec->choices.end())
        return bad("argument '" + std::string(name) + "' must be " + join(spec->choices, ", "));
      out.strings.emplace(name, std::move(value));
    }
  for (const auto &a : tool.args)
    if (a.required && !out.strings.count(a.name) && !out.integers.count(a.name))
      return bad("missing required argument '" + std::string(a.name) + "'");
  return out;
}

void write_memory_schema(JsonWriter &w) {
  w.begin_object().member("type", "object").key("properties").begin_object();
  w.key("memories").begin_object().member("type", "array").key("items").begin_object();
  w.member("type", "object").key("properties").begin_object();
  for (const char *field : {"id", "type", "memory", "created_at", "cite"})
    w.key(field).begin_object().member("type", "string").end_object();
  w.key("score").begin_object().member("type", "number").end_object();
  w.end_object().key("required").begin_array().str("id").str("memory").end_array();
  w.end_object().end_object();
  w.key("count").begin_object().member("type", "integer").end_object();
  w.end_object().key("required").begin_array().str("memories").end_array().end_object();
}

void write_tool(JsonWriter &w, const Tool &t) {
  w.begin_object()
      .member("name", t.name)
      .member("title", t.title)
      .member("description", t.description);
  w.key("inputSchema").begin_object().member("type", "object").key("properties").begin_object();
  for (const auto &a : t.args) {
    w.key(a.name).begin_object().member("type", a.integer ? "integer" : "string");
    w.member("description", a.description);
    if (!a.choices.empty()) {
      w.key("enum").begin_array();
      for (const auto &c : a.choices)
        w.str(c);
      w.end_array();
    }
    if (a.integer) w.key("minimum").int64(a.min).key("maximum").int64(a.max);
    w.end_object();
  }
  w.end_object().key("required").begin_array();
  for (const auto &a : t.args)
    if (a.required) w.str(a.name);
  w.end_array().key("additionalProperties").boolean(false).end_object();
  if (t.structured) {
    w.key("outputSchema");
    write_memory_schema(w);
  }
  w.key("annotations").begin_object().member("title", t.title);
  w.key("readOnlyHint").boolean(t.read_only);
  if (!t.read_only) w.key("destructiveHint").boolean(t.destructive);
  w.key("openWorldHint").boolean(false).end_object();
  w.end_object();
}

void write_result(JsonWriter &w, const ToolResult &r) {
  w.begin_object().key("content").begin_array();
  w.begin_object().member("type", "text").member("text", r.text).end_object();
  w.end_array();
  if (r.error) w.key("isError").boolean(true);
  if (r.memories && !r.error) {
    w.key("structuredContent").begin_object().key("memories");
    write_memories(w, *r.memories);
    if (r.count >= 0) w.key("count").int64(r.count);
    w.end_object();
  }
  w.end_object();
}

// Run the tool `params` name: its result, or a JSON-RPC error (code, message) for an unknown
// tool or params that are not an object.
std::variant<ToolResult, std::pair<int, std::string>>
call_tool(const Value *params, const CliContext &ctx, const Agent &agent) {
  if (!params || !params->IsObject())
    return std::pair{k_invalid_params, "params must be an object"};
  const auto name = string_member(*params, "name");
  if (!name) return std::pair{k_invalid_params, "params.name must be a string"};
  const Tool *tool = find_tool(*name);
  if (!tool)
    return std::pair{k_invalid_params,
                     "Unknown tool: " + clean_text(truncate_code_points(*name, 60))};
  const auto it = params->FindMember("arguments");
  const auto args = check_args(*tool, it == params->MemberEnd() ? nullptr : &it->value);
  if (!args) return ToolResult{args.error().message, true};
  CliContext call = ctx; // the call's own budget (docs/cli.md#mcp)
  call.deadline = SteadyClock::now() + ctx.config.timeout;
  const MemoryService memories = service(call);
  const auto api = memories.api();
  if (!api) return failed(api.error());
  const Identity identity = memories.identity(memories.tool_session());
  ctx.log.debug([&] { return "mcp: " + std::string(tool->name); });
  return tool->run(Call{call, *api, identity, agent}, *args);
}

// `{"jsonrpc":"2.0","id":<id>,` then the caller's member, then `}`.
std::string answer(const Value *id, const std::function<void(JsonWriter &)> &member) {
  JsonWriter w;
  w.begin_object().member("jsonrpc", "2.0").key("id");
  if (id)
    w.value(*id);
  else
    w.null();
  member(w);
  w.end_object();
  return w.text();
}

std::string error_answer(const Value *id, int code, std::string_view message) {
  return answer(id, [&](JsonWriter &w) {
    w.key("error").begin_object().key("code").int64(code).member("message", message).end_object();
  });
}

void write_initialize(JsonWriter &w, const Value *params) {
  std::string_view protocol = k_protocol_versions.back();
  if (params && params->IsObject())
    if (const auto asked = string_member(*params, "protocolVersion"))
      if (std::find(k_protocol_versions.begin(), k_protocol_versions.end(), *asked) !=
          k_protocol_versions.end())
        protocol = *asked;
  w.begin_object().member("protocolVersion", protocol);
  w.key("capabilities").begin_object().key("tools").begin_object();
  w.key("listChanged").boolean(false).end_object().end_object();
  w.key("serverInfo").begin_object().member("name", "mem0-hooks").member("title", "Mem0");
  w.member("version", version()).end_object();
  w.member("instructions", k_instructions).end_object();
}

} // namespace

std::string mcp_overlong_answer() {
  return error_answer(nullptr, k_invalid_request,
                      "request line longer than " + std::to_string(k_max_mcp_line) + " bytes");
}

const Agent *agent_of_client(std::string_view client_name) {
  // A whole word of the client's name ("gemini-cli-mcp-client": gemini), so that "pi" is not
  // found inside "copilot".
  const auto has_word = [client_name](std::string_view word) {
    for (auto at = client_name.find(word); at != std::string_view::npos;
         at = client_name.find(word, at + 1)) {
      const auto end = at + word.size();
      const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(client_name[at - 1]));
      const bool ends =
          end == client_name.size() || !std::isalnum(static_cast<unsigned char>(client_name[end]));
      if (starts && ends) return true;
    }
    return false;
  };
  for (const Agent *agent : agents())
    if (has_word(agent->name.substr(0, agent->name.find('-')))) return agent;
  return nullptr;
}

std::optional<std::string> mcp_answer(std::string_view line, const CliContext &ctx,
                                      McpSession &session) {
  rapidjson::Document doc;
  if (!parse_json(doc, line)) return error_answer(nullptr, k_parse_error, "parse error: not JSON");
  if (!doc.IsObject())
    return error_answer(nullptr, k_invalid_request, "a request must be a JSON object");
  const auto id_it = doc.FindMember("id");
  const Value *id = id_it == doc.MemberEnd() ? nullptr : &id_it->value;
  const bool valid_id = !id || id->IsString() || id->IsInt64() || id->IsUint64();
  const auto method = string_member(doc, "method");
  const auto params_it = doc.FindMember("params");
  const Value *params = params_it == doc.MemberEnd() ? nullptr : &params_it->value;
  if (!valid_id || string_member(doc, "jsonrpc") != "2.0" || !method ||
      (params && !params->IsObject() && !params->IsArray())) {
    // A response from the client (result or error, no method) needs no answer.
    if (!method && id && valid_id && (doc.HasMember("result") || doc.HasMember("error")))
      return std::nullopt;
    return error_answer(valid_id ? id : nullptr, k_invalid_request, "invalid request");
  }
  if (!id) return std::nullopt; // a notification: notifications/initialized and the rest
  if (*method == "initialize") {
    const auto client = params && params->IsObject() ? params->FindMember("clientInfo")
                                                     : Value::ConstMemberIterator();
    if (params && params->IsObject() && client != params->MemberEnd() && client->value.IsObject())
      if (const auto name = string_member(client->value, "name"))
        if (const Agent *agent = agent_of_client(*name)) session.agent = agent;
    ctx.log.debug([&] {
      const auto asked =
          params && params->IsObject() ? string_member(*params, "protocolVersion") : std::nullopt;
      return "mcp: initialize by " + std::string(session.agent->name) + ", protocol " +
             clean_text(truncate_code_points(asked.value_or("(none)"), 20));
    });
    return answer(id, [&](JsonWriter &w) {
      w.key("result");
      write_initialize(w, params);
    });
  }
  if (*method == "ping")
    return answer(id, [](JsonWriter &w) { w.key("result").begin_object().end_object(); });
  if (*method == "tools/list")
    return answer(id, [](JsonWriter &w) {
      w.key("result").begin_object().key("tools").begin_array();
      for (const auto &t : tools())
        write_tool(w, t);
      w.end_array().end_object();
    });
  if (*method == "tools/call") {
    const auto called = call_tool(params, ctx, *session.agent);
    if (const auto *e = std::get_if<std::pair<int, std::string>>(&called))
      return error_answer(id, e->first, e->second);
    return answer(id, [&](JsonWriter &w) {
      w.key("result");
      write_result(w, std::get<ToolResult>(called));
    });
  }
  return error_answer(id, k_method_not_found,
                      "Method not found: " + clean_text(truncate_code_points(*method, 60)));
}

int serve_mcp(int in, const CliContext &ctx) {
  const auto send = [&](const std::string &text) { ctx.out << text << '\n' << std::flush; };
  std::string line;
  bool overlong = false; // the current line passed k_max_mcp_line: skip to its end
  McpSession session;
  const auto finish = [&] {
    if (!overlong && !line.empty() && line.find_first_not_of(" \t\r") != std::string::npos)
      if (auto reply = mcp_answer(line, ctx, session)) send(*reply);
    line.clear();
    overlong = false;
  };
  char buffer[64 * 1024];
  for (;;) {
    const long n = platform::read_some(in, buffer, sizeof buffer);
    if (n <= 0 || !ctx.out) break; // EOF, stdin gone, or nobody reads the answers
    for (std::string_view chunk(buffer, static_cast<std::size_t>(n)); !chunk.empty();) {
      const auto newline = chunk.find('\n');
      const std::string_view part = chunk.substr(0, newline);
      if (!overlong) {
        if (line.size() + part.size() > k_max_mcp_line) {
          overlong = true;
          line.clear();
          line.shrink_to_fit();
          send(mcp_overlong_answer());
        } else {
          line.append(part);
        }
      }
      if (newline == std::string_view::npos) break;
      finish();
      chunk.remove_prefix(newline + 1);
    }
  }
  finish(); // a last line without its newline
  return k_ok;
}

int mcp(const Args &, const CliContext &ctx) {
  platform::prepare_stdio(); // a client gone: the write fails and the server ends
  return serve_mcp(platform::k_stdin_fd, ctx);
}

} // namespace mem0::cli
