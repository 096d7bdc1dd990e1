// The files a shell command reads (util/shell_read.hpp, docs/agents.md#codex-cli) on any text:
// never more than asked for, never an empty, repeated or expanded name.
#include "tests/fuzz/fuzz_support.hpp"
#include "util/shell_read.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char *>(data), size);
  const std::size_t max = size % 9;
  const auto files = mem0::files_read_by(text, max);
  fuzz::check(files.size() <= max, "files_read_by: at most max_files");
  for (std::size_t i = 0; i < files.size(); ++i) {
    fuzz::check(!files[i].empty() && files[i] != "-", "files_read_by: a name", files[i]);
    fuzz::check(std::count(files.begin(), files.end(), files[i]) == 1, "files_read_by: distinct",
                files[i]);
  }
  return 0;
}
