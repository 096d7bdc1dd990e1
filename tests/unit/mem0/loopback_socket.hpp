#pragma once
// The few socket calls a test's loopback server needs, one file per system
// (loopback_socket_posix.cpp, loopback_socket_windows.cpp), so the tests themselves are the same
// everywhere.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mem0::testing {

using Socket = std::intptr_t;
inline constexpr Socket k_no_socket = -1;

// Listen on 127.0.0.1 on a port the system picks, written to `port`; k_no_socket on failure.
Socket listen_loopback(int &port);
// Wait for the next connection on `listener`; k_no_socket on failure.
Socket accept_client(Socket listener);
// Connect to 127.0.0.1:`port`; k_no_socket on failure (a refused connection, say).
Socket connect_loopback(int port);
// Receive up to `size` bytes; 0 when the peer closed, negative on failure.
long receive_some(Socket s, char *data, std::size_t size);
// Send all of `data`; false when the peer is gone.
bool send_all(Socket s, std::string_view data);
void close_socket(Socket s);

} // namespace mem0::testing
