"""Made-up secrets in the real format of each kind (random characters from the caller's seeded
generator, never a real key), and the disguises a secret may wear."""

import base64
import json
import string

UPPER, LOWER, DIGITS = string.ascii_uppercase, string.ascii_lowercase, string.digits
ALNUM = UPPER + LOWER + DIGITS
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


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


# Kinds that travel inside a URL (as a query parameter or as the password of basic auth).
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
