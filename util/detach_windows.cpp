// util/detach.hpp on Windows (docs/contributing.md#platforms): no fork, so the detached work is
// this executable started anew with the work's arguments.
#include "util/detach.hpp"
#include "util/platform.hpp"
#include "util/windows.hpp"

namespace mem0 {

Result<void> run_detached(const DetachedWork &detached) {
  // The part that needs this process's memory runs here, after the output is written.
  if (detached.prepare) detached.prepare();
  if (!detached.work) return {};
  const auto exe = platform::executable_path();
  if (!exe) return unexpected(make_error(ErrorKind::io, "cannot start the sender: no own path"));
  std::wstring command = win::quote_argument(exe->wstring());
  for (const auto &arg : detached.args)
    command += L" " + win::quote_argument(win::widen(arg));
  STARTUPINFOW si{};
  si.cb = sizeof si;
  PROCESS_INFORMATION pi{};
  // No handle is inherited, so the agent's pipes close when the hook exits and its wait for the
  // output ends at once; no window, and no console of the agent's (its Ctrl+C does not reach
  // the sender). Out of the agent's job where the job allows it, so that the job closing with the
  // agent's call does not end the sender; where it does not, inside it.
  const DWORD flags = CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP;
  // Its working directory is the work's (the state directory), never the project's, which
  // Windows would keep from being moved or deleted while the sender runs.
  std::error_code ec;
  const std::wstring dir = detached.dir.empty() || !std::filesystem::is_directory(detached.dir, ec)
                               ? std::wstring()
                               : detached.dir.wstring();
  for (const DWORD extra : {static_cast<DWORD>(CREATE_BREAKAWAY_FROM_JOB), DWORD{0}}) {
    std::wstring line = command; // CreateProcessW may write into it
    if (::CreateProcessW(exe->wstring().c_str(), line.data(), nullptr, nullptr, FALSE,
                         flags | extra, nullptr, dir.empty() ? nullptr : dir.c_str(), &si, &pi)) {
      ::CloseHandle(pi.hThread);
      ::CloseHandle(pi.hProcess);
      return {};
    }
    if (::GetLastError() != ERROR_ACCESS_DENIED) break; // breakaway refused: try without it
  }
  return unexpected(make_error(ErrorKind::io, "cannot start the sender: " + win::error_text()));
}

} // namespace mem0
