"""The MCP SDK loads on a web process's first /mcp call, not when the hub starts: a hub nobody
reaches over MCP does not carry it (its memory per process: bench/README.md)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import django
from django.test import Client
from django.test.utils import setup_test_environment
django.setup()
setup_test_environment()  # lets the test client's host in
from hub.wsgi import application  # noqa: F401 - what the web server (web.py) loads
client = Client()
assert client.get("/v1/healthz").status_code == 200
print("before /mcp:", "mcp" in sys.modules)
assert client.post("/mcp", data="{}", content_type="application/json").status_code == 401
print("after a refused /mcp:", "mcp" in sys.modules)
"""


def test_the_sdk_is_not_loaded_until_mcp_is_called():
    env = {"DJANGO_SETTINGS_MODULE": "hub.settings.test"}  # no DATABASE_URL: nothing here reads it
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "before /mcp: False" in done.stdout
    # A call refused for want of a token does not need it either; a served one loads it
    # (test_endpoint.py).
    assert "after a refused /mcp: False" in done.stdout
