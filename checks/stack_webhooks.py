"""A step for the stack check (checks/stack_check.py, through stack_ops.Operations): a webhook's
delivery outlives a Celery worker killed while it waits to retry. The stack's environment lists
127.0.0.1 in LTM_WEBHOOK_ALLOW_HOSTS (checks/stack.py), so the worker may call the receiver this
step runs on loopback. A push makes a delivery; the receiver answers its first
attempt 500; the worker is killed before the retry (about 5 s later) and stays dead past it, and
nothing is sent meanwhile; started again, the worker (with beat's sweep) sends the retry with the
same webhook-id, which gets a 200, and nothing after it: one 2xx per delivery.
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from stack_http import check, new_packet, wait_until

RETRY_AFTER = 5  # seconds: the first wait of the schedule (webhooks.delivery.SCHEDULE)


class _Receiver:
    """Records each call's webhook-id and answers the first 500, every later one 200."""

    def __init__(self):
        self.calls: list[tuple[str, int]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = 500 if not receiver.calls else 200
                receiver.calls.append((self.headers["webhook-id"], status))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def worker_killed_mid_retry(journey) -> str:
    """The step; `journey` holds the stack, alice's client (`api`) and a web process's URL (`a`)."""
    receiver = _Receiver()
    try:
        made = journey.api.expect(
            201, "POST", journey.a + "/v1/webhooks", body={"url": receiver.url, "events": ["packet.created"]}
        )
        journey.api.expect(201, "POST", journey.a + "/v1/packets", body=new_packet("a webhook's packet"))
        wait_until(lambda: receiver.calls, 60, "the worker did not make the first attempt")
        journey.stack.kill("worker")
        killed = time.monotonic()
        time.sleep(RETRY_AFTER * 3)  # well past the retry's time
        check(len(receiver.calls) == 1, f"something sent while the worker was dead: {receiver.calls}")
        journey.stack.start("worker")
        wait_until(lambda: len(receiver.calls) >= 2, 120, "the restarted worker did not send the retry")
        back = time.monotonic() - killed
        time.sleep(RETRY_AFTER * 3)  # a second 2xx would come within this
        deliveries = journey.api.expect(200, "GET", journey.a + f"/v1/webhooks/{made['id']}/deliveries")["deliveries"]
    finally:
        receiver.close()
    ids = {webhook_id for webhook_id, _ in receiver.calls}
    succeeded = [call for call in receiver.calls if call[1] == 200]
    check(len(ids) == 1, f"the retry came with another webhook-id: {receiver.calls}")
    check(len(succeeded) == 1, f"the delivery was sent again after a 2xx: {receiver.calls}")
    [delivery] = deliveries
    check(delivery["status"] == "delivered", f"the delivery is {json.dumps(delivery)}")
    return f"500, worker killed, retried {back:.1f}s later with the same webhook-id, 200 once"
