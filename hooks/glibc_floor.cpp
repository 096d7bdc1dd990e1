// Linked into every executable of a static-libstdc++ Linux build (hooks/CMakeLists.txt) with
// `-Wl,--wrap=_dl_find_object,--wrap=arc4random`: the two symbols that static libgcc_eh (the
// unwinder) and libstdc++ (std::random_device) take from the glibc they were built against,
// 2.35 and 2.36, are served from calls glibc 2.34 has, so the binaries run on glibc 2.34
// (docs/install.md#release-binaries). tests/release checks the symbol versions.
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/random.h>
#include <unistd.h>

#ifdef DLFO_STRUCT_HAS_EH_DBASE // glibc 2.35 and later declare dl_find_object
namespace {

struct Search {
  std::uintptr_t pc;
  dl_find_object *out;
  bool found;
};

// The loaded object whose PT_LOAD segments hold `pc`: its extent and PT_GNU_EH_FRAME, as
// _dl_find_object reports them.
int find_object(dl_phdr_info *info, std::size_t, void *data) {
  auto &s = *static_cast<Search *>(data);
  std::uintptr_t low = UINTPTR_MAX, high = 0;
  bool inside = false;
  void *eh_frame = nullptr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    const std::uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD) {
      low = start < low ? start : low;
      high = start + ph.p_memsz > high ? start + ph.p_memsz : high;
      inside = inside || (s.pc >= start && s.pc < start + ph.p_memsz);
    } else if (ph.p_type == PT_GNU_EH_FRAME) {
      eh_frame = reinterpret_cast<void *>(start);
    }
  }
  if (!inside) return 0;
  *s.out = dl_find_object{};
  s.out->dlfo_map_start = reinterpret_cast<void *>(low);
  s.out->dlfo_map_end = reinterpret_cast<void *>(high);
  s.out->dlfo_eh_frame = eh_frame;
  s.found = true;
  return 1;
}

} // namespace

// The unwinder's lookup of the object holding `pc`: 0 and `*result` filled, or -1.
extern "C" int __wrap__dl_find_object(void *pc, dl_find_object *result) {
  Search s{reinterpret_cast<std::uintptr_t>(pc), result, false};
  dl_iterate_phdr(find_object, &s);
  return s.found ? 0 : -1;
}
#endif

// std::random_device's source: the kernel's random bytes (getrandom, else /dev/urandom where
// the kernel lacks it).
extern "C" std::uint32_t __wrap_arc4random() {
  std::uint32_t value = 0;
  ssize_t n;
  do
    n = getrandom(&value, sizeof value, 0);
  while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof value)) return value;
  if (const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC); fd >= 0) {
    if (read(fd, &value, sizeof value) != static_cast<ssize_t>(sizeof value)) value = 0;
    close(fd);
  }
  return value;
}
