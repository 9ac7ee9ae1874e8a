"""The redaction pre-flight: secrets and machine paths a packet must not carry off the machine.

The contract (protocol README, section 1) calls redaction a writer duty: the client scans the
listed text fields before a push and refuses unless the person passes --allow-unredacted. The
scan reports; it never alters a packet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as dataclass_field

# A finding names at most this many characters of what matched, and only of a match at least
# twice as long: enough to find it in the packet, too few to be of use in a terminal or CI log
# (the contract's echo of 32 characters gave most of a token away).
HINT_LENGTH = 4

# One pattern per category; a category may need several alternatives (POSIX and Windows paths).
# The lookbehinds keep a secret-looking tail inside a longer word from counting as a hit.
CATEGORIES: dict[str, re.Pattern] = {
    "abs-path": re.compile(
        r"(?<![\w.~-])/(?:Users|home|opt|var|etc|root)(?:/[^\s\"'`<>(){}\[\],;]*)?(?![\w-])"
        r"|(?<![A-Za-z0-9])[A-Za-z]:\\[^\s\"'`<>]*"
    ),
    "aws-key": re.compile(
        r"(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)"
        r"[A-Z0-9]{16}(?![A-Za-z0-9])"
    ),
    "gh-token": re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{36,}"),
    "jwt": re.compile(r"(?<![\w-])eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"),
    "private-key": re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"),
    "google-api-key": re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])"),
    "slack-token": re.compile(r"(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9][A-Za-z0-9-]*"),
    "stripe-key": re.compile(r"(?<![A-Za-z0-9])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9]{32,})"),
    "ssh-key": re.compile(
        r"(?<![\w-])(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp(?:256|384|521)"
        r"|sk-(?:ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com)\s+AAAA[0-9A-Za-z+/]+={0,3}"
    ),
}


@dataclass(frozen=True)
class Finding:
    """One category found in one field; printed as `decisions[2].why: aws-key (AKIA…)`."""

    field: str
    category: str
    match: str = dataclass_field(repr=False)  # the secret itself: never printed

    @property
    def key(self) -> str:
        return f"{self.field}/{self.category}"

    @property
    def hint(self) -> str | None:
        return match_hint(self.category, self.match)

    def __str__(self) -> str:
        return finding_line(self)

    def as_dict(self) -> dict:
        return {"field": self.field, "category": self.category, "hint": self.hint}


def match_hint(kind: str, match) -> str | None:
    """The first characters of a match, to find it by; None for a private key (its first
    characters are the header every key shares) or a match too short to cut."""
    if kind == "private-key" or not isinstance(match, str) or len(match) < 2 * HINT_LENGTH:
        return None
    return match[:HINT_LENGTH] + "…"


def finding_line(finding) -> str:
    """How the client prints a finding, everywhere: the field, the kind and at most the first
    characters of the match (`next_step: aws-key (AKIA…)`), never the secret it refuses to send.
    `finding` is the pre-flight's Finding or a hub's {"path", "kind"} (any "match" in it is cut
    alike)."""
    if isinstance(finding, Finding):
        path, kind, match = finding.field, finding.category, finding.match
    else:
        path, kind, match = finding.get("path") or "?", finding.get("kind") or "?", finding.get("match")
    shown = match_hint(kind, match)
    return f"{path}: {kind}" + (f" ({shown})" if shown else "")


def scanned_fields(packet: dict) -> list[tuple[str, str]]:
    """(path, text) for every text field the pre-flight looks at, in packet order."""
    fields: list[tuple[str, str]] = []

    def add(path: str, value) -> None:
        if isinstance(value, str):
            fields.append((path, value))

    def add_list(name: str) -> None:
        for i, value in enumerate(_list(packet.get(name))):
            add(f"{name}[{i}]", value)

    def add_objects(name: str, keys: tuple[str, ...]) -> None:
        for i, item in enumerate(_list(packet.get(name))):
            if isinstance(item, dict):
                for key in keys:
                    add(f"{name}[{i}].{key}", item.get(key))

    add("goal", packet.get("goal"))
    add("next_step", packet.get("next_step"))
    add_list("success_criteria")
    add_list("constraints")
    add_objects("decisions", ("what", "why", "consequences"))
    add_objects("methods", ("when_applicable", "how"))
    add_objects("attempts", ("tried", "learned"))
    add_list("open_questions")
    return fields


def scan_packet(packet: dict) -> list[Finding]:
    """Every (field, category) hit, at most one per pair, in field then category order."""
    if not isinstance(packet, dict):
        return []
    findings = []
    for path, text in scanned_fields(packet):
        for category, pattern in CATEGORIES.items():
            found = pattern.search(text)
            if found:
                findings.append(Finding(path, category, found.group(0)))
    return findings


def _list(value) -> list:
    return value if isinstance(value, list) else []
