"""No invite, claim or device code and no token in a log line: Django's own lines here, and the
access and error logs of the hub's real server (granian, started by web.py as production does)."""

import io
import logging
import os
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from bench.live_hub import hub
from core.logs import MaskSecrets, mask_secrets
from hub.testing import ROOT

INVITE = "0123456789abcdef0123456789abcdef0123456789abcdef"
CLAIM = "claim-code-that-must-not-leak"
USER_CODE = "BCDFGHJK"
TOKEN = "ltm_token-that-must-not-leak"
SECRETS = (INVITE, CLAIM, USER_CODE, TOKEN, "token-that-must-not-leak")


@pytest.mark.parametrize(
    "line, masked",
    [
        (f"GET /v1/invites/{INVITE} HTTP/1.1", "GET /v1/invites/*** HTTP/1.1"),
        (f"POST /v1/invites/{INVITE}/accept", "POST /v1/invites/***/accept"),
        (f"GET /claim/{CLAIM}", "GET /claim/***"),
        (f"GET /device?user_code={USER_CODE}&x=1", "GET /device?user_code=***&x=1"),
        (
            f"GET /accounts/login/?next=/device%3Fuser_code%3D{USER_CODE}",
            "GET /accounts/login/?next=/device%3Fuser_code%3D***",
        ),
        (f"GET /accounts/login/?next=%2Fv1%2Finvites%2F{INVITE}", "GET /accounts/login/?next=%2Fv1%2Finvites%2F***"),
        (f"Authorization: Bearer {TOKEN}", "Authorization: Bearer ***"),
        (f"token {TOKEN} pasted", "token ltm_*** pasted"),
        ("GET /accounts/password/reset/key/3-abc123def/", "GET /accounts/password/reset/key/***/"),
        ("GET /ACCOUNTS/CONFIRM-EMAIL/MQ:1abc:xyz/", "GET /ACCOUNTS/CONFIRM-EMAIL/***/"),
        ("authorization: BEARER abc.def", "authorization: BEARER ***"),
        ("GET /v1/packets?limit=50", "GET /v1/packets?limit=50"),
        ("GET /v1/packets/01HXYZ HTTP/1.1", "GET /v1/packets/01HXYZ HTTP/1.1"),
    ],
)
def test_mask_secrets(line, masked):
    assert mask_secrets(line) == masked


def test_djangos_not_found_line_names_the_path_without_the_code(client, db):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(MaskSecrets())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        assert client.get(f"/v1/invites/{INVITE}").status_code == 404
        assert client.get(f"/claim/{CLAIM}").status_code in (404, 410)
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "/v1/invites/***" in written
    assert INVITE not in written and CLAIM not in written


def test_the_hubs_console_handler_masks():
    console = logging.getLogger().handlers
    assert any(isinstance(f, MaskSecrets) for h in console for f in h.filters), "LOGGING's console handler"


def _call(url, *, method="GET", headers=None):
    request = urllib.request.Request(
        url, method=method, headers=headers or {}, data=b"{}" if method == "POST" else None
    )
    try:
        urllib.request.urlopen(request, timeout=10).close()
    except urllib.error.HTTPError:
        pass


def test_the_servers_access_log_and_djangos_error_log_hold_no_secret(tmp_path):
    environment = {
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'hub.sqlite3'}",
    }
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env={**os.environ, **environment},
        check=True,
        timeout=300,
    )
    access, errors = tmp_path / "stdout.log", tmp_path / "stderr.log"
    with (
        open(access, "wb") as stdout,
        open(errors, "wb") as stderr,
        hub(env={**environment, "REDIS_URL": None}, stdout=stdout, stderr=stderr) as (_, port),
    ):
        base = f"http://127.0.0.1:{port}"
        bearer = {"Authorization": f"Bearer {TOKEN}"}
        _call(f"{base}/v1/invites/{INVITE}", headers={"Referer": f"{base}/v1/invites/{INVITE}"})
        _call(f"{base}/v1/invites/{INVITE}/accept", method="POST", headers=bearer)
        _call(f"{base}/claim/{CLAIM}")
        _call(f"{base}/device?user_code={USER_CODE}")
        _call(f"{base}/v1/packets", headers=bearer)
        _call(f"{base}/v1/healthz")
    # granian's access log, on standard output: one line per request, its path masked.
    written = access.read_text()
    assert '"GET /v1/invites/*** HTTP/1.1" 404' in written and '"POST /v1/invites/***/accept HTTP/1.1"' in written
    assert '"GET /claim/*** HTTP/1.1"' in written and '"GET /v1/healthz HTTP/1.1" 200' in written
    # Django's error log, on standard error: the path of each 404.
    logged = errors.read_text()
    assert "Not Found: /v1/invites/***" in logged
    for secret in SECRETS:
        assert secret not in written and secret not in logged
