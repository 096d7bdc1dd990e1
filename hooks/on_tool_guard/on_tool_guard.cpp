#include "hooks/on_tool_guard/on_tool_guard.hpp"
#include "mem0/format.hpp"
#include "mem0/memory.hpp"
#include "util/json.hpp"
#include "util/json_writer.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>

namespace mem0::on_tool_guard {
namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

std::string forward_slashes(std::string_view path) {
  std::string out(path);
  std::replace(out.begin(), out.end(), '\\', '/');
  return out;
}

std::string_view view_of(const Value &v) { return {v.GetString(), v.GetStringLength()}; }

// A value that names something: neither null nor the empty string.
bool names(const Value &v) { return !v.IsNull() && !(v.IsString() && v.GetStringLength() == 0); }

// True when `object` has the member `key` with a value that names something.
bool has_named(const Value &object, std::string_view key) {
  for (const auto &m : object.GetObject())
    if (view_of(m.name) == key && names(m.value)) return true;
  return false;
}

// True when an object anywhere inside `v` (itself included) has the member `key` naming
// something.
bool names_anywhere(const Value &v, std::string_view key) {
  if (v.IsObject()) {
    for (const auto &m : v.GetObject())
      if ((view_of(m.name) == key && names(m.value)) || names_anywhere(m.value, key)) return true;
  } else if (v.IsArray()) {
    for (const auto &item : v.GetArray())
      if (names_anywhere(item, key)) return true;
  }
  return false;
}

Value string_value(std::string_view s, Allocator &alloc) {
  return Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

// Set `object[key]` to the string `value`, replacing a null or empty member of that name.
void set_string(Value &object, std::string_view key, std::string_view value, Allocator &alloc) {
  for (auto &m : object.GetObject())
    if (view_of(m.name) == key) {
      m.value = string_value(value, alloc);
      return;
    }
  object.AddMember(string_value(key, alloc), string_value(value, alloc), alloc);
}

// {"<key>": "<value>"}
Value leaf(std::string_view key, std::string_view value, Allocator &alloc) {
  Value out(rapidjson::kObjectType);
  out.AddMember(string_value(key, alloc), string_value(value, alloc), alloc);
  return out;
}

// add_memory: the identity when the call names none, and the metadata defaults. False when the
// input is not of the expected shape.
bool complete_add(rapidjson::Document &doc, const GuardIdentity &identity, bool &changed) {
  Allocator &alloc = doc.GetAllocator();
  if (const auto it = doc.FindMember("metadata");
      it != doc.MemberEnd() && !it->value.IsNull() && !it->value.IsObject())
    return false;
  // A call that names its own scope (another user, an agent, a run) keeps it: adding ours would
  // move or hide the memory.
  if (!has_named(doc, "user_id") && !has_named(doc, "agent_id") && !has_named(doc, "run_id")) {
    set_string(doc, "user_id", identity.user_id, alloc);
    if (!has_named(doc, "app_id")) set_string(doc, "app_id", identity.app_id, alloc);
    changed = true;
  }
  // Looked up after the members above were added: adding members may move the others.
  auto it = doc.FindMember("metadata");
  if (it == doc.MemberEnd()) {
    doc.AddMember("metadata", Value(rapidjson::kObjectType), alloc);
    it = doc.FindMember("metadata");
  } else if (it->value.IsNull()) {
    it->value.SetObject();
  }
  Value &metadata = it->value;
  auto fill = [&](std::string_view key, std::string_view value) {
    if (value.empty() || has_named(metadata, key)) return;
    set_string(metadata, key, value, alloc);
    changed = true;
  };
  fill("type", memory_type::task_learning);
  fill("source", k_mcp_source);
  fill("session_id", identity.session_id);
  return true;
}

// search_memories, get_memories: the identity clauses in the filters, unless the call already
// names a user or an agent anywhere. False when the input is not of the expected shape.
bool complete_filters(rapidjson::Document &doc, const GuardIdentity &identity, bool &changed) {
  if (names_anywhere(doc, "user_id") || names_anywhere(doc, "agent_id")) return true;
  Allocator &alloc = doc.GetAllocator();
  const bool names_app = names_anywhere(doc, "app_id");
  auto it = doc.FindMember("filters");
  Value *theirs = nullptr;
  if (it != doc.MemberEnd() && !it->value.IsNull()) {
    if (!it->value.IsObject()) return false; // a string, an array: not ours to guess
    if (it->value.MemberCount() > 0) theirs = &it->value;
  }
  Value clauses(rapidjson::kArrayType);
  clauses.PushBack(leaf("user_id", identity.user_id, alloc), alloc);
  if (!names_app) clauses.PushBack(leaf("app_id", identity.app_id, alloc), alloc);
  if (theirs) {
    const auto all = theirs->FindMember("AND");
    if (theirs->MemberCount() == 1 && all != theirs->MemberEnd()) {
      // {"AND":[...]}: their clauses join ours in one AND, which means the same as nesting it.
      if (!all->value.IsArray()) return false;
      for (auto &clause : all->value.GetArray())
        clauses.PushBack(clause.Move(), alloc);
    } else {
      clauses.PushBack(theirs->Move(), alloc);
    }
  }
  Value filters(rapidjson::kObjectType);
  filters.AddMember("AND", clauses, alloc);
  if (it != doc.MemberEnd())
    it->value = filters;
  else
    doc.AddMember("filters", filters, alloc);
  changed = true;
  return true;
}

} // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  constexpr auto none = std::string_view::npos;
  std::size_t p = 0, t = 0, star = none, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != none) {
      p = star + 1; // let the last `*` take one more character
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*')
    ++p;
  return p == pattern.size();
}

bool is_native_memory_path(std::string_view path, std::string_view cwd, const Agent &agent) {
  std::string full = forward_slashes(path);
  if (full.empty()) return false;
  if (full.front() != '/') full = forward_slashes(cwd) + "/" + full;
  const std::string normal = std::filesystem::path(full).lexically_normal().generic_string();
  return std::ranges::any_of(agent.native_memory_globs,
                             [&](std::string_view glob) { return glob_match(glob, normal); });
}

std::string block_message(std::string_view path, const Agent &agent) {
  return "Blocked: " + truncate_code_points(clean_text(path), 200) + " is " +
         std::string(agent.display_name) +
         "'s own memory, and this project keeps its memories in Mem0. Store this with the mem0 "
         "MCP tool add_memory instead.";
}

Mem0Tool mem0_tool(std::string_view tool_name) {
  std::string_view name;
  if (tool_name.starts_with(k_own_mcp_prefix)) return Mem0Tool::own;
  if (tool_name.starts_with(k_mcp_prefix))
    name = tool_name.substr(k_mcp_prefix.size());
  else if (tool_name.starts_with(k_plugin_mcp_prefix))
    name = tool_name.substr(k_plugin_mcp_prefix.size());
  else
    return Mem0Tool::none;
  if (name == "add_memory") return Mem0Tool::add;
  if (name == "search_memories") return Mem0Tool::search;
  if (name == "get_memories") return Mem0Tool::list;
  return Mem0Tool::other;
}

std::optional<std::string> complete_mcp_call(std::string_view tool_name,
                                             std::string_view tool_input_json,
                                             const GuardIdentity &identity) {
  const Mem0Tool tool = mem0_tool(tool_name);
  if (tool != Mem0Tool::add && tool != Mem0Tool::search && tool != Mem0Tool::list)
    return std::nullopt;
  if (identity.user_id.empty() || identity.app_id.empty()) return std::nullopt;
  rapidjson::Document doc;
  if (!parse_json(doc, tool_input_json) || !doc.IsObject()) return std::nullopt;
  bool changed = false;
  const bool usable = tool == Mem0Tool::add ? complete_add(doc, identity, changed)
                                            : complete_filters(doc, identity, changed);
  if (!usable || !changed) return std::nullopt;
  JsonWriter w;
  if (!doc.Accept(w.base())) return std::nullopt;
  return w.text();
}

HookOutput handle(const ToolInput &input, const HookContext &ctx) {
  RunFacts &facts = *ctx.facts;
  if (input.tool == ToolKind::write) {
    if (!ctx.config.block_native_memory || input.file_path.empty()) return {};
    if (!is_native_memory_path(input.file_path, facts.cwd().string(), *ctx.agent)) return {};
    ctx.log.debug([&] { return "blocked a write to " + input.file_path; });
    return {.block_reason = block_message(input.file_path, *ctx.agent)};
  }
  const Mem0Tool tool = mem0_tool(input.tool_name);
  if (tool == Mem0Tool::own) {
    ctx.log.debug([&] { return input.tool_name + ": our own server, its identity is its own"; });
    return {};
  }
  if (tool != Mem0Tool::add && tool != Mem0Tool::search && tool != Mem0Tool::list) return {};
  if (input.tool_input.empty()) return {}; // tool_input missing or not an object
  const GuardIdentity identity{ctx.config.user_id, facts.project_id(), facts.session()};
  auto updated = complete_mcp_call(input.tool_name, input.tool_input, identity);
  if (!updated) return {};
  ctx.log.debug([&] { return "completed " + input.tool_name; });
  return {.updated_input = std::move(*updated)};
}

} // namespace mem0::on_tool_guard
