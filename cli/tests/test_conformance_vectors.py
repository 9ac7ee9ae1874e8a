"""The shipped conformance vectors: valid against their format's schema, quoting the documents they
enforce word for word, and keeping this hub's extensions out of the core groups."""

import json
import re
from pathlib import Path

import jsonschema
import pytest

from ltm.conformance import report, vectors
from ltm.conformance.runner import Result

ROOT = Path(__file__).resolve().parents[2]
# The protocol reference as the repository keeps it (CI checks it against ../shared/protocol/README.md).
SOURCES = {vectors.PROTOCOL_REFERENCE: ROOT / "tests" / "shared_protocol_README.md"}
EXTENSION_PATHS = re.compile(
    r"/v1/(search|me|export|shares|account|findings)|/thread\b|/events\b|/transfer\b|/shares\b|/findings\b"
)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_the_format_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(vectors.format_schema())


@pytest.mark.parametrize("name", vectors.file_names())
def test_every_vector_file_is_valid_against_the_format_schema(name):
    errors = list(jsonschema.Draft202012Validator(vectors.format_schema()).iter_errors(vectors.read(name)))
    assert errors == [], [f"{error.json_path}: {error.message[:200]}" for error in errors]


def test_the_format_schema_refuses_a_step_without_an_expectation():
    broken = {"group": "x", "title": "x", "checks": [{"name": "x", "spec": {"section": "s", "quote": "0123456789"}}]}
    broken["checks"][0]["steps"] = [{"method": "GET", "path": "/v1/healthz"}]
    assert not jsonschema.Draft202012Validator(vectors.format_schema()).is_valid(broken)


def test_every_check_quotes_its_source_word_for_word():
    for group in vectors.groups():
        for check in group["checks"]:
            source = vectors.source(check["spec"])
            text = (SOURCES[source] if source in SOURCES else ROOT / source).read_text("utf-8")
            assert _flat(check["spec"]["quote"]) in _flat(text), f"{group['group']}: {check['name']}"


def test_extension_groups_quote_the_hub_docs_and_core_groups_the_spec():
    for group in vectors.groups():
        sources = {vectors.source(check["spec"]) for check in group["checks"]}
        assert (sources != {vectors.PROTOCOL_REFERENCE}) == group.get("extension", False), group["group"]


def test_a_failure_cites_the_document_it_quotes_by_its_own_name():
    # The core groups quote this repository's protocol reference, not upstream's SPEC.md.
    spec = {"section": "3. Endpoints", "quote": "| DELETE /v1/packets/{id} | bearer | 204 |"}
    core = report.line(Result("packets", "delete", "fail", spec, detail="step 1"))
    assert '\n      protocol reference § 3. Endpoints: "| DELETE' in core
    assert "SPEC" not in core
    search = {"source": "docs/search.md", "section": "GET /v1/search", "quote": "an empty q is a 400"}
    extension = report.line(Result("search", "q", "fail", search, extension=True, detail="step 1"))
    assert '\n      docs/search.md § GET /v1/search: "an empty q' in extension


def test_every_check_that_publishes_needs_public_pages():
    # A server without them (the reference server) skips these checks instead of failing them.
    for group in vectors.groups():
        for check in group["checks"]:
            if any(step.get("path", "").endswith("/publish") for step in check["steps"]):
                assert "publish" in group.get("needs", []) + check.get("needs", []), check["name"]


def test_core_groups_use_no_endpoint_of_this_hub_alone():
    for group in vectors.groups():
        if not group.get("extension"):
            assert not EXTENSION_PATHS.search(json.dumps(group)), group["group"]


def test_every_need_is_a_known_capability():
    known = set(vectors.capabilities())
    for group in vectors.groups():
        for check in group["checks"]:
            assert set(group.get("needs", []) + check.get("needs", [])) <= known


def test_check_names_are_unique_within_a_group_and_groups_are_unique():
    names = [group["group"] for group in vectors.groups()]
    assert len(names) == len(set(names))
    for group in vectors.groups():
        checks = [check["name"] for check in group["checks"]]
        assert len(checks) == len(set(checks)), group["group"]


def test_the_required_groups_are_shipped():
    shipped = {group["group"]: group.get("extension", False) for group in vectors.groups()}
    core = {
        "health",
        "packets",
        "validation",
        "identity",
        "not-found",
        "auth",
        "teams",
        "publish",
        "device-flow",
        "list",
    }
    assert {name for name, extension in shipped.items() if not extension} == core
    assert {name for name, extension in shipped.items() if extension} == {"search", "threads", "shares", "findings"}


def test_a_check_that_acts_as_the_second_account_needs_one():
    for group in vectors.groups():
        for check in group["checks"]:
            if any(step.get("as") == "bob" for step in check["steps"]):
                assert "second_account" in group.get("needs", []) + check.get("needs", []), check["name"]
