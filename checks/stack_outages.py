"""The stack check's outages (checks/stack_check.py): the Celery worker killed while tasks are
sent, and the machine's Redis stopped and started again. A mixin of its Journey, which holds the
stack, its Celery app, alice's client (`api`) and the two web processes' URLs (`a`, `b`)."""

import random
import shutil
import subprocess
import time
from datetime import timedelta

import redis
from stack_http import USER_CODE_LETTERS, Http, check, new_packet, start_device_flow, wait_until

# The options the machine starts Redis with; the Redis step restarts it with their running values.
REDIS_OPTIONS = ("daemonize", "bind", "port", "save", "appendonly", "dir", "logfile")


class Outages:
    redis_restart = None  # the redis-server command line while Redis is stopped by us

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
        for process in ("web", "proxy", "worker", "beat"):
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
