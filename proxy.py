"""The reverse proxy in front of the hub's web server: `python proxy.py` runs nginx with
deploy/nginx.conf.template filled in from the environment, as the Procfile's `proxy` line,
`make stack` and docker-compose.yml do:

    PROXY_HOST            the address to listen on (0.0.0.0)
    PORT                  the port (8080), as a process manager hands it out
    PROXY_UPSTREAMS       the web processes (`python web.py`), host:port[,host:port...]: required
    PROXY_CLIENT_TIMEOUT  seconds a request's head may take, and a body's longest pause (10)
    PROXY_MAX_BODY        the largest request body, in bytes (1048576)
    PROXY_TLS_CERT        with PROXY_TLS_KEY: https with this certificate (PEM files); unset, plain http
    PROXY_TLS_KEY
    PROXY_TLS_SELF_SIGNED "1": when those two files are missing, make a self-signed pair for
                          localhost there first (`openssl`), so a local compose stack has https

Why a proxy: granian hands a request to the hub once its head has arrived, and the hub then reads
the body in the worker's one thread; no granian setting bounds how long that takes, so a client
that sends a body slowly holds a worker. nginx reads whole bodies within time and size limits
before granian sees them (docs/production.md, "The reverse proxy").

nginx runs in the foreground with its files (configuration, pid, request bodies on disk) in a
folder of its own, removed on exit. Its error lines can name a request's path, which can hold an
invite or claim code: they pass through core.logs.mask_secrets, as web.py's do. SIGTERM and
SIGINT stop it gracefully (SIGQUIT: requests in flight finish).
"""

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from core.logs import mask_secrets

TEMPLATE = Path(__file__).resolve().parent / "deploy" / "nginx.conf.template"
_UPSTREAM = re.compile(r"^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$")
_HOST = re.compile(r"^(?:[A-Za-z0-9.-]+|[0-9A-Fa-f:.]+)$")
_PLACEHOLDER = re.compile(r"\$\{([A-Z_]+)\}")


class Misconfigured(SystemExit):
    def __init__(self, message: str):
        super().__init__(f"proxy.py: {message}")


def _number(environ, name: str, default: int) -> int:
    value = environ.get(name) or str(default)
    if not (value.isascii() and value.isdigit() and int(value) > 0):
        raise Misconfigured(f"{name} is a whole number above 0; got {value!r}")
    return int(value)


def settings(environ=os.environ) -> dict[str, str]:
    """The template's values that come from `environ` (RUN_DIR and the file limits come later)."""
    host = environ.get("PROXY_HOST") or "0.0.0.0"
    if not _HOST.match(host):
        raise Misconfigured(f"PROXY_HOST is an address or a name; got {host!r}")
    port = _number(environ, "PORT", 8080)
    upstreams = [part.strip() for part in (environ.get("PROXY_UPSTREAMS") or "").split(",") if part.strip()]
    if not upstreams:
        raise Misconfigured("set PROXY_UPSTREAMS to the web processes' host:port (comma-separated)")
    for upstream in upstreams:
        if not _UPSTREAM.match(upstream):
            raise Misconfigured(f"PROXY_UPSTREAMS holds host:port entries; got {upstream!r}")
    cert, key = environ.get("PROXY_TLS_CERT") or "", environ.get("PROXY_TLS_KEY") or ""
    if bool(cert) != bool(key):
        raise Misconfigured("set both PROXY_TLS_CERT and PROXY_TLS_KEY, or neither")
    for path in (cert, key):
        if any(character in path for character in '"\\$;\n'):
            raise Misconfigured(f"a TLS file's path may not hold quotes, $, ; or newlines: {path!r}")
    listen = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    tls = ""
    if cert:
        listen += " ssl"
        tls = "\n".join(
            [
                f'        ssl_certificate "{cert}";',
                f'        ssl_certificate_key "{key}";',
                "        ssl_protocols TLSv1.2 TLSv1.3;",
                "        ssl_session_cache shared:tls:10m;",
            ]
        )
    return {
        "LISTEN": listen,
        "TLS": tls,
        "UPSTREAM_SERVERS": "\n".join(f"        server {upstream};" for upstream in upstreams),
        "CLIENT_TIMEOUT": f"{_number(environ, 'PROXY_CLIENT_TIMEOUT', 10)}s",
        "MAX_BODY": str(_number(environ, "PROXY_MAX_BODY", 1024 * 1024)),
    }


def file_limits() -> dict[str, str]:
    """nginx's open files and connections per worker, within what this process may open (each
    proxied request holds two: the client's and granian's)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    files = 16384 if hard == resource.RLIM_INFINITY else min(hard, 16384)
    return {"OPEN_FILES": str(files), "WORKER_CONNECTIONS": str(max(64, files // 2))}


def render(values: dict[str, str], template: str | None = None) -> str:
    """The template with every ${NAME} replaced; a name without a value is an error."""
    text = TEMPLATE.read_text() if template is None else template

    def value(match):
        if match.group(1) not in values:
            raise Misconfigured(f"the template names ${{{match.group(1)}}}, which has no value")
        return values[match.group(1)]

    return _PLACEHOLDER.sub(value, text)


def nginx_path() -> str | None:
    """nginx, where Debian puts it too (/usr/sbin is not on everyone's PATH)."""
    search = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
    return shutil.which("nginx", path=search)


def self_signed(cert: Path, key: Path) -> None:
    """A certificate for localhost and 127.0.0.1, valid for a year, with its key."""
    for path in (cert, key):
        path.parent.mkdir(parents=True, exist_ok=True)
    key.touch(mode=0o600)  # readable by its owner alone from the start: openssl writes into it
    key.chmod(0o600)
    command = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    command += ["-days", "365", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
    try:
        subprocess.run([*command, "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        detail = getattr(error, "stderr", b"") or b""
        raise Misconfigured(f"openssl could not make {cert}: {error} {detail.decode(errors='replace')}") from None


def main(environ=os.environ) -> int:
    values = settings(environ)
    nginx = nginx_path()
    if nginx is None:
        raise Misconfigured("nginx not found: install it (Debian: apt-get install nginx)")
    cert, key = environ.get("PROXY_TLS_CERT"), environ.get("PROXY_TLS_KEY")
    if cert and not (Path(cert).exists() and Path(key).exists()):
        if environ.get("PROXY_TLS_SELF_SIGNED") != "1":
            raise Misconfigured(f"{cert} or {key} is missing (PROXY_TLS_SELF_SIGNED=1 makes a self-signed pair)")
        self_signed(Path(cert), Path(key))
        print(f"proxy.py: made a self-signed certificate for localhost: {cert}", file=sys.stderr, flush=True)

    run_dir = Path(tempfile.mkdtemp(prefix="ltm-proxy-"))
    try:
        # nginx's workers (nobody, when it starts as root) write request bodies in folders below.
        run_dir.chmod(0o755)
        config = run_dir / "nginx.conf"
        config.write_text(render({**values, **file_limits(), "RUN_DIR": str(run_dir)}))
        server = subprocess.Popen(
            [nginx, "-p", str(run_dir), "-c", str(config), "-e", "stderr"], stderr=subprocess.PIPE
        )

        def stop(signum, frame):
            if server.poll() is None:
                server.send_signal(signal.SIGQUIT)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        print(f"proxy.py: nginx on {values['LISTEN']}, in front of {environ['PROXY_UPSTREAMS']}", flush=True)
        for line in server.stderr:
            sys.stderr.write(mask_secrets(line.decode("utf-8", "replace")))
            sys.stderr.flush()
        return server.wait()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
