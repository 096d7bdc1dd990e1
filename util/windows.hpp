#pragma once
// Helpers for the Windows files of the platform pairs (util/*_windows.cpp) only: UTF-8 and
// UTF-16 both ways, and handles closed by scope. Generic code never includes this header
// (docs/contributing.md#platforms).
#include <windows.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace mem0::win {

// `text` (UTF-8) as UTF-16; invalid bytes become U+FFFD.
std::wstring widen(std::string_view text);

// `text` (UTF-16) as UTF-8; unpaired surrogates become U+FFFD.
std::string narrow(std::wstring_view text);

// The system's message for `code` (GetLastError's), on one line.
std::string error_text(DWORD code = ::GetLastError());

// A handle closed when it goes out of scope.
struct Handle {
  HANDLE h = INVALID_HANDLE_VALUE;
  Handle() = default;
  explicit Handle(HANDLE handle) : h(handle) {}
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  ~Handle() {
    if (ok()) ::CloseHandle(h);
  }
  bool ok() const { return h != INVALID_HANDLE_VALUE && h != nullptr; }
};

// Open `path` as CreateFileW does, sharing read, write and delete with every other opener (so
// that a file we hold open can still be replaced or removed by another process's rename).
HANDLE open_shared(const std::filesystem::path &path, DWORD access, DWORD disposition,
                   DWORD flags = FILE_ATTRIBUTE_NORMAL);

// `word` quoted for a command line as CommandLineToArgvW reads it back.
std::wstring quote_argument(const std::wstring &word);

} // namespace mem0::win
