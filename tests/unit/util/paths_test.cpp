// Windows path spellings (util/paths.hpp): pure string work, so it runs on every system.
#include "tests/unit/catch.hpp"
#include "util/paths.hpp"
#include "util/platform.hpp"

#include <string>

using namespace mem0;

TEST_CASE("paths: every spelling of a drive path an agent hands a hook is one Windows path",
          "[paths]") {
  const std::string want = "C:\\Users\\me\\proj\\src\\a.py";
  for (const char *spelling : {"C:\\Users\\me\\proj\\src\\a.py", "C:/Users/me/proj/src/a.py",
                               "c:\\Users\\me\\proj\\src\\a.py", "/c/Users/me/proj/src/a.py",
                               "/C/Users/me/proj/src/a.py", "/c:/Users/me/proj/src/a.py",
                               "/C:/Users/me/proj/src/a.py", "C:/Users\\me/proj\\src/a.py"}) {
    INFO(spelling);
    CHECK(windows_drive_path(spelling) == want);
  }
  CHECK(windows_drive_path("/d") == "D:\\");
  CHECK(windows_drive_path("C:") == "C:\\");
  CHECK(windows_drive_path("/c:") == "C:\\");
  CHECK(windows_drive_path("/z/tmp/x y/é.txt") == "Z:\\tmp\\x y\\é.txt");
}

TEST_CASE("paths: what is no drive path is left alone", "[paths]") {
  for (const char *other : {"", "/", "/home/me/a.py", "/tmp", "/cd/x", "src/a.py", "src\\a.py",
                            "C:relative.txt", "\\\\server\\share\\a.py", "1:/x", "/1/x", "c"}) {
    INFO(other);
    CHECK_FALSE(windows_drive_path(other).has_value());
  }
}

TEST_CASE("paths: the system's input path: as given on POSIX, a drive path on Windows", "[paths]") {
  // Which one this system does shows in how it spells its own executable's path.
  const bool windows = platform::executable_path().value().string().find('\\') != std::string::npos;
  const auto seen = platform::input_path("/c/Users/me/a.py");
  CHECK(seen.string() == (windows ? "C:\\Users\\me\\a.py" : "/c/Users/me/a.py"));
  CHECK(platform::input_path("/home/me/a.py").string() == "/home/me/a.py");
  CHECK(platform::input_path("C:/x/y") == std::filesystem::path(windows ? "C:\\x\\y" : "C:/x/y"));
}
