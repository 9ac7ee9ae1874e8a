"""packets.scan.detect one kind at a time: what it finds, where it says it is, what it leaves alone,
and that a finding never carries the secret. The secrets are random strings in each vendor's format,
made here with a fixed seed."""

import base64
import json
import random
import string
from pathlib import Path

import pytest

from ltm.protocol.redact import CATEGORIES
from packets.scan.detect import Finding, scan_packet
from packets.scan.patterns import CLIENT_KINDS, CLIENT_NEEDLES, CLIENT_WORD_CATEGORIES, KINDS

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "-_"
rng = random.Random(26)


def rand(alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def packet(**fields) -> dict:
    return {"ltm_version": "0.2", "id": "01TESTSECRETSCAN0000000000", "goal": "Ship it", "next_step": "Test", **fields}


def kinds_in(text: str, field: str = "next_step") -> set[str]:
    return {finding.kind for finding in scan_packet(packet(**{field: text}))}


def pem(label: str, der: bytes) -> str:
    body = base64.b64encode(der).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


# (kind, a sentence carrying one such secret)
EXAMPLES = [
    ("aws-access-key", f"export AWS_ACCESS_KEY_ID=AKIA{rand(string.ascii_uppercase + string.digits, 16)}"),
    ("aws-secret-key", f"aws_secret_access_key = {rand(ALNUM + '+/', 40)}"),
    ("github-token", f"GH_TOKEN=ghp_{rand(ALNUM, 36)} gh pr list"),
    ("github-token", f"the fine-grained github_pat_11{rand(ALNUM, 20)}_{rand(ALNUM, 59)} expired"),
    ("gitlab-token", f"curl --header 'PRIVATE-TOKEN: glpat-{rand(B64URL, 20)}'"),
    ("npm-token", f"//registry.npmjs.org/:_authToken=npm_{rand(ALNUM, 36)}"),
    ("pypi-token", f"twine upload -p pypi-AgEIcHlwaS5vcmc{rand(B64URL, 120)}"),
    ("openai-key", f"OPENAI_API_KEY=sk-proj-{rand(B64URL, 74)}T3BlbkFJ{rand(B64URL, 74)}"),
    ("anthropic-key", f"ANTHROPIC_API_KEY=sk-ant-api03-{rand(B64URL, 93)}AA"),
    ("slack-token", f"SLACK_BOT_TOKEN=xoxb-{rand(string.digits, 12)}-{rand(string.digits, 13)}-{rand(ALNUM, 24)}"),
    (
        "slack-webhook",
        f"alerts go to https://hooks.slack.com/services/T{rand('ABCDEFGH0123456789', 8)}/"
        f"B{rand('ABCDEFGH0123456789', 10)}/{rand(ALNUM, 24)}",
    ),
    ("stripe-key", f"STRIPE_SECRET_KEY=sk_live_51{rand(ALNUM, 97)}"),
    ("google-api-key", f"maps load with key=AIzaSy{rand(B64URL, 33)}"),
    ("jwt", f"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.{rand(B64URL, 60)}.{rand(B64URL, 43)}"),
    ("private-key", "the key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU..."),
    ("ssh-public-key", f"authorized_keys has ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(ALNUM, 43)} ops"),
    ("sendgrid-key", f"SENDGRID_API_KEY=SG.{rand(B64URL, 22)}.{rand(B64URL, 43)}"),
    ("huggingface-token", f"HF_TOKEN=hf_{rand(string.ascii_letters, 34)}"),
    ("ltm-token", f"ltm auth hub.acme.io ltm_{rand(B64URL, 42)}7"),
    ("azure-storage-key", f"AccountName=acme;AccountKey={base64.b64encode(rng.randbytes(64)).decode()};"),
    ("database-url", f"DATABASE_URL=postgres://app:{rand(ALNUM, 20)}@db.internal:5432/app"),
    ("database-url", f"redis://:{rand(ALNUM, 20)}@cache:6379/0"),
    ("password-in-url", f"git clone https://deploy:{rand(ALNUM, 18)}@git.acme.io/infra.git"),
    # A dot then a digit: not code reading an attribute (settings.DB_PASSWORD).
    ("password-in-url", f"git clone https://ci:{rand(ALNUM, 18)}.1@git.acme.io/infra.git"),
    ("secret-assignment", f'DB_PASSWORD="{rand(ALNUM, 16)}!"'),
    ("secret-assignment", f"mysql -u root -p{rand(ALNUM, 14)}3 shop"),
    ("secret-assignment", f'{{"client_secret": "{rand(ALNUM, 30)}"}}'),
    ("high-entropy-string", f"the vendor's signing value is {rand(ALNUM, 40)}"),
]


@pytest.mark.parametrize(("kind", "text"), EXAMPLES, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(EXAMPLES)])
def test_each_kind_is_found_and_named(kind, text):
    assert kind in kinds_in(text)


def test_every_kind_has_an_example():
    assert {kind for kind, _ in EXAMPLES} == set(KINDS)


def test_the_path_names_the_field_and_one_finding_per_field_and_kind():
    key = f"AKIA{rand(string.ascii_uppercase, 16)}"
    data = packet(
        decisions=[
            {"what": "Keep it", "why": "Fine", "locked": True},
            {"what": "Rotate", "why": "Fine", "locked": True},
            {"what": "Move", "why": f"{key} leaked twice: {key}", "locked": True},
        ],
        attempts=[{"tried": f"aws s3 ls with {key}", "outcome": "failed", "learned": "Nothing"}],
        success_criteria=["No key in the logs"],
        open_questions=["Who", f"Is {key} still active?"],
    )
    assert scan_packet(data) == [
        Finding("decisions[2].why", "aws-access-key"),
        Finding("attempts[0].tried", "aws-access-key"),
        Finding("open_questions[1]", "aws-access-key"),
    ]


def test_every_string_of_the_packet_is_scanned_and_named_by_its_json_path():
    key = f"AKIA{rand(string.ascii_uppercase, 16)}"
    token = f"ghp_{rand(ALNUM, 36)}"
    data = packet(
        id=token,
        parent_id=token,
        tags=[key],
        project={"name": key, "ref": f"https://x-access-token:{token}@github.com/org/repo"},
        provenance={"author_human": key, "author_model": f"model {token}"},
    )
    data["methods"] = [{"name": key, "when_applicable": "Always", "how": f"use {key}"}]
    data["attempts"] = [{"tried": "a", "outcome": "failed"}] * 2 + [{"tried": "b", "outcome": "failed", "learned": key}]
    # The client's fields first, in its order; then every other string in the packet's order.
    assert scan_packet(data) == [
        Finding("methods[0].how", "aws-access-key"),
        Finding("attempts[2].learned", "aws-access-key"),
        Finding("id", "github-token"),
        Finding("parent_id", "github-token"),
        Finding("tags[0]", "aws-access-key"),
        Finding("project.name", "aws-access-key"),
        Finding("project.ref", "github-token"),
        Finding("provenance.author_human", "aws-access-key"),
        Finding("provenance.author_model", "github-token"),
        Finding("methods[0].name", "aws-access-key"),
    ]


def test_a_random_id_is_not_a_secret():
    """Ids are random by design: the entropy check leaves them alone (a token's format does not)."""
    data = packet(id=rand(ALNUM, 40), parent_id=rand(ALNUM, 64))
    assert scan_packet(data) == []
    assert kinds_in(rand(ALNUM, 40)) == {"high-entropy-string"}  # the same string elsewhere


def test_a_key_that_is_not_a_plain_name_is_not_echoed_in_the_path():
    token = f"ghp_{rand(ALNUM, 36)}"
    assert scan_packet(packet(project={token: token})) == [Finding("project.*", "github-token")]


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


# (how a secret is disguised, the text) for a GitHub token each time.
GH_TOKEN = f"ghp_{rand(ALNUM, 36)}"
DISGUISES = [
    ("percent-encoded", f"https://x-access-token:{GH_TOKEN.replace('_', '%5F')}@github.com/org/repo"),
    ("percent-encoded-all", "".join(f"%{ord(c):02X}" for c in GH_TOKEN)),
    ("soft-hyphen", f"the bot pushes with {GH_TOKEN[:9]}\u00ad{GH_TOKEN[9:]}"),
    ("zero-width-space", f"GH_TOKEN={GH_TOKEN[:5]}\u200b{GH_TOKEN[5:20]}\u200b{GH_TOKEN[20:]}"),
    ("word-joiner", f"token {GH_TOKEN[:12]}\u2060{GH_TOKEN[12:]}"),
    ("full-width", f"the token is {full_width(GH_TOKEN)}"),
    ("base64", f"echo {base64.b64encode(GH_TOKEN.encode()).decode()} | base64 -d"),
    ("base64url", f"cfg {base64.urlsafe_b64encode(('token=' + GH_TOKEN).encode()).decode().rstrip('=')}"),
    (
        "base64-wrapped",
        "blob:\n"
        + "\n".join(base64.b64encode(("GH_TOKEN=" + GH_TOKEN).encode()).decode()[i : i + 20] for i in range(0, 68, 20)),
    ),
    ("hex", f"xxd -r -p <<< {GH_TOKEN.encode().hex()}"),
    ("hex-0x", f"the blob 0x{GH_TOKEN.encode().hex().upper()} in the dump"),
]


@pytest.mark.parametrize(("how", "text"), DISGUISES, ids=[how for how, _ in DISGUISES])
def test_a_disguised_token_is_found_under_its_own_kind(how, text):
    assert "github-token" in kinds_in(text)


def test_other_kinds_are_found_through_a_disguise_too():
    key = f"AKIA{rand(string.ascii_uppercase + string.digits, 16)}"
    password = rand(ALNUM, 14) + "!7"
    assert "aws-access-key" in kinds_in(base64.b64encode(f"AWS_ACCESS_KEY_ID={key}".encode()).decode())
    assert "aws-access-key" in kinds_in(full_width(key))
    assert "database-url" in kinds_in(base64.b64encode(f"postgres://app:{password}@db:5432/app".encode()).decode())
    assert "secret-assignment" in kinds_in(f"PASSWORD%3D{password.replace('!', '%21')}")


@pytest.mark.parametrize(
    "text",
    [
        "The staging admin password is Wx7!pQ2#mRz4",
        "the password for the staging db is Tr0ub4dor&3x",
        "The old passphrase was hunter22xy.",
        "pw: k8Jd!2mQa9",
        "PW=k8Jd!2mQa9 for the router",
        "our api key is 9fK2-xQ7Lm-p4Zt",
        "the secret is now `zQ8#rT5!wY`",
        "The root password was reset to Xk3mPq9zz1 yesterday",
        "password is: Xk3!mPq9zz",
    ],
)
def test_a_password_told_in_prose_is_found(text):
    assert kinds_in(text) == {"secret-assignment"}


def test_the_packet_is_never_altered():
    data = packet(next_step=f"export GH_TOKEN=ghp_{rand(ALNUM, 36)}")
    before = json.dumps(data, sort_keys=True)
    assert scan_packet(data)
    assert json.dumps(data, sort_keys=True) == before


@pytest.mark.parametrize("value", [None, [], "a string", 42])
def test_not_a_packet_has_no_findings(value):
    assert scan_packet(value) == []


def test_odd_field_types_are_skipped():
    assert scan_packet(packet(goal=None, decisions="nope", attempts=[None, 3], constraints=[1, None])) == []


@pytest.mark.parametrize("kind,text", EXAMPLES[:20], ids=[kind for kind, _ in EXAMPLES[:20]])
def test_a_secret_wrapped_over_two_lines_is_found(kind, text):
    word = max(text.split(), key=len)
    cut = len(word) // 2
    for wrap in ("\n", "\n    ", "\\n"):
        assert kind in kinds_in(text.replace(word, word[:cut] + wrap + word[cut:])), wrap


def test_tokens_inside_urls():
    token = f"ghp_{rand(ALNUM, 36)}"
    assert kinds_in(f"https://x-access-token:{token}@github.com/acme/shop.git") == {"github-token"}
    assert kinds_in(f"https://api.acme.io/v2/export?format=csv&token={token}") == {"github-token"}
    assert kinds_in(f"wss://stream.acme.io/events?api_key={rand(ALNUM, 40)}&since=0") == {"secret-assignment"}
    assert kinds_in(f"https://cdn.acme.io/feed/{rand(ALNUM, 40)}/items.json") == {"high-entropy-string"}


def test_a_real_private_key_body_is_found_without_its_header():
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    keys = [
        rsa.generate_private_key(public_exponent=65537, key_size=2048),
        rsa.generate_private_key(public_exponent=65537, key_size=4096),
        ec.generate_private_key(ec.SECP256R1()),
        ec.generate_private_key(ec.SECP384R1()),
        ec.generate_private_key(ec.SECP521R1()),
        ed25519.Ed25519PrivateKey.generate(),
    ]
    formats = [
        (serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        (serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pass phrase")),
        (serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()),
        (serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()),
    ]
    for key in keys:
        for private_format, encryption in formats:
            try:
                text = key.private_bytes(serialization.Encoding.PEM, private_format, encryption).decode()
            except ValueError:
                continue  # no such format for this key type (Ed25519 has no traditional one)
            body = "\n".join(line for line in text.splitlines() if not line.startswith("-----"))
            assert "private-key" in kinds_in(f"pasted from the vault:\n{body}"), (type(key), private_format)
        public = key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        assert kinds_in(f"the service's public key:\n{public.decode()}") == set()


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


@pytest.mark.parametrize(("kind", "text"), EXAMPLES, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(EXAMPLES)])
def test_no_finding_holds_any_part_of_the_secret(kind, text):
    findings = scan_packet(packet(next_step=text, goal=text, open_questions=[text]))
    shown = repr(findings) + str(findings) + json.dumps([finding.as_dict() for finding in findings])
    secret = max(text.split(), key=len)
    assert findings
    assert not [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in shown]
    assert all(finding._fields == ("path", "kind") for finding in findings)


@pytest.mark.parametrize("spelt", ["pw=", "Pass:", "token/", "KEY="])
def test_a_keyword_spelt_by_chance_inside_a_public_key_is_no_finding(spelt):
    """A PEM body is base64, which now and then spells a keyword and a separator."""
    body = f"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAx{spelt}Q7Zk2mN4pR8sT1vW3yB6dF9hJ0lC5eG\nAQAB"
    assert kinds_in(f"the service's public key:\n-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----") == set()
