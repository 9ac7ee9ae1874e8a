"""packets.scan.detect through a disguise: a secret encoded, split by invisible characters,
wrapped over lines, inside a URL, told in prose, or a private key's body without its header."""

import base64
import string

import pytest

from packets.testing.secret_examples import ALNUM, EXAMPLES, full_width, kinds_in, rand

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
