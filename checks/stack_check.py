"""The production stack, started as `make stack` starts it and used as strangers would use it.

Starts the Procfile's processes under honcho (production settings, plain http on loopback, a
fresh PostgreSQL database, the machine's Redis): the release step, two web processes on two
ports, the proxy (nginx) in front of both, a Celery worker and beat. Then a journey through it
(its first steps in checks/stack_journey.py):
token auth, push, list, pull, publish, the web server's size limits, the proxy's (a pull through
it, a body over its limit, and more slow senders than there are web workers, from
checks/slow_clients.py), a tool call on the MCP endpoint, a device-flow sign-in approved in
Chromium, a team invite accepted anonymously, `ltm conformance` with two accounts and 2,000
hostile requests (its report: conformance.json in the logs folder); state shared by the two web
processes (a device code, the wrong-code limit, a session); readiness, and metrics that add up
both web processes; a second stack, and a packet shared, updated and withdrawn across the two
(checks/stack_federation.py); a backup restored into an empty database; the worker killed while
tasks are sent; Redis stopped and started again (checks/stack_outages.py). Most steps go to each web
process directly, to tell them apart. Prints PASS or FAIL and the time of each step, exits 1 on any failure, and
stops everything it started, even on failure or timeout.

    python checks/stack_check.py                       # as CI runs it (.ci/run)
    python checks/stack_check.py --database-url postgres://postgres@127.0.0.1:5432/ltm_stack
    python checks/stack_check.py --only federation     # start the stack, sign alice in, then that step

The Redis step stops the machine's Redis server (`SHUTDOWN NOSAVE`) for a few seconds and starts
it again with the options it was running with: run it where nobody else needs Redis meanwhile.
"""

import argparse
import os
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis
import stack_federation
from stack import DEFAULT_REDIS_URL, ROOT, Stack
from stack_journey import FirstSteps
from stack_ops import Operations
from stack_outages import Outages

sys.path.insert(0, str(ROOT))


class Journey(FirstSteps, Outages, Operations):
    def __init__(self, stack: Stack, celery_app, peer: Stack):
        self.stack, self.celery, self.peer = stack, celery_app, peer
        self.a, self.b = stack.web_urls
        self.peer_token = None  # bob's on the peer

    # --- the steps, in order; each returns a short note for the report

    def start_the_stack(self):
        with ThreadPoolExecutor() as pool:  # meanwhile, the federation step's second stack gets its database
            peer = pool.submit(stack_federation.prepare, self.peer)
            self.stack.create_database()
            redis.Redis.from_url(self.stack.redis_url).flushdb()  # the stack's own database: fresh counts
            self.stack.release()
            self.peer_token = peer.result()
        for process in ("web", "proxy", "worker", "beat"):
            self.stack.start(process)
        self.stack.wait_for_web()
        self.wait_for_worker()
        return f"web.1 {self.a}, web.2 {self.b}, proxy {self.stack.proxy_url}, worker, beat"


def _only(parser, steps, names: str) -> list:
    """The steps named (spaces or underscores), after the two every other step needs."""
    wanted = {name.strip().replace(" ", "_") for name in names.split(",") if name.strip()}
    known = [step.__name__ for step in steps]
    if unknown := wanted - set(known):
        parser.error(f"no step {', '.join(sorted(unknown))}; the steps: {', '.join(known)}")
    return steps[:2] + [step for step in steps[2:] if step.__name__ in wanted]


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
    parser.add_argument(
        "--peer-redis-url", help="the second stack's (the federation step's); default: the next database number"
    )
    parser.add_argument(
        "--only",
        metavar="STEP[,STEP]",
        help="run only these steps (e.g. federation), after starting the stack and signing alice in",
    )
    parser.add_argument("--timeout", type=int, default=540, help="seconds for the whole check")
    args = parser.parse_args()

    log_dir = Path(tempfile.mkdtemp(prefix="ltm-stack-check-"))
    stack = Stack(
        database_url=args.database_url, redis_url=args.redis_url, web_processes=2, log_dir=log_dir, proxy=True
    )
    peer = stack_federation.peer_stack(stack, redis_url=args.peer_redis_url)  # the federation step starts it
    stack_federation.federate(stack, peer)
    # This process reads the stack's database and sends it tasks, with the stack's settings.
    os.environ.update(stack.env)
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # the ORM next to Playwright's loop
    import django

    django.setup()
    from hub.celery import app

    journey = Journey(stack, app, peer)
    steps = [
        journey.start_the_stack,
        journey.token_auth,
        journey.push_list_pull,
        journey.publish,
        journey.server_limits,
        journey.proxy_in_front,
        journey.mcp_tool_call,
        journey.device_flow_in_chromium,
        journey.team_invite,
        journey.conformance,
        journey.two_web_processes,
        journey.readiness_and_metrics,
        journey.federation,
        journey.restore_drill,
        journey.webhook_worker_killed_mid_retry,
        journey.worker_killed,
        journey.redis_stopped,
    ]
    if args.only:
        steps = _only(parser, steps, args.only)
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
        peer.stop()
        stack.stop()
    if failed:
        for process in ("release", "web", "proxy", "worker", "beat"):
            print(f"--- the end of {process}'s log\n{stack.log(process)}")
        for process in ("release", "web", "worker"):
            if log := peer.log(process):
                print(f"--- the end of the peer's {process} log\n{log}")
    print(f"{'FAIL' if failed else 'PASS'}  stack check, {time.monotonic() - began:.1f}s in all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
