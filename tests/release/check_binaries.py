#!/usr/bin/env python3
"""The shipped executables' link contract (docs/install.md#release-binaries), read from the ELF
files with objdump and readelf: no symbol needs glibc newer than 2.34, none comes from a shared
libstdc++ or libgcc, and the only NEEDED libraries are libc and the dynamic loader (libcurl is
loaded at run time). With --stripped, each must carry no symbol table either. Then the probe
(glibc_floor_probe.cpp), linked the same way, must catch an exception and draw random numbers.

    check_binaries.py [--stripped] [--probe <exe>] <bin dir>

Exit status: 0 passed, 1 failed, 77 skipped (not a static-libstdc++ Linux build, or no
binutils).
"""

import os
import re
import shutil
import subprocess
import sys

GLIBC_FLOOR = (2, 34)
NEEDED_OK = re.compile(r"^(libc\.so\.6|ld-linux-[a-z0-9_-]+\.so\.[0-9]+)$")


def tool(name):
    """objdump or readelf: the cross toolchain's with $MEM0_BINUTILS_PREFIX (aarch64-linux-gnu-)."""
    return shutil.which(os.environ.get("MEM0_BINUTILS_PREFIX", "") + name) or shutil.which(name)


def problems(path, stripped):
    found = []
    dynamic = subprocess.run([tool("objdump"), "-T", path], capture_output=True, text=True,
                             check=True).stdout
    for version, symbol in re.findall(r"\s\(?((?:GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+)\)?\s+(\S+)$",
                                      dynamic, re.M):
        if version.startswith("GLIBC_"):
            if tuple(int(p) for p in version[6:].split(".")[:2]) > GLIBC_FLOOR:
                found.append(f"{symbol} needs {version} (floor GLIBC_2.34)")
        elif version.startswith(("GLIBCXX_", "CXXABI_", "GCC_")):
            found.append(f"{symbol} comes from a shared libstdc++/libgcc ({version})")
    elf = subprocess.run([tool("readelf"), "-dS", path], capture_output=True, text=True,
                         check=True).stdout
    for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", elf):
        if not NEEDED_OK.match(lib):
            found.append(f"NEEDED {lib} (only libc and the loader may be)")
    if stripped and re.search(r"\]\s+\.symtab\s", elf):
        found.append("not stripped (.symtab present)")
    return found


def main(argv):
    stripped = "--stripped" in argv
    argv = [a for a in argv if a != "--stripped"]
    probe = None
    if "--probe" in argv:
        i = argv.index("--probe")
        probe = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-5])
        return 2
    if os.environ.get("MEM0_STATIC_LIBSTDCXX", "ON").upper() in ("OFF", "0", "FALSE"):
        print("SKIPPED: not a static-libstdc++ build (MEM0_STATIC_LIBSTDCXX=OFF)")
        return 77
    if not sys.platform.startswith("linux") or not tool("objdump") or not tool("readelf"):
        print("SKIPPED: needs Linux with binutils (objdump, readelf)")
        return 77
    listed = os.path.join(argv[0], "executables.txt")  # the build's list of them (CMakeLists.txt)
    if not os.path.isfile(listed):
        print(f"FAILED: {listed} is missing")
        return 1
    with open(listed, encoding="utf-8") as fh:
        names = fh.read().split()
    failed = 0
    for name in names:
        path = os.path.join(argv[0], name)
        if not os.path.isfile(path):
            print(f"FAILED: {path} is missing")
            failed += 1
            continue
        found = problems(path, stripped)
        for p in found:
            print(f"FAILED: {name}: {p}")
        failed += bool(found)
        if not found:
            print(f"ok: {name}")
    if probe:
        runner = os.environ.get("MEM0_EXEC_WRAPPER", "").split()
        out = subprocess.run(runner + [probe], capture_output=True, text=True, timeout=60).stdout
        ok = out.split("\n")[:2] == ["caught 3", "random ok"]
        print(f"{'ok' if ok else 'FAILED'}: probe printed {out!r}")
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
