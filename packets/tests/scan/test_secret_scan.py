"""packets.scan.detect one kind at a time: what it finds, where it says it is, and that a finding
never carries the secret. The secrets are made up (packets.testing.secret_examples)."""

import json
import string

import pytest

from packets.scan.detect import Finding, scan_packet
from packets.scan.patterns import KINDS
from packets.testing.secret_examples import ALNUM, EXAMPLES, kinds_in, packet, rand


@pytest.mark.parametrize(("kind", "text"), EXAMPLES, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(EXAMPLES)])
def test_each_kind_is_found_and_named(kind, text):
    assert kind in kinds_in(text)


def test_every_kind_has_an_example():
    assert {kind for kind, _ in EXAMPLES} == set(KINDS)


def test_the_path_names_the_field_and_one_finding_per_field_and_kind():
    key = f"AKIA{rand(string.ascii_uppercase, 16)}"
    data = packet(
        decisions=[
            {"what": "Keep it", "why": "Fine", "locked": True},
            {"what": "Rotate", "why": "Fine", "locked": True},
            {"what": "Move", "why": f"{key} leaked twice: {key}", "locked": True},
        ],
        attempts=[{"tried": f"aws s3 ls with {key}", "outcome": "failed", "learned": "Nothing"}],
        success_criteria=["No key in the logs"],
        open_questions=["Who", f"Is {key} still active?"],
    )
    assert scan_packet(data) == [
        Finding("decisions[2].why", "aws-access-key"),
        Finding("attempts[0].tried", "aws-access-key"),
        Finding("open_questions[1]", "aws-access-key"),
    ]


def test_every_string_of_the_packet_is_scanned_and_named_by_its_json_path():
    key = f"AKIA{rand(string.ascii_uppercase, 16)}"
    token = f"ghp_{rand(ALNUM, 36)}"
    data = packet(
        id=token,
        parent_id=token,
        tags=[key],
        project={"name": key, "ref": f"https://x-access-token:{token}@github.com/org/repo"},
        provenance={"author_human": key, "author_model": f"model {token}"},
    )
    data["methods"] = [{"name": key, "when_applicable": "Always", "how": f"use {key}"}]
    data["attempts"] = [{"tried": "a", "outcome": "failed"}] * 2 + [{"tried": "b", "outcome": "failed", "learned": key}]
    # The client's fields first, in its order; then every other string in the packet's order.
    assert scan_packet(data) == [
        Finding("methods[0].how", "aws-access-key"),
        Finding("attempts[2].learned", "aws-access-key"),
        Finding("id", "github-token"),
        Finding("parent_id", "github-token"),
        Finding("tags[0]", "aws-access-key"),
        Finding("project.name", "aws-access-key"),
        Finding("project.ref", "github-token"),
        Finding("provenance.author_human", "aws-access-key"),
        Finding("provenance.author_model", "github-token"),
        Finding("methods[0].name", "aws-access-key"),
    ]


def test_a_random_id_is_not_a_secret():
    """Ids are random by design: the entropy check leaves them alone (a token's format does not)."""
    data = packet(id=rand(ALNUM, 40), parent_id=rand(ALNUM, 64))
    assert scan_packet(data) == []
    assert kinds_in(rand(ALNUM, 40)) == {"high-entropy-string"}  # the same string elsewhere


def test_a_key_that_is_not_a_plain_name_is_not_echoed_in_the_path():
    token = f"ghp_{rand(ALNUM, 36)}"
    assert scan_packet(packet(project={token: token})) == [Finding("project.*", "github-token")]


def test_the_packet_is_never_altered():
    data = packet(next_step=f"export GH_TOKEN=ghp_{rand(ALNUM, 36)}")
    before = json.dumps(data, sort_keys=True)
    assert scan_packet(data)
    assert json.dumps(data, sort_keys=True) == before


@pytest.mark.parametrize("value", [None, [], "a string", 42])
def test_not_a_packet_has_no_findings(value):
    assert scan_packet(value) == []


def test_odd_field_types_are_skipped():
    assert scan_packet(packet(goal=None, decisions="nope", attempts=[None, 3], constraints=[1, None])) == []


@pytest.mark.parametrize(("kind", "text"), EXAMPLES, ids=[f"{kind}-{i}" for i, (kind, _) in enumerate(EXAMPLES)])
def test_no_finding_holds_any_part_of_the_secret(kind, text):
    findings = scan_packet(packet(next_step=text, goal=text, open_questions=[text]))
    shown = repr(findings) + str(findings) + json.dumps([finding.as_dict() for finding in findings])
    secret = max(text.split(), key=len)
    assert findings
    assert not [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in shown]
    assert all(finding._fields == ("path", "kind") for finding in findings)
