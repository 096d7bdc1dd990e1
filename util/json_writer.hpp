#pragma once
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mem0 {

// The one way the project writes JSON: a streaming writer over a string, with string_views for
// keys and values (no DOM, no copies). `Base` is RapidJSON's Writer or PrettyWriter.
template <class Base> class BasicJsonWriter {
public:
  BasicJsonWriter() : m_writer(m_buffer) {}

  BasicJsonWriter &begin_object() { return ok(m_writer.StartObject()); }
  BasicJsonWriter &end_object() { return ok(m_writer.EndObject()); }
  BasicJsonWriter &begin_array() { return ok(m_writer.StartArray()); }
  BasicJsonWriter &end_array() { return ok(m_writer.EndArray()); }
  BasicJsonWriter &key(std::string_view k) { return ok(m_writer.Key(k.data(), size(k))); }
  BasicJsonWriter &str(std::string_view v) { return ok(m_writer.String(v.data(), size(v))); }
  BasicJsonWriter &boolean(bool v) { return ok(m_writer.Bool(v)); }
  BasicJsonWriter &int64(std::int64_t v) { return ok(m_writer.Int64(v)); }
  BasicJsonWriter &number(double v) { return ok(m_writer.Double(v)); }
  BasicJsonWriter &null() { return ok(m_writer.Null()); }
  // A parsed value, written as it is.
  BasicJsonWriter &value(const rapidjson::Value &v) { return ok(v.Accept(m_writer)); }
  // `"k": "v"`
  BasicJsonWriter &member(std::string_view k, std::string_view v) { return key(k).str(v); }

  // The raw RapidJSON writer, for what the calls above do not cover (indentation).
  Base &base() { return m_writer; }
  // The text written so far.
  std::string text() const { return {m_buffer.GetString(), m_buffer.GetSize()}; }

private:
  static rapidjson::SizeType size(std::string_view s) {
    return static_cast<rapidjson::SizeType>(s.size());
  }
  // RapidJSON's calls report misuse (a value where a key belongs) as false; the project's
  // callers are fixed sequences, so it is asserted by the tests rather than checked at run time.
  BasicJsonWriter &ok(bool) { return *this; }

  rapidjson::StringBuffer m_buffer;
  Base m_writer;
};

using JsonWriter = BasicJsonWriter<rapidjson::Writer<rapidjson::StringBuffer>>;
using PrettyJsonWriter = BasicJsonWriter<rapidjson::PrettyWriter<rapidjson::StringBuffer>>;

} // namespace mem0
