"""The client (a process of its own) and federation: `ltm conformance --peer`, the federation checks
against the suite's hub given the second hub's address; `ltm share` to an address on the other
hub and `ltm inbox --sent` showing it delivered."""

import os
import subprocess
import sys

from bench.live_hub import ROOT
from packets.testing import push_packet


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


def test_ltm_share_hands_a_packet_to_someone_on_the_other_hub_and_inbox_sent_shows_it(
    hub_a, hub_b, make_token, alice, tmp_path
):
    folder = tmp_path / "config"
    folder.mkdir(mode=0o700)
    (folder / "credentials").write_text(make_token(alice) + "\n")
    env = {**os.environ, "LTM_HUB_URL": hub_a, "LTM_CONFIG_DIR": str(folder)}
    packet = push_packet(alice)
    hub_b.person("bob")

    def ltm(*arguments):
        return subprocess.run(
            [sys.executable, "-m", "ltm", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )

    shared = ltm("share", packet.pk, f"bob@{hub_b.host}")
    assert shared.returncode == 0, shared.stderr
    assert f"sending {packet.pk} to bob@{hub_b.host}" in shared.stderr
    listed = ltm("inbox", "--sent")
    assert f"bob@{hub_b.host} (delivered)" in listed.stdout, listed.stdout + listed.stderr
