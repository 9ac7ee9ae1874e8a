"""What the secret scan's generic checks ask of a candidate: is it a value someone typed (not a
placeholder, a variable's name or a word), of which kind, and is a token random (the entropy
check), vendors' published examples left alone."""

import base64
import binascii
import math
import re
from collections import Counter

from packets.scan.patterns import (
    BEARER_TOKEN,
    DATABASE_SCHEMES,
    PLACEHOLDER,
    PLACEHOLDER_WORDS,
    PROSE_COMPOUND,
    SECRET_KEY_PREFIXES,
)

# Values vendors publish in their documentation; the AWS documentation's all end in EXAMPLE.
VENDOR_EXAMPLES = {
    # jwt.io's sample token, signed with the published secret "your-256-bit-secret".
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    # Stripe's API reference.
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",
    # GitHub's documentation of token formats.
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
}


def is_vendor_example(secret: str) -> bool:
    return secret in VENDOR_EXAMPLES or "EXAMPLE" in secret


def _looks_like_a_value(value: str, minimum: int) -> bool:
    """A secret someone typed or pasted, not a placeholder, an env variable's name or a word."""
    if len(value) < minimum or value.lower() in PLACEHOLDER_WORDS or PLACEHOLDER.search(value):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:[-_][a-z]+)*|\d+|v?\d+(?:\.\d+)+\S*", value):
        return False
    if value.startswith(("/", "./", "~/", "../")) or "://" in value:
        return False
    return True


def url_kind(scheme: str, password: str) -> str | None:
    if not _looks_like_a_value(password, 3):
        return None
    return "database-url" if scheme.lower().split("+")[0] in DATABASE_SCHEMES else "password-in-url"


def keyword_kind(value: str, before: str, keyword: str, prose: bool = False) -> str | None:
    """before: the lower-cased text before the keyword; prose: the value was told ("... is X")."""
    if prose:
        value = value.rstrip(".!?:")
        if before[-1:].isalpha():
            return None  # the keyword ends a longer word ("bypass is ...")
        if not re.search(r"[0-9]|[^A-Za-z0-9_-]", value) or PROSE_COMPOUND.fullmatch(value):
            return None
    if before.endswith((":", "/")):
        return None  # a part of an ARN or a path (arn:aws:secretsmanager:...:secret:name)
    if keyword == "key" and not before.endswith(SECRET_KEY_PREFIXES):
        return None
    if keyword == "bearer" and not (BEARER_TOKEN.fullmatch(value) and DIGIT.search(value)):
        return None  # "bearer" in prose: a token has no other characters and is seldom without a digit
    if not _looks_like_a_value(value, 8) or not re.search(r"[A-Za-z]", value):
        return None
    # A value of words and nothing else (no digit, no second case, no symbol) reads as prose.
    if not re.search(r"[0-9]|[^A-Za-z0-9_-]", value) and (value.islower() or value.isupper()):
        return None
    return "secret-assignment"


# The entropy check: tokens of the base64 alphabets at least this long. Shorter random strings are
# mostly public identifiers (Stripe object ids, nanoids, Firebase keys, ULIDs).
ENTROPY_MIN_LENGTH = 32
ENTROPY_TOKEN = re.compile(rf"[A-Za-z0-9+/_-]{{{ENTROPY_MIN_LENGTH},}}={{0,2}}")
# Digests written in base64 with their algorithm in front (npm's integrity, Nix, go.sum, SSH host
# key fingerprints), and files inlined in data: URIs.
DIGEST_PREFIXES = ("sha1-", "sha256-", "sha384-", "sha512-", "md5-")
DIGEST_BEFORE = re.compile(r"(?:sha\d{1,3}|md5|h1)[:-]$|base64,$", re.IGNORECASE)
# Not secrets, though random: the bodies of public PEM blocks (certificates, public keys) and the
# ids in links to Google documents.
PUBLIC_TEXT = re.compile(
    r"-----BEGIN (?![A-Z ]*PRIVATE)[A-Z0-9 ]+-----.*?(?:-----END [A-Z0-9 ]+-----|\Z)"
    r"|https://(?:docs|drive)\.google\.com/[^\s?#]*",
    re.S,
)


PATH_PART = re.compile(r"[a-z][a-z_.-]{2,}")
LOWER, UPPER, DIGIT, LOWER_RUN = (re.compile(p) for p in ("[a-z]", "[A-Z]", "[0-9]", "[a-z]{4,}"))


def _shannon(text: str) -> float:
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _is_random(token: str) -> bool:
    """A random string of letters of both cases and digits, not a word, a digest or encoded text."""
    if not (LOWER.search(token) and UPPER.search(token) and DIGIT.search(token)):
        return False  # hex digests, UUIDs, ULIDs, identifiers without digits
    # Identifiers are made of lowercase runs (camelCase, snake_case); random text seldom has long ones.
    if sum(len(run) for run in LOWER_RUN.findall(token)) > len(token) / 3:
        return False
    if _shannon(token) < 4.3:
        return False
    return not _decodes_to_text(token)


def _decodes_to_text(token: str) -> bool:
    try:
        raw = base64.b64decode(token.replace("-", "+").replace("_", "/") + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return False
    printable = sum(32 <= byte < 127 or byte in (9, 10, 13) for byte in raw)
    return printable >= 0.9 * len(raw)


def random_tokens(text: str):
    """The random-looking tokens of one field's text, outside public PEM blocks and document links."""
    if "-----BEGIN" in text or "google.com/" in text:
        text = PUBLIC_TEXT.sub(" ", text)
    for word in text.split():
        if len(word) < ENTROPY_MIN_LENGTH:
            continue
        for match in ENTROPY_TOKEN.finditer(word):
            token, start = match.group().rstrip("="), match.start()
            if token.startswith(DIGEST_PREFIXES) or DIGEST_BEFORE.search(word, max(0, start - 8), start):
                continue
            parts = token.split("/")
            # A path or a URL's path: some part is a lowercase word. Each part then stands alone.
            if len(parts) > 1 and any(PATH_PART.fullmatch(part) for part in parts):
                yield from (part for part in parts if len(part) >= ENTROPY_MIN_LENGTH and _is_random(part))
            elif _is_random(token) and not is_vendor_example(token):
                yield token
