"""The manual's ten-line receiver (docs/webhooks.md) verifies a real delivery from the hub."""

import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webhooks.services import webhook_ping
from webhooks.testing import make_webhook

PAGE = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def _receiver_code() -> str:
    found = re.search(r"<!-- receiver:.*?-->\n```python\n(.*?)```", PAGE.read_text(), re.S)
    assert found, "docs/webhooks.md has no receiver block"
    code = found.group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    return code


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.django_db
def test_the_manuals_receiver_verifies_a_ping(alice, django_capture_on_commit_callbacks):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    webhook, secret = make_webhook(alice, f"http://127.0.0.1:{port}/")
    code = _receiver_code().replace("whsec_your_secret_here", secret).replace("9000", str(port))
    receiver = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not _listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        with django_capture_on_commit_callbacks(execute=True):
            delivery = webhook_ping(actor=alice, webhook_id=webhook.pk)
        line = receiver.stdout.readline()
    finally:
        receiver.kill()
        receiver.wait()

    assert line.startswith("webhook.ping {") and webhook.pk in line
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.response_status == 204
