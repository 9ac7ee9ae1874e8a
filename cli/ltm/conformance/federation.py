"""The federation checks (an extension, docs/federation.md): a hub and a second one (`--peer`),
each publishing its identity document, the first one's inbox refusing what no key of the sender
signed, and, given an account on each (`--token`, `--peer-token`), a packet shared from the
first to the second end to end: delivered, read there, withdrawn.

Not JSON vectors: the checks cross two servers and wait for the sending hub's worker."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
import urllib.parse

from .runner import Result
from .wire import Exchange, send

GROUP = "federation"
SOURCE = "docs/federation.md"
DELIVERY_WAIT = 60  # seconds the share may take to be delivered


def _spec(section: str, quote: str) -> dict:
    return {"source": SOURCE, "section": section, "quote": quote}


DOCUMENT = _spec("The identity document", "GET /.well-known/ltm-hub, no token, open to any origin and cacheable")
UNSIGNED = _spec("The inbox checks, in order", "the signature ... verifies ... (else 401)")
END_TO_END = _spec("Sharing with a person on another hub", "`delivered` once the other hub took it")


def run(base: str, peer: str, token: str | None, peer_token: str | None, timeout: float) -> list[Result]:
    base, peer = base.rstrip("/"), peer.rstrip("/")
    checks = [
        ("the hub's identity document", DOCUMENT, lambda: _document(base, timeout)),
        ("the second hub's identity document", DOCUMENT, lambda: _document(peer, timeout)),
        ("an unsigned message is refused (401)", UNSIGNED, lambda: _unsigned(base, peer, timeout, signed=False)),
        ("a message no published key signed is refused (401)", UNSIGNED, lambda: _unsigned(base, peer, timeout)),
        ("a share reaches the second hub, is read there and withdrawn", END_TO_END, None),
    ]
    results = []
    for name, spec, check in checks:
        started = time.monotonic()
        if check is None:
            if not (token and peer_token):
                results.append(Result(GROUP, name, "skip", spec, True, "give --token and --peer-token"))
                continue
            check = lambda: _end_to_end(base, peer, token, peer_token, timeout)  # noqa: E731
        problem = check()
        outcome = "fail" if problem else "pass"
        results.append(Result(GROUP, name, outcome, spec, True, problem or "", time.monotonic() - started))
    return results


def _failed(exchange: Exchange, expected: str) -> str:
    return f"{exchange.request_text()}\n-> {exchange.answer_text()}\nexpected: {expected}"


def _document(base: str, timeout: float) -> str | None:
    exchange = send(base + "/.well-known/ltm-hub", "GET", timeout=timeout)
    document = exchange.json()
    if exchange.status != 200 or not isinstance(document, dict):
        return _failed(exchange, "200 and a JSON object")
    missing = [name for name in ("url", "name", "protocol", "software", "inbox", "keys") if name not in document]
    if missing:
        return _failed(exchange, f"the fields {', '.join(missing)}")
    if exchange.header("Access-Control-Allow-Origin") != "*":
        return _failed(exchange, "Access-Control-Allow-Origin: *")
    for key in document["keys"] if isinstance(document["keys"], list) else [None]:
        if not isinstance(key, dict) or key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
            return _failed(exchange, 'each key {"kty": "OKP", "crv": "Ed25519", ...}')
        thumbprint = json.dumps({"crv": "Ed25519", "kty": "OKP", "x": key.get("x")}, separators=(",", ":"))
        expected = base64.urlsafe_b64encode(hashlib.sha256(thumbprint.encode()).digest()).rstrip(b"=").decode()
        if key.get("kid") != expected:
            return _failed(exchange, f"kid {expected} (the key's RFC 7638 thumbprint)")
    return None


def _unsigned(base: str, peer: str, timeout: float, signed: bool = True) -> str | None:
    """A share claiming to come from the second hub, unsigned or signed by no key it publishes."""
    inbox = (send(base + "/.well-known/ltm-hub", "GET", timeout=timeout).json() or {}).get("inbox")
    if not isinstance(inbox, str):
        return f"{base}/.well-known/ltm-hub names no inbox"
    host = urllib.parse.urlsplit(peer).netloc
    body = json.dumps(
        {
            "type": "withdraw",
            "id": secrets.token_hex(12),
            "from": f"conformance@{host}",
            "to": "nobody",
            "note": "",
            "packet_id": "01CONFORMANCE0000000000000",
        }
    ).encode()
    digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
    headers = {"Content-Type": "application/json", "Content-Digest": f"sha-256=:{digest}:"}
    if signed:
        headers["Signature-Input"] = (
            'ltm=("@method" "@target-uri" "content-digest" "content-type");'
            f'created={int(time.time())};keyid="not-a-published-key";alg="ed25519";tag="ltm-federation"'
        )
        headers["Signature"] = f"ltm=:{base64.b64encode(secrets.token_bytes(64)).decode()}:"
    exchange = send(inbox, "POST", headers=headers, body=body, timeout=timeout)
    return None if exchange.status == 401 else _failed(exchange, "401")


def _end_to_end(base: str, peer: str, token: str, peer_token: str, timeout: float) -> str | None:
    def call(server, method, path, bearer, value=None) -> Exchange:
        headers = {"Authorization": f"Bearer {bearer}"}
        body = b""
        if value is not None:
            headers["Content-Type"], body = "application/json", json.dumps(value).encode()
        return send(server + path, method, headers=headers, body=body, timeout=timeout)

    me = call(peer, "GET", "/v1/me", peer_token)
    if me.status != 200:
        return _failed(me, "200 from the second hub's GET /v1/me (--peer-token)")
    packet = {
        "ltm_version": "0.2",
        "id": "01CF" + secrets.token_hex(11).upper(),
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "goal": "A packet the conformance kit shares across hubs.",
        "next_step": "Nothing: it is withdrawn at once.",
    }
    address = f"{me.json()['username']}@{urllib.parse.urlsplit(peer).netloc}"
    try:
        pushed = call(base, "POST", "/v1/packets", token, packet)
        if pushed.status != 201:
            return _failed(pushed, "201")
        shared = call(base, "POST", f"/v1/packets/{packet['id']}/shares", token, {"to": address})
        if shared.status != 202:
            return _failed(shared, f"202 for a share with {address}")
        share_id = shared.json()["share"]["id"]
        deadline, state = time.monotonic() + DELIVERY_WAIT, "pending"
        while state == "pending" and time.monotonic() < deadline:
            listed = call(base, "GET", "/v1/shares?direction=out", token)
            state = next((s["state"] for s in (listed.json() or {}).get("shares", []) if s["id"] == share_id), "gone")
            time.sleep(0.5 if state == "pending" else 0)
        if state != "delivered":
            return _failed(listed, f"the share {share_id} delivered within {DELIVERY_WAIT}s (it is {state})")
        read = call(peer, "GET", f"/v1/packets/{packet['id']}", peer_token)
        if read.status != 200 or read.json() != packet:
            return _failed(read, "200 and the packet as pushed, on the second hub")
        call(base, "DELETE", f"/v1/shares/{share_id}", token)
        deadline = time.monotonic() + DELIVERY_WAIT
        while call(peer, "GET", f"/v1/packets/{packet['id']}", peer_token).status == 200:
            if time.monotonic() > deadline:
                return f"the packet {packet['id']} is still readable on {peer} {DELIVERY_WAIT}s after the withdraw"
            time.sleep(0.5)
        return None
    finally:
        call(base, "DELETE", f"/v1/packets/{packet['id']}", token)
