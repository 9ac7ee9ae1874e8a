"""For tests of single sign-on between two hubs: a second hub process that signs people in through
the first (a relying party configured with LTM_OIDC_*, as an operator would), and the forward
proxy its calls to the provider go through, which can falsify the provider's answers (another
issuer in the discovery document, another key in the published keys)."""

import base64
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import rsa

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _b64(number: int) -> str:
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class FalsifyingProxy:
    """An HTTP forward proxy on 127.0.0.1. `mode` "" passes everything through; "issuer" makes the
    discovery document name another issuer; "keys" publishes another RSA key under the same key
    ids, so the provider's real signatures no longer match."""

    def __init__(self):
        self.mode = ""
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key().public_numbers()
        self.other_key = {"n": _b64(other.n), "e": _b64(other.e)}
        proxy = self

        class Forward(BaseHTTPRequestHandler):
            def _forward(self):
                target = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("proxy-connection", "connection")}
                connection = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=15)
                path = target.path + (f"?{target.query}" if target.query else "")
                connection.request(self.command, path, body=body, headers=headers)
                answer = connection.getresponse()
                content = proxy.falsify(target.path, answer.read())
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = _forward

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def falsify(self, path: str, content: bytes) -> bytes:
        if self.mode == "issuer" and path.endswith("/.well-known/openid-configuration"):
            document = json.loads(content)
            document["issuer"] = "https://impostor.example"
            return json.dumps(document).encode()
        if self.mode == "keys" and path.endswith("/oauth/jwks"):
            keys = json.loads(content)
            keys["keys"] = [{**key, **self.other_key} for key in keys["keys"]]
            return json.dumps(keys).encode()
        return content

    def stop(self):
        self.server.shutdown()


class RelyingPartyHub:
    """A second hub (development settings, its own SQLite file) whose sign-in page offers "Sign in
    with NAME" through the provider at `issuer`; its calls to the provider go through `proxy`."""

    def __init__(self, tmp_path, *, port: int, issuer: str, client_id: str, secret: str, proxy: str, name: str, **env):
        self.port = port
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = tmp_path / "relying_party.sqlite3"
        self.env = {
            **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL", "NO_PROXY", "no_proxy")},
            "DJANGO_SETTINGS_MODULE": "hub.settings.local",
            "DATABASE_URL": f"sqlite:///{self.database}",
            "LTM_WARM_UP": "0",
            "LTM_OIDC_NAME": name,
            "LTM_OIDC_ISSUER": issuer,
            "LTM_OIDC_CLIENT_ID": client_id,
            "LTM_OIDC_CLIENT_SECRET": secret,
            "HTTP_PROXY": proxy,
            "http_proxy": proxy,
            **env,
        }
        self.manage("migrate", "--noinput", "-v0")
        self.log = tmp_path / "relying_party.log"  # its requests and errors, when a test fails
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait()

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def shell(self, code: str) -> str:
        return self.manage("shell", "-c", code)

    def _wait(self):
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        for _ in range(150):
            try:
                with opener.open(self.url + "/v1/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the relying party hub did not start")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
