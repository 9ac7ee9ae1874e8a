"""Helpers of federation's tests: another hub, a real process (`python web.py`, as production
runs it) on a loopback port with its own database and key, and messages signed as a hub signs them.

The other hub's database is a SQLite file (its schema migrated once per run into a file each hub
copies), or the one FEDERATION_SECOND_DATABASE_URL names (a PostgreSQL database of its own); the
suite's hub runs on the suite's database: a run on PostgreSQL, or one naming a second
PostgreSQL database, puts both engines in one exchange."""

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench.live_hub import ROOT, free_port, wait_until_up
from federation import keys, signing
from packets.testing import packet_v02

PASSWORD = "correct-horse-battery"
# RFC 9421's test key (appendix B.1.4, test-key-ed25519): its examples, and docs/federation.md's.
RFC_PRIVATE = b"""-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----
"""
RFC_PUBLIC = b"""-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----
"""


@dataclass
class OtherHub:
    """A hub in a process of its own: its port, key and people (username -> token)."""

    port: int
    key_pem: str
    env: dict
    process: subprocess.Popen | None = None
    tokens: dict = field(default_factory=dict)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.host}"

    def manage(self, *arguments: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *arguments], cwd=ROOT, env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def person(self, username: str) -> str:
        """A person of this hub (made on first use); their API token."""
        if username not in self.tokens:
            self.manage("ltm_user", username, "--password", PASSWORD)
            self.tokens[username] = self.manage("ltm_token", username, "--name", "tests")
        return self.tokens[username]

    def call(self, method: str, path: str, *, as_user: str, body=None) -> tuple[int, dict]:
        """(status, JSON answer) of a request to this hub's API as `as_user`."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.person(as_user)}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def start(self) -> "OtherHub":
        log = Path(self.env["LTM_TEST_LOG"])
        self.process = subprocess.Popen(
            [sys.executable, "web.py"], cwd=ROOT, env=self.env, stdout=log.open("w"), stderr=subprocess.STDOUT
        )
        wait_until_up(self.port, self.process, log)
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None


def other_hub(folder: Path, template: Path, *, peers: list[str], database: str | None = None, **settings) -> OtherHub:
    """A hub (not started) on a free port, its database `database` (migrated here) or else a
    SQLite copy of the migrated `template`; it talks to `peers` (allowlist). `settings`: more
    environment variables (LTM_SECRET_SCAN=...)."""
    port = free_port()
    key_pem = keys.new_key_pem()
    if not database:
        copy = folder / f"hub-{port}.sqlite3"
        shutil.copy(template, copy)
        database = f"sqlite:///{copy}"
    env = {name: value for name, value in os.environ.items() if name not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "hub.settings.local",
            "DATABASE_URL": database,
            "DEBUG": "0",
            "WEB_HOST": "127.0.0.1",
            "PORT": str(port),
            "WEB_CONCURRENCY": "1",
            "LTM_WARM_UP": "0",
            "LTM_EXTERNAL_URL": f"http://127.0.0.1:{port}",
            "LTM_HUB_KEY": key_pem,
            "LTM_FEDERATION": "allowlist",
            "LTM_FEDERATION_TIMEOUT": "30",
            "LTM_FEDERATION_PEERS": ",".join(peers),
            "LTM_TEST_LOG": str(folder / f"hub-{port}.log"),
            **settings,
        }
    )
    hub = OtherHub(port=port, key_pem=key_pem, env=env)
    if not database.startswith("sqlite"):
        hub.manage("migrate", "--noinput")
        hub.manage("flush", "--noinput")  # a run before this one left its packets there
    return hub


def migrated_template(folder: Path) -> Path:
    """A SQLite database with the hub's schema, for the other hubs to copy."""
    path = folder / "template.sqlite3"
    env = {name: value for name, value in os.environ.items() if name not in ("REDIS_URL", "DATABASE_URL")}
    env.update({"DJANGO_SETTINGS_MODULE": "hub.settings.local", "DATABASE_URL": f"sqlite:///{path}"})
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return path


def share_message(
    hub: OtherHub, *, to="bob", sender="carol", packet=None, signed_by=None, message_id=None, note="from B"
) -> dict:
    """A share of `packet` (a new one by default) from `sender` on `hub` with `to` here, its packet
    signed with `hub`'s key (or `signed_by`)."""
    packet = packet or packet_v02()
    return {
        "type": "share",
        "id": message_id or f"msg-{packet['id']}",
        "from": f"{sender}@{hub.host}",
        "to": to,
        "note": note,
        "packet": packet,
        "packet_signature": keys.packet_sign(packet, signed_by or hub.key_pem),
    }


def signed_message(message: dict, *, url: str, key_pem: str, created: datetime | None = None) -> tuple[bytes, dict]:
    """(body, headers) of `message` POSTed to `url`, signed as the hub whose key is `key_pem`."""
    kid, key = keys.key_pair(key_pem)
    body = json.dumps(message).encode()
    return body, signing.signed_headers(url=url, body=body, kid=kid, key=key, created=created or datetime.now(UTC))
