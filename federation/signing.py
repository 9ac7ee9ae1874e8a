"""HTTP Message Signatures (RFC 9421) between hubs, by the http-message-signatures library, with
Content-Digest (RFC 9530): each message to an inbox is signed with the hub's Ed25519 key over
@method, @target-uri, content-digest and content-type, with `created`, `keyid` and `alg`, under
the label "ltm" and the tag "ltm-federation"; a receiver takes it within MAX_AGE of `created`."""

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from http_message_signatures import (
    HTTPMessageSigner,
    HTTPMessageVerifier,
    HTTPSignatureKeyResolver,
    InvalidSignature,
    algorithms,
)
from http_message_signatures.exceptions import HTTPMessageSignaturesException
from http_message_signatures.structures import CaseInsensitiveDict

LABEL = "ltm"
TAG = "ltm-federation"
COVERED = ("@method", "@target-uri", "content-digest", "content-type")
MAX_AGE = timedelta(minutes=5)
CONTENT_TYPE = "application/json"


@dataclass
class Request:
    """A request as the library reads it: method, absolute URL, headers."""

    method: str
    url: str
    headers: CaseInsensitiveDict = field(default_factory=CaseInsensitiveDict)


class _Keys(HTTPSignatureKeyResolver):
    def __init__(self, *, private=None, public=None):
        self.private, self.public = private, public

    def resolve_private_key(self, key_id: str):
        return self.private

    def resolve_public_key(self, key_id: str):
        return self.public(key_id)


def signed_headers(*, url: str, body: bytes, kid: str, key, created: datetime | None = None) -> dict:
    """The headers of a POST of `body` to `url` signed with `key` (whose id is `kid`)."""
    request = Request("POST", url, CaseInsensitiveDict({"Content-Type": CONTENT_TYPE}))
    signer = HTTPMessageSigner(signature_algorithm=algorithms.ED25519, key_resolver=_Keys(private=key))
    signer.sign(
        request,
        key_id=kid,
        created=created or datetime.now(UTC),
        label=LABEL,
        tag=TAG,
        covered_component_ids=COVERED,
        body=body,
    )
    return dict(request.headers.items())


class Verifier(HTTPMessageVerifier):
    # A sender's clock a little ahead of this one's is not a forgery.
    max_clock_skew = timedelta(seconds=30)


def verify(*, url: str, headers, body: bytes, public_key) -> dict:
    """Verify a POST of `body` to `url` with `headers` (Signature, Signature-Input,
    Content-Digest, Content-Type); `public_key(kid)` gives the sender's key or None. The signed
    parameters (keyid, created ...); InvalidSignature says what is wrong."""
    request = Request("POST", url, CaseInsensitiveDict(headers))
    verifier = Verifier(signature_algorithm=algorithms.ED25519, key_resolver=_Keys(public=public_key))
    try:
        results = verifier.verify(request, max_age=MAX_AGE, expect_tag=TAG, require_components=COVERED, body=body)
    except (InvalidSignature, HTTPMessageSignaturesException) as exc:
        # A signature that does not verify comes through with no words of its own.
        raise InvalidSignature(str(exc) or "the signature does not verify with the sender's key") from exc
    if request.headers.get("content-type", "").split(";")[0].strip() != CONTENT_TYPE:
        raise InvalidSignature(f"the content type must be {CONTENT_TYPE}")
    return results[0].parameters
