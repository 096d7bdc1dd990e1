// Reading a transcript that is not a regular file: what only POSIX has (a FIFO, /dev/null). The
// rest: transcript_test.cpp.
#include "tests/unit/catch.hpp"
#include "tests/unit/runtime/transcript_fixture.hpp"
#include "tests/unit/test_support.hpp"

#include "runtime/transcript.hpp"

#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace mem0;
using namespace mem0::testing;
namespace fs = std::filesystem;

TEST_CASE("transcript: a missing file, an empty file, a directory or a FIFO read as empty",
          "[transcript][no-qemu]") {
  TranscriptFile f;
  auto empty = [](const Transcript &t) { return t.messages.empty() && t.files_touched.empty(); };
  CHECK(empty(read_transcript(f.dir / "missing.jsonl")));
  CHECK(empty(read_transcript("")));
  CHECK(empty(f.read("")));
  fs::create_directories(f.dir / "dir.jsonl");
  CHECK(empty(read_transcript(f.dir / "dir.jsonl")));
  CHECK(empty(read_transcript("/dev/null")));

  const fs::path fifo = f.dir / "fifo.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto reading = std::async(std::launch::async, [&] { return read_transcript(fifo); });
  const bool prompt = reading.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!prompt) { // unblock a reader stuck on the FIFO so the test fails instead of hanging
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  CHECK(prompt);
  CHECK(empty(reading.get()));
}
