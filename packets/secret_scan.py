"""The hub's secret scan of a packet: which strings of it look like they carry a secret, and of what kind.

A second line behind the client's pre-flight (`ltm.protocol.redact`): the client's patterns, taken
from their one definition there, over every string of the packet (not only the fields the client
reads: a project's ref, provenance and ids leak too), plus what a server can afford: token kinds the
client does not know, credentials in URLs, PEM private key bodies without their header, values
given to `password=`-like keywords or told in prose ("the password is ..."), and an entropy check
for random strings no pattern names. Secrets wrapped over several lines are found too, and so are
disguised ones: percent-escaped, with invisible characters inside, in full-width letters, or
encoded in base64 or hex.

A finding is (path, kind) and nothing else: the secret, or any part of it, never leaves this module.
"""

from __future__ import annotations

import base64
import binascii
import functools
import math
import re
import string
import unicodedata
from bisect import bisect_right
from collections import Counter
from itertools import accumulate
from typing import NamedTuple
from urllib.parse import unquote

from ltm.protocol.redact import CATEGORIES, scanned_fields


class Finding(NamedTuple):
    """A field that looks like it carries a secret: `Finding("decisions[2].why", "aws-access-key")`."""

    path: str
    kind: str

    def as_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind}


# The client's categories under the hub's kind names; a category the client adds later keeps its
# own name. A machine path is not a secret: the hub leaves abs-path to the client.
CLIENT_KINDS = {
    "aws-key": "aws-access-key",
    "gh-token": "github-token",
    "jwt": "jwt",
    "private-key": "private-key",
    "google-api-key": "google-api-key",
    "slack-token": "slack-token",
    "stripe-key": "stripe-key",
    "ssh-key": "ssh-public-key",
}
NOT_SECRETS = {"abs-path"}

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


def _is_vendor_example(secret: str) -> bool:
    return secret in VENDOR_EXAMPLES or "EXAMPLE" in secret


# How the scan stays cheap: nearly every secret is one long word (no whitespace inside), and a
# packet's prose has few words of 12 characters or more. The patterns of such kinds run over those
# words only, joined by spaces: a lookbehind or lookahead at a word's edge sees a space there as it
# saw whitespace in the field. The few patterns that span words (a PEM header, an SSH key, a
# keyword and its value) run over the whole text, and only when a literal they need is in it.
WORD_MIN = 12

# The client's categories whose patterns match within one word; the others, and any category the
# client adds later, run over the whole text. The literals (lower-cased) every match of a category
# contains, read from its pattern: a category runs only when one of them is in the text.
CLIENT_WORD_CATEGORIES = {"aws-key", "gh-token", "jwt", "google-api-key", "slack-token", "stripe-key"}
CLIENT_NEEDLES = {
    "aws-key": ("a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "apka", "aroa", "asca"),
    "gh-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    "jwt": ("eyj",),
    "google-api-key": ("aiza",),
    "slack-token": ("xox",),
    "stripe-key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
    "private-key": ("-----begin",),
    "ssh-key": ("aaaa",),
}

# Kinds the client does not know, found within a word: (kind, needles, pattern). A pattern runs
# only when one of its needles is in the lower-cased words.
_TOKEN_END = r"(?![A-Za-z0-9_-])"
WORD_PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern]] = [
    (
        "github-token",
        ("github_pat_",),
        re.compile(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}" + _TOKEN_END),
    ),
    (
        "gitlab-token",
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glptt-", "gloas-", "glimt-", "gr1348941"),
        re.compile(r"(?<![A-Za-z0-9_-])(?:gl(?:pat|dt|ft|soat|rt|cbt|ptt|oas|imt)-|GR1348941)[A-Za-z0-9_.-]{20,}"),
    ),
    ("npm-token", ("npm_",), re.compile(r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}" + _TOKEN_END)),
    (
        "pypi-token",
        ("pypi-age",),
        re.compile(r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}"),
    ),
    (
        "anthropic-key",
        ("sk-ant-",),
        re.compile(r"(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort)\d\d-[A-Za-z0-9_-]{32,}"),
    ),
    (
        "openai-key",
        ("t3blbkfj", "sk-proj-", "sk-svcacct-", "sk-admin-"),
        # "T3BlbkFJ" is "OpenAI" in base64, inside every key of the older formats.
        re.compile(
            r"(?<![A-Za-z0-9_-])sk-(?:[a-z]+-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}"
            r"|(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}"
        ),
    ),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        re.compile(
            r"hooks\.slack\.com/(?:services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]{16,}"
            r"|workflows/T[A-Z0-9]+/A[A-Z0-9]+/\d+/[A-Za-z0-9]{16,}|triggers/T[A-Z0-9]+/\d+/[a-f0-9]{32})"
        ),
    ),
    (
        "sendgrid-key",
        ("sg.",),
        re.compile(r"(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}" + _TOKEN_END),
    ),
    ("huggingface-token", ("hf_",), re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z]{34}" + _TOKEN_END)),
    # The hub's own tokens: "ltm_" then 32 random bytes in base64url.
    ("ltm-token", ("ltm_",), re.compile(r"(?<![A-Za-z0-9_])ltm_(?=[\w-]*\d)[A-Za-z0-9_-]{43}" + _TOKEN_END)),
    ("azure-storage-key", ("accountkey=",), re.compile(r"(?i)AccountKey=[A-Za-z0-9+/]{86}==")),
    # The bodies of OpenSSH and PuTTY private keys; DER ones (PKCS#1, PKCS#8, SEC1...) are read below.
    (
        "private-key",
        ("b3blbnnzac1rzxktdjea", "putty-user-key-file"),
        # "openssh-key-v1" and its NUL in base64.
        re.compile(r"(?<![A-Za-z0-9+/])b3BlbnNzaC1rZXktdjEA|PuTTY-User-Key-File-\d"),
    ),
]

# A private key's body pasted without its BEGIN line: base64 of DER whose outer SEQUENCE starts
# the way only private keys start: version 0 then an INTEGER (PKCS#1 RSA, DSA) or a SEQUENCE
# (PKCS#8), version 1 then an OCTET STRING (SEC1 EC), version 3 (PKCS#12), or the algorithm of an
# encrypted PKCS#8 key (PBES2, PKCS#12 PBE). Certificates and public keys start otherwise.
DER_START = re.compile(r"M[A-Za-z0-9+/]{31}")
BASE64_CHARS = frozenset(string.ascii_letters + string.digits + "+/")
PRIVATE_DER_STARTS = (b"\x02\x01\x00\x02", b"\x02\x01\x00\x30", b"\x02\x01\x01\x04", b"\x02\x01\x03\x30")
PRIVATE_DER_ALGORITHMS = (bytes.fromhex("2a864886f70d01050d"), bytes.fromhex("2a864886f70d010c01"))


def _is_private_der(start: str) -> bool:
    """start: the first 32 base64 characters of a DER structure."""
    raw = base64.b64decode(start)
    if raw[0] != 0x30:
        return False
    content = raw[2 + (raw[1] & 0x7F if raw[1] >= 0x80 else 0) :]
    if content.startswith(PRIVATE_DER_STARTS):
        return True
    return content[:1] == b"\x30" and any(algorithm in content for algorithm in PRIVATE_DER_ALGORITHMS)


# Kinds found over the whole text: (kind, needles, pattern, lower). A `lower` pattern is written
# in lower case and runs over the lower-cased text (far cheaper than re.IGNORECASE). Needles are
# always looked for in the lower-cased text.
TEXT_PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern, bool]] = [
    ("private-key", ("-----begin pgp",), re.compile(r"-----BEGIN PGP PRIVATE KEY BLOCK-----"), False),
    (
        "aws-secret-key",
        ("secret",),
        re.compile(
            r"aws_?secret_?(?:access_?)?key[\"']?\s*(?:=|:|\s)\s*[\"']?(?P<secret>[a-z0-9/+]{40})(?![a-z0-9/+])"
        ),
        True,
    ),
]

# Credentials in a URL: scheme://user:password@host (the user may be empty: redis://:pw@host).
URL_CREDENTIALS = re.compile(r"://[^\s:/?#@'\"<>`]*:(?P<secret>[^\s/?#@'\"<>`]+)@[^\s/?#@'\"<>`]")
URL_SCHEME = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}$")
DATABASE_SCHEMES = {
    "postgres",
    "postgresql",
    "mysql",
    "mariadb",
    "mongodb",
    "redis",
    "rediss",
    "mssql",
    "sqlserver",
    "oracle",
    "cockroachdb",
    "clickhouse",
    "cassandra",
    "couchdb",
    "neo4j",
    "jdbc",
}

# A value given to a keyword that names a secret: `password=...`, `"api_key": "..."`, `Bearer ...`,
# `mysql -p...`, or told in prose: "the password for prod is ...", "pw: ...". Tried only where one
# of the keywords is (str.find is far cheaper than a regular expression's search), over the
# lower-cased text.
KEYWORDS = ("pass", "pw", "secret", "token", "key", "credential", "bearer", " -p")
PROSE = (
    r"(?:\s+(?:for|of|on)(?:\s+[\w.@:/-]+){1,4}?)?\s+(?:is|was|are)"
    r"(?:\s+(?:now|still|just|(?:set|reset|changed)\s+to))?:?\s"
)
KEYWORD_VALUE = re.compile(
    r"(?:(?:pass(?:word|wd|phrase)?|pwd|(?<![a-z])pw|secret|token|key|credentials?)"
    r"(?:[_-]?(?:key|token|value|secret))?(?![a-z])"
    # A value ends at the NUL between two fields' texts, as at a space or a quote.
    rf"(?:[\"']?\s*(?:=|:=|=>|:)|(?P<prose>{PROSE}))|bearer\s| -p(?=\S))\s*[\"'`]?(?P<secret>[^\s\"'`,;)}}\]\x00]+)"
)
# Told in prose, a value is a secret only with a digit or a symbol in it, and not when it is a
# compound of lower-case words ("base64-encoded", "sha256-based").
PROSE_COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
# What follows "Bearer" in a header (RFC 6750's b64token).
BEARER_TOKEN = re.compile(r"[A-Za-z0-9._~+/-]{16,}=*")
# "key" names a secret only after one of these (api_key, AccessKey, private-key...).
SECRET_KEY_PREFIXES = tuple(
    f"{word}{sep}" for word in ("api", "access", "auth", "private") for sep in ("", "_", "-", " ")
)
# Written where a value is meant, not a value: placeholders, masks, variables, code that reads one.
PLACEHOLDER = re.compile(
    r"[$<>{}\[(]|\*\*\*|\.\.\.|%s|^x{3,}|redacted|example|changeme|your[_-]|placeholder|dummy|^[a-z_]\w*(?:\.[a-z_]\w*)+$",
    re.IGNORECASE,
)
PLACEHOLDER_WORDS = {
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "token",
    "user",
    "username",
    "admin",
    "root",
    "postgres",
    "mysql",
    "guest",
    "test",
    "dev",
    "local",
    "none",
    "null",
    "true",
    "false",
}


def _looks_like_a_value(value: str, minimum: int) -> bool:
    """A secret someone typed or pasted, not a placeholder, an env variable's name or a word."""
    if len(value) < minimum or value.lower() in PLACEHOLDER_WORDS or PLACEHOLDER.search(value):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z]+(?:[-_][a-z]+)*|\d+|v?\d+(?:\.\d+)+\S*", value):
        return False
    if value.startswith(("/", "./", "~/", "../")) or "://" in value:
        return False
    return True


def _url_kind(scheme: str, password: str) -> str | None:
    if not _looks_like_a_value(password, 3):
        return None
    return "database-url" if scheme.lower().split("+")[0] in DATABASE_SCHEMES else "password-in-url"


def _keyword_kind(value: str, before: str, keyword: str, prose: bool = False) -> str | None:
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


def _random_tokens(text: str):
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
            elif _is_random(token) and not _is_vendor_example(token):
                yield token


def _client_detectors() -> tuple[list, list]:
    """The client's categories under the hub's names: (kind, needles, pattern) to run within words,
    and (kind, needles, pattern, lower) to run over the whole text."""
    within_words, over_text = [], []
    for category, pattern in CATEGORIES.items():
        kind = CLIENT_KINDS.get(category, category)
        if category in NOT_SECRETS:
            continue
        needles = CLIENT_NEEDLES.get(category, ())
        if category in CLIENT_WORD_CATEGORIES:
            within_words.append((kind, needles, pattern))
        else:
            over_text.append((kind, needles, pattern, False))
    return within_words, over_text


_client_words, _client_text = _client_detectors()
WORD_DETECTORS = _client_words + WORD_PATTERNS
TEXT_DETECTORS = _client_text + TEXT_PATTERNS
KINDS = list(
    dict.fromkeys(
        [kind for kind, *_ in WORD_DETECTORS + TEXT_DETECTORS]
        + ["password-in-url", "database-url", "secret-assignment", "high-entropy-string"]
    )
)
_ORDER = {kind: i for i, kind in enumerate(KINDS)}
# A line break, literal or escaped, with the indentation around it: what wraps a long token.
LINE_BREAK = re.compile(r"[ \t]*(?:\r?\n|\\n)[ \t]*")

# Strings that are random by design (the protocol's ids): the entropy check leaves them alone; a
# token's own format in one is still found.
IDENTIFIERS = {"id", "parent_id"}
# How an object's key is named in a path; any other key is named "*", so that a path never
# carries a secret (a valid packet has only the schema's keys).
KEY_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def packet_fields(packet: dict) -> list[tuple[str, str]]:
    """(JSON path, text) for every string of the packet: the fields the client scans first, in its
    order (the order findings have always had), then every other string in the packet's order."""
    listed = scanned_fields(packet)
    seen = {path for path, _ in listed}
    strings: list[tuple[str, str]] = []
    # A packet is an object of strings, lists and objects, seldom deeper: those levels inline.
    for key, value in packet.items():
        name = _key_name(key)
        if isinstance(value, str):
            strings.append((name, value))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str):
                    strings.append((f"{name}[{i}]", item))
                else:
                    _walk(item, f"{name}[{i}]", strings)
        else:
            _walk(value, name, strings)
    return listed + [field for field in strings if field[0] not in seen]


def _walk(value, path: str, strings: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        strings.append((path, value))
    elif isinstance(value, dict):
        for key, item in value.items():
            _walk(item, f"{path}.{_key_name(key)}", strings)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{path}[{i}]", strings)


_KEY_NAMES: dict[str, str] = {}


def _key_name(key) -> str:
    name = _KEY_NAMES.get(key)
    if name is None:
        name = key if isinstance(key, str) and KEY_NAME.fullmatch(key) else "*"
        if len(_KEY_NAMES) < 256:  # the schema's keys; bounded against odd ones
            _KEY_NAMES[key] = name
    return name


# Disguises taken off before a second look: percent-escapes, Unicode format characters (soft
# hyphens, zero-width spaces, joiners, direction marks: invisible, category Cf) and compatibility
# forms (full-width letters), by NFKC. Then runs of base64 or hex at least this long are decoded,
# and what they decode to is scanned when it is printable text: random bytes (digests, keys of
# public things, commit SHAs) are left alone.
ENCODED_MIN = 24
# The lookbehind fails at once inside a run, where a search would otherwise start again.
ENCODED_RUN = re.compile(rf"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{{{ENCODED_MIN},}}={{0,2}}")
HEX_DIGITS = re.compile(r"(?:0[xX])?((?:[0-9a-fA-F]{2})+)")
CONTROL_SPACES = str.maketrans("\t\n\r", "   ")


@functools.cache
def _invisible() -> re.Pattern:
    """Unicode's format characters (category Cf), read from the planes that hold any (0 to 2 and
    14) on first need, as ranges (a class of single astral characters is slow to match)."""
    ranges: list[list[int]] = []
    for code in (*range(0x30000), *range(0xE0000, 0xE1000)):
        if unicodedata.category(chr(code)) == "Cf":
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")


def _normalised(text: str) -> str:
    if "%" in text:
        text = unquote(text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", _invisible().sub("", text))
    return text


def _as_text(raw: bytes) -> str | None:
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        return None
    return text if text.translate(CONTROL_SPACES).isprintable() else None


def _decoded(run: str) -> str | None:
    """What a run of base64 or hex decodes to, if that is printable text."""
    hex_run = HEX_DIGITS.fullmatch(run)
    if hex_run:
        return _as_text(bytes.fromhex(hex_run[1]))
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(body.replace("-", "+").replace("_", "/") + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _as_text(raw)


def _decoded_runs(text: str):
    for match in ENCODED_RUN.finditer(text):
        decoded = _decoded(match.group())
        if decoded is None and "/" in match.group():
            # A path's parts, one of which may be encoded on its own.
            parts = (part for part in match.group().split("/") if len(part) >= ENCODED_MIN)
            decoded = next(filter(None, map(_decoded, parts)), None)
        if decoded is not None:
            yield decoded


def _unmasked(text: str, encoded: bool) -> str | None:
    """The text with its disguises off, and what its encoded runs decode to, one a line; None when
    there is nothing to take off. encoded: whether the text has a run long enough to decode."""
    plain = _normalised(text)
    parts = [plain] if plain != text else []
    if not (encoded or parts):
        return None
    sources = [plain]
    if "\n" in plain or "\\n" in plain:
        sources.append(LINE_BREAK.sub("", plain))  # base64 wrapped over lines
    parts += dict.fromkeys(decoded for source in sources for decoded in _decoded_runs(source))
    return "\n".join(parts) if parts else None


def scan_packet(packet: dict) -> list[Finding]:
    """At most one finding per (field, kind), in field order then kind order; never alters the packet."""
    if not isinstance(packet, dict):
        return []
    fields = packet_fields(packet)
    identifiers = {i for i, (path, _) in enumerate(fields) if path in IDENTIFIERS}
    texts = dict(enumerate(text for _, text in fields))
    found: set[tuple[int, str]] = set()
    encoded = _scan(texts, found, identifiers)
    # A token wrapped over lines is whole again once the breaks are out: those fields once more.
    wrapped = {i: LINE_BREAK.sub("", text) for i, text in texts.items() if "\n" in text or "\\n" in text}
    if wrapped:
        encoded |= _scan(wrapped, found, identifiers)
    # And a disguised one once its disguise is off (most packets have nothing to take off).
    masked = encoded.union(i for i, text in texts.items() if not text.isascii() or "%" in text)
    unmasked = {i: plain for i in sorted(masked) if (plain := _unmasked(texts[i], i in encoded)) is not None}
    if unmasked:
        _scan(unmasked, found, identifiers)
    return [Finding(fields[i][0], kind) for i, kind in sorted(found, key=lambda hit: (hit[0], _ORDER[hit[1]]))]


def _scan(texts: dict[int, str], found: set[tuple[int, str]], identifiers: set[int]) -> set[int]:
    """Adds (field index, kind) to found for each kind in the texts, a dict of field index to text;
    identifiers: the indices of ids, random by design, which the entropy check skips. Returns the
    indices of the texts with a run long enough to be decoded (read off the long words at hand)."""
    # What a named kind matched, per field: the generic checks (URL, keyword, entropy) stand back there.
    explained: dict[int, list[str]] = {index: [] for index in texts}

    def hit(index: int, kind: str | None, secret: str) -> None:
        explained[index].append(secret)
        if kind is not None and not _is_vendor_example(secret):
            found.add((index, kind))

    words = [(index, word) for index, text in texts.items() for word in text.split() if len(word) >= WORD_MIN]
    line = " ".join(word for _, word in words)
    word_starts = list(accumulate((len(word) + 1 for _, word in words[:-1]), initial=0))
    line_lowered = line.lower()
    for kind, needles, pattern in WORD_DETECTORS:
        if needles and not any(needle in line_lowered for needle in needles):
            continue
        for match in pattern.finditer(line):
            hit(words[bisect_right(word_starts, match.start()) - 1][0], kind, match.group())
    for match in DER_START.finditer(line):
        if line[match.start() - 1 : match.start()] not in BASE64_CHARS and _is_private_der(match.group()):
            hit(words[bisect_right(word_starts, match.start()) - 1][0], "private-key", match.group())
    encoded = {words[bisect_right(word_starts, match.start()) - 1][0] for match in ENCODED_RUN.finditer(line)}

    indices = list(texts)
    joined = "\x00".join(texts.values())
    text_starts = list(accumulate((len(text) + 1 for text in list(texts.values())[:-1]), initial=0))
    # Lower-casing keeps every offset only for ASCII ("İ" becomes two characters).
    lowered = (joined if joined.isascii() else joined.encode("ascii", "replace").decode()).lower()

    def field_of(offset: int) -> int:
        return indices[bisect_right(text_starts, offset) - 1]

    for kind, needles, pattern, lower in TEXT_DETECTORS:
        if needles and not any(needle in lowered for needle in needles):
            continue
        for match in pattern.finditer(lowered if lower else joined):
            start, end = match.span("secret") if "secret" in pattern.groupindex else match.span()
            hit(field_of(start), kind, joined[start:end])

    def is_explained(index: int, secret: str) -> bool:
        return any(secret in known or known in secret for known in explained[index])

    for match in URL_CREDENTIALS.finditer(line):
        scheme = URL_SCHEME.search(line, max(0, match.start() - 32), match.start())
        index = words[bisect_right(word_starts, match.start()) - 1][0]
        kind = scheme and _url_kind(scheme.group(), match["secret"])
        if kind and not is_explained(index, match["secret"]):
            hit(index, kind, match["secret"])
    for keyword in KEYWORDS:
        position = lowered.find(keyword)
        while position != -1:
            match = KEYWORD_VALUE.match(lowered, position)
            if match:
                start, end = match.span("secret")
                index, value = field_of(start), joined[start:end]
                before = lowered[max(0, position - 8) : position]
                kind = _keyword_kind(value, before, keyword, prose=match["prose"] is not None)
                if kind and not is_explained(index, value):
                    hit(index, kind, value)
            position = lowered.find(keyword, position + 1)

    for index in {index for index, word in words if len(word) >= ENTROPY_MIN_LENGTH} - identifiers:
        if any(not is_explained(index, token) for token in _random_tokens(texts[index])):
            found.add((index, "high-entropy-string"))
    return encoded
