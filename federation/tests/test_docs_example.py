"""docs/federation.md's example of a signed request is what a hub sends: signing its body again
with RFC 9421's test key at its `created` gives its headers byte for byte (Ed25519 is
deterministic), its signature base, and its packet's signature."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from http_message_signatures import HTTPMessageSigner, algorithms
from http_message_signatures.structures import CaseInsensitiveDict

from federation import keys, signing
from federation.testing import RFC_PRIVATE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "federation.md"
INBOX = "https://hub-b.example/v1/federation/inbox"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(), re.S)


def example():
    [request] = [block for block in blocks("http") if block.startswith("POST /v1/federation/inbox")]
    headers = dict(line.split(": ", 1) for line in request.strip().splitlines()[1:])
    body = next(block for block in blocks("json") if block.startswith('{"type":"share"')).strip().encode()
    created = int(re.search(r"created=(\d+)", headers["Signature-Input"]).group(1))
    return headers, body, datetime.fromtimestamp(created, UTC)


def test_the_example_request_is_signed_as_a_hub_signs_it():
    headers, body, created = example()
    kid, key = keys.key_pair(RFC_PRIVATE.decode())
    signed = signing.signed_headers(url=INBOX, body=body, kid=kid, key=key, created=created)
    assert {name: headers[name] for name in signed} == signed


def test_the_example_signature_base_and_packet_signature_are_the_real_ones():
    headers, body, created = example()
    kid, key = keys.key_pair(RFC_PRIVATE.decode())
    request = signing.Request("POST", INBOX, CaseInsensitiveDict({"Content-Type": "application/json"}))
    prepared = HTTPMessageSigner(signature_algorithm=algorithms.ED25519).prepare(
        request,
        key_id=kid,
        created=created,
        label=signing.LABEL,
        tag=signing.TAG,
        covered_component_ids=signing.COVERED,
        body=body,
    )
    assert prepared.signature_base.decode() + "\n" in blocks("text")
    message = json.loads(body)
    assert message["packet_signature"] == keys.packet_sign(message["packet"], RFC_PRIVATE.decode())
    assert keys.canonical(message["packet"]).decode() + "\n" in blocks("json")
    assert f'"kid": "{kid}"' in PAGE.read_text()
