"""`ltm conformance` against the public reference server (`ltm server`), held to the deviations
known of it: ltm/conformance/known_deviations/reference.json, each with its reason. A failure not
on that list fails the test, and so does a listed check that no longer fails (take it off then).

The reference binary is reached only through LTM_REFERENCE_BIN (.ci/run sets it to the one beside
the repository, shared/reference/ltm). Without it the test skips, and in CI fails.
"""

import json
import os
import socket
import subprocess
import time
import urllib.request
from importlib import resources
from pathlib import Path

import pytest

from ltm.conformance import vectors
from ltm.main import main

REFERENCE_BIN = "LTM_REFERENCE_BIN"
START_SECONDS = 15  # the longest the server may take to answer /v1/healthz
STOP_SECONDS = 10  # it stops within 5 seconds of a SIGTERM


def known_deviations() -> dict[tuple[str, str], str]:
    """(group, check name) -> why the reference server fails that check."""
    text = resources.files("ltm.conformance").joinpath("known_deviations", "reference.json").read_text("utf-8")
    return {(item["group"], item["check"]): item["reason"] for item in json.loads(text)["deviations"]}


def test_every_known_deviation_names_a_check_of_the_kit_and_says_why():
    checks = {(group["group"], check["name"]) for group in vectors.groups() for check in group["checks"]}
    for key, reason in known_deviations().items():
        assert key in checks, f"no such check: {key}"
        assert len(reason.strip()) >= 20, f"say why the reference server fails {key}"


def _binary() -> Path:
    value = os.environ.get(REFERENCE_BIN)
    if not value:
        reason = (
            f"{REFERENCE_BIN} is not set: point it at the reference `ltm` binary "
            f"(e.g. {REFERENCE_BIN}=../shared/reference/ltm) to hold it to its known deviations"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason)  # in CI the reference is always there: a skip would hide it
        pytest.skip(reason)
    binary = Path(value).resolve()
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        pytest.fail(f"{REFERENCE_BIN}={value} is not an executable file")
    return binary


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/v1/healthz", timeout=1) as reply:
            return reply.status == 200
    except OSError:
        return False


@pytest.fixture
def reference(tmp_path):
    """The reference server on a free loopback port, with a fresh database and two accounts:
    (base URL, first token, second token)."""
    binary = _binary()
    env = {**os.environ, "HOME": str(tmp_path)}  # whatever it would keep in a home stays here
    database = str(tmp_path / "ltm.db")

    def run(*args) -> str:
        done = subprocess.run([binary, "server", *args], capture_output=True, text=True, timeout=30, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()  # a token is all it prints on stdout

    first, second = run("init", "--db", database), run("issue-token", "second", "--db", database)
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "server.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [binary, "server", "--db", database, "--addr", f"127.0.0.1:{port}", "--external-url", url],
            stdout=output,
            stderr=subprocess.STDOUT,
            env=env,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(url):
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the reference server did not start on {url}:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield url, first, second
    finally:
        server.terminate()
        try:
            server.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_reference_server_fails_only_its_known_deviations(reference, tmp_path, capsys):
    url, first, second = reference
    report = tmp_path / "report.json"
    main(["conformance", url, "--token", first, "--token2", second, "--format", "json", "-o", str(report)])
    printed = capsys.readouterr().out
    checks = json.loads(report.read_text())["checks"]
    failed = {(check["group"], check["name"]): check for check in checks if check["outcome"] == "fail"}
    known = known_deviations()
    new = [f"{group}: {name}\n{failed[group, name]['detail']}" for group, name in failed.keys() - known.keys()]
    gone = [f"{group}: {name} ({known[group, name]})" for group, name in known.keys() - failed.keys()]
    assert not new and not gone, (
        "the reference server's conformance changed:\n"
        + "".join(f"\nnew failure, not a known deviation: {text}\n" for text in sorted(new))
        + "".join(f"\nknown deviation that no longer fails (take it off the list): {text}\n" for text in sorted(gone))
    )
    # Without public pages it skips every check that publishes, and says why.
    skipped = [check for check in checks if check["outcome"] == "skip" and "public pages" in check["detail"]]
    assert {check["group"] for check in skipped} >= {"publish", "auth", "not-found"}
    print(printed.splitlines()[-1])  # the summary line, for pytest -rP
