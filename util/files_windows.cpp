// util/files.hpp on Windows (docs/contributing.md#platforms). Locks are LockFileEx byte-range
// locks far past the end of the file (so that they never stand in the way of a read or an
// append); every file is opened sharing read, write and delete, so that a file another process
// holds open can still be replaced by a rename.
#include "util/files.hpp"
#include "util/platform.hpp"
#include "util/windows.hpp"

#include <atomic>
#include <cstring>
#include <thread>

namespace mem0 {
namespace fs = std::filesystem;
namespace {

// The byte the locks take: far past any file's end.
constexpr DWORD k_lock_offset_high = 0x7fffffff;

Error io_error(std::string what, const fs::path &path, DWORD code = ::GetLastError()) {
  return make_error(ErrorKind::io, what + " " + path.string() + ": " + win::error_text(code));
}

// Try the lock of `file` (`exclusive`, else shared) until `give_up`; a zero wait tries once.
Result<void> lock_until(HANDLE file, bool exclusive, const fs::path &name,
                        std::chrono::steady_clock::time_point give_up) {
  for (;;) {
    OVERLAPPED at{};
    at.OffsetHigh = k_lock_offset_high;
    const DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
    if (::LockFileEx(file, flags, 0, 1, 0, &at)) return {};
    if (const DWORD code = ::GetLastError();
        code != ERROR_LOCK_VIOLATION && code != ERROR_IO_PENDING)
      return unexpected(io_error("cannot lock", name, code));
    if (std::chrono::steady_clock::now() >= give_up)
      return unexpected(make_error(ErrorKind::timeout, "lock busy: " + name.string()));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

bool try_lock(HANDLE file, bool exclusive) {
  return static_cast<bool>(lock_until(file, exclusive, {}, std::chrono::steady_clock::now()));
}

// The identity of an open file: its volume and index.
std::optional<std::pair<DWORD, std::uint64_t>> file_id(HANDLE file) {
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(file, &info)) return std::nullopt;
  return std::pair{info.dwVolumeSerialNumber,
                   (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow};
}

// Whether `path` still names the file open as `file`: a lock file removed, or a file replaced,
// while we waited for its lock is not the one to hold any more.
bool still_named(HANDLE file, const fs::path &path) {
  const win::Handle named{win::open_shared(path, FILE_READ_ATTRIBUTES, OPEN_EXISTING)};
  const auto held = file_id(file);
  return named.ok() && held && held == file_id(named.h);
}

// Whether the open `file` is a reparse point (a symbolic link or a junction) itself.
bool is_reparse_point(HANDLE file) {
  BY_HANDLE_FILE_INFORMATION info{};
  return ::GetFileInformationByHandle(file, &info) &&
         (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
}

// Open `path` as open_shared does, but never through a reparse point: the name itself is
// opened (FILE_FLAG_OPEN_REPARSE_POINT; a link to nothing is not followed to create its
// target), and refused when it is one: Windows' O_NOFOLLOW (docs/state.md#state-directory).
HANDLE open_no_link(const fs::path &path, DWORD access, DWORD disposition) {
  const HANDLE h = win::open_shared(path, access, disposition,
                                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT);
  if (h == INVALID_HANDLE_VALUE || !is_reparse_point(h)) return h;
  ::CloseHandle(h);
  ::SetLastError(ERROR_CANT_ACCESS_FILE);
  return INVALID_HANDLE_VALUE;
}

// Opening a file that was removed while others still hold it fails for a moment (access
// denied, "delete pending"), as does one that a scanner holds without sharing: tried again
// until `give_up`.
HANDLE open_retrying(const fs::path &path, DWORD access, DWORD disposition,
                     std::chrono::steady_clock::time_point give_up) {
  for (;;) {
    const HANDLE h = open_no_link(path, access, disposition);
    const DWORD code = ::GetLastError();
    if (h != INVALID_HANDLE_VALUE ||
        (code != ERROR_ACCESS_DENIED && code != ERROR_SHARING_VIOLATION) ||
        std::chrono::steady_clock::now() >= give_up) {
      ::SetLastError(code);
      return h;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::optional<std::uintmax_t> size_of(HANDLE file) {
  LARGE_INTEGER size{};
  if (!::GetFileSizeEx(file, &size)) return std::nullopt;
  return static_cast<std::uintmax_t>(size.QuadPart);
}

bool write_all(HANDLE file, const std::string &content) {
  std::size_t done = 0;
  while (done < content.size()) {
    DWORD n = 0;
    const auto chunk = static_cast<DWORD>(std::min<std::size_t>(content.size() - done, 1 << 30));
    if (!::WriteFile(file, content.data() + done, chunk, &n, nullptr) || n == 0) return false;
    done += n;
  }
  return true;
}

// The POSIX-semantics rename (Windows 10 1709 and later): `target` is replaced even while other
// processes hold it open, sharing delete; their handles keep the old file.
bool rename_posix(const fs::path &source, const fs::path &target) {
  const win::Handle file{win::open_shared(source, DELETE | SYNCHRONIZE, OPEN_EXISTING)};
  if (!file.ok()) return false;
  const std::wstring name = target.wstring();
  std::string buffer(sizeof(FILE_RENAME_INFO) + name.size() * sizeof(wchar_t), '\0');
  auto *info = reinterpret_cast<FILE_RENAME_INFO *>(buffer.data());
  const DWORD flags = 0x1 | 0x2;           // FILE_RENAME_FLAG_REPLACE_IF_EXISTS | _POSIX_SEMANTICS
  std::memcpy(info, &flags, sizeof flags); // the Flags member, over ReplaceIfExists
  info->FileNameLength = static_cast<DWORD>(name.size() * sizeof(wchar_t));
  std::memcpy(info->FileName, name.data(), info->FileNameLength);
  constexpr auto k_file_rename_info_ex = static_cast<FILE_INFO_BY_HANDLE_CLASS>(22);
  return ::SetFileInformationByHandle(file.h, k_file_rename_info_ex, info,
                                      static_cast<DWORD>(buffer.size()));
}

// Replace `target` by `source`: MoveFileExW, else the POSIX-semantics rename (for a target that
// others hold open), retried for a moment while a scanner
// holds the target without sharing.
bool replace_file(const fs::path &source, const fs::path &target, bool durable) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  const DWORD flags = MOVEFILE_REPLACE_EXISTING | (durable ? MOVEFILE_WRITE_THROUGH : 0);
  for (;;) {
    if (::MoveFileExW(source.wstring().c_str(), target.wstring().c_str(), flags)) return true;
    const DWORD code = ::GetLastError();
    if (rename_posix(source, target)) return true;
    if ((code != ERROR_ACCESS_DENIED && code != ERROR_SHARING_VIOLATION) ||
        std::chrono::steady_clock::now() >= give_up) {
      ::SetLastError(code);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// A new temporary file beside `path` holding `content`: its name.
Result<fs::path> write_temporary(const fs::path &path, const std::string &content,
                                 Durability durability) {
  static std::atomic<unsigned> counter{0};
  const fs::path tmp =
      path.parent_path() /
      ("." + path.filename().string() + "." + std::to_string(platform::process_id()) + "-" +
       std::to_string(::GetTickCount64()) + "-" + std::to_string(counter++));
  const win::Handle out{::CreateFileW(tmp.wstring().c_str(), GENERIC_WRITE, FILE_SHARE_DELETE,
                                      nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr)};
  if (!out.ok()) return unexpected(io_error("cannot create temporary file for", path));
  if (write_all(out.h, content) && (durability != Durability::durable || ::FlushFileBuffers(out.h)))
    return tmp;
  const Error e = io_error("cannot write", path);
  ::DeleteFileW(tmp.wstring().c_str());
  return unexpected(e);
}

// Give `path`, which this process holds open under its exclusive lock, the content `content`.
// Only the POSIX-semantics rename replaces a file held open (NTFS on Windows 10 1709 and later);
// where it cannot (FAT, network shares, wine) the file is rewritten in place, which the lock
// keeps every append out of meanwhile (a reader may see it half written, and skips what does not
// parse).
Result<void> replace_held(const fs::path &path, const std::string &content) {
  if (const auto tmp = write_temporary(path, content, Durability::saves_work)) {
    if (rename_posix(*tmp, path)) return {};
    ::DeleteFileW(tmp->wstring().c_str());
  }
  const win::Handle file{win::open_shared(path, GENERIC_WRITE, OPEN_EXISTING)};
  LARGE_INTEGER start{};
  if (!file.ok() || !::SetFilePointerEx(file.h, start, nullptr, FILE_BEGIN) ||
      !write_all(file.h, content) || !::SetEndOfFile(file.h))
    return unexpected(io_error("cannot rewrite", path));
  return {};
}

} // namespace

std::optional<std::string> read_small_file(const fs::path &path, std::size_t max_bytes,
                                           Links links) {
  // CreateFileW opens no directory without FILE_FLAG_BACKUP_SEMANTICS; a device or pipe is
  // never read.
  const win::Handle in{links == Links::refuse
                           ? open_no_link(path, GENERIC_READ, OPEN_EXISTING)
                           : win::open_shared(path, GENERIC_READ, OPEN_EXISTING)};
  if (!in.ok() || ::GetFileType(in.h) != FILE_TYPE_DISK) return std::nullopt;
  const auto size = size_of(in.h);
  if (!size || *size > max_bytes) return std::nullopt;
  std::string data;
  char buffer[16384];
  for (;;) {
    DWORD n = 0;
    if (!::ReadFile(in.h, buffer, sizeof buffer, &n, nullptr)) return std::nullopt;
    if (n == 0) return data;
    data.append(buffer, n);
    if (data.size() > max_bytes) return std::nullopt; // it grew while being read
  }
}

std::optional<FileTail> read_file_tail(const fs::path &path, std::size_t bytes) {
  const win::Handle in{win::open_shared(path, GENERIC_READ, OPEN_EXISTING)};
  if (!in.ok() || ::GetFileType(in.h) != FILE_TYPE_DISK) return std::nullopt;
  const auto size = size_of(in.h);
  if (!size) return std::nullopt;
  const std::uintmax_t start = *size > bytes ? *size - bytes : 0;
  std::string data(static_cast<std::size_t>(*size - start), '\0');
  std::size_t done = 0;
  while (done < data.size()) {
    OVERLAPPED at{};
    const std::uint64_t offset = start + done;
    at.Offset = static_cast<DWORD>(offset);
    at.OffsetHigh = static_cast<DWORD>(offset >> 32);
    DWORD n = 0;
    const auto chunk = static_cast<DWORD>(std::min<std::size_t>(data.size() - done, 1 << 30));
    if (!::ReadFile(in.h, data.data() + done, chunk, &n, &at)) {
      if (::GetLastError() == ERROR_HANDLE_EOF) break; // the file shrank meanwhile
      return std::nullopt;
    }
    if (n == 0) break;
    done += n;
  }
  data.resize(done);
  return FileTail{std::move(data), *size};
}

void append_log(const fs::path &path, const std::string &line, std::uintmax_t max_bytes) {
  std::optional<std::pair<DWORD, std::uint64_t>> written;
  {
    // FILE_APPEND_DATA alone: each write goes to the end, whole, among concurrent writers.
    const win::Handle out{open_no_link(path, FILE_APPEND_DATA | FILE_READ_ATTRIBUTES, OPEN_ALWAYS)};
    if (!out.ok() || ::GetFileType(out.h) != FILE_TYPE_DISK) return;
    const auto size = size_of(out.h);
    DWORD n = 0;
    if (!::WriteFile(out.h, line.data(), static_cast<DWORD>(line.size()), &n, nullptr) || !size ||
        *size + line.size() <= max_bytes)
      return;
    written = file_id(out.h);
  }
  // Moved only while its name is still the file written, so that of processes rotating at once
  // one moves it and the others do not move the new file over it.
  {
    const win::Handle named{win::open_shared(path, FILE_READ_ATTRIBUTES, OPEN_EXISTING)};
    if (!named.ok() || !written || file_id(named.h) != written) return;
  }
  (void)replace_file(path, path.string() + ".1", false);
}

TryLock::TryLock(const fs::path &path) {
  const HANDLE file = open_no_link(path, GENERIC_READ | GENERIC_WRITE, OPEN_ALWAYS);
  if (file == INVALID_HANDLE_VALUE) return;
  m_handle = reinterpret_cast<std::intptr_t>(file);
  m_held = try_lock(file, true);
}

TryLock::~TryLock() {
  if (m_handle != -1) ::CloseHandle(reinterpret_cast<HANDLE>(m_handle)); // releases the lock
}

Result<void> ensure_private_dir(const fs::path &dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return {};
  if (dir.has_parent_path() && dir.parent_path() != dir)
    (void)ensure_private_dir(dir.parent_path());
  // Private by inheritance: under %USERPROFILE% only the user (and the system) have access.
  if (::CreateDirectoryW(dir.wstring().c_str(), nullptr) ||
      ::GetLastError() == ERROR_ALREADY_EXISTS)
    if (fs::is_directory(dir, ec)) return {};
  return unexpected(make_error(ErrorKind::io, "cannot create " + dir.string()));
}

std::optional<std::string> unsafe_dir_problem(const fs::path &) {
  // The state dir lives under %USERPROFILE%, whose access list admits only the user (and the
  // system); an owner check would read security descriptors on every run for no gain there.
  return std::nullopt;
}

Result<void> write_new_file(const fs::path &path, const std::string &content, bool replace) {
  std::error_code ec;
  const auto status = fs::symlink_status(path, ec);
  if (fs::is_symlink(status))
    return unexpected(
        make_error(ErrorKind::io, path.string() + " is a symbolic link; not written through it"));
  if (fs::exists(status) && (!replace || !fs::is_regular_file(status)))
    return unexpected(make_error(ErrorKind::io, path.string() + " exists"));
  const auto tmp = write_temporary(path, content, Durability::durable);
  if (!tmp) return unexpected(tmp.error());
  // Without MOVEFILE_REPLACE_EXISTING the move fails when anything is at `path`; with it, the
  // name itself is replaced, a link never followed.
  const DWORD flags = MOVEFILE_WRITE_THROUGH | (replace ? MOVEFILE_REPLACE_EXISTING : 0);
  if (!::MoveFileExW(tmp->wstring().c_str(), path.wstring().c_str(), flags)) {
    const Error e = io_error("cannot write", path);
    ::DeleteFileW(tmp->wstring().c_str());
    return unexpected(e);
  }
  return {};
}

Result<void> write_file_atomic(const fs::path &requested, const std::string &content,
                               Durability durability) {
  // A symlink is written through to its final target; one that does not end at a regular file
  // is left alone.
  fs::path path = requested;
  std::error_code ec;
  if (fs::is_symlink(requested, ec)) {
    path = fs::canonical(requested, ec);
    if (ec || !fs::is_regular_file(path, ec))
      return unexpected(make_error(ErrorKind::io, "not replacing symlink " + requested.string() +
                                                      ": not to a regular file"));
  }
  const auto tmp = write_temporary(path, content, durability);
  if (!tmp) return unexpected(tmp.error());
  // MOVEFILE_WRITE_THROUGH: a durable write returns once the rename is on the disk.
  if (!replace_file(*tmp, path, durability == Durability::durable)) {
    const Error e = io_error("cannot replace", path);
    ::DeleteFileW(tmp->wstring().c_str());
    return unexpected(e);
  }
  return {};
}

bool nearly_full(const fs::path &dir, std::uintmax_t bytes) {
  fs::path at = dir;
  ULARGE_INTEGER available{};
  while (!::GetDiskFreeSpaceExW(at.wstring().c_str(), &available, nullptr, nullptr)) {
    if (!at.has_relative_path()) return false;
    at = at.parent_path();
  }
  return available.QuadPart < bytes;
}

bool create_marker(const fs::path &path) {
  const win::Handle file{win::open_shared(path, GENERIC_WRITE, CREATE_NEW)};
  return file.ok();
}

Result<void> update_file_locked(const fs::path &path, const FileChange &change,
                                Durability durability, std::chrono::milliseconds wait) {
  const fs::path lock_path = path.string() + ".lock";
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const win::Handle lock{
        open_retrying(lock_path, GENERIC_READ | GENERIC_WRITE, OPEN_ALWAYS, give_up)};
    if (!lock.ok()) return unexpected(io_error("cannot open lock", lock_path));
    if (auto locked = lock_until(lock.h, true, lock_path, give_up); !locked) return locked;
    if (!still_named(lock.h, lock_path)) continue; // removed by its holder: lock the new one
    const std::string current = read_small_file(path, 16 << 20).value_or("");
    const auto next = change(current);
    if (!next || *next == current) return {}; // the lock is released when `lock` closes
    return write_file_atomic(path, *next, durability);
  }
}

bool remove_unheld_lock(const fs::path &lock_path) {
  const win::Handle lock{
      open_no_link(lock_path, GENERIC_READ | GENERIC_WRITE | DELETE, OPEN_EXISTING)};
  if (!lock.ok() || !try_lock(lock.h, true) || !still_named(lock.h, lock_path)) return false;
  // Removed while held: a waiter that gets the lock next sees that its name is gone.
  FILE_DISPOSITION_INFO remove{TRUE};
  return ::SetFileInformationByHandle(lock.h, FileDispositionInfo, &remove, sizeof remove);
}

Result<void> append_bounded(const fs::path &path, const std::string &line, std::uintmax_t limit,
                            const std::function<std::string(const std::string &)> &shrink,
                            std::chrono::milliseconds wait) {
  const auto give_up = std::chrono::steady_clock::now() + wait;
  for (;;) {
    const win::Handle file{open_retrying(
        path, FILE_APPEND_DATA | GENERIC_READ | FILE_READ_ATTRIBUTES, OPEN_ALWAYS, give_up)};
    const auto size = file.ok() ? size_of(file.h) : std::nullopt;
    if (!size) return unexpected(io_error("cannot open", path));
    // One process shrinks, when the file is free at once; the others append meanwhile (the
    // file is over its bound for a moment) instead of waiting in turn, up to twice the bound.
    const bool shrinks =
        *size > limit &&
        (try_lock(file.h, true) || (*size > 2 * limit && lock_until(file.h, true, path, give_up)));
    if (shrinks) {
      if (!still_named(file.h, path)) continue; // shrunk meanwhile: look at the new file
      const std::string current = read_small_file(path, 16 << 20).value_or("");
      return replace_held(path, shrink(current) + line);
    }
    if (auto locked = lock_until(file.h, false, path, give_up); !locked) return locked;
    if (!still_named(file.h, path)) continue; // shrunk while we waited: append to the new file
    DWORD n = 0;
    if (!::WriteFile(file.h, line.data(), static_cast<DWORD>(line.size()), &n, nullptr) ||
        n != line.size())
      return unexpected(io_error("cannot append to", path));
    return {};
  }
}

bool append_line(const fs::path &path, const std::string &line) {
  const win::Handle file{open_no_link(path, FILE_APPEND_DATA, OPEN_ALWAYS)};
  DWORD n = 0;
  return file.ok() &&
         ::WriteFile(file.h, line.data(), static_cast<DWORD>(line.size()), &n, nullptr) &&
         n == line.size();
}

} // namespace mem0
