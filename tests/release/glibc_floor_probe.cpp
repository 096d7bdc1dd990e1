// Linked like the shipped executables (mem0_exe_options): an exception thrown through a few
// frames is caught (the unwinder finds its tables through hooks/glibc_floor.cpp), and
// std::random_device on arc4random (hooks/glibc_floor.cpp's) gives three draws. Prints
// "caught 3", then "random ok" when they are not all equal.
#include <iostream>
#include <random>
#include <stdexcept>

[[gnu::noinline]] static int thrower(int depth) {
  if (depth == 0) throw std::runtime_error("3");
  return thrower(depth - 1) + 1;
}

int main() {
  try {
    return thrower(3);
  } catch (const std::exception &e) {
    std::cout << "caught " << e.what() << "\n";
  }
  std::random_device device("arc4random");
  const auto a = device(), b = device(), c = device();
  std::cout << (a != b || b != c ? "random ok" : "random stuck") << "\n";
}
