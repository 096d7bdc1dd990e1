// Reading a transcript that is not a regular file: what only POSIX has (a FIFO, /dev/null). The
// rest: transcript_test.cpp.
#include "tests/unit/catch.hpp"
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
  TempDir dir;
  // Every line read, as a file it touched.
  const auto read = [](const fs::path &path) {
    return read_jsonl(path, k_transcript_window,
                      [](std::string_view line, auto &files) { files.emplace_back(line); });
  };
  write_file(dir / "empty.jsonl", "");
  write_file(dir / "one.jsonl", "{}\n");
  REQUIRE(read(dir / "one.jsonl") == std::vector<std::string>{"{}"}); // the reader reports lines
  CHECK(read(dir / "missing.jsonl").empty());
  CHECK(read("").empty());
  CHECK(read(dir / "empty.jsonl").empty());
  fs::create_directories(dir / "dir.jsonl");
  CHECK(read(dir / "dir.jsonl").empty());
  CHECK(read("/dev/null").empty());

  const fs::path fifo = dir / "fifo.jsonl";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto reading = std::async(std::launch::async, [&] { return read(fifo); });
  const bool prompt = reading.wait_for(std::chrono::seconds(5)) == std::future_status::ready;
  if (!prompt) { // unblock a reader stuck on the FIFO so the test fails instead of hanging
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  CHECK(prompt);
  CHECK(reading.get().empty());
}
