#pragma once
// A state disk in memory for the unit tests: a map of paths to contents and a set of directories,
// with locks held or not within the process. What the stores read, write and list behaves as on
// the real disk (a write needs its directory, a lock file is created and stays, a file where a
// directory should be fails); file modes, FIFOs, other processes and the sizes of real disks do
// not exist here: a test of those runs on the real disk (HookFixture's StateOn::disk).
#include "store/disk.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace mem0::testing {

class MemoryDisk final : public StateDisk {
public:
  struct File {
    std::string content;
    std::filesystem::file_time_type written;
  };

  // What nearly_full answers: a test of the full-disk notice sets it.
  bool full = false;

  std::optional<std::string> read(const std::filesystem::path &path,
                                  std::size_t max_bytes) const override {
    const std::lock_guard guard(m_mutex);
    const auto it = m_files.find(key(path));
    if (it == m_files.end() || it->second.content.size() > max_bytes) return std::nullopt;
    return it->second.content;
  }

  Result<void> write(const std::filesystem::path &path, const std::string &content,
                     Durability) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    if (!m_dirs.contains(k.parent_path()) || m_dirs.contains(k))
      return unexpected(make_error(ErrorKind::io, "cannot write " + k.string()));
    m_files[k] = {content, std::filesystem::file_time_type::clock::now()};
    return {};
  }

  Result<void> update_locked(const std::filesystem::path &path, const FileChange &change,
                             Durability durability, std::chrono::milliseconds) override {
    const std::lock_guard guard(m_mutex);
    const auto lock_path = key(path.string() + ".lock");
    // Its holder is this very thread, which cannot let go while this waits: a held lock is a
    // timeout at once.
    const auto lock = try_lock(lock_path);
    if (!m_files.contains(lock_path))
      return unexpected(make_error(ErrorKind::io, "cannot open lock " + lock_path.string()));
    if (!lock->held())
      return unexpected(make_error(ErrorKind::timeout, "lock busy: " + lock_path.string()));
    const std::string current = read(path, 16 << 20).value_or("");
    const auto next = change(current);
    if (!next || *next == current) return {};
    return write(path, *next, durability);
  }

  bool append_line(const std::filesystem::path &path, const std::string &line) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    if (!m_dirs.contains(k.parent_path()) || m_dirs.contains(k)) return false;
    File &file = m_files[k];
    file.content += line;
    file.written = std::filesystem::file_time_type::clock::now();
    return true;
  }

  Result<void> append_bounded(const std::filesystem::path &path, const std::string &line,
                              std::uintmax_t limit,
                              const std::function<std::string(const std::string &)> &shrink,
                              std::chrono::milliseconds) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    if (!m_dirs.contains(k.parent_path()) || m_dirs.contains(k))
      return unexpected(make_error(ErrorKind::io, "cannot open " + k.string()));
    const std::string current = m_files.contains(k) ? m_files[k].content : "";
    if (current.size() > limit && !m_held.contains(k))
      return write(k, shrink(current) + line, Durability::saves_work);
    (void)append_line(k, line); // its directory is there: it cannot fail
    return {};
  }

  Result<void> make_dir(const std::filesystem::path &dir) override {
    const std::lock_guard guard(m_mutex);
    std::vector<std::filesystem::path> missing;
    for (auto d = key(dir); !d.empty() && !m_dirs.contains(d); d = d.parent_path()) {
      if (m_files.contains(d))
        return unexpected(make_error(ErrorKind::io, "not a directory: " + d.string()));
      missing.push_back(d);
      if (d == d.parent_path()) break;
    }
    m_dirs.insert(missing.begin(), missing.end());
    return {};
  }

  bool exists(const std::filesystem::path &path) const override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    return m_files.contains(k) || m_dirs.contains(k);
  }

  void remove(const std::filesystem::path &path) override {
    const std::lock_guard guard(m_mutex);
    m_files.erase(key(path));
  }

  std::vector<Entry> list(const std::filesystem::path &dir) const override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(dir);
    std::vector<Entry> out;
    if (!m_dirs.contains(k)) return out;
    for (const auto &[path, file] : m_files)
      if (path.parent_path() == k) out.push_back({path.filename().string(), true});
    for (const auto &path : m_dirs)
      if (path.parent_path() == k && path != k) out.push_back({path.filename().string(), false});
    return out;
  }

  std::optional<std::uintmax_t> size(const std::filesystem::path &path) const override {
    const std::lock_guard guard(m_mutex);
    const auto it = m_files.find(key(path));
    if (it == m_files.end()) return std::nullopt;
    return it->second.content.size();
  }

  std::optional<std::filesystem::file_time_type>
  modified(const std::filesystem::path &path) const override {
    const std::lock_guard guard(m_mutex);
    const auto it = m_files.find(key(path));
    if (it == m_files.end()) return std::nullopt;
    return it->second.written;
  }

  std::unique_ptr<Lock> try_lock(const std::filesystem::path &path) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    // As the real lock opens its file: it needs the directory, and creates the file.
    if (!m_dirs.contains(k.parent_path()) || m_dirs.contains(k))
      return std::make_unique<MemoryLock>(*this, k, false);
    if (!m_files.contains(k)) m_files[k] = {"", std::filesystem::file_time_type::clock::now()};
    const bool free = m_held.insert(k).second;
    return std::make_unique<MemoryLock>(*this, k, free);
  }

  bool remove_unheld_lock(const std::filesystem::path &path) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    return !m_held.contains(k) && m_files.erase(k) > 0;
  }

  bool create_marker(const std::filesystem::path &path) override {
    const std::lock_guard guard(m_mutex);
    const auto k = key(path);
    if (!m_dirs.contains(k.parent_path()) || exists(k)) return false;
    m_files[k] = {"", std::filesystem::file_time_type::clock::now()};
    return true;
  }

  bool nearly_full(const std::filesystem::path &) const override { return full; }

  // Every file's path, for a test that looks at all of them.
  std::vector<std::filesystem::path> files() const {
    const std::lock_guard guard(m_mutex);
    std::vector<std::filesystem::path> out;
    for (const auto &entry : m_files)
      out.push_back(entry.first);
    return out;
  }

  // For a test that ages a file, as an old session or a leftover would be.
  void set_modified(const std::filesystem::path &path, std::filesystem::file_time_type when) {
    const std::lock_guard guard(m_mutex);
    m_files.at(key(path)).written = when;
  }

private:
  class MemoryLock final : public Lock {
  public:
    MemoryLock(MemoryDisk &disk, std::filesystem::path path, bool held)
        : m_disk(disk), m_path(std::move(path)), m_held(held) {}
    ~MemoryLock() override {
      if (!m_held) return;
      const std::lock_guard guard(m_disk.m_mutex);
      m_disk.m_held.erase(m_path);
    }
    bool held() const override { return m_held; }

  private:
    MemoryDisk &m_disk;
    std::filesystem::path m_path;
    bool m_held;
  };

  // One spelling per path: `a/./b/` and `a/b` are the same file.
  static std::filesystem::path key(const std::filesystem::path &path) {
    auto k = path.lexically_normal();
    if (!k.has_filename() && k.has_parent_path() && k != k.root_path()) k = k.parent_path();
    return k;
  }

  // Recursive: an update's change reads, lists and writes through the same disk.
  mutable std::recursive_mutex m_mutex;
  std::map<std::filesystem::path, File> m_files;
  std::set<std::filesystem::path> m_dirs;
  std::set<std::filesystem::path> m_held; // the locks held now
};

} // namespace mem0::testing
