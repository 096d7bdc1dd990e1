#!/usr/bin/env python3
"""Write the npm packages (docs/install.md#npm) into <out>/ with `npm pack`, from executables
already built for each platform:

    npm_package.py --out build-package/npm --hooks-json build-package/plugin/hooks.json \
        --platform linux-x64=build-package/bin [--platform linux-arm64=build-arm64/bin] \
        [--platform win32-x64=build-windows/bin]

  mem0-native-hooks-<os>-<cpu>  the executables in bin/; `os`/`cpu` so npm installs only the
                                one that fits
  mem0-native-hooks             the `mem0-hooks` command (a node launcher that runs the native
                                mem0-hooks of the platform package) and optionalDependencies
                                on every platform package
  mem0-native-hooks-plugin      the Claude Code plugin for the marketplace's npm source: Claude
                                Code unpacks this one tarball and installs no dependencies, so it
                                carries every platform's executables in libexec/<uname -sm>/,
                                and its hooks exec the one of the machine they run on

--zip DIR also writes win32-x64's release archive, mem0-native-hooks-<version>-win32-x64.zip (the
same stripped .exe files, LICENSE and a README), into DIR.

--hooks-json is the installed plugin's hooks.json (cmake/packaging.cmake writes it into the
build directory), whose commands exec "${CLAUDE_PLUGIN_ROOT}"/libexec/<hook>. The version is the
project's one (.claude-plugin/plugin.json).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "mem0-native-hooks"
# npm's platform name -> `uname -sm`, the plugin's libexec folder; None: no plugin folder.
# win32-x64's package holds the .exe files; Claude Code's npm plugin does not carry them, since
# its hooks are sh commands and Windows runs them through Git Bash or PowerShell, whichever is
# there: Windows users wire the hooks with `mem0-hooks install` (docs/windows.md).
PLATFORMS = {"linux-x64": "Linux x86_64", "linux-arm64": "Linux aarch64",
             "darwin-x64": "Darwin x86_64", "darwin-arm64": "Darwin arm64", "win32-x64": None}
# What the Claude Code plugin is made of, besides hooks.json and the executables: one list, so a
# new plugin file is one line here.
PLUGIN_FILES = [".claude-plugin/plugin.json", ".mcp.json", "scripts/mem0-hooks.sh", "commands",
                "LICENSE"]
COMMON = {"license": "MIT"}
# How the plugin's hook commands find their platform's folder: Linux 6.1 and later names the
# machine in /proc/sys/kernel/arch, which sh reads without starting a process; elsewhere one
# `uname -sm` (docs/install.md#npm).
FIND_PLATFORM = ('read -r m 2>/dev/null </proc/sys/kernel/arch && platform="Linux $m" || '
                 'platform=$(uname -sm); ')
PLUGIN_EXEC = 'exec "${CLAUDE_PLUGIN_ROOT}"/libexec/'
# The strip of another architecture's binutils (Debian's cross toolchain).
CROSS_STRIP = {"linux-arm64": "aarch64-linux-gnu-strip", "linux-x64": "x86_64-linux-gnu-strip",
               "win32-x64": "x86_64-w64-mingw32-strip"}


def version():
    with open(os.path.join(REPO, ".claude-plugin", "plugin.json"), encoding="utf-8") as fh:
        return json.load(fh)["version"]


def copy(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.isdir(src):
        shutil.copytree(src, dst)
    else:
        shutil.copy2(src, dst)


def write_package(stage, manifest, readme):
    with open(os.path.join(stage, "package.json"), "w", encoding="utf-8") as fh:
        json.dump({**manifest, **COMMON}, fh, indent=2)
        fh.write("\n")
    with open(os.path.join(stage, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(readme)
    copy(os.path.join(REPO, "LICENSE"), os.path.join(stage, "LICENSE"))


def strip_program(platform):
    native = {"x86_64": "linux-x64", "aarch64": "linux-arm64"}.get(os.uname().machine)
    return "strip" if platform == native or platform not in CROSS_STRIP else CROSS_STRIP[platform]


def executables(bin_dir):
    """The names of the executables the build wrote into bin_dir/executables.txt (CMakeLists.txt)."""
    path = os.path.join(bin_dir, "executables.txt")
    if not os.path.isfile(path):
        sys.exit(f"npm_package: {path} is missing (build first)")
    with open(path, encoding="utf-8") as fh:
        return fh.read().split()


def copy_executables(bin_dir, dest, platform):
    """The executables, stripped (a build with debug information packs too)."""
    for exe in executables(bin_dir):
        exe += ".exe" if platform.startswith("win32-") else ""
        src = os.path.join(bin_dir, exe)
        if not os.path.isfile(src):
            sys.exit(f"npm_package: {src} is missing (build first)")
        copy(src, os.path.join(dest, exe))
        subprocess.run([strip_program(platform), os.path.join(dest, exe)], check=True)


def pack(stage, out):
    proc = subprocess.run(["npm", "pack", "--pack-destination", out], cwd=stage,
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"npm_package: npm pack failed in {stage}:\n{proc.stderr}")
    return os.path.join(out, proc.stdout.strip().splitlines()[-1])


def write_zip(stage, dest, name):
    """The release archive of a Windows platform package's stage: <name>/ with its bin/*.exe,
    LICENSE and README.md (docs/windows.md)."""
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(os.path.abspath(dest), name + ".zip")
    with open(os.path.join(stage, "README.md"), "w", encoding="utf-8") as fh:
        fh.write(f"# {name}\n\nThe hooks and mem0-hooks.exe for Windows. Unpack anywhere, then run\n"
                 "`bin\\mem0-hooks.exe install --agent all`: each agent's hooks are wired to the\n"
                 "executables where they are (docs/windows.md in the repository).\n")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        packed = sorted(os.listdir(os.path.join(stage, "bin")))  # what copy_executables put there
        for rel in ["README.md", "LICENSE"] + [f"bin/{e}" for e in packed]:
            archive.write(os.path.join(stage, rel), f"{name}/{rel}")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--hooks-json", required=True)
    parser.add_argument("--platform", action="append", required=True, metavar="OS-CPU=BIN_DIR")
    parser.add_argument("--zip", metavar="DIR")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ver = version()
    platforms = dict(p.split("=", 1) for p in args.platform)
    for p in platforms:
        if p not in PLATFORMS:
            sys.exit(f"npm_package: unknown platform {p} (one of {', '.join(PLATFORMS)})")
    tarballs = []

    for platform, bin_dir in platforms.items():
        os_name, cpu = platform.split("-")
        stage = os.path.join(out, "stage", f"{NAME}-{platform}")
        copy_executables(bin_dir, os.path.join(stage, "bin"), platform)
        write_package(stage, {
            "name": f"{NAME}-{platform}", "version": ver,
            "description": f"mem0 native hooks: the prebuilt executables for {platform}",
            "os": [os_name], "cpu": [cpu], "files": ["bin"]},
            f"# {NAME}-{platform}\n\nThe prebuilt executables of {NAME} for {platform}; "
            f"install `{NAME}`, which depends on this package.\n")
        tarballs.append(pack(stage, out))
        if args.zip and os_name == "win32":
            tarballs.append(write_zip(stage, args.zip, f"{NAME}-{ver}-{platform}"))

    stage = os.path.join(out, "stage", NAME)
    copy(os.path.join(REPO, "packaging", "npm", "mem0-hooks.js"),
         os.path.join(stage, "bin", "mem0-hooks.js"))
    write_package(stage, {
        "name": NAME, "version": ver,
        "description": "Native hooks that give coding agents automatic recall of Mem0 memories",
        "bin": {"mem0-hooks": "bin/mem0-hooks.js"}, "files": ["bin"],
        "optionalDependencies": {f"{NAME}-{p}": ver for p in platforms}},
        f"# {NAME}\n\n    npm install -g {NAME}\n    mem0-hooks install --agent all\n\n"
        f"or `npx {NAME} install --agent all`. The hooks run the native executables of "
        f"`{NAME}-<os>-<cpu>` directly; node only runs the `mem0-hooks` command.\n")
    tarballs.append(pack(stage, out))

    stage = os.path.join(out, "stage", f"{NAME}-plugin")
    for name in PLUGIN_FILES:
        copy(os.path.join(REPO, name), os.path.join(stage, name))
    with open(args.hooks_json, encoding="utf-8") as fh:
        hooks = json.load(fh)
    commands = [h for groups in hooks["hooks"].values() for g in groups for h in g["hooks"]]
    if not commands or not all(h["command"].startswith(PLUGIN_EXEC) for h in commands):
        sys.exit(f"npm_package: {args.hooks_json} runs no libexec/<hook>")
    for h in commands:
        h["command"] = FIND_PLATFORM + PLUGIN_EXEC + '"$platform"/' + h["command"][len(PLUGIN_EXEC):]
    with open(os.path.join(stage, "hooks.json"), "w", encoding="utf-8") as fh:
        json.dump(hooks, fh, indent=2)
        fh.write("\n")
    for platform, bin_dir in platforms.items():
        if PLATFORMS[platform]:
            copy_executables(bin_dir, os.path.join(stage, "libexec", PLATFORMS[platform]),
                             platform)
    write_package(stage, {
        "name": f"{NAME}-plugin", "version": ver,
        "description": "The Claude Code plugin of mem0 native hooks, with its executables",
        "files": [*PLUGIN_FILES, "hooks.json", "libexec"]},
        f"# {NAME}-plugin\n\nThe Claude Code plugin of {NAME}, for a marketplace entry "
        f'`{{"source": "npm", "package": "{NAME}-plugin"}}`; it carries the executables of '
        f"{', '.join(p for p in platforms if PLATFORMS[p])}.\n")
    tarballs.append(pack(stage, out))

    shutil.rmtree(os.path.join(out, "stage"))
    for t in tarballs:
        print(f"{os.path.getsize(t):>10}  {t}")


if __name__ == "__main__":
    main()
