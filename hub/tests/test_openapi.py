"""The OpenAPI description at /v1/openapi.json keeps in step with the contract and the hub.

The contract is the endpoint table of the protocol's section 3. The protocol's README lives in
`shared/protocol/README.md` beside the repository; tests/shared_protocol_README.md is a copy of it,
so that a fresh clone checks the contract too (nothing here reads outside the repository). CI
fails when the two differ (.ci/run compares them); refresh the copy with
`cp ../shared/protocol/README.md tests/shared_protocol_README.md`.
"""

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from jsonschema import Draft202012Validator, FormatChecker

from core.openapi import SERVER_LIMITS
from core.testing import (
    ApiClient,
    assert_described,
    openapi_document,
    openapi_operations,
    openapi_resolve,
    openapi_response_schema,
    path_template,
)
from packets.testing import packet_v01, packet_v02

pytestmark = pytest.mark.django_db

CONTRACT = Path(__file__).resolve().parents[2] / "tests" / "shared_protocol_README.md"

# What the Go client decodes from each answer (hub/testing/go_client.py, go_decode): the
# fields of the body, and of the objects it nests.
GO_CLIENT_READS = {
    ("post", "/v1/packets", 201): {"id": None},
    ("get", "/v1/packets", 200): {"packets": {"id", "created_at", "goal"}},
    ("get", "/v1/packets/{}", 200): {"id": None, "created_at": None, "ltm_version": None, "goal": None},
    ("post", "/v1/packets/{}/publish", 200): {"id": None, "public_url": None},
    ("post", "/v1/teams", 201): {"team": {"id", "name", "owner_id"}},
    ("get", "/v1/teams", 200): {"teams": {"id", "name", "owner_id", "created_at"}},
    ("get", "/v1/teams/{}/members", 200): {"members": {"user_id", "display", "email", "role", "joined_at"}},
    ("post", "/v1/teams/{}/invites", 201): {"code": None, "url": None, "expires_at": None},
    ("post", "/v1/invites/{}/accept", 201): {"token": None, "user": {"id", "display"}, "team": {"name"}},
}


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        return openapi_document()


def contract_rows() -> list[tuple[str, str, set[int]]]:
    """(method, templated path, success statuses) of each row of section 3's endpoint table."""
    section = CONTRACT.read_text().split("## 3. Endpoints", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        found = re.match(r"\| (GET|POST|DELETE) (/\S+)[^|]*\| [^|]*\| ([\d/]+)", line)
        if found:
            method, path, statuses = found.groups()
            path = re.split(r"[?\[]", path)[0]
            rows.append((method.lower(), path_template(path), {int(code) for code in statuses.split("/")}))
    assert len(rows) >= 15, section
    return rows


def properties(document, schema) -> dict:
    schema = openapi_resolve(document, schema)
    if schema.get("type") == "array":
        return properties(document, schema["items"])
    return schema.get("properties", {})


def test_every_endpoint_of_the_contract_is_described_with_its_success_status(document):
    described = openapi_operations(document)
    for method, path, statuses in contract_rows():
        assert (method, path) in described, (method, path)
        documented = {int(code) for code in described[(method, path)]["responses"] if code.startswith("2")}
        assert documented and documented <= statuses, (method, path, documented, statuses)


def test_every_operation_describes_its_errors_as_the_error_body(document):
    for (method, path), operation in openapi_operations(document).items():
        responses = operation["responses"]
        assert "503" in responses, (method, path)
        for code, response in responses.items():
            if code >= "400" and code not in SERVER_LIMITS:  # the error body, or (readyz's 503) one that adds to it
                schema = response["content"]["application/json"]["schema"]
                assert properties(document, schema)["error"] == {"type": "string"}, (method, path, code)
        if operation.get("security") and {} not in operation["security"]:
            assert {"401", "403"} <= set(responses), (method, path)
    assert properties(document, {"$ref": "#/components/schemas/Error"}) == {"error": {"type": "string"}}


def test_every_operation_describes_the_limits_the_server_answers_before_the_hub(document):
    """Found by schemathesis (checks/fuzz.py): a query past the web server's limit is its 414,
    which the description first left out; checks/stack_check.py sees both statuses from the real
    server (granian, through web.py)."""
    paths = {path for _, path in openapi_operations(document)}
    assert {"/v1/packets", "/oauth/register", "/.well-known/oauth-authorization-server"} <= paths
    for (method, path), operation in openapi_operations(document).items():
        responses = operation["responses"]
        assert {"414", "431"} <= set(responses), (method, path)
        assert "content" not in responses["414"] and "content" not in responses["431"], (method, path)


def test_bearer_security_and_the_optional_bearer_of_accept(document):
    schemes = document["components"]["securitySchemes"]
    assert {scheme["scheme"] for scheme in schemes.values()} == {"bearer"} and len(schemes) == 2
    described = openapi_operations(document)
    assert {} in described[("post", "/v1/invites/{}/accept")]["security"]
    assert {} not in described[("get", "/v1/teams")]["security"]


def test_the_fields_the_go_client_reads_are_described(document):
    for (method, path, status), fields in GO_CLIENT_READS.items():
        schema = openapi_response_schema(document, method, path, status)
        if path == "/v1/packets/{}":  # the packet itself: every version has these fields
            for version in openapi_resolve(document, schema)["oneOf"]:
                assert set(fields) <= set(properties(document, version)), version
            continue
        described = properties(document, schema)
        for name, nested in fields.items():
            assert name in described, (method, path, name)
            if nested:
                assert nested <= set(properties(document, described[name])), (method, path, name)


def test_the_packet_is_one_of_the_protocol_schemas_and_its_headers_are_described(document):
    from ltm.protocol.packet import schema

    components = document["components"]["schemas"]
    assert components["PacketV01"]["properties"] == schema("0.1")["properties"]
    assert components["PacketV02"]["properties"] == schema("0.2")["properties"]
    ok = openapi_operations(document)[("get", "/v1/packets/{}")]["responses"]["200"]
    assert set(ok["headers"]) == {"X-LTM-Published-At", "X-LTM-Public-URL"}
    pushed = openapi_operations(document)[("post", "/v1/packets")]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    assert openapi_resolve(document, pushed)["oneOf"] == [
        {"$ref": "#/components/schemas/PacketV01", "properties": {"ltm_version": {"const": "0.1"}}},
        {"$ref": "#/components/schemas/PacketV02", "properties": {"ltm_version": {"const": "0.2"}}},
    ]


def test_a_packet_with_only_the_fields_both_versions_have_is_one_of_them(document):
    """The v0.1 schema takes any "N.N" as its version: without the version pinned in each branch,
    a v0.2 packet with none of v0.2's own fields would match both schemas, and so fail `oneOf`."""
    pushed = openapi_operations(document)[("post", "/v1/packets")]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    validator = Draft202012Validator({**pushed, "components": document["components"]}, format_checker=FormatChecker())
    required = {"id": "01BOTHVERSIONS0000", "created_at": "2026-04-18T22:41:03Z", "goal": "g", "next_step": "n"}
    for version in ("0.1", "0.2"):
        assert validator.is_valid({"ltm_version": version, **required}), version
    assert not validator.is_valid({"ltm_version": "9.9", **required})


def test_the_query_parameters_are_described_from_the_serializers_that_read_them(document):
    """Each view reads its query through a serializer (core.params.query) that the description
    also takes its parameters from: names, types, enums and defaults as the hub applies them."""
    from teams.models import TeamEvent

    def described(method, path):
        parameters = openapi_operations(document)[(method, path_template(path))]["parameters"]
        return {p["name"]: (p["schema"], p.get("required", False)) for p in parameters if p["in"] == "query"}

    team = ({"type": "string"}, False)
    assert described("post", "/v1/packets") == {"team": team}
    assert described("get", "/v1/packets") == {"limit": ({"type": "integer", "default": 50}, False), "team": team}
    assert described("get", "/v1/search") == {
        "q": ({"type": "string", "minLength": 1}, True),
        "team": team,
        "limit": ({"type": "integer", "default": 20}, False),
        "mode": ({"type": "string", "enum": ["hybrid", "keyword", "semantic"], "default": "hybrid"}, False),
    }
    assert described("get", "/v1/packets/{}/related") == {"limit": ({"type": "integer", "default": 5}, False)}
    assert described("get", "/v1/export") == {
        "format": ({"type": "string", "enum": ["jsonl", "markdown"], "default": "jsonl"}, False),
        "team": team,
    }
    assert described("get", "/v1/teams/{}/events") == {
        "limit": ({"type": "integer", "default": 50}, False),
        "before": ({"type": "integer"}, False),
        "kind": ({"type": "string", "enum": sorted(kind for kind, _ in TeamEvent.KINDS)}, False),
    }


def test_the_extensions_beyond_the_contract_are_described(document):
    described = openapi_operations(document)
    for operation in (
        ("get", "/v1/teams/{}/invites"),
        ("delete", "/v1/teams/{}/invites/{}"),
        ("post", "/v1/account/claim-link"),
        ("get", "/v1/packets/{}/related"),
    ):
        assert operation in described, operation


def test_real_answers_validate_against_the_description(document, api_as, alice, bob):
    api = api_as(alice)
    for packet in (packet_v01(), packet_v02()):
        created = api.post("/v1/packets", packet)
        assert_described(document, "post", "/v1/packets", created)
        assert_described(document, "get", "/v1/packets/{}", api.get(f"/v1/packets/{packet['id']}"))
    assert_described(document, "post", "/v1/packets/{}/publish", api.post(f"/v1/packets/{packet['id']}/publish"))
    assert_described(document, "get", "/v1/packets", api.get("/v1/packets?limit=5"))
    assert_described(document, "post", "/v1/teams", api.post("/v1/teams", {"name": "core"}))
    assert_described(document, "get", "/v1/teams", api.get("/v1/teams"))
    invite = api.post("/v1/teams/core/invites", {})
    assert_described(document, "post", "/v1/teams/{}/invites", invite)
    assert_described(document, "get", "/v1/teams/{}/invites", api.get("/v1/teams/core/invites"))
    joined = Client().post(f"/v1/invites/{invite.json()['code']}/accept", "{}", content_type="application/json")
    assert_described(document, "post", "/v1/invites/{}/accept", joined)
    assert_described(document, "get", "/v1/teams/{}/members", api.get("/v1/teams/core/members"))
    joiner = ApiClient(joined.json()["token"])  # no password yet: it may ask for a claim link
    assert_described(document, "post", "/v1/account/claim-link", joiner.post("/v1/account/claim-link"))
    assert_described(document, "get", "/v1/healthz", Client().get("/v1/healthz"))
    refusals = {
        ("get", "/v1/teams/{}/members", 404): api_as(bob).get("/v1/teams/core/members"),
        ("get", "/v1/teams", 401): Client().get("/v1/teams"),
        ("post", "/v1/teams", 409): api.post("/v1/teams", {"name": "core"}),
        ("post", "/v1/account/claim-link", 409): api.post("/v1/account/claim-link"),
    }
    for (method, path, status), refused in refusals.items():
        assert refused.status_code == status
        assert_described(document, method, path, refused)


def test_a_nul_in_the_query_is_a_described_400(document, api_as, alice):
    """Found by schemathesis (checks/fuzz.py, seed 20260418): core.middleware refuses a NUL in the
    query before any view, a 400 the description first left out."""
    response = api_as(alice).get("/v1/packets?limit=15222276053674514756695721229942784&team=%C4%9A%C2%98%00%14u")
    assert response.status_code == 400
    assert_described(document, "get", "/v1/packets", response)


def test_the_docs_page_is_served_from_the_hubs_own_static_files():
    response = Client().get("/v1/docs")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/v1/openapi.json" in page
    scripts = re.findall(r'<script[^>]+src="([^"]+)"', page)
    assert scripts and all(src.startswith("/static/") for src in scripts), scripts


def test_the_oauth_endpoints_for_mcp_clients_are_described_and_answer_as_described(document, db):
    described = openapi_operations(document)
    for operation in (
        ("get", "/.well-known/oauth-protected-resource"),
        ("get", "/.well-known/oauth-protected-resource/mcp"),
        ("get", "/.well-known/oauth-authorization-server"),
        ("post", "/oauth/register"),
    ):
        assert operation in described, operation
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"):
        assert_described(document, "get", path, Client().get(path))
    registered = Client().post(
        "/oauth/register",
        data=json.dumps(
            {
                "redirect_uris": ["http://127.0.0.1:8765/cb"],
                "client_name": "agent",
                "token_endpoint_auth_method": "none",
            }
        ),
        content_type="application/json",
    )
    assert registered.status_code == 201
    assert_described(document, "post", "/oauth/register", registered)
