#include "runtime/io.hpp"

#include "util/platform.hpp"

namespace mem0 {

std::string read_bounded(int fd, Deadline deadline, std::size_t cap) {
  return platform::read_until(fd, deadline, cap);
}

} // namespace mem0
