"""What the webhook tests share: a receiver on loopback that records each call and answers as it is
told, and a webhook made through the service."""

import json
import time
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler

from django.utils import timezone
from standardwebhooks.webhooks import Webhook as StandardWebhook

from core.testing import serving_on_loopback
from webhooks import services
from webhooks.models import Delivery
from webhooks.tasks import deliveries_sweep


@dataclass
class Call:
    headers: dict
    body: bytes

    @property
    def json(self):
        return json.loads(self.body)

    def verified(self, secret: str):
        """The body, verified as any Standard Webhooks receiver verifies it (the reference library)."""
        return StandardWebhook(secret).verify(self.body, self.headers)


@dataclass
class Answer:
    status: int = 200
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    body: bytes = b"ok"


class Receiver:
    """An HTTP server on 127.0.0.1 in a thread: each POST is recorded in `calls` and answered with
    the next of `answers` (then 200)."""

    def __init__(self, *answers: Answer):
        self.answers = list(answers)
        self.calls: list[Call] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                receiver.calls.append(Call(dict(self.headers), self.rfile.read(length)))
                answer = receiver.answers.pop(0) if receiver.answers else Answer()
                time.sleep(answer.delay)
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the hub stopped waiting (a timeout) or stopped reading (4 KB)

            def log_message(self, *args):
                pass

        self._serving = serving_on_loopback(Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def __enter__(self):
        self.server = self._serving.__enter__()
        return self

    def __exit__(self, *exc):
        self._serving.__exit__(*exc)

    def wait_for(self, count: int, seconds: float = 10.0) -> list[Call]:
        deadline = time.monotonic() + seconds
        while len(self.calls) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.calls


def make_webhook(actor, url: str, events=("packet.created",), team=None, **options):
    """(webhook, secret) added by `actor`, for them or for `team`."""
    return services.webhook_create(actor=actor, url=url, events=list(events), team=team, **options)


def retries_fall_due() -> int:
    """Move every pending delivery's next attempt to now, then run beat's sweep (in the tests'
    eager mode it sends them at once); how many were queued."""
    Delivery.objects.filter(status=Delivery.PENDING).update(next_attempt_at=timezone.now() - timedelta(seconds=1))
    return deliveries_sweep()
