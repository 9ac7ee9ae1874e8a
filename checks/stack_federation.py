"""A step for the stack check (checks/stack_check.py, through stack_ops.Operations): two stacks
that share a packet across them (docs/federation.md).

The second stack, "the peer", has its own database (named from the first's), ports, Redis
database and key. Its database is made and migrated while the first stack starts (prepare); its
web process and Celery worker start in this step and stop at its end (and with the first stack in
any case). Both run with LTM_FEDERATION=allowlist, each listing the other as its peer, over plain
http on loopback (LTM_FEDERATION_ALLOW_HOSTS, the development setting).
Alice on the first stack shares a packet with bob on the peer: the share reaches `delivered`
through the first stack's worker; bob pulls it as pushed, his inbox names alice on the first hub
and the packet's page says it is verified; a re-push reaches him as an update; a withdraw takes it
away (404).
"""

import time
import urllib.parse

import redis
from stack import Stack, free_ports
from stack_http import PASSWORD, Http, check, new_packet, wait_until

DELIVERY_WAIT = 30  # seconds a message may take to reach the peer through the worker


def peer_database_url(url: str) -> str:
    """The peer's database beside the first stack's: `<name>_peer` (a SQLite file's name too)."""
    address, mark, query = url.partition("?")
    folder, _, name = address.rpartition("/")
    stem, dot, suffix = name.partition(".")
    return f"{folder}/{stem}_peer{dot}{suffix}{mark}{query}"


def peer_redis_url(url: str) -> str:
    """The Redis database after the first stack's (its queue and counts meet none of the first's)."""
    parts = urllib.parse.urlsplit(url)
    number = int(parts.path.lstrip("/") or 0)
    return parts._replace(path=f"/{(number + 1) % 16}").geturl()


def peer_stack(first: Stack, *, redis_url: str | None = None) -> Stack:
    """A stack beside `first` (not started): one web process, no proxy, on ports `first` does not use."""
    taken = {first.proxy_port, *range(first.port, first.port + first.web_processes)}
    log_dir = first.log_dir / "peer"
    log_dir.mkdir()
    peer = Stack(
        database_url=peer_database_url(first.database_url),
        redis_url=redis_url or peer_redis_url(first.redis_url),
        log_dir=log_dir,
    )
    while peer.port in taken:
        peer.port = free_ports(1)
    return peer


def federate(first: Stack, peer: Stack) -> None:
    """Give each stack a key of its own and the other as its only peer, before either starts. The
    first stack's public URL is its first web process's, the one its other steps call."""
    from federation.keys import new_key_pem

    urls = {first: first.web_urls[0], peer: peer.web_urls[0]}
    for stack, other in ((first, peer), (peer, first)):
        stack.env.update(
            {
                "LTM_EXTERNAL_URL": urls[stack],
                "LTM_FEDERATION": "allowlist",
                "LTM_FEDERATION_PEERS": urls[other],
                "LTM_FEDERATION_ALLOW_HOSTS": "127.0.0.1",
                "LTM_HUB_KEY": new_key_pem(),
            }
        )


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc


def prepare(peer: Stack) -> str:
    """The peer's database, migrated, with bob in it (while the first stack starts); his token."""
    peer.create_database()
    redis.Redis.from_url(peer.redis_url).flushdb()
    peer.release(collect_static=False)  # the first stack collects the same files
    peer.manage("ltm_user", "bob", "--password", PASSWORD)
    return peer.manage("ltm_token", "bob", "--name", "stack-check")


def shared_across_hubs(journey) -> str:
    """The step; `journey` holds both stacks (`stack`, `peer`, prepared: `peer_token` is bob's),
    alice's client (`api`) and the first stack's web process the peer knows it by (`a`)."""
    peer, started = journey.peer, time.monotonic()
    try:
        for process in ("web", "worker"):
            peer.start(process)
        peer.wait_for_web()
        up = time.monotonic() - started
        return f"peer up in {up:.1f}s; " + _exchange(journey, Http(journey.peer_token))
    finally:
        peer.stop()


def _exchange(journey, bob: Http) -> str:
    api, a, b = journey.api, journey.a, journey.peer.web_urls[0]
    packet = new_packet("shared across two stacks")
    api.expect(201, "POST", a + "/v1/packets", body=packet)
    sent = time.monotonic()
    answer = api.expect(202, "POST", a + f"/v1/packets/{packet['id']}/shares", body={"to": f"bob@{_host(b)}"})
    share = answer["share"]
    check(share["state"] == "pending", f"the share answered {share}")

    def listed():
        shares = api.expect(200, "GET", a + "/v1/shares?direction=out")["shares"]
        return next(item for item in shares if item["id"] == share["id"])

    deadline = time.monotonic() + DELIVERY_WAIT
    while (state := listed())["state"] == "pending" and time.monotonic() < deadline:
        time.sleep(0.2)
    check(state["state"] == "delivered", f"the share did not reach the peer (its reason says why): {state}")
    delivered = time.monotonic() - sent

    pulled = bob.expect(200, "GET", b + f"/v1/packets/{packet['id']}")
    check(pulled == packet, f"bob pulled {pulled}, not the packet alice pushed")
    inbox = bob.expect(200, "GET", b + "/v1/shares")["shares"]
    senders = [item["from"]["display"] for item in inbox if item["packet_id"] == packet["id"]]
    check(senders == [f"alice@{_host(a)}"], f"bob's inbox names {senders}")
    person = Http()
    person.sign_in(b, "bob")
    page = person.expect(200, "GET", b + f"/packets/{packet['id']}")
    check(f"from {_host(a)}, verified" in page, "the packet's page on the peer does not say where it came from")

    changed = {**packet, "goal": "shared across two stacks, pushed again"}
    api.expect(201, "POST", a + "/v1/packets", body=changed)
    pushed = time.monotonic()

    def bob_reads(goal):
        return bob.expect(200, "GET", b + f"/v1/packets/{packet['id']}")["goal"] == goal

    wait_until(lambda: bob_reads(changed["goal"]), DELIVERY_WAIT, "the re-push did not reach the peer")
    updated = time.monotonic() - pushed

    api.expect(204, "DELETE", a + f"/v1/shares/{share['id']}")
    withdrawn = time.monotonic()

    def gone():
        return bob.call("GET", b + f"/v1/packets/{packet['id']}")[0] == 404

    wait_until(gone, DELIVERY_WAIT, "the withdrawn packet is still read on the peer")
    return (
        f"delivered through the worker in {delivered:.1f}s; bob pulled it, from alice@{_host(a)}, verified; "
        f"the re-push there in {updated:.1f}s; withdrawn: 404 in {time.monotonic() - withdrawn:.1f}s"
    )
