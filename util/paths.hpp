#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace mem0 {

// A Windows drive path in any spelling an agent hands a hook on Windows, as Windows writes it:
// `C:\x`, `C:/x` and `c:\x`, `/c/x` (Git Bash) and `/c:/x` (Cursor) all give `C:\x` (the drive
// letter upper-case, backslashes); a bare drive (`C:`, `/c`) gives `C:\`. nullopt for any other
// path (`/home/x`, `x\y`, `C:x`, which is relative to the drive's current directory, and
// `\\server\share`): those are taken as they are. A pure function, tested everywhere;
// platform::input_path applies it on Windows only (docs/windows.md#how-it-differs-from-linux).
std::optional<std::string> windows_drive_path(std::string_view path);

} // namespace mem0
