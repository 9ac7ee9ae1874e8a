"""What packets.scan.detect leaves alone (hashes, ids, placeholders, certificates, public keys,
passwords talked about rather than told), and the client's patterns it runs as they are."""

import base64
import json
from pathlib import Path

import pytest

from ltm.protocol.redact import CATEGORIES
from packets.scan.patterns import CLIENT_KINDS, CLIENT_NEEDLES, CLIENT_WORD_CATEGORIES, KINDS
from packets.testing.secret_examples import ALNUM, B64URL, EXAMPLES, kinds_in, pem, rand, rng


@pytest.mark.parametrize(
    "text",
    [
        f"The regression came with {rand('0123456789abcdef', 40)}",
        f"sha256 {rand('0123456789abcdef', 64)} and etag {rand('0123456789abcdef', 32)}",
        f"Packet 01{rand('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24)} and request 8c1f6a2e-4b7d-4c3e-9a1b-2d3e4f5a6b7c",
        f"base64 of plain text: {base64.b64encode(b'Cut the checkout p99 under 300 ms for the holidays').decode()}",
        "The fixture uses AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "TestCheckoutRetryWebhookInvoiceFactory2024Q3 and test_invoice_number_allocation_under_load_v2",
        "src/ledger/checkout_service.py and https://github.com/acme/shop/pull/4512#discussion_r1234567890",
        "Pinned Django==5.2.19, psycopg[binary]==3.3.9 and @types/node@20.11.5",
        f'"integrity": "sha512-{base64.b64encode(rng.randbytes(64)).decode()}"',
        f"go.sum has h1:{base64.b64encode(rng.randbytes(32)).decode()}",
        f"Host key fingerprint SHA256:{base64.b64encode(rng.randbytes(32)).decode().rstrip('=')}",
        "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test and redis://localhost:6379/0",
        "mysql://root:${MYSQL_ROOT_PASSWORD}@db/app and https://user:password@host/",
        "token: ${{ secrets.NPM_TOKEN }}; api_key = os.environ['STRIPE_API_KEY']; max_tokens=4096",
        "password: see the team vault; password=<your password>; token: GITHUB_TOKEN; password: ********",
        "secret_arn: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod-db-AbC1dE",
        f"Design doc: https://docs.google.com/document/d/1{rand(B64URL, 43)}/edit",
        "Tokens start with ghp_ and glpat- and OpenAI keys look like sk-proj-…",
        "mkdir -p build && docker run -p 8080:80 nginx",
        'every bearer entrance: `oauth.authentication`; WWW-Authenticate: Bearer resource_metadata="…"',
        f"Payment pi_{rand(ALNUM, 24)} and nanoid {rand(B64URL, 21)}",
        # Near misses of the disguises: encoded ordinary text, percent-escapes and odd characters in
        # prose, and passwords talked about rather than told.
        f"hex of plain text: {b'Cut the checkout p99 under 300 ms'.hex()}",
        f"config {base64.b64encode(json.dumps({'replicas': 3, 'region': 'eu-west-1'}).encode()).decode()}",
        "https://acme.io/search?q=checkout%20retry%2Fwebhook&page=2 and 95% of the 401s",
        "Ｔｈｅ ｃｈｅｃｋｏｕｔ ｐ９９ is 300 ms; the re\u00adtry\u200b loop; ﬁx the ½ done",
        "https://deploy@git.acme.io/platform/infra.git and ssh://git@git.acme.io:2222/infra.git",
        "The password is stored in the vault and the token is rotated every 90 days",
        "The password is at least 12 characters; the secret is base64-encoded in the manifest",
        "The password was changed on 2026-03-01; the token is valid for 3600 seconds",
        "the pw: see the vault; the password for prod is in 1Password",
        "the token is sha256-hashed",  # the last words of a field, followed by the packet's id
        "The bypass is 4everAndEver for now",
        "password=settings.DB_PASSWORD and token: self.api_token",
    ],
)
def test_look_alikes_are_left_alone(text):
    assert kinds_in(text) == set()


def test_a_certificate_is_left_alone_even_wrapped():
    der = bytes.fromhex("308203a130820289a003020102021400") + rng.randbytes(900)
    assert kinds_in(f"The proxy serves:\n{pem('CERTIFICATE', der)}") == set()


def test_a_machine_path_is_the_clients_business():
    assert "abs-path" in {category for category in CATEGORIES}
    assert kinds_in("Logs are in /var/log/app/worker.log and /home/dev/.cache") == set()


def test_every_client_category_is_scanned():
    """The client's patterns run as they are; a category added there is scanned here under its own name."""
    assert {CLIENT_KINDS.get(category, category) for category in CATEGORIES if category != "abs-path"} <= set(KINDS)


@pytest.mark.parametrize("category", sorted(CLIENT_NEEDLES))
def test_each_client_needle_is_in_every_match_of_its_pattern(category):
    """A category's pattern runs only when one of its needles is in the text, so each match must hold one."""
    corpus = (Path(__file__).resolve().parent / "secret_corpus" / "secrets.jsonl").read_text()
    samples = [text for _, text in EXAMPLES] + [json.loads(line)["secret"] for line in corpus.splitlines()]
    matches = [m.group() for text in samples for m in CATEGORIES[category].finditer(text)]
    assert matches, category
    for match in matches:
        assert any(needle in match.lower() for needle in CLIENT_NEEDLES[category]), match[:12]


@pytest.mark.parametrize("category", sorted(CLIENT_WORD_CATEGORIES))
def test_word_categories_never_match_whitespace(category):
    """Those patterns run over the long words of a packet only: none may need a space inside a match."""
    source = CATEGORIES[category].pattern
    assert not any(construct in source for construct in ("\\s", " ", "[^", "\\S", "\\W", "\\D")), source


@pytest.mark.parametrize("spelt", ["pw=", "Pass:", "token/", "KEY="])
def test_a_keyword_spelt_by_chance_inside_a_public_key_is_no_finding(spelt):
    """A PEM body is base64, which now and then spells a keyword and a separator."""
    body = f"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx{spelt}Q7Zk2mN4pR8sT1vW3yB6dF9hJ0lC5eG\nAQAB"
    assert kinds_in(f"the service's public key:\n-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----") == set()
