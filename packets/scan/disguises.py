"""Taking a secret's disguise off before the scan looks again: line breaks that wrap it,
percent-escapes, invisible characters, full-width letters, base64 and hex."""

import base64
import binascii
import functools
import re
import unicodedata
from urllib.parse import unquote

# A line break, literal or escaped, with the indentation around it: what wraps a long token.
LINE_BREAK = re.compile(r"[ \t]*(?:\r?\n|\\n)[ \t]*")

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


def unmasked(text: str, encoded: bool) -> str | None:
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
