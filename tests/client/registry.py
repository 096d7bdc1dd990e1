"""A loopback npm registry for the tests that install our npm packages with the real npm
(test_npm_install.py, tests/windows/test_wine_npm.py): verdaccio, pinned, installed once into the
npm cache of npmcache.py, with its storage in a scratch directory, no uplinks, listening on
127.0.0.1 only.

    with Registry(scratch, log) as registry:
        registry.publish(tarball)
        subprocess.run(["npm", "install", ...], env=registry.env(path, home))
"""

import os
import socket
import subprocess
import time
import urllib.request

import npmcache

VERDACCIO_VERSION = "6.8.0"


def find_verdaccio(prefix, _want):
    exe = os.path.join(prefix, "node_modules", ".bin", "verdaccio")
    return exe if os.access(exe, os.X_OK) else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Registry:
    """verdaccio on 127.0.0.1 with its storage in `scratch`, started on entering and stopped on
    leaving; npmcache.Unavailable when it cannot be installed or does not answer."""

    def __init__(self, scratch, log=print):
        self.scratch = scratch
        self.verdaccio = npmcache.ensure(
            "verdaccio", "verdaccio", VERDACCIO_VERSION,
            npmcache.cache_root("MEM0_VERDACCIO_DIR", "verdaccio"), find=find_verdaccio, log=log)
        self.url = self.npmrc = self.server = None

    def __enter__(self):
        port = free_port()
        config = os.path.join(self.scratch, "verdaccio.yaml")
        with open(config, "w") as fh:
            fh.write(f"storage: {self.scratch}/storage\nuplinks: {{}}\nmax_body_size: 200mb\n"
                     "packages:\n  '**':\n    access: $all\n    publish: $anonymous\n"
                     f"auth:\n  htpasswd:\n    file: {self.scratch}/htpasswd\n"
                     "    max_users: -1\nlog: {type: stdout, format: pretty, level: warn}\n")
        with open(os.path.join(self.scratch, "verdaccio.log"), "w") as log:
            self.server = subprocess.Popen(
                [self.verdaccio, "--config", config, "--listen", f"127.0.0.1:{port}"],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}/"
        self.npmrc = os.path.join(self.scratch, "npmrc")  # the scratch user's default registry
        with open(self.npmrc, "w") as fh:
            fh.write(f"registry={self.url}\n//127.0.0.1:{port}/:_authToken=loopback\n")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "-/ping", timeout=2).read()
                return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise npmcache.Unavailable("verdaccio did not answer within 60 s")

    def __exit__(self, *_):
        self.server.terminate()
        self.server.wait(timeout=30)

    def env(self, path, home):
        """The environment of an npm run against this registry: PATH `path`, HOME `home`."""
        return {"PATH": path, "HOME": home, "NPM_CONFIG_USERCONFIG": self.npmrc,
                "LANG": "C.UTF-8"}
