#pragma once
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mem0 {

inline constexpr int k_max_json_depth = 128;

// Parse `text` into `doc`; returns false (and leaves `doc` holding a parse error) when it is not
// JSON or nests deeper than k_max_json_depth, which would exhaust the stack of RapidJSON's
// recursive reader and writer. A lone UTF-16 surrogate escape (`"\ud800"`, which some encoders
// emit) reads as U+FFFD instead of failing the whole document.
bool parse_json(rapidjson::Document &doc, std::string_view text);

// The string member `name` of `object` (which must be an object); nullopt when it is missing or
// not a string.
inline std::optional<std::string_view> string_member(const rapidjson::Value &object,
                                                     const char *name) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}

// The integer member `name` of `object` (which must be an object); nullopt when it is missing or
// not an integer that fits 64 bits.
inline std::optional<long long> int64_member(const rapidjson::Value &object, const char *name) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsInt64()) return std::nullopt;
  return it->value.GetInt64();
}

// The string elements of the array member `name` of `object` (which must be an object), in
// order; other elements are skipped, and a missing or non-array member gives none.
inline std::vector<std::string> strings_member(const rapidjson::Value &object, const char *name) {
  std::vector<std::string> out;
  if (const auto it = object.FindMember(name); it != object.MemberEnd() && it->value.IsArray())
    for (const auto &v : it->value.GetArray())
      if (v.IsString()) out.emplace_back(v.GetString(), v.GetStringLength());
  return out;
}

} // namespace mem0
