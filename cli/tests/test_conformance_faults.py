"""The conformance runner against a small ltm server of the test's own (the faulty package, stdlib
http.server on 127.0.0.1): it passes every check when it follows the protocol, and each group
fails when the server breaks that group's rule."""

import json
import re

import pytest

from ltm.conformance import fuzz, vectors
from ltm.conformance.runner import Runner
from ltm.main import main

from .faulty import FAULTS, Server, start


@pytest.fixture
def serve():
    """Start a Server with the given faults; yields a function (faults) -> (base URL, Server)."""
    started = []

    def serve_with(faults=(), scan="flag"):
        http, base, server = start(faults, scan)
        started.append(http)
        return base, server

    yield serve_with
    for http in started:
        http.shutdown()
        http.server_close()


def _outcomes(base, only=None):
    runner = Runner(base, "tok-alice", "tok-bob")
    groups = [group for group in vectors.groups() if only is None or group["group"] == only]
    return runner, runner.run(groups)


def test_a_server_that_follows_the_protocol_passes_every_check(serve):
    base, server = serve()
    runner, results = _outcomes(base)
    failed = [f"{r.group}: {r.name}\n{r.detail}" for r in results if r.outcome == "fail"]
    assert failed == []
    assert {r.name for r in results if r.outcome == "skip"} == {
        "a code the person denied: access_denied",
        "a code polled after expires_in: expired_token",
        "an approved code gives an access token that reads /v1",
        "a hub that refuses: 422 with the findings, and nothing stored",  # this server flags
    }
    # Every packet, team and share the checks made is gone again.
    assert server.packets == {} and server.teams == {} and server.shares == {}
    assert runner.leftovers == []


@pytest.mark.parametrize("group", FAULTS)
def test_each_group_catches_its_fault(serve, group):
    base, _ = serve({group})
    _, results = _outcomes(base, only=group)
    failed = [result for result in results if result.outcome == "fail"]
    assert failed, f"no check of {group} noticed: {FAULTS[group]}"
    assert all(result.group == group for result in failed)


def test_a_server_that_refuses_secrets_skips_the_flag_checks_with_its_422(serve):
    base, server = serve(scan="refuse")
    _, results = _outcomes(base, only="findings")
    outcomes = {result.name: result for result in results}
    assert [r.name for r in results if r.outcome == "fail"] == []
    assert outcomes["a hub that refuses: 422 with the findings, and nothing stored"].outcome == "pass"
    skipped = [result for result in results if result.outcome == "skip"]
    assert len(skipped) == 4
    assert all("does not offer a secret scan that flags" in r.detail and "status 422" in r.detail for r in skipped)
    assert server.packets == {}


@pytest.mark.parametrize(
    ("group", "absent"),
    [
        # A server without shares answers 404 on its routes, as it does for an unknown user.
        ("shares", lambda parts: "shares" in parts or parts == ["v1", "me"]),
        ("findings", lambda parts: "findings" in parts),
    ],
)
def test_an_extension_the_server_lacks_is_skipped_not_failed(serve, group, absent):
    base, server = serve()
    server.route = lambda method, parts, *rest: (
        (404, {"error": "not found"}, {}) if absent(parts) else Server.route(server, method, parts, *rest)
    )
    _, results = _outcomes(base, only=group)
    assert {result.outcome for result in results} == {"skip"}
    assert all("the server does not offer" in result.detail for result in results)
    assert server.packets == {}


def test_without_a_second_token_the_checks_between_accounts_skip_and_say_why(serve):
    base, _ = serve()
    results = Runner(base, "tok-alice").run([group for group in vectors.groups() if group["group"] == "not-found"])
    skipped = [result for result in results if result.outcome == "skip"]
    assert skipped and all("pass --token2" in result.detail for result in skipped)


def test_a_capability_the_server_lacks_is_skipped_with_its_own_answer(serve):
    base, server = serve()
    server.route = lambda method, parts, *rest: (
        (404, {"error": "not found"}, {})
        if parts[:2] == ["v1", "teams"]
        else Server.route(server, method, parts, *rest)
    )
    results = Runner(base, "tok-alice", "tok-bob").run(
        [group for group in vectors.groups() if group["group"] == "teams"]
    )
    assert {result.outcome for result in results} == {"skip"}
    assert "the server does not offer teams" in results[0].detail and "status 404, expected 200" in results[0].detail


def test_the_command_reports_a_failure_in_full_and_exits_1(serve, capsys):
    base, _ = serve({"identity"})
    code = main(["conformance", base, "--token", "tok-alice", "--token2", "tok-bob", "--only", "identity"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL  identity: another account cannot overwrite a packet" in out
    assert '"Pushing an `id` that already exists' in out  # the SPEC sentence it enforces
    assert "POST http" in out and "came back:" in out and "status 201, expected 4xx" in out
    assert re.search(r"conformance of .*: \d+ passed, [1-9]\d* failed", out.splitlines()[-1])


def test_the_command_writes_junit_and_json_and_exits_0_when_all_pass(serve, tmp_path, capsys):
    base, _ = serve()
    junit, as_json = tmp_path / "report.xml", tmp_path / "report.json"
    argv = ["conformance", base, "--token", "tok-alice", "--token2", "tok-bob", "--only", "health,auth"]
    assert main([*argv, "--format", "junit", "-o", str(junit)]) == 0
    assert main([*argv, "--format", "json", "-o", str(as_json)]) == 0
    assert '<testsuite name="health" tests="2" failures="0" skipped="0">' in junit.read_text()
    document = json.loads(as_json.read_text())
    assert {check["group"] for check in document["checks"]} == {"health", "auth"}
    assert document["counts"] == {"pass": len(document["checks"])}


def test_an_unknown_group_is_a_usage_error(capsys):
    assert main(["conformance", "http://127.0.0.1:9", "--token", "t", "--only", "nope"]) == 2
    assert "no group nope; the groups are:" in capsys.readouterr().err


def test_the_help_explains_the_kit_to_a_server_author(capsys):
    assert main(["conformance", "--help"]) == 0
    text = capsys.readouterr().out
    for words in ("--token2", "--fuzz N", "--seed", "quotes the sentence", "exit code is 0", "groups, in the order"):
        assert words in text


def test_the_fuzz_reports_a_5xx_with_its_seed_and_finds_nothing_on_a_sound_server(serve):
    base, server = serve()
    assert [r.outcome for r in fuzz.run(Runner(base, "tok-alice"), 150, seed=5)] == ["pass"]
    assert server.packets == {} and server.teams == {}
    original = server.route

    def crash_on_teams(method, parts, *rest):
        if parts[:2] == ["v1", "teams"]:
            return 500, {"error": "boom"}, {}
        return original(method, parts, *rest)

    server.route = crash_on_teams
    failures = fuzz.run(Runner(base, "tok-alice"), 150, seed=5)
    assert failures and all(r.outcome == "fail" for r in failures)
    assert "replay with --fuzz 150 --seed 5" in failures[0].detail and "a server error: 500" in failures[0].detail


def test_the_same_seed_sends_the_same_requests():
    first, again = fuzz.Generator(9).requests(50), fuzz.Generator(9).requests(50)
    assert first == again
    assert first != fuzz.Generator(10).requests(50)


@pytest.mark.parametrize("seed", [38, 40])
def test_a_decision_mutated_into_a_string_is_mutated_no_further(seed):
    # These seeds first turn a packet's decisions into a list of strings, then pick the first
    # decision to mutate again: the generator must not raise (the kit would stop with no report).
    assert len(fuzz.Generator(seed).requests(2000)) == 2000
