"""Writes the fixed corpus of the secret scan's test (run once; the data is committed, so the test
never depends on randomness):

    python packets/tests/secret_corpus/make_secret_corpus.py

secrets.jsonl: one made-up secret a line, in the real format of its kind (random characters from a
seeded generator, never a real key), placed in a realistic packet at a known path; some wrapped
over two lines, some inside a URL; then (a second generator, so the records above never change)
secrets outside the fields the client scans (project, provenance, ids, a third attempt) and
disguised ones (percent-escaped, with invisible characters inside, full-width, in base64 or hex,
or a password told in prose). benign.jsonl: packets with no secret but full of what looks like
one (commit SHAs, ULIDs, UUIDs, digests, base64 of plain text, long identifiers, the example keys
vendors publish, paths, URLs without credentials, versions, placeholders); then packets with a
project, provenance and ids, and the near misses of the disguises.
"""

import base64
import json
import random
import string
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEED = 20261126

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

# The text fields the scan reads, as the packet builder below fills them.
PATHS = [
    "goal",
    "next_step",
    "success_criteria[0]",
    "constraints[0]",
    "constraints[1]",
    "decisions[0].what",
    "decisions[0].why",
    "decisions[1].consequences",
    "methods[0].when_applicable",
    "methods[0].how",
    "attempts[0].tried",
    "attempts[0].learned",
    "attempts[1].tried",
    "attempts[1].learned",
    "open_questions[0]",
]

SUBSYSTEMS = ["checkout", "billing", "search indexer", "deploy pipeline", "auth service", "data export", "mobile API"]
TECHS = ["PostgreSQL", "Redis", "Celery", "Terraform", "GitHub Actions", "Kubernetes", "S3", "nginx", "Sentry"]
GOALS = [
    "Fix the failing nightly {tech} job in the {sub}",
    "Get the {sub} deploy green again after the {tech} upgrade",
    "Find why the {sub} returns 401 from {tech} since Monday",
    "Move the {sub} secrets out of the repository into the vault",
    "Reproduce the flaky integration test of the {sub}",
    "Cut the {sub}'s p99 latency under 300 ms",
]
NEXT = [
    "Re-run the pipeline with verbose logging and compare with the last green run",
    "Write a failing test for the {sub} and open a draft PR",
    "Ask the platform team which {tech} credentials the job should use",
    "Roll the change out to staging and watch the error rate for an hour",
]
CRITERIA = ["The {sub} suite passes three times in a row", "No 401 in the {sub} logs for a day"]
CONSTRAINTS = ["Do not change the public API of the {sub}", "Keep {tech} at the current major version"]
DECISIONS = [
    ("Pin {tech} to the last version that worked", "The upgrade broke the {sub} and we need a green build first"),
    ("Read credentials from the environment only", "Config files end up in backups and screenshots"),
    ("Keep the retry at three attempts", "More retries hid the real failure in the {sub}"),
]
ATTEMPTS = [
    ("Restarted the {sub} workers", "The error came back after ten minutes"),
    ("Cleared the {tech} cache", "Made no difference to the 401s"),
    ("Bisected the last twenty commits", "The regression came with the dependency bump"),
]
QUESTIONS = ["Does the {sub} need its own {tech} user?", "Who owns the {tech} account now?"]


def text(rng, templates):
    return rng.choice(templates).format(sub=rng.choice(SUBSYSTEMS), tech=rng.choice(TECHS))


def base_packet(rng, key):
    """A packet with every field of PATHS filled with ordinary engineering notes."""
    return {
        "ltm_version": "0.2",
        "id": key,
        "goal": text(rng, GOALS),
        "next_step": text(rng, NEXT),
        "success_criteria": [text(rng, CRITERIA)],
        "constraints": [text(rng, CONSTRAINTS), text(rng, CONSTRAINTS)],
        "decisions": [
            {
                "what": w.format(sub="the service", tech="it"),
                "why": y.format(sub="service", tech="it"),
                "consequences": "Revisit once the build is stable",
                "locked": True,
            }
            for w, y in rng.sample(DECISIONS, 2)
        ],
        "methods": [
            {
                "name": "check-the-env",
                "when_applicable": "When a job fails only in CI",
                "how": "Print the job's environment names (never values) and compare with a local run",
            }
        ],
        "attempts": [
            {"tried": t.format(sub="service", tech="Redis"), "outcome": "failed", "learned": lesson.format(tech="it")}
            for t, lesson in rng.sample(ATTEMPTS, 2)
        ],
        "open_questions": [text(rng, QUESTIONS)],
        "tags": ["ci", "debugging"],
    }


def put(packet, path, sentence, rng):
    """Sets or extends the text at path (e.g. `attempts[1].learned`) with sentence."""
    name, _, rest = path.partition("[")
    if not rest:
        target, key = packet, name
    else:
        index, _, key = rest.partition("]")
        target = packet[name]
        key = key.lstrip(".")
        if not key:
            target, key = target, int(index)
        else:
            target = target[int(index)]
    old = target[key]
    target[key] = sentence if rng.random() < 0.4 else f"{old}. {sentence}"


def rand(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def pem_body(rng, prefix_hex, size, wrap=64):
    raw = bytes.fromhex(prefix_hex) + rng.randbytes(size)
    body = base64.b64encode(raw).decode()
    return "\n".join(body[i : i + wrap] for i in range(0, len(body), wrap))


# DER beginnings of real private keys: PKCS#1 RSA, PKCS#8 RSA, SEC1 EC, PKCS#8 EC, Ed25519.
PRIVATE_DER = [
    ("RSA PRIVATE KEY", "308204a40201000282010100", 1180),
    ("PRIVATE KEY", "308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100", 1180),
    ("EC PRIVATE KEY", "30770201010420", 112),
    ("PRIVATE KEY", "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420", 102),
    ("PRIVATE KEY", "302e020100300506032b657004220420", 32),
]


def private_key(rng):
    label, prefix, size = rng.choice(PRIVATE_DER)
    if rng.random() < 0.25:
        openssh = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none".hex()
        return (
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{pem_body(rng, openssh, 380, 70)}\n-----END OPENSSH PRIVATE KEY-----"
        )
    body = pem_body(rng, prefix, size)
    if rng.random() < 0.5:
        # Only the body was pasted (a key copied from a secret manager without its armour): two lines.
        return "\n".join(body.split("\n")[:2])
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"


def jwt(rng):
    header = b64url(json.dumps({"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}).encode())
    claims = {
        "sub": str(rng.randint(10**5, 10**9)),
        "email": f"{rand(rng, LOWER, 6)}@{rng.choice(['acme.io', 'corp.example.net'])}",
        "iat": 1_780_000_000 + rng.randint(0, 10**6),
        "exp": 1_790_000_000 + rng.randint(0, 10**6),
        "scope": rng.choice(["read write", "admin", "billing:read"]),
    }
    return f"{header}.{b64url(json.dumps(claims).encode())}.{b64url(rng.randbytes(32))}"


def password(rng):
    n = rng.randint(14, 24)
    return rand(rng, ALNUM, n - 2) + rng.choice("!#%^&*-_.~") + rng.choice(DIGITS)


def db_url(rng):
    user = rng.choice(["app", "billing_rw", "svc_export", "admin", "reporting"])
    pw = rand(rng, ALNUM, rng.randint(16, 28))
    return rng.choice(
        [
            f"postgres://{user}:{pw}@db-{rand(rng, LOWER, 5)}.internal:5432/app",
            f"postgresql+psycopg://{user}:{pw}@10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}/billing",
            f"mysql://{user}:{pw}@mysql.prod.svc.cluster.local:3306/shop",
            f"mongodb+srv://{user}:{pw}@cluster0.{rand(rng, LOWER + DIGITS, 5)}.mongodb.net/app?retryWrites=true",
            f"redis://:{pw}@cache-{rand(rng, LOWER, 4)}.internal:6379/0",
        ]
    )


def url_password(rng):
    pw = password(rng).replace("#", "%23").replace("^", "%5E").replace("&", "%26")
    user = rng.choice(["deploy", "ci-bot", "jenkins", "oauth2", "builder"])
    return rng.choice(
        [
            f"https://{user}:{pw}@registry.internal.acme.io/v2/",
            f"https://{user}:{pw}@git.acme.io/platform/infra.git",
            f"ftp://{user}:{pw}@files.acme.io/exports/",
            f"amqp://{user}:{pw}@rabbitmq.prod:5672/vhost",
            f"smtp://{user}:{pw}@smtp.mailhost.net:587",
        ]
    )


SECRET_MAKERS = {
    "aws-access-key": lambda rng: rng.choice(["AKIA", "ASIA"]) + rand(rng, UPPER + DIGITS, 16),
    "aws-secret-key": lambda rng: rand(rng, B64, 40),
    "github-token": lambda rng: (
        rng.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + rand(rng, ALNUM, 36)
        if rng.random() < 0.7
        else f"github_pat_11{rand(rng, UPPER + DIGITS, 20)}_{rand(rng, ALNUM, 59)}"
    ),
    "gitlab-token": lambda rng: rng.choice(["glpat-", "glpat-", "gldt-", "glrt-", "GR1348941"]) + rand(rng, B64URL, 20),
    "npm-token": lambda rng: "npm_" + rand(rng, ALNUM, 36),
    "pypi-token": lambda rng: "pypi-AgEIcHlwaS5vcmc" + b64url(rng.randbytes(rng.randint(110, 150))),
    "openai-key": lambda rng: rng.choice(
        [
            "sk-proj-" + rand(rng, B64URL, 74) + "T3BlbkFJ" + rand(rng, B64URL, 74),
            "sk-" + rand(rng, ALNUM, 20) + "T3BlbkFJ" + rand(rng, ALNUM, 20),
            "sk-svcacct-" + rand(rng, B64URL, 74) + "T3BlbkFJ" + rand(rng, B64URL, 74),
        ]
    ),
    "anthropic-key": lambda rng: rng.choice(["sk-ant-api03-", "sk-ant-admin01-"]) + rand(rng, B64URL, 93) + "AA",
    "slack-token": lambda rng: rng.choice(
        [
            f"xoxb-{rand(rng, DIGITS, 12)}-{rand(rng, DIGITS, 13)}-{rand(rng, ALNUM, 24)}",
            f"xoxp-{rand(rng, DIGITS, 12)}-{rand(rng, DIGITS, 12)}-{rand(rng, DIGITS, 13)}-{rand(rng, HEX, 32)}",
        ]
    ),
    "slack-webhook": lambda rng: (
        f"https://hooks.slack.com/services/T{rand(rng, UPPER + DIGITS, 8)}/B{rand(rng, UPPER + DIGITS, 10)}/"
        f"{rand(rng, ALNUM, 24)}"
    ),
    "stripe-key": lambda rng: rng.choice(
        [
            "sk_live_51" + rand(rng, ALNUM, 97),
            "rk_live_" + rand(rng, ALNUM, 24),
            "sk_test_" + rand(rng, ALNUM, 24),
            "whsec_" + rand(rng, ALNUM, 32),
        ]
    ),
    "google-api-key": lambda rng: "AIzaSy" + rand(rng, B64URL, 33),
    "jwt": jwt,
    "private-key": private_key,
    "sendgrid-key": lambda rng: f"SG.{rand(rng, B64URL, 22)}.{rand(rng, B64URL, 43)}",
    "huggingface-token": lambda rng: "hf_" + rand(rng, UPPER + LOWER, 34),
    "ltm-token": lambda rng: "ltm_" + b64url(rng.randbytes(32)),
    "azure-storage-key": lambda rng: base64.b64encode(rng.randbytes(64)).decode(),
    "database-url": db_url,
    "password-in-url": url_password,
    "secret-assignment": password,
    "high-entropy-string": lambda rng: rand(rng, rng.choice([ALNUM, B64, B64URL]), rng.choice([32, 40, 48, 64])),
}

# How a person or an agent writes each kind into a packet; {s} is the secret.
TEMPLATES = {
    "aws-access-key": [
        "Re-ran the upload with AWS_ACCESS_KEY_ID={s} exported and it worked",
        "The failing calls are signed with access key {s}, which IAM shows as the old CI user",
        "aws configure set aws_access_key_id {s} --profile staging",
        '"AccessKeyId": "{s}" came back from sts assume-role',
    ],
    "aws-secret-key": [
        "aws_secret_access_key = {s}",
        "export AWS_SECRET_ACCESS_KEY={s} before running terraform plan",
        'The CI variable AWS_SECRET_ACCESS_KEY: "{s}" was still the rotated one',
    ],
    "github-token": [
        "curl -H 'Authorization: token {s}' https://api.github.com/repos/acme/shop/actions/runs",
        "The release job pushes with {s}, a token of the bot account",
        "GH_TOKEN={s} gh pr list --state open",
    ],
    "gitlab-token": [
        "curl --header 'PRIVATE-TOKEN: {s}' https://gitlab.acme.io/api/v4/projects",
        "The runner registered with {s} but shows as offline",
        "Set the deploy token to {s} in the project's CI variables",
    ],
    "npm-token": [
        "//registry.npmjs.org/:_authToken={s}",
        "npm publish fails with E401 even with NPM_TOKEN={s}",
        "The automation token {s} was created by a user who left",
    ],
    "pypi-token": [
        "twine upload -u __token__ -p {s} dist/*",
        "The trusted publisher is not set up yet, so the job uses {s}",
    ],
    "openai-key": [
        "OPENAI_API_KEY={s} python scripts/summarise.py",
        "The summariser gets 429s with key {s} even at low volume",
    ],
    "anthropic-key": [
        "ANTHROPIC_API_KEY={s} in the worker's environment",
        "The eval harness calls the API with {s}; move it to the secret store",
    ],
    "slack-token": [
        "The alert bot posts with {s} and lost its chat:write scope",
        "SLACK_BOT_TOKEN={s} works locally but not in the cluster",
    ],
    "slack-webhook": [
        "Alerts go to {s} which is the old #ops channel",
        'curl -X POST -d \'{{"text": "deploy done"}}\' {s}',
    ],
    "stripe-key": [
        "The webhook handler was configured with {s} in production",
        "stripe listen --api-key {s} --forward-to localhost:8000/webhooks/stripe",
        "STRIPE_SECRET_KEY={s} is in the old .env.production",
    ],
    "google-api-key": [
        "The maps widget loads with key={s} and the quota is exhausted",
        "GOOGLE_API_KEY={s} is restricted to the wrong referrers",
    ],
    "jwt": [
        "The session cookie holds {s} and the exp claim is already past",
        "curl -H 'Authorization: Bearer {s}' https://api.acme.io/v1/me returns 403",
    ],
    "private-key": [
        "The deploy key that CI uses:\n{s}",
        "Pasted the signing key from the vault to test locally:\n{s}",
        'JWT_PRIVATE_KEY="{s}" in .env.local',
    ],
    "sendgrid-key": [
        "SENDGRID_API_KEY={s} is only allowed to send from the old domain",
        "Mail fails with 403 for key {s}",
    ],
    "huggingface-token": [
        "HF_TOKEN={s} huggingface-cli download acme/classifier",
        "The model pull needs {s} because the repo is gated",
    ],
    "ltm-token": [
        "ltm auth hub.acme.io {s}",
        "The hub rejects {s} with invalid token after the migration",
    ],
    "azure-storage-key": [
        "DefaultEndpointsProtocol=https;AccountName=acmeexports;AccountKey={s};EndpointSuffix=core.windows.net",
        "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={s}",
    ],
    "database-url": [
        "DATABASE_URL={s}",
        "psql {s} -c 'select count(*) from invoices'",
        "The worker connects to {s} and times out",
    ],
    "password-in-url": [
        "git clone {s}",
        "The mirror job pulls from {s} nightly",
        "docker login fails for {s}",
    ],
    "secret-assignment": [
        'DB_PASSWORD="{s}" in the compose override',
        "mysql -u root -p{s} -h 127.0.0.1 shop",
        "client_secret: {s}",
        "The settings file had SECRET_KEY = '{s}' committed",
        "password={s} for the staging admin",
        '"password": "{s}" in the fixture someone committed',
        "PGPASSWORD={s} psql -h db.internal -U app",
        "./manage.py createsuperuser --username ops --password={s}",
        "password: {s}",
    ],
    "high-entropy-string": [
        "The webhook signing value is {s} and it has to match the one in the dashboard",
        "Datadog rejects the agent's key {s} since the org move",
        "The vendor sent {s} by email for the sandbox",
        "Header X-Partner-Auth: {s} is what their support told us to send",
        "Pasted `{s}` into the partner portal and the sync started",
    ],
}

# Kinds that travel inside a URL (as a query parameter or as the password of basic auth).
URL_TEMPLATES = [
    "https://api.acme.io/v2/export?format=csv&token={s}",
    "https://oauth2:{s}@gitlab.acme.io/platform/infra.git",
    "https://x-access-token:{s}@github.com/acme/shop.git",
    "wss://stream.acme.io/events?api_key={s}&since=0",
]
URL_KINDS = {
    "github-token",
    "gitlab-token",
    "npm-token",
    "openai-key",
    "anthropic-key",
    "stripe-key",
    "google-api-key",
    "sendgrid-key",
    "huggingface-token",
    "ltm-token",
    "jwt",
    "aws-access-key",
}
# Kinds written as one token, which a terminal or an editor may wrap.
SPLIT_KINDS = URL_KINDS | {"pypi-token", "slack-token", "aws-secret-key", "high-entropy-string", "azure-storage-key"}


def split(rng, secret):
    """The secret wrapped over two lines at a random place, as a narrow terminal or a paste leaves it."""
    cut = rng.randint(6, len(secret) - 6)
    return secret[:cut] + rng.choice(["\n", "\n  ", "\\n"]) + secret[cut:]


def secret_records(rng):
    records = []
    per_kind = 9
    for kind, make in SECRET_MAKERS.items():
        for n in range(per_kind):
            secret = make(rng)
            form = "plain"
            if kind in URL_KINDS and n % 4 == 1:
                form = "url"
                sentence = f"The job fetches {rng.choice(URL_TEMPLATES).format(s=secret)}"
            else:
                if kind in SPLIT_KINDS and n % 4 == 2:
                    form, secret = "split", split(rng, secret)
                template = rng.choice(TEMPLATES[kind])
                if template.startswith("JWT_PRIVATE_KEY"):
                    secret = secret.replace("\n", "\\n")  # a .env file writes the key on one line
                sentence = template.format(s=secret)
            packet = base_packet(rng, f"01SECRET{len(records):018d}")
            path = rng.choice(PATHS)
            put(packet, path, sentence, rng)
            records.append({"kind": kind, "form": form, "path": path, "secret": secret, "packet": packet})
    return records


# --- Look-alikes: what a packet often holds that is not a secret. -------------------------------

WORDS = ["invoice", "checkout", "retry", "payment", "webhook", "session", "cache", "export", "tenant", "ledger"]


def ulid(rng):
    return "01" + rand(rng, CROCKFORD, 24)


def uuid(rng):
    h = rand(rng, HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def identifier(rng):
    words = rng.sample(WORDS, rng.randint(3, 5))
    style = rng.randrange(4)
    if style == 0:
        return "".join(w.capitalize() for w in words) + rng.choice(["Test", "Handler", "Factory", "2024Q3", "V2"])
    if style == 1:
        return "test_" + "_".join(words) + rng.choice(["", "_v2", "_regression_4512"])
    if style == 2:
        return "com.acme." + ".".join(words[:2]) + "." + "".join(w.capitalize() for w in words[2:]) + "ServiceImpl"
    return "-".join(words) + f"-{rng.randint(1, 99)}"


def plain_base64(rng):
    sentence = text(rng, GOALS + NEXT + CRITERIA)
    encoded = base64.b64encode(sentence.encode()).decode()
    return encoded if rng.random() < 0.7 else encoded.rstrip("=").replace("+", "-").replace("/", "_")


def certificate(rng):
    label = rng.choice(["CERTIFICATE", "PUBLIC KEY"])
    prefix = (
        "308203a130820289a003020102021400"
        if label == "CERTIFICATE"
        else "30820122300d06092a864886f70d01010105000382010f003082010a0282010100"
    )
    size = 900 if label == "CERTIFICATE" else 260
    return f"-----BEGIN {label}-----\n{pem_body(rng, prefix, size)}\n-----END {label}-----"


def stripe_object(rng):
    return rng.choice(["pi_", "cus_", "ch_", "evt_", "sub_", "in_"]) + rand(rng, ALNUM, rng.randint(14, 24))


LOOKALIKES = [
    lambda rng: f"The regression came with commit {rand(rng, HEX, 40)}",
    lambda rng: f"Reverted {rand(rng, HEX, rng.randint(7, 12))} and the build is green",
    lambda rng: (
        f"git log shows:\n{rand(rng, HEX, 7)} Bump deps\n{rand(rng, HEX, 7)} Fix retry\n{rand(rng, HEX, 7)} Merge main"
    ),
    lambda rng: f"Packet {ulid(rng)} continues {ulid(rng)}",
    lambda rng: f"Affected ids:\n{ulid(rng)}\n{ulid(rng)}\n{ulid(rng)}",
    lambda rng: f"The failing request id was {uuid(rng)}",
    lambda rng: f"Tenants {uuid(rng)} and {uuid(rng)} see the old prices",
    lambda rng: f"The artifact's sha256 is {rand(rng, HEX, 64)}",
    lambda rng: f"Pull image ghcr.io/acme/api@sha256:{rand(rng, HEX, 64)}",
    lambda rng: f"ETag {rand(rng, HEX, 32)} does not change after the upload",
    lambda rng: f"The header carries base64 {plain_base64(rng)} which decodes to the job's name",
    lambda rng: f"Test {identifier(rng)} fails on CI only",
    lambda rng: f"Renamed {identifier(rng)} to {identifier(rng)}",
    lambda rng: (
        "The docs' sample AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY are in the fixtures"
    ),
    lambda rng: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in the moto test",
    lambda rng: "The fixture uses Stripe's documented key sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    lambda rng: (
        "jwt.io's sample eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0"
        "IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c decodes fine"
    ),
    lambda rng: "GitHub's docs show ghp_16C7e42F292c6912E7710c838347Ae178B4a as the token format",
    lambda rng: (
        f"The traceback points at src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_service.py line {rng.randint(10, 900)}"
    ),
    lambda rng: f"Logs are in /var/log/{rng.choice(WORDS)}/worker.log on the box",
    lambda rng: (
        f"See https://github.com/acme/shop/pull/{rng.randint(100, 9999)}#discussion_r{rng.randint(10**8, 10**9)}"
    ),
    lambda rng: (
        f"https://app.acme.io/reports?from=2026-01-01&to=2026-02-01&tenant={uuid(rng)}&page={rng.randint(1, 9)}"
    ),
    lambda rng: "git remote set-url origin git@github.com:acme/shop.git",
    lambda rng: "ssh://git@git.acme.io:2222/platform/infra.git is the mirror",
    lambda rng: f"s3://acme-exports/{rng.randint(2020, 2026)}/{rand(rng, HEX, 12)}/part-0000.parquet",
    lambda rng: (
        f"Pinned Django=={rng.randint(3, 5)}.{rng.randint(0, 2)}.{rng.randint(0, 20)} and psycopg[binary]==3.3.9"
    ),
    lambda rng: f"@types/node@20.{rng.randint(1, 19)}.{rng.randint(0, 9)} broke the build",
    lambda rng: f"go get example.com/lib@v0.0.0-2024031215{rng.randint(1000, 9999)}-{rand(rng, HEX, 12)}",
    lambda rng: f'"integrity": "sha512-{base64.b64encode(rng.randbytes(64)).decode()}"',
    lambda rng: f"go.sum has h1:{base64.b64encode(rng.randbytes(32)).decode()} for the module",
    lambda rng: "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app_test in CI",
    lambda rng: "Use postgres://user:password@localhost/db as in the README",
    lambda rng: "redis://localhost:6379/0 and amqp://guest:guest@localhost:5672// locally",
    lambda rng: "DATABASE_URL=postgres://$DB_USER:$DB_PASSWORD@db:5432/app comes from the secret",
    lambda rng: "mysql://root:${MYSQL_ROOT_PASSWORD}@db/app in docker-compose",
    lambda rng: "The API key is read from AWS_SECRET_ACCESS_KEY at start-up",
    lambda rng: "password: see the team vault entry",
    lambda rng: "token: ${{ secrets.NPM_TOKEN }} in the workflow",
    lambda rng: "api_key = os.environ['STRIPE_API_KEY']",
    lambda rng: f"Raised max_tokens={rng.choice([1024, 4096, 8192])} for the summariser",
    lambda rng: "token: GITHUB_TOKEN is enough for the release job",
    lambda rng: "password=<your password> in the template",
    lambda rng: "The login form now says password: ******** in the screenshot",
    lambda rng: "The password must be at least 12 characters and the token expires after 30 days",
    lambda rng: "Classic tokens start with ghp_ and GitLab's with glpat- so scanners catch them",
    lambda rng: "OpenAI keys look like sk-proj-… and AWS key ids like AKIA…",
    lambda rng: f"The cert the proxy serves:\n{certificate(rng)}",
    lambda rng: f"Payment {stripe_object(rng)} was captured twice for {stripe_object(rng)}",
    lambda rng: f"Firebase push id -N{rand(rng, B64URL, 19)} and nanoid {rand(rng, B64URL, 21)} collide",
    lambda rng: f"Pod api-{rand(rng, HEX, 10)}-{rand(rng, LOWER + DIGITS, 5)} was OOMKilled",
    lambda rng: f"arn:aws:iam::{rand(rng, DIGITS, 12)}:role/deploy-{rng.choice(WORDS)} lacks s3:PutObject",
    lambda rng: f"CloudFront distribution E{rand(rng, UPPER + DIGITS, 13)} still serves the old bundle",
    lambda rng: f"Security group sg-{rand(rng, HEX, 17)} on instance i-{rand(rng, HEX, 17)}",
    lambda rng: (
        f"Sentry DSN https://{rand(rng, HEX, 32)}@o{rand(rng, DIGITS, 6)}.ingest.sentry.io/{rand(rng, DIGITS, 7)}"
    ),
    lambda rng: f"uses: actions/checkout@{rand(rng, HEX, 40)} # v4",
    lambda rng: (
        f"Mail from ops+{rng.choice(WORDS)}@acme.io bounced at 2026-03-{rng.randint(10, 28)}T0{rng.randint(0, 9)}:12:44Z"
    ),
    lambda rng: (
        f"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{base64.b64encode(rng.randbytes(48)).decode()} is the logo"
    ),
    lambda rng: "mkdir -p build && docker run -p 8080:80 nginx",
    lambda rng: f"The migration 00{rng.randint(10, 99)}_add_{rng.choice(WORDS)}_index ran for 40 minutes",
    lambda rng: "LTM_SECRET_SCAN=flag stays the default; ltm_version 0.2 packets only",
    lambda rng: f"Design doc: https://docs.google.com/document/d/1{rand(rng, B64URL, 43)}/edit",
    lambda rng: (
        f"secret_arn: arn:aws:secretsmanager:eu-west-1:{rand(rng, DIGITS, 12)}:secret:prod-db-{rand(rng, ALNUM, 6)}"
    ),
    lambda rng: f"requirements.txt pins --hash=sha256:{rand(rng, HEX, 64)}",
    lambda rng: "kind: Secret\nmetadata:\n  name: db-credentials\ndata keys: password, username",
    lambda rng: "env: secretKeyRef: {name: api-credentials, key: token}",
    lambda rng: "Rotate the deploy token every 90 days; the token_count metric shows 3 active",
    lambda rng: (
        f"The config map holds {base64.b64encode(json.dumps({'replicas': rng.randint(1, 9), 'region': 'eu-west-1', 'name': rng.choice(WORDS)}).encode()).decode()}"
    ),
    lambda rng: f'Terraform wants id = "subnet-{rand(rng, HEX, 17)}" replaced',
    lambda rng: "The access_token field of the response is empty after the refresh",
    lambda rng: f"Container {rand(rng, HEX, 12)} restarted; full id {rand(rng, HEX, 64)}",
    lambda rng: f"Signed with GPG key {' '.join(rand(rng, HEX.upper(), 4) for _ in range(10))}",
    lambda rng: "The pod listens on 2001:db8:85a3::8a2e:370:7334 and 10.0.3.17",
    lambda rng: f"Chunk vendors~main.{rand(rng, HEX, 20)}.chunk.js is 2 MB",
    lambda rng: f"Branch feature/ENG-{rng.randint(1000, 9999)}-fix-{rng.choice(WORDS)}-retry",
    lambda rng: (
        f"Released 1.{rng.randint(0, 9)}.{rng.randint(0, 9)}-beta.{rng.randint(1, 9)}+build.{rng.randint(1000, 9999)}"
    ),
    lambda rng: "curl -H 'Authorization: Bearer <token>' or Bearer $TOKEN from the env",
    lambda rng: "export GITHUB_TOKEN=$(gh auth token) before the script",
    lambda rng: "Users still pick password123 so the form now rejects it",
    lambda rng: f"release: shop-api@{rand(rng, HEX, 12)} in Sentry",
    lambda rng: f"https://medium.com/@ops/how-we-cut-p99-latency-by-half-{rand(rng, HEX, 12)}",
    lambda rng: "POSTGRES_PASSWORD: postgres in docker-compose.yml",
    lambda rng: "redis-cli -a $REDIS_PASSWORD ping",
    lambda rng: f"Host key fingerprint SHA256:{base64.b64encode(rng.randbytes(32)).decode().rstrip('=')}",
    lambda rng: f"CSS class Button_primary__{rand(rng, ALNUM, 5)} lost its hover",
    lambda rng: f"https://www.youtube.com/watch?v={rand(rng, B64URL, 11)} explains the bug",
]


def benign_records(rng, count):
    records = []
    for n in range(count):
        packet = base_packet(rng, f"01BENIGN{n:018d}")
        for _ in range(rng.randint(3, 6)):
            put(packet, rng.choice(PATHS), rng.choice(LOOKALIKES)(rng), rng)
        records.append({"packet": packet})
    return records


# --- Where secrets leak past the client's fields, and how they are disguised. -------------------

REFS = [
    "https://x-access-token:{s}@github.com/acme/shop",
    "https://oauth2:{s}@gitlab.acme.io/platform/infra.git",
    "https://ci:{s}@git.acme.io/platform/infra.git",
    "github.com/acme/shop?token={s}",
]
ELSEWHERE = [
    # (kind, path, template): the secret where the client does not look.
    ("github-token", "project.ref", REFS[0]),
    ("gitlab-token", "project.ref", REFS[1]),
    ("password-in-url", "project.ref", REFS[2]),
    ("npm-token", "project.ref", REFS[3]),
    ("aws-access-key", "project.name", "shop ({s})"),
    ("stripe-key", "project.name", "billing {s}"),
    ("github-token", "provenance.author_human", "Anna Schmidt (bot token {s})"),
    ("slack-token", "provenance.author_human", "{s}"),
    ("openai-key", "provenance.author_model", "gpt-4o with {s}"),
    ("huggingface-token", "provenance.author_model", "acme/classifier via {s}"),
    ("github-token", "parent_id", "{s}"),
    ("npm-token", "parent_id", "{s}"),
    ("github-token", "id", "{s}"),
    ("aws-access-key", "attempts[2].learned", "The upload works with {s} exported"),
    ("database-url", "attempts[2].tried", "psql {s}"),
]
# Secrets made to fit their place: an id (64 characters), a provenance field (128), a URL the
# template writes (the password only, escaped as in url_password).
PLACE_MAKERS = {
    "github-token": lambda rng: rng.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + rand(rng, ALNUM, 36),
    "openai-key": lambda rng: "sk-" + rand(rng, ALNUM, 20) + "T3BlbkFJ" + rand(rng, ALNUM, 20),
    "password-in-url": lambda rng: password(rng).replace("#", "%23").replace("^", "%5E").replace("&", "%26"),
}
# Kinds short enough for a 128-character field and whose format survives a disguise.
DISGUISED_KINDS = ["github-token", "aws-access-key", "stripe-key", "slack-token", "npm-token", "huggingface-token"]
INVISIBLE = ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]


def percent_encoded(rng, secret):
    if rng.random() < 0.5:
        return "".join(f"%{ord(c):02X}" for c in secret)
    return secret.replace("_", "%5F").replace("-", "%2D")


def with_invisible(rng, secret, characters):
    for _ in range(rng.randint(1, 3)):
        cut = rng.randint(4, len(secret) - 4)
        secret = secret[:cut] + rng.choice(characters) + secret[cut:]
    return secret


def full_width(secret):
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in secret)


def in_base64(rng, secret):
    text = rng.choice(["{s}", "TOKEN={s}", "export SECRET={s}\n"]).format(s=secret)
    encoded = base64.b64encode(text.encode()).decode()
    return encoded if rng.random() < 0.6 else encoded.rstrip("=").replace("+", "-").replace("/", "_")


def in_hex(rng, secret):
    encoded = secret.encode().hex()
    return rng.choice([encoded, encoded.upper(), "0x" + encoded])


DISGUISES = {
    # form: (disguise, templates)
    "percent-encoded": (
        percent_encoded,
        ["https://api.acme.io/v2/export?token={s}", "The job fetches https://x-access-token:{s}@github.com/acme/shop"],
    ),
    "soft-hyphen": (
        lambda rng, secret: with_invisible(rng, secret, ["\u00ad"]),
        ["The release job pushes with {s} from the wiki page", "Copied {s} from the PDF runbook"],
    ),
    "zero-width": (
        lambda rng, secret: with_invisible(rng, secret, INVISIBLE[1:]),
        ["The bot's key is {s} (pasted from the chat)", "Use {s} for the sandbox"],
    ),
    "full-width": (lambda rng, secret: full_width(secret), ["The IME typed the key as {s}", "Key: {s}"]),
    "base64": (
        in_base64,
        ["kubectl get secret api -o yaml shows data.token: {s}", "The env blob {s} decodes to the bot's key"],
    ),
    "hex": (in_hex, ["The core dump has {s} at the top", "xxd -r -p <<< {s} recovers it"]),
}
PROSE_TEMPLATES = [
    "The staging admin password is {s}",
    "the password for the staging db is {s}",
    "The old passphrase was {s}.",
    "pw: {s} for the router",
    "Ops said the root password is now {s}",
    "Their support told us the secret is {s}",
]


def third_attempt(packet):
    packet["attempts"].append({"tried": "Asked the platform team", "outcome": "partial", "learned": "They will check"})


def elsewhere_records(rng, first):
    records = []
    for n in range(len(ELSEWHERE) * 2):
        kind, path, template = ELSEWHERE[n % len(ELSEWHERE)]
        secret = PLACE_MAKERS.get(kind, SECRET_MAKERS[kind])(rng)
        packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
        packet["project"] = {"name": "acme-shop", "ref": "github.com/acme/shop"}
        packet["provenance"] = {"author_model": "claude-sonnet-4-5", "author_human": "Anna Schmidt"}
        third_attempt(packet)
        value = template.format(s=secret)
        if path.startswith("attempts[2]"):
            packet["attempts"][2][path.rpartition(".")[2]] = value
        elif "." in path:
            group, _, key = path.partition(".")
            packet[group][key] = value
        else:
            packet[path] = value
        records.append({"kind": kind, "form": "elsewhere", "path": path, "secret": secret, "packet": packet})
    return records


def disguised_records(rng, first):
    records = []
    for form, (disguise, templates) in DISGUISES.items():
        for n in range(8):
            kind = DISGUISED_KINDS[n % len(DISGUISED_KINDS)]
            secret = disguise(rng, SECRET_MAKERS[kind](rng))
            packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
            third_attempt(packet)
            path = rng.choice([*PATHS, "attempts[2].learned"])
            put(packet, path, rng.choice(templates).format(s=secret), rng)
            records.append({"kind": kind, "form": form, "path": path, "secret": secret, "packet": packet})
    for n in range(12):
        secret = password(rng)
        packet = base_packet(rng, f"01SECRET{first + len(records):018d}")
        path = rng.choice(PATHS)
        put(packet, path, PROSE_TEMPLATES[n % len(PROSE_TEMPLATES)].format(s=secret), rng)
        records.append({"kind": "secret-assignment", "form": "prose", "path": path, "secret": secret, "packet": packet})
    return records


def plain_hex(rng):
    return text(rng, GOALS + NEXT + CRITERIA).encode().hex()


# Near misses of the disguises, and what a project, provenance and ids ordinarily hold.
NEAR_MISSES = [
    lambda rng: f"The header carries base64 {plain_base64(rng)} which decodes to the job's name",
    lambda rng: f"The queue message body is hex {plain_hex(rng)}",
    lambda rng: f"The regression came with commit {rand(rng, HEX, 40)}",
    lambda rng: f"The failing request id was {uuid(rng)}",
    lambda rng: f"Tenant {uuid(rng).replace('-', '')} sees the old prices",
    lambda rng: "git clone https://deploy@git.acme.io/platform/infra.git works with the SSH agent",
    lambda rng: "The mirror is ssh://git@git.acme.io:2222/platform/infra.git and https://ci-bot@github.com/acme/shop",
    lambda rng: f"https://acme.io/search?q={rng.choice(WORDS)}%20retry%2F{rng.choice(WORDS)}&page=2 shows nothing",
    lambda rng: f"{rng.randint(50, 99)}% of the 401s come from the {rng.choice(SUBSYSTEMS)}",
    lambda rng: f"Ｔｈｅ {rng.choice(WORDS)} ｐ９９ is ３００ ms in the Japanese report",
    lambda rng: f"The {rng.choice(WORDS)} re\u00adtry loop and the zero\u200bwidth space in the CSV header",
    lambda rng: "The password is stored in the vault and the token is rotated every 90 days",
    lambda rng: "The password must be at least 12 characters; the secret is base64-encoded in the manifest",
    lambda rng: "The password was changed on 2026-03-01 and the token is valid for 3600 seconds",
    lambda rng: "the pw: see the vault; the password for prod is in 1Password",
    lambda rng: "The API key is read from the environment; the access key is rotated by Terraform",
    lambda rng: (
        f"The config map holds {base64.b64encode(json.dumps({'replicas': rng.randint(1, 9), 'region': 'eu-west-1'}).encode()).decode()}"
    ),
    lambda rng: f"kubectl get secret shows data.username: {base64.b64encode(rng.choice(WORDS).encode()).decode()}",
]
PROJECT_REFS = [
    "github.com/acme/shop",
    "https://github.com/acme/shop.git",
    "git@github.com:acme/shop.git",
    "https://deploy@git.acme.io/platform/infra.git",
    "https://github.com/acme/shop/tree/{sha}",
    "https://gitlab.acme.io/platform/infra/-/merge_requests/{n}",
]


def benign_elsewhere_records(rng, count, first):
    records = []
    for n in range(count):
        packet = base_packet(rng, rng.choice([uuid(rng), ulid(rng)]))
        packet["parent_id"] = rng.choice([uuid(rng), ulid(rng), f"01BENIGN{first + n:018d}"])
        packet["project"] = {
            "name": rng.choice(["acme-shop", "infra", "billing-api", "Shop (EU)"]),
            "ref": rng.choice(PROJECT_REFS).format(sha=rand(rng, HEX, 40), n=rng.randint(10, 9999)),
        }
        packet["provenance"] = {
            "author_model": rng.choice(["claude-sonnet-4-5", "gpt-4o-2024-08-06", "gemini-2.5-pro"]),
            "author_human": rng.choice(["Anna Schmidt", "ops@acme.io", "Jörg Müller <jorg@acme.io>"]),
            "source_hash": f"sha256:{rand(rng, HEX, 64)}",
            "confidence": rng.choice(["low", "medium", "high"]),
        }
        for _ in range(rng.randint(3, 6)):
            put(packet, rng.choice(PATHS), rng.choice(NEAR_MISSES)(rng), rng)
        records.append({"packet": packet})
    return records


def main():
    rng = random.Random(SEED)
    start = datetime(2026, 6, 1, tzinfo=UTC)
    secrets, benign = secret_records(rng), benign_records(rng, 600)
    more = random.Random(SEED + 1)
    secrets += elsewhere_records(more, len(secrets))
    secrets += disguised_records(more, len(secrets))
    benign += benign_elsewhere_records(more, 150, len(benign))
    for name, records in (("secrets.jsonl", secrets), ("benign.jsonl", benign)):
        with (HERE / name).open("w") as out:
            for n, record in enumerate(records):
                record["packet"]["created_at"] = (start + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
