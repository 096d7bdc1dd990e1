#include "util/paths.hpp"

namespace mem0 {
namespace {

bool drive_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool separator(char c) { return c == '/' || c == '\\'; }

} // namespace

std::optional<std::string> windows_drive_path(std::string_view path) {
  char drive = 0;
  std::string_view rest;
  if (path.size() >= 2 && drive_letter(path[0]) && path[1] == ':') { // C:\x, C:/x
    drive = path[0];
    rest = path.substr(2);
  } else if (path.size() >= 3 && separator(path[0]) && drive_letter(path[1]) && path[2] == ':') {
    drive = path[1]; // /c:/x, a file URI's path (Cursor)
    rest = path.substr(3);
  } else if (path.size() >= 2 && path[0] == '/' && drive_letter(path[1]) &&
             (path.size() == 2 || path[2] == '/')) {
    drive = path[1]; // /c/x (Git Bash's mount of the drive)
    rest = path.substr(2);
  } else {
    return std::nullopt;
  }
  if (!rest.empty() && !separator(rest[0])) return std::nullopt; // C:x: relative to the drive
  std::string out{static_cast<char>(drive >= 'a' ? drive - 'a' + 'A' : drive), ':'};
  if (rest.empty()) return out + '\\';
  for (const char c : rest)
    out += c == '/' ? '\\' : c;
  return out;
}

} // namespace mem0
