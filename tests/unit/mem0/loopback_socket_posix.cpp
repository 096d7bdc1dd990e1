#include "tests/unit/mem0/loopback_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace mem0::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

int new_socket() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0); // SOCK_CLOEXEC is Linux only
  if (s >= 0) ::fcntl(s, F_SETFD, FD_CLOEXEC);
  return s;
}

} // namespace

Socket listen_loopback(int &port) {
  const int s = new_socket();
  if (s < 0) return k_no_socket;
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  if (::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(s, 16) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    ::close(s);
    return k_no_socket;
  }
  port = ntohs(addr.sin_port);
  return s;
}

Socket accept_client(Socket listener) {
  const int s = ::accept(static_cast<int>(listener), nullptr, nullptr);
  if (s >= 0) ::fcntl(s, F_SETFD, FD_CLOEXEC);
  return s < 0 ? k_no_socket : s;
}

Socket connect_loopback(int port) {
  const int s = new_socket();
  if (s < 0) return k_no_socket;
  const sockaddr_in addr = loopback(port);
  if (::connect(s, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
    ::close(s);
    return k_no_socket;
  }
  return s;
}

long receive_some(Socket s, char *data, std::size_t size) {
  return static_cast<long>(::recv(static_cast<int>(s), data, size, 0));
}

bool send_all(Socket s, std::string_view data) {
  while (!data.empty()) {
    const auto n = ::send(static_cast<int>(s), data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void close_socket(Socket s) {
  if (s != k_no_socket) ::close(static_cast<int>(s));
}

} // namespace mem0::testing
