"""The redaction pre-flight: every category has a hit and a near miss that must not fire."""

import pytest

from ltm.protocol.packet import example_packet
from ltm.protocol.redact import CATEGORIES, finding_line, scan_packet

# (category, text that must be reported, text that looks close but must not be)
CASES = [
    ("abs-path", "logs are in /home/dev/app/log.txt", "logs are in ~/app/log.txt and src/home/x"),
    ("abs-path", "open /Users/anna/proj", "the /homework folder and /usr/local/bin"),
    ("abs-path", r"built in C:\Users\anna\proj", "a ratio of 3:2, see C:drive"),
    ("abs-path", "edit /etc/hosts first", "and/or /etcetera"),
    ("aws-key", "key AKIAIOSFODNN7EXAMPLE here", "key AKIAIOSFODNN7EXAMPL here"),
    ("aws-key", "temp ASIAY34FZKBOKMUTVV7A", "lower akiaiosfodnn7example"),
    ("gh-token", "token ghp_" + "a" * 36, "token ghp_" + "a" * 35),
    ("gh-token", "token gho_" + "B1" * 20, "token ghx_" + "a" * 40),
    ("jwt", "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig-abc_123", "bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0"),
    ("private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "-----BEGIN PUBLIC KEY-----\nMIIB"),
    ("private-key", "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN CERTIFICATE-----"),
    ("google-api-key", "key AIza" + "S" * 35, "key AIza" + "S" * 34),
    ("slack-token", "slack xoxb-1234-5678-abcdef", "slack xoxz-1234-5678 and xoxb_1234"),
    ("stripe-key", "stripe sk_live_" + "4" * 24, "stripe sk_live_" + "4" * 19 + " and pk_live_" + "4" * 24),
    ("stripe-key", "hook whsec_" + "a" * 32, "hook whsec_" + "a" * 31),
    ("ssh-key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFoo anna@laptop", "we use ssh-ed25519 keys, not ssh-rsa"),
    ("ssh-key", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAB", "ssh-rsa BBBBB3NzaC1yc2E"),
]


def packet_with_goal(text):
    packet = example_packet()
    packet["goal"] = text
    return packet


@pytest.mark.parametrize("category,hit,near_miss", CASES)
def test_each_category_hits_and_ignores_near_miss(category, hit, near_miss):
    assert category in CATEGORIES
    hits = [f for f in scan_packet(packet_with_goal(hit)) if f.field == "goal"]
    assert [f.category for f in hits] == [category]
    assert scan_packet(packet_with_goal(near_miss)) == []


def test_every_category_is_covered_by_a_case():
    assert {case[0] for case in CASES} == set(CATEGORIES)


def test_example_packet_is_clean():
    assert scan_packet(example_packet()) == []


def test_a_finding_prints_the_field_the_kind_and_at_most_four_characters():
    packet = example_packet()
    token = "ghp_" + "x" * 40
    packet["decisions"][1]["why"] = f"use {token} for CI"
    [finding] = scan_packet(packet)
    assert finding.key == "decisions[1].why/gh-token"
    assert str(finding) == finding_line(finding) == "decisions[1].why: gh-token (ghp_…)"
    assert token[:5] not in str(finding) + repr(finding)


def test_the_hubs_findings_print_through_the_same_function():
    assert finding_line({"path": "next_step", "kind": "aws-access-key"}) == "next_step: aws-access-key"
    # Should a hub ever send what matched, it is cut alike.
    shown = finding_line({"path": "goal", "kind": "aws-access-key", "match": "AKIAQ7XZ4KJ2MP3RTW5N"})
    assert shown == "goal: aws-access-key (AKIA…)"


def test_a_short_match_and_a_private_key_show_no_characters():
    packet = packet_with_goal("-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI")
    [finding] = scan_packet(packet)
    assert str(finding) == "goal: private-key"
    assert finding_line({"path": "goal", "kind": "x", "match": "abcdefg"}) == "goal: x"


def test_at_most_one_finding_per_field_and_category():
    text = "/home/a/x and /opt/b and C:\\tmp and AKIAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPLF"
    findings = scan_packet(packet_with_goal(text))
    assert [f.key for f in findings] == ["goal/abs-path", "goal/aws-key"]
    assert [str(f) for f in findings] == ["goal: abs-path (/hom…)", "goal: aws-key (AKIA…)"]


def test_only_listed_fields_are_scanned():
    packet = example_packet()
    secret = "AKIAIOSFODNN7EXAMPLE"
    packet["project"]["ref"] = "/home/dev/repo"  # not a scanned field
    packet["provenance"]["author_human"] = secret  # not a scanned field
    assert scan_packet(packet) == []
    packet.update(
        success_criteria=[secret],
        constraints=["ok", secret],
        open_questions=[secret],
        next_step=secret,
    )
    packet["decisions"][0]["consequences"] = secret
    packet["methods"][1]["when_applicable"] = secret
    packet["methods"][0]["how"] = secret
    packet["attempts"][0]["tried"] = secret
    packet["attempts"][0]["learned"] = secret
    fields = [f.field for f in scan_packet(packet)]
    assert fields == [
        "next_step",
        "success_criteria[0]",
        "constraints[1]",
        "decisions[0].consequences",
        "methods[0].how",
        "methods[1].when_applicable",
        "attempts[0].tried",
        "attempts[0].learned",
        "open_questions[0]",
    ]


def test_scan_tolerates_odd_shapes():
    assert scan_packet({"goal": 5, "decisions": "x", "attempts": [None, "y"]}) == []
    assert scan_packet([]) == []
