#pragma once
// The transcript of a test's `content`, written to a fresh file (transcript_test.cpp and
// transcript_posix_test.cpp).
#include "runtime/transcript.hpp"
#include "tests/unit/test_support.hpp"

#include <filesystem>
#include <string_view>

namespace mem0::testing {

struct TranscriptFile {
  TempDir dir;
  std::filesystem::path path = dir / "session.jsonl";
  Transcript read(std::string_view content, std::size_t window = k_transcript_window) {
    write_file(path, content);
    return read_transcript(path, window);
  }
};

} // namespace mem0::testing
