"""A real TLS test bed: nginx on loopback terminating HTTPS in front of the fake Mem0 server.

    with TlsBed(seed=[...]) as bed:
        env = {"MEM0_BASE_URL": bed.h2_url, "MEM0_API_KEY": bed.fake.api_key,
               "MEM0_CA_BUNDLE": bed.ca_file}
        ...
        bed.access_log()  # [{"conn": 3, "protocol": "HTTP/2.0", "port": ..., ...}, ...]

Everything lives in one temporary directory: a throwaway CA and the server certificates made
with the openssl command-line tool, nginx's configuration, logs, temp paths and pid file. nginx
runs in the foreground as the current user (`daemon off`), one server block per port:

    h2_url          certificate for localhost + 127.0.0.1, TLS with HTTP/2 (ALPN h2, http/1.1)
    h1_url          the same certificate, TLS with HTTP/1.1 only (no h2 in ALPN)
    expired_url     signed by the CA, valid 2020-01-01 .. 2020-01-02
    wrong_host_url  signed by the CA, for wrong-host.invalid only
    unknown_ca_url  for localhost + 127.0.0.1, signed by another CA (other_ca_file)

Each server proxies to the fake Mem0 (plain HTTP on loopback). The access log records, per
request, nginx's connection serial ($connection) and the protocol ($server_protocol), so a
test can tell how many connections (and so TLS handshakes) an invocation used.

nginx_binary() is None when nginx is not installed; callers report the tests as skipped.
"""

import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fake_mem0"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from fakelib import FakeMem0  # noqa: E402
from loopback import Lifecycle, free_ports  # noqa: E402

SKIP = 77  # CTest SKIP_RETURN_CODE
SERVERS = ("h2", "h1", "expired", "wrong_host", "unknown_ca")


def nginx_binary():
    """Path of the nginx executable, or None."""
    found = shutil.which("nginx")
    if found:
        return found
    for path in ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"):
        if os.access(path, os.X_OK):
            return path
    return None


def nginx_version():
    """nginx's version as a tuple, e.g. (1, 22, 1); (0,) when it cannot be told."""
    try:
        out = subprocess.run([nginx_binary(), "-v"], capture_output=True, text=True, timeout=10)
        version = (out.stderr + out.stdout).split("nginx/")[1].split()[0]
        return tuple(int(part) for part in version.split("."))
    except (OSError, IndexError, ValueError, subprocess.SubprocessError):
        return (0,)


def openssl_binary():
    return shutil.which("openssl")


def missing_tools():
    """Names of the tools the bed needs that are not installed."""
    return [name for name, path in (("nginx", nginx_binary()), ("openssl", openssl_binary()))
            if not path]


CA_CONF = """\
[ca]
default_ca = bed
[bed]
dir = {dir}
database = {dir}/index.txt
new_certs_dir = {dir}
serial = {dir}/serial
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[any]
commonName = supplied
"""

LEAF_EXT = """\
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = {san}
"""


class Pki:
    """The throwaway certificates, made with the openssl CLI in `dir` (EC P-256 keys)."""

    def __init__(self, dir):
        self.dir = dir
        self.openssl = openssl_binary()
        self.ca_file = self._ca("ca", "mem0 test bed CA")
        self.other_ca_file = self._ca("other_ca", "mem0 test bed unknown CA")
        today = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        start = (today - datetime.timedelta(days=1)).strftime("%Y%m%d%H%M%SZ")
        end = (today + datetime.timedelta(days=30)).strftime("%Y%m%d%H%M%SZ")
        local = "DNS:localhost,IP:127.0.0.1"
        self.server = self._leaf("server", "ca", "localhost", local, start, end)
        self.expired = self._leaf("expired", "ca", "localhost", local,
                                  "20200101000000Z", "20200102000000Z")
        self.wrong_host = self._leaf("wrong_host", "ca", "wrong-host.invalid",
                                     "DNS:wrong-host.invalid", start, end)
        self.unknown_ca = self._leaf("unknown_ca", "other_ca", "localhost", local, start, end)

    def _run(self, *args):
        proc = subprocess.run([self.openssl, *args], capture_output=True, cwd=self.dir)
        if proc.returncode != 0:
            raise RuntimeError(f"openssl {args[0]} failed: {proc.stderr.decode(errors='replace')}")

    def _path(self, name):
        return os.path.join(self.dir, name)

    def _ca(self, name, cn):
        self._run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                  "-nodes", "-keyout", self._path(name + ".key"), "-out", self._path(name + ".pem"),
                  "-days", "30", "-subj", "/CN=" + cn,
                  "-addext", "basicConstraints=critical,CA:TRUE",
                  "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        cadir = self._path(name + ".db")
        os.makedirs(cadir)
        open(os.path.join(cadir, "index.txt"), "w").close()
        with open(os.path.join(cadir, "serial"), "w") as f:
            f.write("1000\n")
        with open(os.path.join(cadir, "ca.cnf"), "w") as f:
            f.write(CA_CONF.format(dir=cadir))
        return self._path(name + ".pem")

    def _leaf(self, name, ca, cn, san, start, end):
        """Key + certificate signed by `ca`, valid start..end; returns (cert, key) paths."""
        key, csr, cert, ext = (self._path(name + s) for s in (".key", ".csr", ".pem", ".ext"))
        with open(ext, "w") as f:
            f.write(LEAF_EXT.format(san=san))
        self._run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                  "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=" + cn)
        cadir = self._path(ca + ".db")
        self._run("ca", "-batch", "-notext", "-config", os.path.join(cadir, "ca.cnf"),
                  "-cert", self._path(ca + ".pem"), "-keyfile", self._path(ca + ".key"),
                  "-startdate", start, "-enddate", end, "-extfile", ext,
                  "-in", csr, "-out", cert)
        return cert, key

    def hashed_dir(self, name, pems):
        """A directory holding `pems` (certificate files), indexed by `openssl rehash`."""
        path = self._path(name)
        os.makedirs(path, exist_ok=True)
        for i, pem in enumerate(pems):
            shutil.copy(pem, os.path.join(path, f"{i:03d}-{os.path.basename(pem)}"))
        self._run("rehash", path)
        return path


NGINX_CONF = """\
{user}worker_processes 1;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    log_format bed escape=json '{{"conn":"$connection","requests":"$connection_requests",'
        '"protocol":"$server_protocol","port":"$server_port","method":"$request_method",'
        '"uri":"$request_uri","status":"$status","tls":"$ssl_protocol","alpn":"$ssl_alpn_protocol",'
        '"reused":"$ssl_session_reused","time":"$request_time"}}';
    access_log {dir}/access.log bed;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    ssl_protocols TLSv1.2 TLSv1.3;
    keepalive_timeout 30s;
    upstream fake_mem0 {{
        server 127.0.0.1:{fake_port};
        keepalive 8;
    }}
{servers}}}
"""

SERVER_BLOCK = """\
    server {{
        listen 127.0.0.1:{port} ssl{http2};
        server_name localhost;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        location / {{
            proxy_pass http://fake_mem0;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
        }}
    }}
"""


class TlsBed(Lifecycle):
    """Context manager: fake Mem0 + nginx terminating TLS in front of it (see module doc).

    fake: an already started FakeMem0 to proxy to; otherwise one is started with `seed`
    (and stopped with the bed).
    """

    def __init__(self, seed=None, fake=None, api_key="m0-test-key", startup_timeout=10.0):
        self._seed = seed
        self._api_key = api_key
        self._own_fake = fake is None
        self.fake = fake
        self._startup_timeout = startup_timeout
        self._proc = None
        self.dir = None
        self.ports = {}
        self.pki = None

    # -- lifecycle -------------------------------------------------------------
    def start(self):
        missing = missing_tools()
        if missing:
            raise RuntimeError("TLS bed needs " + ", ".join(missing))
        self.dir = tempfile.mkdtemp(prefix="mem0_tlsbed_")
        try:
            self.pki = Pki(self.dir)
            if self.fake is None:
                self.fake = FakeMem0(seed=self._seed, api_key=self._api_key).start()
            for attempt in range(3):  # a free port may be taken between probing and binding
                if self._start_nginx():
                    return self
            raise RuntimeError("nginx did not start: " + self._error_log_tail())
        except BaseException:
            self.stop()
            raise

    def _start_nginx(self):
        ports = free_ports(len(SERVERS))
        self.ports = dict(zip(SERVERS, ports))
        certs = {"h2": self.pki.server, "h1": self.pki.server, "expired": self.pki.expired,
                 "wrong_host": self.pki.wrong_host, "unknown_ca": self.pki.unknown_ca}
        servers = "".join(SERVER_BLOCK.format(port=self.ports[name], cert=certs[name][0],
                                              key=certs[name][1],
                                              http2="" if name == "h1" else " http2")
                          for name in SERVERS)
        user = ""
        if os.geteuid() == 0:
            # A root master would hand the workers to `nobody`, who cannot enter this 0700 dir.
            import grp
            import pwd
            user = (f"user {pwd.getpwuid(os.getuid()).pw_name} "
                    f"{grp.getgrgid(os.getgid()).gr_name};\n")
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(NGINX_CONF.format(user=user, dir=self.dir, fake_port=self.fake.port,
                                      servers=servers))
        open(self.access_log_path, "w").close()
        cmd = [nginx_binary(), "-p", self.dir, "-c", conf,
               "-g", f"daemon off; pid {os.path.join(self.dir, 'nginx.pid')};"]
        if nginx_version() >= (1, 19, 5):  # -e: the start-up error log, before the config's
            cmd[1:1] = ["-e", os.path.join(self.dir, "error.log")]
        with open(os.path.join(self.dir, "nginx.stderr"), "ab") as stderr:
            self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + self._startup_timeout
        pending = set(self.ports.values())
        while pending and time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                return False
            for port in list(pending):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    pending.discard(port)
                except OSError:
                    pass
            if pending:
                time.sleep(0.02)
        if pending:
            self._stop_nginx()
            raise RuntimeError("nginx did not listen in time: " + self._error_log_tail())
        # The readiness probes above are plain TCP connects; keep them out of the log.
        self.clear_access_log()
        return True

    def _error_log_tail(self):
        text = ""
        for name in ("nginx.stderr", "error.log"):
            try:
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    text += f.read()
            except OSError:
                pass
        return text[-2000:] or "(no error log)"

    def _stop_nginx(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # fast shutdown of master and workers
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def stop(self):
        self._stop_nginx()
        if self._own_fake and self.fake is not None:
            self.fake.stop()
            self.fake = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    # -- addresses ---------------------------------------------------------------
    def url(self, server="h2", host="127.0.0.1"):
        return f"https://{host}:{self.ports[server]}"

    @property
    def h2_url(self):
        return self.url("h2")

    @property
    def h1_url(self):
        return self.url("h1")

    @property
    def expired_url(self):
        return self.url("expired")

    @property
    def wrong_host_url(self):
        return self.url("wrong_host")

    @property
    def unknown_ca_url(self):
        return self.url("unknown_ca")

    @property
    def ca_file(self):
        return self.pki.ca_file

    @property
    def other_ca_file(self):
        return self.pki.other_ca_file

    def hashed_ca_dir(self, name="ca.d", extra=()):
        """A hashed directory (openssl rehash) holding the test CA plus `extra` PEM files."""
        return self.pki.hashed_dir(name, [self.ca_file, *extra])

    # -- access log --------------------------------------------------------------
    @property
    def access_log_path(self):
        return os.path.join(self.dir, "access.log")

    def clear_access_log(self):
        open(self.access_log_path, "w").close()  # nginx appends (O_APPEND): truncation is safe

    def access_log(self, server=None, wait_for=0, timeout=2.0):
        """Parsed access-log entries (dicts; conn/requests/port/status as int), oldest first.

        server: only requests to that server ("h2", "h1", ...). wait_for: poll until at least
        that many entries are there (nginx writes an entry just after sending the response).
        """
        deadline = time.monotonic() + timeout
        while True:
            with open(self.access_log_path, encoding="utf-8") as f:
                entries = [json.loads(line) for line in f if line.strip()]
            for e in entries:
                for key in ("conn", "requests", "port", "status"):
                    e[key] = int(e[key])
            if server is not None:
                entries = [e for e in entries if e["port"] == self.ports[server]]
            if len(entries) >= wait_for or time.monotonic() >= deadline:
                return entries
            time.sleep(0.01)
