#include "tests/unit/mem0/loopback_socket.hpp"

#include <winsock2.h>
#include <ws2tcpip.h>

namespace mem0::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<u_short>(port));
  return addr;
}

// Winsock wants WSAStartup once before any call; never cleaned up, as the process ends anyway.
SOCKET new_socket() {
  static const bool started = [] {
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
  }();
  if (!started) return INVALID_SOCKET;
  return ::WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, nullptr, 0, WSA_FLAG_NO_HANDLE_INHERIT);
}

Socket wrap(SOCKET s) { return s == INVALID_SOCKET ? k_no_socket : static_cast<Socket>(s); }

} // namespace

Socket listen_loopback(int &port) {
  const SOCKET s = new_socket();
  if (s == INVALID_SOCKET) return k_no_socket;
  sockaddr_in addr = loopback(0);
  int len = sizeof addr;
  if (::bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(s, 16) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    ::closesocket(s);
    return k_no_socket;
  }
  port = ntohs(addr.sin_port);
  return wrap(s);
}

Socket accept_client(Socket listener) {
  return wrap(::accept(static_cast<SOCKET>(listener), nullptr, nullptr));
}

Socket connect_loopback(int port) {
  const SOCKET s = new_socket();
  if (s == INVALID_SOCKET) return k_no_socket;
  const sockaddr_in addr = loopback(port);
  if (::connect(s, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
    ::closesocket(s);
    return k_no_socket;
  }
  return wrap(s);
}

long receive_some(Socket s, char *data, std::size_t size) {
  return ::recv(static_cast<SOCKET>(s), data, static_cast<int>(size), 0);
}

bool send_all(Socket s, std::string_view data) {
  while (!data.empty()) {
    const int n = ::send(static_cast<SOCKET>(s), data.data(), static_cast<int>(data.size()), 0);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void close_socket(Socket s) {
  if (s != k_no_socket) ::closesocket(static_cast<SOCKET>(s));
}

} // namespace mem0::testing
