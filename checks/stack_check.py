"""The production stack, started as `make stack` starts it and used as strangers would use it.

Starts the Procfile's processes under honcho (production settings, plain http on loopback, a
fresh PostgreSQL database, the machine's Redis): the release step, two web processes on two
ports, a Celery worker and beat. Then a journey through it: token auth, push, list, pull,
publish, the web server's size limits, a tool call on the MCP endpoint, a device-flow sign-in approved
in Chromium, a team invite accepted anonymously, `ltm conformance` with two accounts and 2,000
hostile requests (its report: conformance.json in the logs folder); state shared by the two web
processes (a device code, the wrong-code limit, a session); the worker killed while tasks are
sent; Redis stopped and started again. Prints PASS or FAIL and the time of each step, exits 1 on
any failure, and stops everything it started, even on failure or timeout.

    python checks/stack_check.py                       # as CI runs it (.ci/run)
    python checks/stack_check.py --database-url postgres://postgres@127.0.0.1:5432/ltm_stack

The Redis step stops the machine's Redis server (`SHUTDOWN NOSAVE`) for a few seconds and starts
it again with the options it was running with: run it where nobody else needs Redis meanwhile.
"""

import argparse
import http.cookiejar
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path

import redis
from stack import DEFAULT_REDIS_URL, ROOT, Stack

sys.path.insert(0, str(ROOT))

PASSWORD = "stack-check-passphrase-1"
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
USER_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"  # the hub's alphabet: wrong codes the hub reads as codes
# The options the machine starts Redis with; the Redis step restarts it with their running values.
REDIS_OPTIONS = ("daemonize", "bind", "port", "save", "appendonly", "dir", "logfile")
CONFORMANCE_FUZZ = 2000  # hostile requests of the conformance step


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


class Http:
    """One person or program: its own cookies (a browser session), redirects not followed."""

    def __init__(self, token=None):
        self.token = token
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), _NoRedirect()
        )

    def call(self, method, url, *, body=None, form=None, timeout=15):
        """(status, text) of one request; `body` is sent as JSON, `form` form-encoded."""
        headers, data = {}, None
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        elif form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=timeout) as response:
                return response.status, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", "replace")

    def expect(self, status, method, url, **kwargs):
        got, text = self.call(method, url, **kwargs)
        check(got == status, f"{method} {url} answered {got}, not {status}: {text[:300]}")
        return json.loads(text) if text.startswith(("{", "[")) else text

    def sign_in(self, base, username):
        page = self.expect(200, "GET", base + "/accounts/login/")
        self.expect(
            302,
            "POST",
            base + "/accounts/login/",
            form={"csrfmiddlewaretoken": csrf(page), "login": username, "password": PASSWORD},
        )


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def csrf(page):
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def new_packet(goal="stack check"):
    from ulid import ULID

    from ltm.protocol.packet import example_packet

    return {**example_packet(), "id": str(ULID()), "goal": goal}


def poll_for_token(base, grant, seconds=60):
    """Poll /oauth/token as the client does: every `interval` seconds, 5 s more on slow_down."""
    interval, deadline = grant["interval"], time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(interval)
        status, text = Http().call(
            "POST",
            base + "/oauth/token",
            form={"grant_type": DEVICE_GRANT, "device_code": grant["device_code"], "client_id": "ltm-cli"},
        )
        answer = json.loads(text)
        if status == 200:
            return answer["access_token"]
        if answer.get("error") == "slow_down":
            interval += 5
        check(answer.get("error") in ("authorization_pending", "slow_down"), f"/oauth/token answered {text}")
    raise Failed("no token before the deadline")


def start_device_flow(base):
    return Http().expect(
        200, "POST", base + "/oauth/authorize_device", form={"client_id": "ltm-cli", "scope": "read write"}
    )


class Journey:
    def __init__(self, stack: Stack, celery_app):
        self.stack, self.celery = stack, celery_app
        self.a, self.b = stack.web_urls
        self.api = None  # Http with alice's personal token
        self.packet = None
        self.redis_restart = None  # the redis-server command line while Redis is stopped by us

    # --- the steps, in order; each returns a short note for the report

    def start_the_stack(self):
        self.stack.create_database()
        redis.Redis.from_url(self.stack.redis_url).flushdb()  # the stack's own database: fresh counts
        self.stack.release()
        for process in ("web", "worker", "beat"):
            self.stack.start(process)
        self.stack.wait_for_web()
        self.wait_for_worker()
        return f"web.1 {self.a}, web.2 {self.b}, worker, beat"

    def token_auth(self):
        with ThreadPoolExecutor() as pool:  # three Django start-ups at once
            list(
                pool.map(
                    lambda name: self.stack.manage("ltm_user", name, "--password", PASSWORD), ("alice", "bob", "carol")
                )
            )
        self.api = Http(self.stack.manage("ltm_token", "alice", "--name", "stack-check"))
        self.api.expect(200, "GET", self.a + "/v1/packets?limit=1")
        Http(token="ltm_not-a-token").expect(401, "GET", self.a + "/v1/packets?limit=1")
        return "ltm_user + ltm_token; a wrong token gets 401"

    def push_list_pull(self):
        self.packet = new_packet()
        check(
            self.api.expect(201, "POST", self.a + "/v1/packets", body=self.packet) == {"id": self.packet["id"]},
            "push answered another id",
        )
        listed = self.api.expect(200, "GET", self.b + "/v1/packets?limit=5")["packets"]
        check([p["id"] for p in listed] == [self.packet["id"]], f"list: {listed}")
        pulled = self.api.expect(200, "GET", self.a + f"/v1/packets/{self.packet['id']}")
        check(pulled["goal"] == self.packet["goal"] and pulled["next_step"] == self.packet["next_step"], "pull")
        return "pushed on web.1, listed on web.2, pulled on web.1"

    def publish(self):
        published = self.api.expect(200, "POST", self.a + f"/v1/packets/{self.packet['id']}/publish")
        page = Http().expect(200, "GET", published["public_url"])
        check(self.packet["goal"] in page, "the public page does not show the goal")
        check(Http().expect(200, "GET", published["public_url"] + ".json")["id"] == self.packet["id"], "page .json")
        return published["public_url"]

    def server_limits(self):
        """What granian refuses before the hub sees it answers with the statuses the OpenAPI
        description lists on every operation (core/openapi.py)."""
        documented = Http().expect(200, "GET", self.a + "/v1/openapi.json")["paths"]["/v1/packets"]["get"]["responses"]
        status, _ = self.api.call("GET", self.a + "/v1/packets?limit=" + "9" * 70_000)
        check(status == 414 and "414" in documented, f"a 70,000-byte query answered {status}")
        request = urllib.request.Request(self.a + "/v1/healthz", headers={f"X-Pad-{n}": "x" for n in range(120)})
        try:
            urllib.request.urlopen(request, timeout=15).close()
            status = 200
        except urllib.error.HTTPError as error:
            status = error.code
        check(status == 431 and "431" in documented, f"120 extra headers answered {status}")
        return "a 70,000-byte query: 414; 120 extra headers: 431; both described"

    def mcp_tool_call(self):
        """The hub's MCP endpoint on web.2, served by the same WSGI worker as /v1."""

        def post(token):
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "ls", "arguments": {"limit": 5}},
            }
            headers = {
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            }
            if token:
                headers["Authorization"] = f"Bearer {token}"
            request = urllib.request.Request(self.b + "/mcp", data=json.dumps(body).encode(), headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=15) as response:
                    # the headers themselves, whose names match in any case: granian sends them lowercase
                    return response.status, response.headers, json.loads(response.read())
            except urllib.error.HTTPError as error:
                return error.code, error.headers, error.read().decode("utf-8", "replace")

        status, headers, answer = post(None)
        check(
            status == 401 and "resource_metadata=" in headers.get("WWW-Authenticate", ""),
            f"POST /mcp without a token answered {status} {headers.get('WWW-Authenticate')}",
        )
        status, _, answer = post(self.api.token)
        check(status == 200, f"POST /mcp answered {status}: {str(answer)[:300]}")
        result = answer["result"]
        check(not result.get("isError") and self.packet["id"] in result["content"][0]["text"], f"ls tool: {result}")
        return "tools/call ls on web.2 lists the packet; no token: 401 with resource_metadata"

    def device_flow_in_chromium(self):
        from playwright.sync_api import sync_playwright

        from tests.e2e.conftest import CHROMIUM_FLAGS, _chromium_path

        executable = _chromium_path()
        check(executable, "Chromium not found (install it, or set LTM_CHROMIUM)")
        grant = start_device_flow(self.a)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_FLAGS)
            try:
                page = browser.new_page()
                page.set_default_timeout(15_000)
                page.goto(grant["verification_uri_complete"])
                page.fill("#id_login", "alice")
                page.fill("#id_password", PASSWORD)
                page.click("button[type=submit]")
                shown = page.locator(".device-code").inner_text()
                check(shown.replace("-", "") == grant["user_code"], f"the page shows {shown}")
                page.click("button[value=approve]")
                page.wait_for_url("**/device/done/approved")
            finally:
                browser.close()
        device = Http(poll_for_token(self.a, grant))
        check(
            device.expect(200, "GET", self.b + "/v1/packets?limit=1")["packets"][0]["id"] == self.packet["id"],
            "the device token does not list alice's packet",
        )
        return "signed in, code compared, approved in Chromium; the polled token reads"

    def team_invite(self):
        self.api.expect(201, "POST", self.a + "/v1/teams", body={"name": "stack-check"})
        team_packet = new_packet("team work")
        self.api.expect(201, "POST", self.a + "/v1/packets?team=stack-check", body=team_packet)
        invite = self.api.expect(201, "POST", self.a + "/v1/teams/stack-check/invites", body={})
        joined = Http().expect(201, "POST", invite["url"] + "/accept", body={"display": "Dana"})
        newcomer = Http(joined["token"])
        listed = newcomer.expect(200, "GET", self.b + "/v1/packets?team=stack-check")["packets"]
        check([p["id"] for p in listed] == [team_packet["id"]], f"the new member lists {listed}")
        Http().expect(410, "POST", invite["url"] + "/accept", body={})
        return "anonymous accept made an account and a token; the code works once"

    def conformance(self):
        """`ltm conformance` with alice's token and one of bob's, and 2,000 hostile requests: every
        check passes but those only a person at a browser can make happen, and those of a secret
        scan that refuses (the stack flags, the hub's default)."""
        bob = self.stack.manage("ltm_token", "bob", "--name", "conformance")
        report = self.stack.log_dir / "conformance.json"
        command = [sys.executable, "-m", "ltm", "conformance", self.a, "--token", self.api.token, "--token2", bob]
        command += ["--fuzz", str(CONFORMANCE_FUZZ), "--format", "json", "-o", str(report)]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240)
        lines = done.stdout.strip().splitlines()
        check(done.returncode == 0, "\n".join([*lines[-60:], done.stderr[-2000:]]))
        checks = json.loads(report.read_text())["checks"]
        skipped = {c["name"]: c["detail"] for c in checks if c["outcome"] == "skip"}
        expected = ("needs a person", "waiting out", "does not offer a secret scan that refuses")
        check(all(any(reason in why for reason in expected) for why in skipped.values()), f"skipped: {skipped}")
        seed = next(line for line in lines if line.startswith("fuzz:")).split("(")[0]
        return f"{lines[-1]}; {seed.strip()}"

    def two_web_processes(self):
        # A device code minted on web.1, approved on web.2 with a session signed in on web.1,
        # polled on web.2.
        grant = start_device_flow(self.a)
        person = Http()
        person.sign_in(self.a, "bob")
        page = person.expect(200, "GET", self.b + "/device?user_code=" + grant["user_code"])
        person.expect(
            302,
            "POST",
            self.b + "/device/decide",
            form={"csrfmiddlewaretoken": csrf(page), "user_code": grant["user_code"], "action": "approve"},
        )
        Http(poll_for_token(self.b, grant)).expect(200, "GET", self.a + "/v1/packets")
        # Wrong codes, alternating: 5 on each process, 10 in all, the per-account limit. Only a
        # count shared through Redis refuses the next entry, on either process.
        guesser = Http()
        guesser.sign_in(self.b, "carol")
        for attempt in range(10):
            code = "".join(random.choices(USER_CODE_LETTERS, k=8))
            status, _ = guesser.call("GET", (self.a, self.b)[attempt % 2] + "/device?user_code=" + code)
            check(status == 400, f"wrong code {attempt + 1} answered {status}")
        for base in (self.a, self.b):
            status, _ = guesser.call("GET", base + "/device?user_code=BCDFGHJK")
            check(status == 429, f"the 11th wrong code answered {status} on {base}")
        return "code minted on web.1, polled on web.2; session from web.1 used on web.2; 10 wrong codes (5+5) -> 429 on both"

    def worker_killed(self):
        self.stack.kill("worker")
        check(not self.celery.control.ping(timeout=1), "a worker still answers")
        packet = new_packet("while the worker is dead")
        self.api.expect(201, "POST", self.a + "/v1/packets", body=packet)
        self.api.expect(200, "GET", self.b + f"/v1/packets/{packet['id']}")
        grant = expired_grant()
        self.celery.send_task("accounts.tasks.purge_expired_oauth")
        time.sleep(2)
        check(grant_exists(grant), "the purge ran with no worker")
        started = time.monotonic()
        self.stack.start("worker")
        wait_until(lambda: not grant_exists(grant), 90, "the restarted worker did not purge the expired grant")
        return (
            f"push/pull OK while dead; the purge sent meanwhile ran {time.monotonic() - started:.1f}s after the restart"
        )

    def redis_stopped(self):
        self.stop_redis()
        try:
            packet = new_packet("while Redis is down")
            started = time.monotonic()
            self.api.expect(201, "POST", self.a + "/v1/packets", body=packet)
            self.api.expect(200, "GET", self.b + f"/v1/packets/{packet['id']}")
            self.api.expect(200, "GET", self.a + "/v1/packets?limit=5")
            person = Http()
            person.sign_in(self.b, "bob")
            check(
                "/accounts/logout/" in person.expect(200, "GET", self.b + "/"),
                "signed in, the dashboard does not say so",
            )
            start_device_flow(self.a)
            took = time.monotonic() - started
            for base in (self.a, self.b):
                check(
                    Http().expect(503, "GET", base + "/v1/readyz")["cache"] == "unavailable",
                    "readyz does not blame the cache",
                )
        finally:
            self.start_redis()
        for base in (self.a, self.b):  # the same processes: they reconnect by themselves
            wait_until(lambda: Http().call("GET", base + "/v1/readyz")[0] == 200, 30, f"{base}/v1/readyz stays 503")
        grant = expired_grant()
        self.celery.send_task("accounts.tasks.purge_expired_oauth")
        wait_until(lambda: not grant_exists(grant), 90, "after Redis came back, the worker does not take tasks")
        for process in ("web", "worker", "beat"):
            check(self.stack.honchos[process].poll() is None, f"{process} exited during the Redis outage")
        return f"API, sign-in and device flow worked ({took:.1f}s in all), readyz 503; after: readyz 200, tasks run, nothing restarted"

    # --- helpers

    def wait_for_worker(self):
        wait_until(lambda: self.celery.control.ping(timeout=1), 90, "the worker did not answer a ping")

    def stop_redis(self):
        server = redis.Redis.from_url(self.stack.redis_url)
        options = {name: server.config_get(name)[name] for name in REDIS_OPTIONS}
        # A Redis in the foreground belongs to a supervisor (systemd, a container): not ours to stop.
        check(options["daemonize"] == "yes", "Redis runs under a supervisor; this check only stops a daemonized one")
        command = [shutil.which("redis-server") or "redis-server"]
        for name, value in options.items():
            command += [f"--{name}", *(value.split() if name == "bind" else [value])]
        self.redis_restart = command
        server.shutdown(nosave=True)
        wait_until(lambda: not _redis_answers(server), 10, "Redis did not stop")

    def start_redis(self):
        if self.redis_restart:
            subprocess.run(self.redis_restart, check=True, timeout=30)
            self.redis_restart = None
            wait_until(lambda: _redis_answers(redis.Redis.from_url(self.stack.redis_url)), 30, "Redis did not start")


def _redis_answers(server):
    try:
        return server.ping()
    except redis.RedisError:
        return False


def expired_grant():
    from django.utils import timezone
    from oauth2_provider.models import get_device_grant_model

    code = "".join(random.choices(USER_CODE_LETTERS, k=8))
    return get_device_grant_model().objects.create(
        client_id="ltm-cli",
        device_code=f"stack-check-{code}",
        user_code=code,
        scope="read write",
        expires=timezone.now() - timedelta(minutes=1),
    )


def grant_exists(grant):
    return type(grant).objects.filter(pk=grant.pk).exists()


def wait_until(condition, seconds, message):
    deadline = time.monotonic() + seconds
    while not condition():
        check(time.monotonic() < deadline, message)
        time.sleep(0.5)


class _OutOfTime(Exception):
    pass


def _out_of_time(signum, frame):
    raise _OutOfTime("the stack check ran out of time")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/ltm_stack",
        help="dropped and created again; its name must start with ltm_stack",
    )
    parser.add_argument("--redis-url", default=os.environ.get("LTM_STACK_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--timeout", type=int, default=420, help="seconds for the whole check")
    args = parser.parse_args()

    log_dir = Path(tempfile.mkdtemp(prefix="ltm-stack-check-"))
    stack = Stack(database_url=args.database_url, redis_url=args.redis_url, web_processes=2, log_dir=log_dir)
    # This process reads the stack's database and sends it tasks, with the stack's settings.
    os.environ.update(stack.env)
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the ORM next to Playwright's loop
    import django

    django.setup()
    from hub.celery import app

    journey = Journey(stack, app)
    steps = [
        journey.start_the_stack,
        journey.token_auth,
        journey.push_list_pull,
        journey.publish,
        journey.server_limits,
        journey.mcp_tool_call,
        journey.device_flow_in_chromium,
        journey.team_invite,
        journey.conformance,
        journey.two_web_processes,
        journey.worker_killed,
        journey.redis_stopped,
    ]
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.alarm(args.timeout)
    began, failed = time.monotonic(), False
    print(f"stack check: honcho + Procfile, production settings, logs in {log_dir}", flush=True)
    try:
        for step in steps:
            started = time.monotonic()
            name = step.__name__.replace("_", " ")
            try:
                note = step()
            except Exception as error:  # a step's failure is reported, then everything stops
                print(
                    f"FAIL  {name:<26}{time.monotonic() - started:6.1f}s  {type(error).__name__}: {error}", flush=True
                )
                failed = True
                break
            print(f"PASS  {name:<26}{time.monotonic() - started:6.1f}s  {note}", flush=True)
    finally:
        signal.alarm(0)
        journey.start_redis()  # when a failure came while Redis was stopped
        stack.stop()
    if failed:
        for process in ("release", "web", "worker", "beat"):
            print(f"--- the end of {process}'s log\n{stack.log(process)}")
    print(f"{'FAIL' if failed else 'PASS'}  stack check, {time.monotonic() - began:.1f}s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
