"""`ltm conformance` against the real hub (pytest-django's live_server, on the suite's database):
every core and extension check passes but the hub's known deviations (ltm/conformance/
known_deviations/hub.json, each with its reason), the fuzz finds nothing, and the kit leaves
nothing behind."""

import json

import pytest

from ltm.conformance import vectors
from ltm.main import main

# Without a person at a browser, these device-flow checks always skip.
NEEDS_A_PERSON = {
    "a code the person denied: access_denied",
    "a code polled after expires_in: expired_token",
    "an approved code gives an access token that reads /v1",
}
# The hub flags secrets by default (LTM_SECRET_SCAN=flag): the check of a hub that refuses skips.
NEEDS_A_REFUSING_HUB = {"a hub that refuses: 422 with the findings, and nothing stored"}


@pytest.fixture
def two_accounts(hub):
    from oauth.testing import ensure_cli_application

    ensure_cli_application()  # the device-flow group needs the `ltm-cli` client
    (alice, alice_token), (bob, bob_token) = hub.person("alice"), hub.person("bob")
    return alice, alice_token, bob, bob_token


def test_the_hub_passes_every_check_and_the_fuzz(two_accounts, hub, tmp_path, capsys):
    from packets.models import Packet, Share
    from teams.models import Team

    alice, alice_token, bob, bob_token = two_accounts
    report = tmp_path / "report.json"
    argv = [
        "conformance",
        hub.url,
        "--token",
        alice_token,
        "--token2",
        bob_token,
        "--fuzz",
        "300",
        "--seed",
        "27",
        "--format",
        "json",
        "-o",
        str(report),
    ]
    code = main(argv)
    printed = capsys.readouterr().out
    results = json.loads(report.read_text())
    failed = {(check["group"], check["name"]) for check in results["checks"] if check["outcome"] == "fail"}
    assert failed == set(vectors.known_deviations("hub")) and code == (1 if failed else 0), printed
    skipped = {check["name"] for check in results["checks"] if check["outcome"] == "skip"}
    assert skipped == NEEDS_A_PERSON | NEEDS_A_REFUSING_HUB
    groups = {check["group"] for check in results["checks"] if check["outcome"] == "pass"}
    assert {"search", "threads", "shares", "findings", "teams", "publish", "device-flow", "fuzz"} <= groups
    assert f"{len(failed)} failed" in printed.splitlines()[-1]
    print(printed.splitlines()[-1])  # the summary line, for pytest -rP
    # Everything the run created was deleted again.
    assert not Packet.objects.exists()
    assert not Team.objects.exists()
    assert not Share.objects.exists()


def test_a_hub_that_refuses_secrets_passes_the_findings_group_and_skips_the_flag_checks(
    two_accounts, hub, settings, capsys
):
    from packets.models import Packet

    settings.LTM_SECRET_SCAN = "refuse"
    _, alice_token, _, bob_token = two_accounts
    code = main(["conformance", hub.url, "--token", alice_token, "--token2", bob_token, "--only", "findings"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "PASS  findings [extension]: a hub that refuses: 422 with the findings, and nothing stored" in printed
    assert printed.count("SKIP  findings") == 4
    # Each flag check says why: the hub's own 422.
    assert printed.count("the server does not offer a secret scan that flags") == 4
    assert "status 422, expected 201" in printed
    assert not Packet.objects.exists()
    print(printed.splitlines()[-1])


def test_every_known_deviation_of_the_hub_names_a_check_of_the_kit_and_says_why():
    checks = {(group["group"], check["name"]) for group in vectors.groups() for check in group["checks"]}
    for key, reason in vectors.known_deviations("hub").items():
        assert key in checks, f"no such check: {key}"
        assert len(reason.strip()) >= 20, f"say why the hub fails {key}"
