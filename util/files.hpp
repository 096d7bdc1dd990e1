#pragma once
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace mem0 {

// Whether a read goes through a symbolic link at the path's last component (on Windows, any
// reparse point): `refuse` for a file a repository supplies (docs/capture.md#project-files),
// which must never lead to a file outside it.
enum class Links { follow, refuse };

// Read a whole small file; nullopt when it cannot be read, exceeds `max_bytes` or is not a
// regular file (a FIFO, socket or device is never opened for a blocking read), or with
// `Links::refuse` when it is a symbolic link.
std::optional<std::string> read_small_file(const std::filesystem::path &path,
                                           std::size_t max_bytes = 1 << 20,
                                           Links links = Links::follow);

// The last `bytes` bytes of the regular file at `path` (all of it when smaller) and the file's
// size; nullopt when it is missing, not a regular file (a FIFO is never waited on) or unreadable.
struct FileTail {
  std::string data;
  std::uintmax_t size = 0;
};
std::optional<FileTail> read_file_tail(const std::filesystem::path &path, std::size_t bytes);

// Appends and lock files never follow a symbolic link (O_NOFOLLOW; on Windows a reparse point is
// refused once opened): a link planted at a state file's name never makes us create or write a
// file elsewhere (docs/state.md#state-directory). Such a call fails as for an unwritable file.

// Append `line` to the log file `path` (created 0600) in one write, without waiting: only a
// regular file is written to (a FIFO in its place never makes the caller wait for a reader).
// Past `max_bytes` the file becomes `<path>.1`, replacing the previous one; of processes that
// rotate at once, one moves it.
void append_log(const std::filesystem::path &path, const std::string &line,
                std::uintmax_t max_bytes);

// An exclusive lock of the file `path` (created 0600, never removed), held while the object
// lives; not held when another process has it (it is never waited for).
class TryLock {
public:
  explicit TryLock(const std::filesystem::path &path);
  ~TryLock();
  TryLock(const TryLock &) = delete;
  TryLock &operator=(const TryLock &) = delete;
  bool held() const { return m_held; }

private:
  std::intptr_t m_handle = -1; // a file descriptor, or a Windows HANDLE
  bool m_held = false;
};

// True when the filesystem of `dir` (or of its nearest existing parent) has less than `bytes`
// left for this user: a write there is about to fail with "no space left".
bool nearly_full(const std::filesystem::path &dir, std::uintmax_t bytes = 64 * 1024);

// Create the empty file `path` unless it exists: true only for the call that created it. Needs
// no data block, so it still works on a full disk (docs/failures.md#a-full-disk).
bool create_marker(const std::filesystem::path &path);

// Append `line` to `path` (created 0600) in one write, without a lock: appends of a few bytes by
// concurrent processes are never interleaved. False when it cannot be written.
bool append_line(const std::filesystem::path &path, const std::string &line);

// Create `dir` and its missing parents, each new one private (0700); an io error when `dir` is
// not a directory afterwards.
Result<void> ensure_private_dir(const std::filesystem::path &dir);

// Why the directory `dir` must not hold private state: owned by another user, or writable by
// others (docs/state.md#state-directory); nullopt when it is ours, or missing (it is then
// created private). POSIX only: on Windows the user's profile is private by its access list, and
// nullopt.
std::optional<std::string> unsafe_dir_problem(const std::filesystem::path &dir);

// What a crash or power cut may cost a write (docs/state.md#atomic-writes): each caller says.
enum class Durability {
  saves_work, // its loss only costs work done again (session state, counts, back-off)
  durable,    // its loss would lose the user's data (outbox items, the pause, user files)
};

// Write `content` to `path` atomically: a private (0600) temporary file in the same directory,
// then rename over the target, so readers see the old or the new file, never a torn one. A
// durable write also fsyncs the temporary file before the rename and the directory after it.
// A symlink is written through to its final target, which keeps its mode; a symlink whose
// target is missing or not a regular file is left alone (an io error).
Result<void> write_file_atomic(const std::filesystem::path &path, const std::string &content,
                               Durability durability);

// Write `content` to the new file `path` (created 0600) atomically and durably, never through
// a symbolic link: an io error when anything is at `path` already, a link to nothing included;
// with `replace`, a regular file there is replaced (but never a link or anything else).
Result<void> write_new_file(const std::filesystem::path &path, const std::string &content,
                            bool replace);

// Read-modify-write `path` under an exclusive lock on `<path>.lock`: `change` receives the
// current content ("" when missing) and returns the new content, or nullopt to leave the file
// alone; the new content is written with write_file_atomic. Gives up (timeout error) when the lock
// is not free within `wait`; a zero `wait` tries once. Hooks bound `wait` by their run's deadline;
// `k_lock_wait` is for work without one.
inline constexpr std::chrono::milliseconds k_lock_wait{1000};
using FileChange = std::function<std::optional<std::string>(const std::string &current)>;
Result<void> update_file_locked(const std::filesystem::path &path, const FileChange &change,
                                Durability durability,
                                std::chrono::milliseconds wait = k_lock_wait);

// Remove the lock file `lock_path` only when no process holds its lock: it is taken first, and
// the file unlinked while held (update_file_locked then locks a new file). False when it is held
// or cannot be removed.
bool remove_unheld_lock(const std::filesystem::path &lock_path);

// Append `line` to `path` (created 0600); when the file is over `limit` bytes and no one else
// has it, replace it by `shrink(current)` and the line instead. Appends hold a shared flock of
// the file itself and a shrink an exclusive one, so that no line is lost to a shrink going on at
// the same time. Gives up (timeout error) when a shrink holds the file for longer than `wait`.
Result<void> append_bounded(const std::filesystem::path &path, const std::string &line,
                            std::uintmax_t limit,
                            const std::function<std::string(const std::string &)> &shrink,
                            std::chrono::milliseconds wait);

} // namespace mem0
