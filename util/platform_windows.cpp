// util/platform.hpp on Windows (docs/contributing.md#platforms).
#include "util/detach.hpp"
#include "util/paths.hpp"
#include "util/platform.hpp"
#include "util/strings.hpp"
#include "util/windows.hpp"

#include <fcntl.h>
#include <io.h>
#include <shellapi.h>
#include <shlobj.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace mem0::platform {
namespace fs = std::filesystem;

std::optional<fs::path> executable_path() {
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = ::GetModuleFileNameW(nullptr, buffer.data(), static_cast<DWORD>(buffer.size()));
    if (n == 0) return std::nullopt;
    if (n < buffer.size()) return fs::path(buffer.substr(0, n));
    buffer.resize(buffer.size() * 2); // truncated: a long path
  }
}

void binary_stdio() {
  for (const int fd : {0, 1, 2})
    ::_setmode(fd, _O_BINARY);
}

void prepare_stdio() { binary_stdio(); }

std::vector<std::string> arguments(int argc, const char *const *argv) {
  int count = 0;
  wchar_t **words = ::CommandLineToArgvW(::GetCommandLineW(), &count);
  if (!words) return std::vector<std::string>(argv, argv + argc);
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i)
    out.push_back(win::narrow(words[i]));
  ::LocalFree(words);
  return out;
}

std::vector<std::string> environment() {
  std::vector<std::string> out;
  wchar_t *block = ::GetEnvironmentStringsW();
  if (!block) return out;
  for (const wchar_t *e = block; *e; e += std::wcslen(e) + 1) {
    std::string entry = win::narrow(e);
    const auto eq = entry.find('=', 1);
    // "=C:=C:\x" entries are cmd's per-drive directories, not variables.
    if (entry.empty() || entry[0] == '=' || eq == std::string::npos) continue;
    // Names are case-insensitive on Windows ("Path" is PATH): one spelling for the lookups.
    std::transform(entry.begin(), entry.begin() + static_cast<std::ptrdiff_t>(eq), entry.begin(),
                   [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; });
    out.push_back(std::move(entry));
  }
  ::FreeEnvironmentStringsW(block);
  return out;
}

std::vector<std::string_view> home_variables() { return {"USERPROFILE", "HOME"}; }

std::optional<fs::path> system_home() {
  wchar_t *path = nullptr;
  std::optional<fs::path> home;
  if (::SHGetKnownFolderPath(FOLDERID_Profile, 0, nullptr, &path) == S_OK && path) home = path;
  ::CoTaskMemFree(path);
  return home;
}

fs::path input_path(std::string_view path) {
  return windows_drive_path(path).value_or(std::string(path));
}

long process_id() { return static_cast<long>(::GetCurrentProcessId()); }

bool windows_commands() { return true; }

fs::path short_path(const fs::path &path) {
  const std::wstring wide = path.wstring();
  const DWORD size = ::GetShortPathNameW(wide.c_str(), nullptr, 0);
  if (size == 0) return path;
  std::wstring out(size, L'\0');
  const DWORD written = ::GetShortPathNameW(wide.c_str(), out.data(), size);
  if (written == 0 || written >= size) return path;
  out.resize(written);
  return out;
}

FileStampResult file_stamp(const fs::path &path) {
  // FILE_FLAG_BACKUP_SEMANTICS opens a directory too, to tell it apart; a symlink is followed.
  const win::Handle file{
      win::open_shared(path, FILE_READ_ATTRIBUTES, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS)};
  BY_HANDLE_FILE_INFORMATION info{};
  if (!file.ok() || !::GetFileInformationByHandle(file.h, &info))
    return {std::nullopt, "cannot stat: " + win::error_text()};
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || ::GetFileType(file.h) != FILE_TYPE_DISK)
    return {std::nullopt, "not a regular file"};
  // FILETIME counts 100 ns from 1601-01-01; the Unix epoch is 11644473600 s later.
  const auto ticks = (static_cast<std::int64_t>(info.ftLastWriteTime.dwHighDateTime) << 32) |
                     info.ftLastWriteTime.dwLowDateTime;
  const std::int64_t ns = (ticks - 116444736000000000LL) * 100;
  const auto size = (static_cast<std::uintmax_t>(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  return {FileStamp{ns, size}, ""};
}

std::optional<fs::path> find_on_path(std::string_view name, std::string_view path_list) {
  const bool has_extension = fs::path(std::string(name)).has_extension();
  for (std::size_t start = 0; start <= path_list.size();) {
    const std::size_t end = std::min(path_list.find(';', start), path_list.size());
    const fs::path dir = std::string(trim(path_list.substr(start, end - start)));
    start = end + 1;
    if (dir.empty() || !dir.is_absolute()) continue;
    for (const char *ext : {"", ".exe", ".cmd", ".bat", ".com"}) {
      if (has_extension && *ext) break;
      if (!has_extension && !*ext) continue; // `claude` alone is not what the shell runs
      const fs::path candidate = dir / (std::string(name) + ext);
      std::error_code ec;
      if (fs::is_regular_file(candidate, ec)) return candidate;
    }
  }
  return std::nullopt;
}

std::string read_until(int fd, std::chrono::steady_clock::time_point deadline, std::size_t cap) {
  const HANDLE in = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  if (in == INVALID_HANDLE_VALUE) return {};
  DWORD mode = 0;
  if (::GetFileType(in) == FILE_TYPE_CHAR && ::GetConsoleMode(in, &mode)) return {}; // no input
  // A pipe has no read with a timeout (and PeekNamedPipe does not work on every pipe, wine's
  // among them): a thread reads, and this one waits for it until the deadline. A thread still
  // blocked then keeps draining, so the writer is never blocked, until the process exits.
  struct Shared {
    std::mutex mutex;
    std::condition_variable done_cv;
    std::string data;
    bool done = false;
  };
  auto shared = std::make_shared<Shared>();
  // A file ends at a read of 0 bytes, a pipe at ERROR_BROKEN_PIPE. wine's pipe from a Unix
  // process reads 0 bytes both before its writer wrote and at its end: before any data, a read
  // of 0 bytes is tried again (until the deadline); after data, it is the end.
  const bool file = ::GetFileType(in) == FILE_TYPE_DISK;
  std::thread reader([in, cap, shared, file] {
    char buffer[65536];
    bool any = false;
    for (;;) {
      DWORD n = 0;
      if (!::ReadFile(in, buffer, sizeof buffer, &n, nullptr) || (n == 0 && (file || any))) break;
      any = any || n > 0;
      if (n == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      const std::lock_guard lock(shared->mutex);
      // Past the cap, keep draining but keep nothing.
      const std::size_t room = cap > shared->data.size() ? cap - shared->data.size() : 0;
      shared->data.append(buffer, std::min(room, static_cast<std::size_t>(n)));
    }
    const std::lock_guard lock(shared->mutex);
    shared->done = true;
    shared->done_cv.notify_all();
  });
  std::unique_lock lock(shared->mutex);
  const bool done = shared->done_cv.wait_until(lock, deadline, [&] { return shared->done; });
  std::string data = shared->data;
  lock.unlock();
  if (done)
    reader.join();
  else
    reader.detach();
  return data;
}

long read_some(int fd, char *buffer, std::size_t size) {
  const HANDLE in = reinterpret_cast<HANDLE>(::_get_osfhandle(fd));
  DWORD n = 0;
  if (in == INVALID_HANDLE_VALUE) return -1;
  if (!::ReadFile(in, buffer, static_cast<DWORD>(std::min<std::size_t>(size, 1 << 30)), &n,
                  nullptr))
    return ::GetLastError() == ERROR_BROKEN_PIPE ? 0 : -1; // the writer closed its end
  return static_cast<long>(n);
}

std::string first_line_of(const fs::path &program, std::string_view arg,
                          std::chrono::milliseconds limit) {
  SECURITY_ATTRIBUTES inherit{sizeof(SECURITY_ATTRIBUTES), nullptr, TRUE};
  HANDLE read_end = nullptr, write_end = nullptr;
  if (!::CreatePipe(&read_end, &write_end, &inherit, 0)) return {};
  ::SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0); // only the child's end is inherited
  win::Handle reading{read_end}, writing{write_end};
  const win::Handle null{::CreateFileW(L"NUL", GENERIC_READ | GENERIC_WRITE,
                                       FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING,
                                       0, nullptr)};
  // These handles alone are inherited, not whatever else this process holds.
  HANDLE handles[] = {writing.h, null.h};
  SIZE_T size = 0;
  ::InitializeProcThreadAttributeList(nullptr, 1, 0, &size);
  std::string attributes(size, '\0');
  auto *list = reinterpret_cast<LPPROC_THREAD_ATTRIBUTE_LIST>(attributes.data());
  if (!null.ok() || !::InitializeProcThreadAttributeList(list, 1, 0, &size) ||
      !::UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles,
                                   sizeof handles, nullptr, nullptr))
    return {};
  STARTUPINFOEXW si{};
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = null.h;
  si.StartupInfo.hStdOutput = writing.h;
  si.StartupInfo.hStdError = null.h;
  si.lpAttributeList = list;
  std::wstring command =
      win::quote_argument(program.wstring()) + L" " + win::quote_argument(win::widen(arg));
  std::wstring block;
  const ChildEnvironment env(environment());
  for (char *const *entry = env.get(); *entry; ++entry)
    block += win::widen(*entry) + L'\0';
  block += L'\0';
  PROCESS_INFORMATION pi{};
  const BOOL started =
      ::CreateProcessW(nullptr, command.data(), nullptr, nullptr, TRUE,
                       CREATE_NO_WINDOW | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT,
                       block.data(), nullptr, &si.StartupInfo, &pi);
  ::DeleteProcThreadAttributeList(list);
  if (!started) return {};
  const win::Handle process{pi.hProcess}, thread{pi.hThread};
  ::CloseHandle(writing.h); // ours closed: the pipe ends when the child's end does
  writing.h = INVALID_HANDLE_VALUE;
  const int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(reading.h), _O_RDONLY);
  std::string out;
  if (fd >= 0) {
    reading.h = INVALID_HANDLE_VALUE; // the descriptor owns it now
    out = read_until(fd, std::chrono::steady_clock::now() + limit, 4096);
    ::_close(fd);
  }
  if (::WaitForSingleObject(process.h, 0) != WAIT_OBJECT_0) ::TerminateProcess(process.h, 1);
  return std::string(trim(std::string_view(out).substr(0, out.find('\n'))));
}

} // namespace mem0::platform
