"""Public links against the real hub: `ltm pull|show|resume <link>` read a published packet with no
account, and say so when the link is dead."""

import json

import pytest

from cli.testing.command_line import out_of, packet_with, run, write_packet
from ltm.protocol.packet import canonical_json
from ltm.protocol.resume import render_resume


@pytest.fixture
def public(hub, config_dir, tmp_path, monkeypatch, capsys):
    """A packet of bob's, published; alice's client has no token and no hub: (packet, link)."""
    body = packet_with(id="01PUBLICPACKET000000000007", goal="goal 7")
    hub.as_user("bob")
    out_of(capsys, ["push", write_packet(tmp_path, body)])
    link = out_of(capsys, ["publish", body["id"]]).strip()
    hub.as_user("alice")
    (config_dir / "credentials").unlink()
    monkeypatch.delenv("LTM_HUB_URL")
    hub.sent.clear()
    return body, link


def test_pull_show_and_resume_take_a_public_link(hub, public, capsys):
    body, link = public
    assert out_of(capsys, ["pull", link]) == canonical_json(body)
    assert out_of(capsys, ["show", link]).startswith(body["id"])
    assert out_of(capsys, ["resume", link]) == render_resume(body)
    read = hub.last("GET", "/p/")
    assert read.path == f"{link.removeprefix(hub.url)}.json"
    assert "Authorization" not in read.headers


def test_show_of_a_public_link_suggests_a_resume_that_needs_no_account(public, capsys):
    body, link = public
    assert out_of(capsys, ["show", link]).endswith(f"\nresume it with `ltm resume {link}` (no account needed)\n")


def test_a_public_json_link_works_too(public, capsys):
    body, link = public
    assert json.loads(out_of(capsys, ["pull", link + ".json"])) == body


def test_a_dead_public_link_says_so(hub, public, monkeypatch, capsys):
    body, link = public
    assert "not a published packet" in run(capsys, ["pull", f"{hub.url}/p/nosuchslug"], code=1).err
    monkeypatch.setenv("LTM_HUB_URL", hub.url)
    hub.as_user("bob")
    out_of(capsys, ["unpublish", body["id"]])
    monkeypatch.delenv("LTM_HUB_URL")
    monkeypatch.setenv("LTM_CONFIG_DIR", str(hub.folder))  # alice again, with no token and no hub
    assert "not a published packet" in run(capsys, ["pull", link], code=1).err


def test_resume_thread_of_a_public_link_is_a_usage_error(public, capsys):
    assert "--thread needs a packet id" in run(capsys, ["resume", public[1], "--thread"], code=2).err
