"""Look-alikes: what a packet often holds that is not a secret (commit SHAs, ULIDs, UUIDs,
digests, base64 of plain text, long identifiers, the example keys vendors publish...), and the
near misses of the disguises."""

import base64
import json

from makers import ALNUM, B64URL, CROCKFORD, DIGITS, HEX, LOWER, UPPER, pem_body, rand
from packet_text import CRITERIA, GOALS, NEXT, SUBSYSTEMS, WORDS, text


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
