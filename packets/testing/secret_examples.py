"""Made-up secrets for the tests of packets.scan.detect: random strings in each vendor's format,
made with a fixed seed, one sentence per kind, and the scan of a one-field packet."""

import base64
import random
import string

from packets.scan.detect import scan_packet

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


def full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
