"""The secret scan's detectors: the kinds of secret it names and the patterns that find them, the
client's (from their one definition, ltm.protocol.redact) and the hub's own, with the literals
(needles) that let a pattern run only where it may match."""

import base64
import re
import string

from ltm.protocol.redact import CATEGORIES

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


def is_private_der(start: str) -> bool:
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
