#pragma once
#include "util/error.hpp"
#include "util/files.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mem0 {

// What the state stores do on disk (docs/state.md), as one interface: the real disk
// (`real_state_disk()`, over util/files.hpp) for the executables, or a test's in-memory disk.
// Paths are whole paths; nothing here knows what a state file holds. "Held" for a lock means held
// by another holder: another process on the real disk, another lock object of the same disk in
// memory.
class StateDisk {
public:
  virtual ~StateDisk() = default;

  // A whole small file; nullopt when missing, over `max_bytes` or not a regular file
  // (read_small_file).
  virtual std::optional<std::string> read(const std::filesystem::path &path,
                                          std::size_t max_bytes) const = 0;

  // Replace `path` with `content` atomically: readers see the old or the new file, never a torn
  // one; `durability` says what a crash may cost (write_file_atomic). An io error when the parent
  // directory is missing or the file cannot be written.
  virtual Result<void> write(const std::filesystem::path &path, const std::string &content,
                             Durability durability) = 0;

  // Read-modify-write `path` under the exclusive lock `<path>.lock` (update_file_locked): `change`
  // gets the current content ("" when missing) and returns the new one, or nullopt (or the same
  // text) to leave the file alone. A timeout error when the lock is not free within `wait`.
  virtual Result<void> update_locked(const std::filesystem::path &path, const FileChange &change,
                                     Durability durability, std::chrono::milliseconds wait) = 0;

  // Append `line` in one write, without a lock (append_line); false when it cannot be written.
  virtual bool append_line(const std::filesystem::path &path, const std::string &line) = 0;

  // Append `line`; past `limit` bytes, when no one else has the file, replace it by
  // `shrink(current)` and the line (append_bounded). A timeout error when a shrink holds the file
  // for longer than `wait`.
  virtual Result<void> append_bounded(const std::filesystem::path &path, const std::string &line,
                                      std::uintmax_t limit,
                                      const std::function<std::string(const std::string &)> &shrink,
                                      std::chrono::milliseconds wait) = 0;

  // Create `dir` and its missing parents, private (ensure_private_dir); an io error when `dir`
  // is not a directory afterwards.
  virtual Result<void> make_dir(const std::filesystem::path &dir) = 0;

  // Whether anything (file or directory) is at `path`.
  virtual bool exists(const std::filesystem::path &path) const = 0;

  // Remove the file `path`; nothing when it is missing.
  virtual void remove(const std::filesystem::path &path) = 0;

  // The entries of `dir`, in no order: each name, and whether it is a regular file (a directory,
  // a FIFO or a link to nothing is not); empty when `dir` is missing or not a directory.
  struct Entry {
    std::string name;
    bool file = false;
  };
  virtual std::vector<Entry> list(const std::filesystem::path &dir) const = 0;

  // The size of the regular file `path`; nullopt when it is missing or not a regular file.
  virtual std::optional<std::uintmax_t> size(const std::filesystem::path &path) const = 0;

  // When `path` was last written; nullopt when it is missing.
  virtual std::optional<std::filesystem::file_time_type>
  modified(const std::filesystem::path &path) const = 0;

  // An exclusive lock of `path` (the file is created and never removed), held while the object
  // lives; not held when another holder has it: it is never waited for (TryLock).
  class Lock {
  public:
    virtual ~Lock() = default;
    virtual bool held() const = 0;
  };
  virtual std::unique_ptr<Lock> try_lock(const std::filesystem::path &path) = 0;

  // Remove the lock file `path` only when no one holds it (remove_unheld_lock); false otherwise.
  virtual bool remove_unheld_lock(const std::filesystem::path &path) = 0;

  // Create the empty file `path` unless it exists: true only for the call that created it; works
  // on a full disk (create_marker).
  virtual bool create_marker(const std::filesystem::path &path) = 0;

  // Whether the disk of `dir` has less than 64 KiB left for this user (nearly_full).
  virtual bool nearly_full(const std::filesystem::path &dir) const = 0;
};

// The machine's disk: util/files.hpp and std::filesystem. One for the process.
StateDisk &real_state_disk();

// A disk that holds nothing and takes nothing: every read is empty, every write an io error, no
// lock is held. For a state directory that is refused (unsafe_dir_problem), so that nothing is
// read from it or written to it.
StateDisk &refused_state_disk();

} // namespace mem0
