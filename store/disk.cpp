#include "store/disk.hpp"

namespace mem0 {
namespace fs = std::filesystem;
namespace {

class RealLock final : public StateDisk::Lock {
public:
  explicit RealLock(const fs::path &path) : m_lock(path) {}
  bool held() const override { return m_lock.held(); }

private:
  TryLock m_lock;
};

class RealDisk final : public StateDisk {
public:
  std::optional<std::string> read(const fs::path &path, std::size_t max_bytes) const override {
    return read_small_file(path, max_bytes);
  }
  Result<void> write(const fs::path &path, const std::string &content,
                     Durability durability) override {
    return write_file_atomic(path, content, durability);
  }
  Result<void> update_locked(const fs::path &path, const FileChange &change, Durability durability,
                             std::chrono::milliseconds wait) override {
    return update_file_locked(path, change, durability, wait);
  }
  bool append_line(const fs::path &path, const std::string &line) override {
    return mem0::append_line(path, line);
  }
  Result<void> append_bounded(const fs::path &path, const std::string &line, std::uintmax_t limit,
                              const std::function<std::string(const std::string &)> &shrink,
                              std::chrono::milliseconds wait) override {
    return mem0::append_bounded(path, line, limit, shrink, wait);
  }
  Result<void> make_dir(const fs::path &dir) override { return ensure_private_dir(dir); }
  bool exists(const fs::path &path) const override {
    std::error_code ec;
    return fs::exists(path, ec);
  }
  void remove(const fs::path &path) override {
    std::error_code ec;
    fs::remove(path, ec);
  }
  std::vector<Entry> list(const fs::path &dir) const override {
    std::vector<Entry> entries;
    std::error_code ec;
    // The type comes with the listing on most systems: no stat per entry.
    for (const auto &entry : fs::directory_iterator(dir, ec))
      entries.push_back({entry.path().filename().string(), entry.is_regular_file(ec)});
    return entries;
  }
  std::optional<std::uintmax_t> size(const fs::path &path) const override {
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (ec) return std::nullopt;
    return bytes;
  }
  std::optional<fs::file_time_type> modified(const fs::path &path) const override {
    std::error_code ec;
    const auto time = fs::last_write_time(path, ec);
    if (ec) return std::nullopt;
    return time;
  }
  std::unique_ptr<Lock> try_lock(const fs::path &path) override {
    return std::make_unique<RealLock>(path);
  }
  bool remove_unheld_lock(const fs::path &path) override { return mem0::remove_unheld_lock(path); }
  bool create_marker(const fs::path &path) override { return mem0::create_marker(path); }
  bool nearly_full(const fs::path &dir) const override { return mem0::nearly_full(dir); }
};

class RefusedLock final : public StateDisk::Lock {
public:
  bool held() const override { return false; }
};

class RefusedDisk final : public StateDisk {
public:
  std::optional<std::string> read(const fs::path &, std::size_t) const override {
    return std::nullopt;
  }
  Result<void> write(const fs::path &path, const std::string &, Durability) override {
    return refused(path);
  }
  Result<void> update_locked(const fs::path &path, const FileChange &, Durability,
                             std::chrono::milliseconds) override {
    return refused(path);
  }
  bool append_line(const fs::path &, const std::string &) override { return false; }
  Result<void> append_bounded(const fs::path &path, const std::string &, std::uintmax_t,
                              const std::function<std::string(const std::string &)> &,
                              std::chrono::milliseconds) override {
    return refused(path);
  }
  Result<void> make_dir(const fs::path &dir) override { return refused(dir); }
  bool exists(const fs::path &) const override { return false; }
  void remove(const fs::path &) override {}
  std::vector<Entry> list(const fs::path &) const override { return {}; }
  std::optional<std::uintmax_t> size(const fs::path &) const override { return std::nullopt; }
  std::optional<fs::file_time_type> modified(const fs::path &) const override {
    return std::nullopt;
  }
  std::unique_ptr<Lock> try_lock(const fs::path &) override {
    return std::make_unique<RefusedLock>();
  }
  bool remove_unheld_lock(const fs::path &) override { return false; }
  bool create_marker(const fs::path &) override { return false; }
  bool nearly_full(const fs::path &) const override { return false; }

private:
  static Result<void> refused(const fs::path &path) {
    return unexpected(
        make_error(ErrorKind::io, "the state directory was refused: " + path.string() +
                                      " not written (docs/state.md#state-directory)"));
  }
};

} // namespace

StateDisk &real_state_disk() {
  static RealDisk disk;
  return disk;
}

StateDisk &refused_state_disk() {
  static RefusedDisk disk;
  return disk;
}

} // namespace mem0
