"""`ltm conformance --peer`: the federation checks, run by the client (a process of its own)
against the suite's hub given the second hub's address."""

import subprocess
import sys

from bench.live_hub import ROOT


def test_the_federation_checks_pass_between_the_two_hubs(hub_a, hub_b, make_token, alice):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ltm",
            "conformance",
            hub_a,
            "--token",
            make_token(alice),
            "--peer",
            hub_b.url,
            "--peer-token",
            hub_b.person("dave"),
            "--only",
            "federation",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("PASS") == 5, done.stdout
    assert "5 passed, 0 failed, 0 skipped" in done.stdout


def test_without_the_second_hubs_token_the_share_across_is_skipped(hub_a, hub_b, make_token, alice):
    done = subprocess.run(
        [sys.executable, "-m", "ltm", "conformance", hub_a, "--token", make_token(alice), "--peer", hub_b.url]
        + ["--only", "federation"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "skipped: give --token and --peer-token" in done.stdout, done.stdout
    assert "4 passed, 0 failed, 1 skipped" in done.stdout
