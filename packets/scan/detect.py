"""The hub's secret scan of a packet: which strings of it look like they carry a secret, and of what kind.

A second line behind the client's pre-flight (`ltm.protocol.redact`): the client's patterns, taken
from their one definition there, over every string of the packet (not only the fields the client
reads: a project's ref, provenance and ids leak too), plus what a server can afford: token kinds the
client does not know, credentials in URLs, PEM private key bodies without their header, values
given to `password=`-like keywords or told in prose ("the password is ..."), and an entropy check
for random strings no pattern names. Secrets wrapped over several lines are found too, and so are
disguised ones: percent-escaped, with invisible characters inside, in full-width letters, or
encoded in base64 or hex.

A finding is (path, kind) and nothing else: the secret, or any part of it, never leaves the scan.
The detectors are packets.scan.patterns, the generic checks packets.scan.values, and the
disguises taken off packets.scan.disguises.
"""

import re
from bisect import bisect_right
from itertools import accumulate
from typing import NamedTuple

from ltm.protocol.redact import scanned_fields
from packets.scan.disguises import ENCODED_RUN, LINE_BREAK, unmasked
from packets.scan.patterns import (
    BASE64_CHARS,
    DER_START,
    KEYWORD_VALUE,
    KEYWORDS,
    KINDS,
    TEXT_DETECTORS,
    URL_CREDENTIALS,
    URL_SCHEME,
    WORD_DETECTORS,
    WORD_MIN,
    is_private_der,
)
from packets.scan.values import ENTROPY_MIN_LENGTH, is_vendor_example, keyword_kind, random_tokens, url_kind


class Finding(NamedTuple):
    """A field that looks like it carries a secret: `Finding("decisions[2].why", "aws-access-key")`."""

    path: str
    kind: str

    def as_dict(self) -> dict:
        return {"path": self.path, "kind": self.kind}


_ORDER = {kind: i for i, kind in enumerate(KINDS)}

# Strings that are random by design (the protocol's ids): the entropy check leaves them alone; a
# token's own format in one is still found.
IDENTIFIERS = {"id", "parent_id"}
# How an object's key is named in a path; any other key is named "*", so that a path never
# carries a secret (a valid packet has only the schema's keys).
KEY_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
# A PEM block, lower-cased: its base64 body may spell a keyword ("...pw=") by chance, and what a
# block holds is judged by the private-key patterns, not by the keywords.
PEM_BLOCK = re.compile(r"-----begin [a-z0-9 ]+-----.*?(?:-----end [a-z0-9 ]+-----|$)", re.DOTALL)


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
    plain_texts = {i: plain for i in sorted(masked) if (plain := unmasked(texts[i], i in encoded)) is not None}
    if plain_texts:
        _scan(plain_texts, found, identifiers)
    return [Finding(fields[i][0], kind) for i, kind in sorted(found, key=lambda hit: (hit[0], _ORDER[hit[1]]))]


def _scan(texts: dict[int, str], found: set[tuple[int, str]], identifiers: set[int]) -> set[int]:
    """Adds (field index, kind) to found for each kind in the texts, a dict of field index to text;
    identifiers: the indices of ids, random by design, which the entropy check skips. Returns the
    indices of the texts with a run long enough to be decoded (read off the long words at hand)."""
    # What a named kind matched, per field: the generic checks (URL, keyword, entropy) stand back there.
    explained: dict[int, list[str]] = {index: [] for index in texts}

    def hit(index: int, kind: str | None, secret: str) -> None:
        explained[index].append(secret)
        if kind is not None and not is_vendor_example(secret):
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
        if line[match.start() - 1 : match.start()] not in BASE64_CHARS and is_private_der(match.group()):
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
        kind = scheme and url_kind(scheme.group(), match["secret"])
        if kind and not is_explained(index, match["secret"]):
            hit(index, kind, match["secret"])
    pem_blocks = [block.span() for block in PEM_BLOCK.finditer(lowered)]
    for keyword in KEYWORDS:
        position = lowered.find(keyword)
        while position != -1:
            in_pem = any(start <= position < end for start, end in pem_blocks)
            match = None if in_pem else KEYWORD_VALUE.match(lowered, position)
            if match:
                start, end = match.span("secret")
                index, value = field_of(start), joined[start:end]
                before = lowered[max(0, position - 8) : position]
                kind = keyword_kind(value, before, keyword, prose=match["prose"] is not None)
                if kind and not is_explained(index, value):
                    hit(index, kind, value)
            position = lowered.find(keyword, position + 1)

    for index in {index for index, word in words if len(word) >= ENTROPY_MIN_LENGTH} - identifiers:
        if any(not is_explained(index, token) for token in random_tokens(texts[index])):
            found.add((index, "high-entropy-string"))
    return encoded
