"""With LTM_SEMANTIC=off a process never loads what ranks by meaning: numpy, the tokenizer and
the model stay out of it (the $5 VPS profile's memory, checks/vps_check.py), whatever it serves.
Checked in a fresh interpreter, since this one has long imported them for the other tests."""

import json
import os
import subprocess
import sys

from django.conf import settings

# The whole URLconf (every view and what it imports), the apps' hooks, the Celery tasks, then a
# push and a hybrid search through the wire API, on an in-memory database.
SCRIPT = """
import io, json, sys
import django
django.setup()
from django.core.management import call_command
from django.test import Client
from django.test.utils import setup_test_environment
from ltm.protocol.packet import example_packet
setup_test_environment()
call_command("migrate", verbosity=0)
call_command("ltm_user", "off", stdout=io.StringIO())
out = io.StringIO()
call_command("ltm_token", "off", "--name", "off", stdout=out)
token = out.getvalue().strip()
headers = {"Authorization": f"Bearer {token}"}
client = Client()
pushed = client.post("/v1/packets", json.dumps(example_packet()), content_type="application/json", headers=headers)
found = client.get("/v1/search?q=tests+hang+in+parallel&mode=hybrid", headers=headers)
related = client.get(f"/v1/packets/{example_packet()['id']}/related", headers=headers)
print(json.dumps({
    "statuses": [pushed.status_code, found.status_code, related.status_code],
    "loaded": sorted(name for name in ("numpy", "tokenizers", "packets.search.embedding") if name in sys.modules),
}))
"""


def run_in_fresh_process(semantic: str) -> dict:
    env = {
        **os.environ,
        "LTM_SEMANTIC": semantic,
        "DATABASE_URL": "sqlite://:memory:",
        "DJANGO_SETTINGS_MODULE": "hub.settings.test",
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_process_with_recall_by_meaning_off_never_loads_numpy_or_the_model():
    answer = run_in_fresh_process("off")
    assert answer["statuses"] == [201, 200, 400]
    assert answer["loaded"] == []


def test_with_it_on_the_same_requests_load_them():
    answer = run_in_fresh_process("on")
    assert answer["statuses"] == [201, 200, 200], answer
    assert answer["loaded"] == ["numpy", "packets.search.embedding", "tokenizers"]
