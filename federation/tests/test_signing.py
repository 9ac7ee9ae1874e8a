"""The signing parts against their published examples: RFC 9421's Ed25519 example (B.2.6), the
RFC 7638 thumbprint of RFC 8037's key (A.3), and the packet's detached signature over RFC 8785."""

from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives import serialization
from http_message_signatures import HTTPMessageSigner, HTTPMessageVerifier, InvalidSignature, algorithms
from http_message_signatures.resolvers import MappingKeyResolver
from http_message_signatures.structures import CaseInsensitiveDict

from federation import keys, signing
from federation.testing import RFC_PRIVATE, RFC_PUBLIC

B26_INPUT = (
    'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");'
    'created=1618884473;keyid="test-key-ed25519"'
)
B26_SIGNATURE = "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:"
B26_COVERED = ("date", "@method", "@path", "@authority", "content-type", "content-length")


def b26_request() -> signing.Request:
    headers = {
        "Host": "example.com",
        "Date": "Tue, 20 Apr 2021 02:07:55 GMT",
        "Content-Type": "application/json",
        "Content-Digest": "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:",
        "Content-Length": "18",
    }
    return signing.Request("POST", "https://example.com/foo?param=Value&Pet=dog", CaseInsensitiveDict(headers))


def test_the_library_signs_rfc_9421_b26_to_the_same_bytes():
    private = serialization.load_pem_private_key(RFC_PRIVATE, None)
    request = b26_request()
    signer = HTTPMessageSigner(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={}, private_keys={"test-key-ed25519": private}),
    )
    signer.sign(
        request,
        key_id="test-key-ed25519",
        created=datetime.fromtimestamp(1618884473, UTC),
        label="sig-b26",
        include_alg=False,
        covered_component_ids=B26_COVERED,
        use_existing_digest=True,
    )
    assert request.headers["Signature-Input"] == B26_INPUT
    assert request.headers["Signature"] == B26_SIGNATURE


def test_the_library_verifies_rfc_9421_b26_and_refuses_it_changed():
    public = serialization.load_pem_public_key(RFC_PUBLIC)
    verifier = HTTPMessageVerifier(
        signature_algorithm=algorithms.ED25519,
        key_resolver=MappingKeyResolver(public_keys={"test-key-ed25519": public}, private_keys={}),
    )
    request = b26_request()
    request.headers.update({"Signature-Input": B26_INPUT, "Signature": B26_SIGNATURE})
    assert verifier.verify(request, max_age=None)[0].parameters["keyid"] == "test-key-ed25519"
    request.headers["Date"] = "Tue, 20 Apr 2021 02:07:56 GMT"
    with pytest.raises(InvalidSignature):
        verifier.verify(request, max_age=None)


def test_a_key_id_is_its_rfc_7638_thumbprint_rfc_8037_a3():
    public = keys.public_from_jwk({"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"})
    assert keys.jwk(public)["kid"] == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"


def hub_signed(body: bytes, created=None):
    kid, key = keys.key_pair(keys.new_key_pem())
    headers = signing.signed_headers(
        url="https://hub-b.example/v1/federation/inbox", body=body, kid=kid, key=key, created=created
    )
    return kid, key, headers


def test_a_message_is_signed_over_method_target_digest_and_type_and_verifies():
    body = b'{"type":"share"}'
    kid, key, headers = hub_signed(body)
    assert headers["Signature-Input"].startswith('ltm=("@method" "@target-uri" "content-digest" "content-type")')
    assert 'tag="ltm-federation"' in headers["Signature-Input"] and 'alg="ed25519"' in headers["Signature-Input"]
    params = signing.verify(
        url="https://hub-b.example/v1/federation/inbox",
        headers=headers,
        body=body,
        public_key={kid: key.public_key()}.get,
    )
    assert params["keyid"] == kid


@pytest.mark.parametrize(
    "change, said",
    [
        ({"body": b'{"type":"withdraw"}'}, "Content-Digest does not match"),
        ({"url": "https://hub-b.example/v1/federation/inbox?x=1"}, "does not verify"),
        ({"created": datetime.now(UTC) - timedelta(minutes=6)}, "maximum allowable age"),
        ({"key": "other"}, "does not verify"),
    ],
)
def test_a_changed_message_or_an_old_one_is_refused(change, said):
    body = b'{"type":"share"}'
    kid, key, headers = hub_signed(body, created=change.get("created"))
    public = keys.key_pair(keys.new_key_pem())[1].public_key() if "key" in change else key.public_key()
    with pytest.raises(InvalidSignature, match=said):
        signing.verify(
            url=change.get("url", "https://hub-b.example/v1/federation/inbox"),
            headers=headers,
            body=change.get("body", body),
            public_key={kid: public}.get,
        )


def test_the_packet_signature_is_over_its_canonical_json_whatever_the_key_order():
    pem = keys.new_key_pem()
    packet = {"id": "01X", "goal": "é", "n": 1.0, "tags": ["b", "a"]}
    signature = keys.packet_sign(packet, pem)
    public = keys.key_pair(pem)[1].public_key()
    assert keys.packet_signature_valid(dict(reversed(packet.items())), signature, public)
    assert not keys.packet_signature_valid({**packet, "goal": "e"}, signature, public)
    assert keys.canonical(packet) == b'{"goal":"\xc3\xa9","id":"01X","n":1,"tags":["b","a"]}'
