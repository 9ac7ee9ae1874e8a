"""The hub's secret scan on a fixed corpus (secret_corpus/, written by make_secret_corpus.py): made-up
secrets of 22 kinds in realistic packets (some outside the fields the client scans, some disguised),
and benign packets full of look-alikes. A secret counts as found when a finding names its path. Run
with -s to see the figures."""

import json
from collections import Counter
from pathlib import Path

import pytest

from packets.scan.detect import scan_packet
from packets.scan.patterns import KINDS

CORPUS = Path(__file__).resolve().parent / "secret_corpus"
# How the corpus disguises secrets, and the places outside the client's fields it puts them.
DISGUISED = ["percent-encoded", "soft-hyphen", "zero-width", "full-width", "base64", "hex", "prose"]
ELSEWHERE = {"project.ref", "project.name", "provenance.author_human", "provenance.author_model", "id", "parent_id"}


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (CORPUS / name).read_text().splitlines()]


SECRETS = load("secrets.jsonl")
BENIGN = load("benign.jsonl")


def test_the_corpus_is_as_large_as_promised():
    kinds = Counter(record["kind"] for record in SECRETS)
    forms = Counter(record["form"] for record in SECRETS)
    assert len(SECRETS) >= 150 and len(kinds) >= 15 and len(BENIGN) >= 500
    assert forms["split"] >= 15 and forms["url"] >= 15
    assert forms["elsewhere"] >= 15 and all(forms[form] >= 8 for form in DISGUISED)
    assert {record["path"] for record in SECRETS if record["form"] == "elsewhere"} >= ELSEWHERE
    assert set(kinds) <= set(KINDS)


@pytest.fixture(scope="module")
def results():
    found, right_kind = Counter(), Counter()
    for record in SECRETS:
        kinds = {finding.kind for finding in scan_packet(record["packet"]) if finding.path == record["path"]}
        found[record["kind"]] += bool(kinds)
        right_kind[record["kind"]] += record["kind"] in kinds
    flagged = [record["packet"]["id"] for record in BENIGN if scan_packet(record["packet"])]
    return found, right_kind, flagged


def test_recall_kind_accuracy_and_false_positives(results):
    found, right_kind, flagged = results
    total = Counter(record["kind"] for record in SECRETS)
    recall = sum(found.values()) / len(SECRETS)
    kind_accuracy = sum(right_kind.values()) / max(sum(found.values()), 1)
    false_positives = len(flagged) / len(BENIGN)
    print(f"\nrecall {recall:.1%} ({sum(found.values())}/{len(SECRETS)}), kind accuracy {kind_accuracy:.1%}")
    print(f"false positives {false_positives:.1%} ({len(flagged)}/{len(BENIGN)} benign packets)")
    for kind in sorted(total):
        print(f"  {kind:20} found {found[kind]}/{total[kind]}, right kind {right_kind[kind]}")
    assert recall >= 0.98
    assert false_positives <= 0.01, flagged[:10]
    assert kind_accuracy >= 0.95


@pytest.mark.parametrize("form", ["split", "url"])
def test_secrets_wrapped_over_lines_or_inside_urls_are_found(form):
    records = [record for record in SECRETS if record["form"] == form]
    missed = [r["kind"] for r in records if r["path"] not in {f.path for f in scan_packet(r["packet"])}]
    assert len(missed) <= len(records) * 0.02, missed


@pytest.mark.parametrize("form", ["elsewhere", *DISGUISED])
def test_secrets_outside_the_clients_fields_or_disguised_are_found_under_their_kind(form):
    records = [record for record in SECRETS if record["form"] == form]
    missed = [
        (r["kind"], r["path"])
        for r in records
        if r["kind"] not in {f.kind for f in scan_packet(r["packet"]) if f.path == r["path"]}
    ]
    assert missed == []


def test_the_benign_packets_have_projects_provenance_and_ids_of_every_shape():
    """The look-alikes where the client does not look: refs with a user and no password, UUIDs and
    ULIDs as ids, digests as the source hash."""
    with_project = [record["packet"] for record in BENIGN if "project" in record["packet"]]
    assert len(with_project) >= 100
    assert any("deploy@" in packet["project"]["ref"] for packet in with_project)
    assert any(len(packet["id"]) == 36 for packet in with_project)
    assert all(packet["provenance"]["source_hash"].startswith("sha256:") for packet in with_project)


def test_no_finding_holds_any_part_of_its_secret():
    for record in SECRETS:
        findings = scan_packet(record["packet"])
        shown = repr(findings) + json.dumps([finding.as_dict() for finding in findings])
        secret = "".join(record["secret"].replace("\\n", "\n").split())
        # Eight characters: shorter windows meet the kind's own name (github_pat_... and github-token).
        parts = {secret[i : i + 8] for i in range(len(secret) - 7)}
        assert not [part for part in parts if part in shown], record["kind"]
        assert all(set(finding._fields) == {"path", "kind"} for finding in findings)
